use clap::{CommandFactory, FromArgMatches};

/// Large blocks get transparent huge pages (see `fairsim::huge_pages`).
#[global_allocator]
static ALLOC: fairsim::huge_pages::HugePageAlloc = fairsim::huge_pages::HugePageAlloc;

fn main() {
    restore_sigpipe();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let color = fairsim::cli::style::init(fairsim::cli::style::from_args(&args));
    let parsed = fairsim::cli::Cli::command()
        .color(color)
        .try_get_matches_from(&args)
        .and_then(|m| fairsim::cli::Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => {
            // clap prints help/version to stdout with exit 0, usage errors to stderr with 2
            let _ = e.print();
            std::process::exit(if e.use_stderr() { 2 } else { 0 });
        }
    };
    if let Err(e) = fairsim::cli::execute(cli) {
        eprintln!("{}", fairsim::cli::style::paint(&format!("error: {e}")));
        std::process::exit(e.exit_code());
    }
}

/// Rust ignores SIGPIPE, so `fairsim validate big.yaml | head` panicked on
/// its first print after `head` exited. A command-line tool should end
/// quietly instead, as `cat` does; output files are unaffected (a closed
/// pipe only ever concerns stdout).
fn restore_sigpipe() {
    #[cfg(target_os = "linux")]
    // SAFETY: called first thing in main, before any thread starts;
    // SIG_DFL is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

use clap::Parser;

/// Large blocks get transparent huge pages (see `fairsim::huge_pages`).
#[global_allocator]
static ALLOC: fairsim::huge_pages::HugePageAlloc = fairsim::huge_pages::HugePageAlloc;

fn main() {
    let cli = match fairsim::cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // clap prints help/version to stdout with exit 0, usage errors to stderr with 2
            let _ = e.print();
            std::process::exit(if e.use_stderr() { 2 } else { 0 });
        }
    };
    if let Err(e) = fairsim::cli::execute(cli) {
        eprintln!("error: {e}");
        std::process::exit(e.exit_code());
    }
}

use clap::Parser;

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

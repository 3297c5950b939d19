//! The command line: the commands and the match that runs them; each
//! command's options and work are in its own file (run, validate, extras)
//! or its stage's module (sweep, tune, check, ...). `main.rs` only maps the
//! returned error to an exit code.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::error::{Error, Result};
use crate::policy;
use crate::scenario;

mod extras;
mod memory;
mod progress;
mod run;
pub mod style;
mod validate;

pub use run::{FormatArg, LogsArg, RunArgs};

/// fairsim: compare job-scheduling policies on identical multi-tenant workloads.
#[derive(Debug, Parser)]
#[command(name = "fairsim", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Colour in fairsim's messages: auto (on a terminal, unless NO_COLOR
    /// is set), always or never.
    #[arg(long, value_enum, global = true, default_value_t = style::ColorArg::Auto)]
    pub color: style::ColorArg,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate a scenario under each of its policies and write the results.
    Run(RunArgs),
    /// Run a scenario over a grid of parameter values and many seeds, with
    /// confidence intervals (docs/sweep.md).
    Sweep(crate::sweep::SweepArgs),
    /// Combine the shard folders of `fairsim sweep --shard` into the folder
    /// one sweep writes (docs/sweep.md, "Sweeps beyond one machine").
    Merge(crate::sweep::merge::MergeArgs),
    /// Search one or two keys of a scenario for the best value that meets
    /// every requirement with 95% confidence (docs/tune.md).
    Tune(crate::tune::TuneArgs),
    /// Check a scenario file and print what it describes, without simulating.
    Validate {
        /// The scenario file (YAML).
        scenario: PathBuf,
    },
    /// List every policy with its parameters.
    Policies {
        /// Print the parameter tables as Markdown (as docs/policies.md carries them).
        #[arg(long)]
        markdown: bool,
    },
    /// Rebuild the charts and report.html of a results folder from its CSV files.
    Report {
        /// A folder written by `fairsim run`.
        dir: PathBuf,
    },
    /// Re-verify a results folder from its CSV files alone (docs/check.md):
    /// exit 0 when every rule holds, 1 on the first violation.
    Check(crate::check::CheckArgs),
    /// Replay a trace that records production's starts under the policy
    /// production ran, and say how far the simulated starts and waits are
    /// from the recorded ones (docs/calibrate.md).
    Calibrate(crate::calibrate::CalibrateArgs),
    /// Why a job waited, or why a tenant got nothing at a moment, from a
    /// results folder's CSV files (docs/explain.md).
    Explain(crate::explain::ExplainArgs),
    /// Print a shell completion script, e.g. `fairsim completions bash >
    /// ~/.local/share/bash-completion/completions/fairsim`.
    Completions {
        /// bash, zsh, fish, powershell or elvish.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `fairsim man | man -l -`; with
    /// --dir, write fairsim.1 and one page per command there.
    Man {
        /// Folder for the pages (e.g. ~/.local/share/man/man1).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// Runs the parsed command.
pub fn execute(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Run(args) => run::execute(args),
        Command::Sweep(args) => {
            let args = crate::sweep::block::apply(args, &|sc, names| {
                scenario::select_policies(sc, names, Vec::new())
            })?;
            let names = args.policies.clone();
            crate::sweep::execute(args, &|sc| scenario::select_policies(sc, &names, Vec::new()))
        }
        Command::Merge(args) => crate::sweep::merge::execute(args),
        Command::Tune(args) => {
            let names: Vec<String> = args.policy.iter().cloned().collect();
            crate::tune::execute(args, &|sc| scenario::select_policies(sc, &names, Vec::new()))
        }
        Command::Validate { scenario } => validate::execute(&scenario),
        Command::Report { dir } => {
            if !dir.is_dir() {
                return Err(Error::Usage(format!(
                    "{}: not a folder; give the results folder written by `fairsim run`",
                    dir.display()
                )));
            }
            let out = crate::output::report::build(&dir)?;
            println!("wrote {}", out.display());
            Ok(())
        }
        Command::Check(args) => match crate::check::execute(&args, &mut std::io::stdout().lock())? {
            true => Ok(()),
            false => {
                let what = args
                    .jobs
                    .as_ref()
                    .or(args.dir.as_ref())
                    .map_or(String::new(), |p| p.display().to_string());
                Err(Error::Other(format!("{what}: a rule does not hold (above)")))
            }
        },
        Command::Calibrate(args) => crate::calibrate::execute(&args),
        Command::Explain(args) => crate::explain::execute(&args),
        Command::Completions { shell } => extras::completions(shell),
        Command::Man { dir } => extras::man(dir.as_deref()),
        Command::Policies { markdown } => {
            print!("{}", if markdown { policy::policies_markdown() } else { policy::policies_text() });
            Ok(())
        }
    }
}

//! The options every command that writes a results folder shares (`run`,
//! `sweep`, `merge`, `tune`): one struct, flattened into each command's
//! options, so they are spelt, documented and checked once.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// `--out DIR`, `--force` and `--quiet`. `run` may leave out `--out` (its
/// default is output/<scenario name>/); the others mark it required with
/// `#[command(mut_arg("out", ...))]`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct OutputArgs {
    /// Results folder; replaced whole on success, if fairsim wrote it (it
    /// holds fairsim-results.json) or it is empty. For `run`, default:
    /// output/<scenario name>/.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace --out even if fairsim did not write it (never the current
    /// folder or one of its parents).
    #[arg(long)]
    pub force: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

impl OutputArgs {
    /// `--out`, for a command that requires it (clap refuses the command
    /// line without it; this error is for options built in code).
    pub fn required_out(&self) -> Result<&Path> {
        self.out.as_deref().ok_or_else(|| Error::Usage("--out DIR is required".into()))
    }
}

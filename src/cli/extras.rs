//! Files for a shell and a manual: `fairsim completions SHELL` prints a
//! completion script; `fairsim man` prints the manual page (or writes one
//! page per command into a folder).

use std::path::Path;

use clap::CommandFactory;

use super::Cli;
use crate::error::{Error, Result};

/// The completion script for `shell` on stdout.
pub fn completions(shell: clap_complete::Shell) -> Result<()> {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "fairsim", &mut script);
    to_stdout(&script)
}

/// Writes `bytes` on stdout; a reader that stopped early (`| head`) is not
/// an error.
fn to_stdout(bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    match std::io::stdout().write_all(bytes) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::io("cannot write to stdout".to_string(), e))
        }
        _ => Ok(()),
    }
}

/// `fairsim.1` on stdout, or with `dir`, `fairsim.1` and one
/// `fairsim-COMMAND.1` per command written there.
pub fn man(dir: Option<&Path>) -> Result<()> {
    let cmd = Cli::command();
    match dir {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut page)
                .map_err(|e| Error::io("cannot render the manual page".to_string(), e))?;
            to_stdout(&page)
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
            clap_mangen::generate_to(cmd, dir)
                .map_err(|e| Error::io(format!("cannot write the manual pages into {}", dir.display()), e))?;
            println!("wrote the manual pages into {}", dir.display());
            Ok(())
        }
    }
}

//! Result folders: written under a temporary name and renamed into place, so
//! an existing folder is either left untouched or replaced whole.

pub mod charts;
pub mod console;

pub mod report;
pub mod tables;

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A results folder being written.
pub struct StagedDir {
    target: PathBuf,
    staging: PathBuf,
    committed: bool,
}

impl StagedDir {
    /// Starts writing the folder that will become `target`.
    pub fn new(target: &Path) -> Result<Self> {
        let parent = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        fs::create_dir_all(parent)
            .map_err(|e| Error::io(format!("cannot create output folder {}", parent.display()), e))?;
        let name = target.file_name().and_then(|n| n.to_str()).unwrap_or("output");
        let staging = parent.join(format!(".{name}.partial-{}", std::process::id()));
        if staging.exists() {
            let _ = fs::remove_dir_all(&staging);
        }
        fs::create_dir(&staging).map_err(|e| Error::io(format!("cannot create {}", staging.display()), e))?;
        Ok(StagedDir { target: target.to_path_buf(), staging, committed: false })
    }

    /// Where files go while the run is in progress.
    pub fn path(&self) -> &Path {
        &self.staging
    }

    /// Replaces the target folder with the staged one.
    pub fn commit(mut self) -> Result<PathBuf> {
        let old = self.target.with_file_name(format!(
            ".{}.old-{}",
            self.target.file_name().and_then(|n| n.to_str()).unwrap_or("output"),
            std::process::id()
        ));
        let had_old = self.target.exists();
        if had_old {
            fs::rename(&self.target, &old)
                .map_err(|e| Error::io(format!("cannot move aside {}", self.target.display()), e))?;
        }
        if let Err(e) = fs::rename(&self.staging, &self.target) {
            if had_old {
                let _ = fs::rename(&old, &self.target);
            }
            return Err(Error::io(format!("cannot move results into {}", self.target.display()), e));
        }
        if had_old {
            let _ = fs::remove_dir_all(&old);
        }
        self.committed = true;
        Ok(self.target.clone())
    }
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.staging);
        }
    }
}

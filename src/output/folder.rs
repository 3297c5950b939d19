//! The results folder: written under a temporary name beside its target and
//! put in place in one step, so a folder is either left untouched or
//! replaced whole, and only a folder fairsim wrote is ever replaced.
//!
//! - Every results folder holds [`MARKER`]. An existing `--out` folder is
//!   replaced only when it holds the marker or is empty; anything else (a
//!   folder of the user's, a file) is refused unless `--force`. The current
//!   folder, one of its parents and the root are always refused.
//! - The new folder is written as `.NAME.partial-PID` and swapped in with
//!   one `renameat2(RENAME_EXCHANGE)` on Linux (the old folder then sits at
//!   the staging name and is deleted). Where that call is missing (other
//!   systems, some file systems) two renames do it, the old folder passing
//!   through `.NAME.old-PID`; a crash between them leaves that folder, which
//!   the next run puts back.
//! - SIGINT and SIGTERM remove the staging folder and exit with 130.
//! - A run cleans up staging folders left by processes that no longer run.

use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};

/// The file that marks a folder as fairsim's results.
pub const MARKER: &str = "fairsim-results.json";

/// Staging folders of this process, removed if a signal ends it.
static STAGING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Installs the SIGINT/SIGTERM handler once: it removes the staging folders
/// and exits with 130. Without it, an interrupted run leaves its partial
/// folder behind (up to hundreds of MB).
fn install_interrupt_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // if a handler cannot be installed (another library owns the signal),
        // the next run's clean-up still removes the partial folder
        let _ = ctrlc::set_handler(|| {
            let dirs = STAGING.lock().map(|d| d.clone()).unwrap_or_default();
            for d in dirs {
                // files may still be created while we remove: retry a little
                for _ in 0..5 {
                    if fs::remove_dir_all(&d).is_ok() || !d.exists() {
                        break;
                    }
                }
            }
            eprintln!("interrupted; partial results removed");
            std::process::exit(130);
        });
    });
}

/// A results folder being written.
pub struct StagedDir {
    target: PathBuf,
    staging: PathBuf,
    committed: bool,
}

impl StagedDir {
    /// Checks that `target` may be (re)placed, then starts writing the
    /// folder that will become it. `force` allows replacing what fairsim did
    /// not write. Fails before any simulation work.
    pub fn new(target: &Path, force: bool, marker: &str) -> Result<Self> {
        check_target(target, force)?;
        let parent = parent_of(target);
        fs::create_dir_all(parent)
            .map_err(|e| Error::io(format!("cannot create output folder {}", parent.display()), e))?;
        let name = target.file_name().and_then(|n| n.to_str()).unwrap_or("output").to_string();
        clean_stale(parent);
        let staging = parent.join(format!(".{name}.partial-{}", std::process::id()));
        if staging.exists() {
            let _ = fs::remove_dir_all(&staging);
        }
        install_interrupt_handler();
        fs::create_dir(&staging).map_err(|e| Error::io(format!("cannot create {}", staging.display()), e))?;
        if let Ok(mut s) = STAGING.lock() {
            s.push(staging.clone());
        }
        let dir = StagedDir { target: target.to_path_buf(), staging, committed: false };
        // the marker first: a partial folder is recognisable as fairsim's
        fs::write(dir.staging.join(MARKER), marker)
            .map_err(|e| Error::io(format!("cannot write {}", dir.staging.join(MARKER).display()), e))?;
        Ok(dir)
    }

    /// Where files go while the run is in progress.
    pub fn path(&self) -> &Path {
        &self.staging
    }

    /// Replaces the target with the staged folder.
    pub fn commit(mut self) -> Result<PathBuf> {
        let err = |e| Error::io(format!("cannot move results into {}", self.target.display()), e);
        if fs::symlink_metadata(&self.target).is_err() {
            fs::rename(&self.staging, &self.target).map_err(err)?;
        } else if exchange(&self.staging, &self.target).is_ok() {
            // the old folder is now at the staging name
            remove_any(&self.staging);
        } else {
            let old = aside_name(&self.target);
            fs::rename(&self.target, &old)
                .map_err(|e| Error::io(format!("cannot move aside {}", self.target.display()), e))?;
            if let Err(e) = fs::rename(&self.staging, &self.target) {
                let _ = fs::rename(&old, &self.target);
                return Err(err(e));
            }
            remove_any(&old);
        }
        self.committed = true;
        self.forget();
        Ok(self.target.clone())
    }

    fn forget(&self) {
        if let Ok(mut s) = STAGING.lock() {
            s.retain(|p| p != &self.staging);
        }
    }
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.staging);
            self.forget();
        }
    }
}

fn parent_of(target: &Path) -> &Path {
    target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

fn aside_name(target: &Path) -> PathBuf {
    let name = target.file_name().and_then(|n| n.to_str()).unwrap_or("output");
    target.with_file_name(format!(".{name}.old-{}", std::process::id()))
}

/// Removes a file or a folder.
fn remove_any(p: &Path) {
    if p.is_dir() {
        let _ = fs::remove_dir_all(p);
    } else {
        let _ = fs::remove_file(p);
    }
}

/// Whether `target` may be written: refuses the current folder, its
/// parents and the root always, and what fairsim did not write unless `force`.
pub fn check_target(target: &Path, force: bool) -> Result<()> {
    let refuse = |why: String| Err(Error::Usage(format!("--out {}: {why}", target.display())));
    let last = target.components().next_back();
    if target.as_os_str().is_empty()
        || matches!(last, None | Some(Component::CurDir | Component::ParentDir | Component::RootDir))
    {
        return refuse("replacing this folder would delete the folder it is in; give a new folder's name, e.g. --out results".into());
    }
    let meta = match fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(_) => return Ok(()), // a new folder
    };
    if let (Ok(t), Ok(cwd)) = (fs::canonicalize(target), std::env::current_dir().and_then(fs::canonicalize)) {
        if cwd.starts_with(&t) {
            return refuse(
                "this is the current folder or one of its parents; give a new folder's name".into(),
            );
        }
    }
    if force {
        return Ok(());
    }
    if !meta.is_dir() {
        return refuse(
            "exists and is not a folder; choose another name, or add --force to replace it".into(),
        );
    }
    let mut entries =
        fs::read_dir(target).map_err(|e| Error::io(format!("cannot read {}", target.display()), e))?;
    if entries.next().is_none() || target.join(MARKER).is_file() {
        return Ok(());
    }
    refuse(format!(
        "exists and was not written by fairsim (it has no {MARKER}); fairsim replaces a results folder whole, so it will not touch this one; choose another --out, or add --force to replace it"
    ))
}

/// Swaps two paths in one step (Linux `renameat2(RENAME_EXCHANGE)`).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let cstr = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(std::io::Error::other);
    let (ca, cb) = (cstr(a)?, cstr(b)?);
    // SAFETY: both paths are valid NUL-terminated strings that outlive the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Whether process `pid` still runs (unknown: assumed running).
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    #[cfg(unix)]
    {
        // SAFETY: signal 0 only checks that the process exists.
        let r = unsafe { libc::kill(pid as libc::pid_t, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// Removes the staging folders of dead fairsim processes in `parent`, and
/// puts back a results folder left aside by one that died between its two
/// renames (when nothing took its name since). Only folders holding the
/// marker are touched.
fn clean_stale(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else { return };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(f) = file.to_str() else { continue };
        let Some((stem, pid)) = f.strip_prefix('.').and_then(|s| s.rsplit_once('-')) else { continue };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        let (folder, kind) = match stem.rsplit_once('.') {
            Some((folder, kind @ ("partial" | "old"))) => (folder, kind),
            _ => continue,
        };
        let path = e.path();
        if alive(pid) || !path.join(MARKER).is_file() {
            continue;
        }
        let target = parent.join(folder);
        if kind == "old" && fs::symlink_metadata(&target).is_err() {
            let _ = fs::rename(&path, &target);
        } else {
            let _ = fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_folder_and_its_parents_are_refused_even_with_force() {
        for p in [".", "..", "/", "", "a/..", "./"] {
            assert!(check_target(Path::new(p), true).is_err(), "{p:?} accepted");
        }
    }
}

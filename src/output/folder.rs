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
//!   So that a SIGKILL at any moment leaves nothing a later run cannot tell
//!   is fairsim's, a folder is fairsim's either by holding the marker or by
//!   its name `.NAME.partial-PID.new` / `.NAME.old-PID.new` with nothing
//!   but the marker inside: a staging folder is made under the `.new` name,
//!   marked, then renamed; a folder is removed marker last, and renamed to
//!   its `.new` name before the marker goes ([`remove_marked`]).

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
                    remove_marked(&d);
                    remove_fresh(&fresh_name(&d));
                    if !d.exists() {
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
        // a leftover of an earlier process with our pid, if it is fairsim's
        if staging.join(MARKER).is_file() {
            remove_marked(&staging);
        }
        let fresh = fresh_name(&staging);
        remove_fresh(&fresh);
        install_interrupt_handler();
        if let Ok(mut s) = STAGING.lock() {
            s.push(staging.clone());
        }
        let dir = StagedDir { target: target.to_path_buf(), staging, committed: false };
        let cannot = |what: &Path, e| Error::io(format!("cannot create {}", what.display()), e);
        // made under the `.new` name and marked before it takes the staging
        // name: killed at any point, the folder is recognisable as fairsim's
        fs::create_dir(&fresh).map_err(|e| cannot(&fresh, e))?;
        fs::write(fresh.join(MARKER), marker)
            .map_err(|e| Error::io(format!("cannot write {}", fresh.join(MARKER).display()), e))?;
        fs::rename(&fresh, &dir.staging).map_err(|e| cannot(&dir.staging, e))?;
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
            // the old folder is now at the staging name; one replaced with
            // --force gets the marker, so a kill while removing it leaves a
            // folder the next run recognises
            if self.staging.is_dir() && !self.staging.join(MARKER).is_file() {
                let _ = fs::write(self.staging.join(MARKER), "{}\n");
            }
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
            remove_marked(&self.staging);
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

/// Removes a file or a (marked) folder.
fn remove_any(p: &Path) {
    if p.is_dir() {
        remove_marked(p);
    } else {
        let _ = fs::remove_file(p);
    }
}

/// The name a fairsim folder has while it is made or, emptied, removed.
fn fresh_name(p: &Path) -> PathBuf {
    let mut name = p.as_os_str().to_os_string();
    name.push(".new");
    PathBuf::from(name)
}

/// Removes a `.new` folder if it holds nothing but the marker: never
/// anything else, so content that is not fairsim's is left alone.
fn remove_fresh(p: &Path) {
    if fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()) {
        let _ = fs::remove_file(p.join(MARKER));
        let _ = fs::remove_dir(p);
    }
}

/// One step of a removal, so a test can stop it anywhere, as a kill would.
#[derive(Debug)]
enum Step<'a> {
    File(&'a Path),
    Dir(&'a Path),
    Rename(&'a Path, &'a Path),
}

fn perform(s: Step) -> std::io::Result<()> {
    match s {
        Step::File(p) => fs::remove_file(p),
        Step::Dir(p) => fs::remove_dir(p),
        Step::Rename(a, b) => fs::rename(a, b),
    }
}

/// Removes fairsim's folder `p` so that at every moment it holds the
/// marker, or is gone, or sits at its `.new` name with nothing but the
/// marker: a kill mid-way leaves what [`clean_stale`] removes.
/// (`remove_dir_all` takes the entries in any order, the marker perhaps first.)
pub(crate) fn remove_marked(p: &Path) {
    let _ = remove_marker_last(p, &mut perform);
}

fn remove_marker_last(p: &Path, step: &mut dyn FnMut(Step) -> std::io::Result<()>) -> std::io::Result<()> {
    for e in fs::read_dir(p)? {
        let e = e?;
        if e.file_name() != MARKER {
            remove_tree(&e.path(), e.file_type()?.is_dir(), step)?;
        }
    }
    let fresh = fresh_name(p);
    step(Step::Rename(p, &fresh))?;
    if fresh.join(MARKER).is_file() {
        step(Step::File(&fresh.join(MARKER)))?;
    }
    step(Step::Dir(&fresh))
}

/// Removes `p` and, when it is a folder (not a link to one), what it holds.
fn remove_tree(
    p: &Path,
    dir: bool,
    step: &mut dyn FnMut(Step) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if !dir {
        return step(Step::File(p));
    }
    for e in fs::read_dir(p)? {
        let e = e?;
        remove_tree(&e.path(), e.file_type()?.is_dir(), step)?;
    }
    step(Step::Dir(p))
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
/// marker are touched, and `.new` ones holding nothing else.
fn clean_stale(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else { return };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(f) = file.to_str() else { continue };
        let (f, fresh) = match f.strip_suffix(".new") {
            Some(f) => (f, true),
            None => (f, false),
        };
        let Some((stem, pid)) = f.strip_prefix('.').and_then(|s| s.rsplit_once('-')) else { continue };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        let (folder, kind) = match stem.rsplit_once('.') {
            Some((folder, kind @ ("partial" | "old"))) => (folder, kind),
            _ => continue,
        };
        let path = e.path();
        if alive(pid) {
            continue;
        }
        if fresh {
            remove_fresh(&path);
            continue;
        }
        if !path.join(MARKER).is_file() {
            continue;
        }
        let target = parent.join(folder);
        if kind == "old" && fs::symlink_metadata(&target).is_err() {
            let _ = fs::rename(&path, &target);
        } else {
            remove_marked(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A results-like folder: the marker, files, a policy folder.
    fn results_folder(p: &Path) {
        fs::create_dir_all(p.join("fifo")).unwrap();
        for f in ["comparison.csv", MARKER, "report.html", "fifo/jobs.csv", "fifo/ticks.csv"] {
            fs::write(p.join(f), "x").unwrap();
        }
    }

    #[test]
    fn a_removal_stopped_at_any_step_leaves_what_the_next_run_cleans() {
        let tmp = std::env::temp_dir().join(format!("fairsim-remove-{}", std::process::id()));
        let dead = 2147483646;
        let mut k = 0;
        loop {
            let _ = fs::remove_dir_all(&tmp);
            let staging = tmp.join(format!(".r.partial-{dead}"));
            results_folder(&staging);
            // as a SIGKILL after k steps of the removal
            let mut done = 0;
            let r = remove_marker_last(&staging, &mut |s| {
                if done == k {
                    return Err(std::io::Error::other("killed"));
                }
                done += 1;
                perform(s)
            });
            let fresh = fresh_name(&staging);
            let recognised = !staging.exists() || staging.join(MARKER).is_file();
            assert!(recognised, "step {k}: an unmarked staging folder");
            clean_stale(&tmp);
            assert!(!staging.exists() && !fresh.exists(), "step {k}: left for good");
            if r.is_ok() {
                break;
            }
            k += 1;
        }
        assert!(k > 6, "stopped at every one of the {k} steps");
        let _ = fs::remove_dir_all(&tmp);
    }

    #[test]
    fn a_staging_folder_killed_before_its_marker_is_cleaned_and_others_are_not() {
        let tmp = std::env::temp_dir().join(format!("fairsim-fresh-{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        let dead = 2147483646;
        // killed after its mkdir, and after its marker
        fs::create_dir_all(tmp.join(format!(".a.partial-{dead}.new"))).unwrap();
        fs::create_dir_all(tmp.join(format!(".b.partial-{dead}.new"))).unwrap();
        fs::write(tmp.join(format!(".b.partial-{dead}.new/{MARKER}")), "{}").unwrap();
        // not fairsim's: content besides the marker, or no marker at all
        let theirs = tmp.join(format!(".c.partial-{dead}.new"));
        fs::create_dir_all(&theirs).unwrap();
        fs::write(theirs.join("notes.txt"), "mine").unwrap();
        let unmarked = tmp.join(format!(".d.partial-{dead}"));
        fs::create_dir_all(&unmarked).unwrap();
        clean_stale(&tmp);
        assert!(!tmp.join(format!(".a.partial-{dead}.new")).exists());
        assert!(!tmp.join(format!(".b.partial-{dead}.new")).exists());
        assert!(theirs.join("notes.txt").is_file() && unmarked.is_dir());
        let _ = fs::remove_dir_all(&tmp);
    }

    #[test]
    fn the_current_folder_and_its_parents_are_refused_even_with_force() {
        for p in [".", "..", "/", "", "a/..", "./"] {
            assert!(check_target(Path::new(p), true).is_err(), "{p:?} accepted");
        }
    }
}

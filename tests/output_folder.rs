//! The results folder a run writes with `--out`: a folder fairsim did not
//! write is never replaced without `--force`, the current folder and its
//! parents are refused, an interrupted run leaves nothing half-written and
//! the leftovers of dead runs are cleaned, and labels that would clash with
//! the folder's own files are input errors.

mod common;

use std::path::Path;

use common::*;

const ABC: &str = "workers: 2\nworkload:\n  - {tenant: A, count: 4, service: 1s}\n  - {tenant: B, count: 2, service: 1s}\npolicies: [fifo]\n";

fn run_out(dir: &Path, out: &str, extra: &[&str]) -> std::process::Output {
    let sc = write_scenario(dir, "abc.yaml", ABC);
    fairsim()
        .current_dir(dir)
        .arg("run")
        .arg(&sc)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .arg("--no-plots")
        .args(extra)
        .output()
        .expect("runs")
}

#[test]
fn a_folder_fairsim_did_not_write_is_never_replaced_without_force() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("precious/sub")).expect("mkdir");
    std::fs::write(d.join("precious/notes.txt"), "mine").expect("write");
    std::fs::write(d.join("somefile"), "mine too").expect("write");
    for out in ["precious", "somefile"] {
        let o = run_out(d, out, &[]);
        assert_eq!(o.status.code(), Some(2), "{out}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("--out {out}:")) && err.contains("--force"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(d.join("precious/notes.txt")).expect("kept"), "mine");
    assert!(d.join("precious/sub").is_dir());
    assert_eq!(std::fs::read_to_string(d.join("somefile")).expect("kept"), "mine too");
    // nothing was staged next to them either
    let names: Vec<String> = std::fs::read_dir(d)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
    // a results folder is replaced on the next run; --force replaces the user's
    assert!(run_out(d, "results", &[]).status.success());
    assert!(d.join("results/fairsim-results.json").is_file());
    assert!(run_out(d, "results", &[]).status.success());
    assert!(run_out(d, "precious", &["--force"]).status.success());
    assert!(!d.join("precious/notes.txt").exists() && d.join("precious/comparison.csv").is_file());
}

#[test]
fn the_current_folder_and_its_parents_are_refused_before_simulating() {
    let dir = tempdir();
    std::fs::create_dir(dir.path().join("work")).expect("mkdir");
    let work = dir.path().join("work");
    let sc = write_scenario(dir.path(), "abc.yaml", ABC);
    for out in [".", "..", "/", "../work"] {
        let o = fairsim()
            .current_dir(&work)
            .args(["run", sc.to_str().expect("utf8"), "--out", out, "--quiet", "--force"])
            .output()
            .expect("runs");
        assert_eq!(o.status.code(), Some(2), "--out {out}");
    }
    assert_eq!(std::fs::read_dir(&work).expect("ls").count(), 0, "nothing written in the current folder");
}

#[test]
fn an_interrupted_run_leaves_no_partial_folder_and_exits_130() {
    // A run long enough to be interrupted while it writes (1,000,000 jobs
    // with every log), stopped with SIGINT once its staging folder exists.
    let dir = tempdir();
    let d = dir.path();
    let sc = write_scenario(
        d,
        "long.yaml",
        "workers: 16\nworkload:\n  - {tenants: {count: 100, prefix: t}, arrivals: {poisson: 14/s, count: 2000000}, service: {exponential: 1s}}\npolicies: [fifo, round_robin]\n",
    );
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("fairsim"))
        .current_dir(d)
        .args(["run", sc.to_str().expect("utf8"), "--out", "long", "--quiet", "--no-plots"])
        .spawn()
        .expect("spawn");
    let staged = || {
        std::fs::read_dir(d)
            .expect("ls")
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(".long.partial-"))
    };
    let mut waited = 0;
    while !staged() && waited < 200 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        waited += 1;
    }
    assert!(staged(), "the run started writing");
    let kill =
        std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    assert!(kill.success());
    let status = child.wait().expect("waits");
    assert_eq!(status.code(), Some(130));
    assert!(!staged() && !d.join("long").exists(), "partial results removed, nothing committed");
}

#[test]
fn leftovers_of_dead_runs_are_cleaned_and_a_folder_left_aside_is_put_back() {
    // A process that no longer runs (pid 2147483646) left a staging folder
    // and, killed between its two renames, its previous results aside.
    let dir = tempdir();
    let d = dir.path();
    for stale in [".x.partial-2147483646", ".kept.old-2147483646"] {
        std::fs::create_dir(d.join(stale)).expect("mkdir");
        std::fs::write(d.join(stale).join("fairsim-results.json"), "{}").expect("marker");
    }
    std::fs::create_dir(d.join(".mine.partial-2147483646")).expect("a folder without the marker");
    assert!(run_out(d, "results", &[]).status.success());
    assert!(!d.join(".x.partial-2147483646").exists(), "stale staging removed");
    assert!(d.join("kept/fairsim-results.json").is_file(), "results left aside put back");
    assert!(d.join(".mine.partial-2147483646").exists(), "not fairsim's: untouched");
}

#[test]
fn labels_that_would_clash_with_the_folders_own_files_are_input_errors() {
    let dir = tempdir();
    // `  - {policy: fifo, label: X}`: the value starts at column 27
    for (label, col, what) in [
        ("charts", 27, "would clash with the results folder's own `charts`"),
        ("Report.html", 27, "would clash with the results folder's own `report.html`"),
        ("comparison.csv", 27, "clash"),
        ("scenario.yaml", 27, "clash"),
        ("\".hidden\"", 27, "cannot be used as a folder name"),
        ("\"a\\0b\"", 27, "cannot be used as a folder name"),
    ] {
        let sc = write_scenario(
            dir.path(),
            "bad.yaml",
            &format!("workers: 1\nworkload:\n  - {{tenant: A, count: 1, service: 1s}}\npolicies:\n  - {{policy: fifo, label: {label}}}\n"),
        );
        let o = fairsim().arg("validate").arg(&sc).output().expect("runs");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{label}: {err}");
        assert!(err.contains(&format!("bad.yaml:5:{col}: ")) && err.contains(what), "{label}: {err}");
    }
    let long = "x".repeat(300);
    let sc = write_scenario(dir.path(), "bad.yaml", &format!("workers: 1\nworkload:\n  - {{tenant: A, count: 1, service: 1s}}\npolicies:\n  - {{policy: fifo, label: {long}}}\n"));
    let o = fairsim().arg("validate").arg(&sc).output().expect("runs");
    assert!(String::from_utf8_lossy(&o.stderr).contains("300 bytes long"));
}

#[test]
fn every_file_at_the_top_of_a_results_folder_is_a_reserved_label() {
    // A label equal to a top-level file's name would write its folder over
    // that file; the reserved list must name every file a run can put
    // there, so a run with every optional top-level output is listed.
    let dir = tempdir();
    let d = dir.path();
    let sc = write_scenario(
        d,
        "all.yaml",
        "workers: 2\nclasses: {fast: {sla: 1s}, slow: {}}\nworkload:\n  - {tenant: A, class: fast, count: 3, service: 1s}\n  - {tenant: B, class: slow, count: 3, service: 1s}\ntopologies:\n  two:\n    queues: [q]\n    pools: [{name: p, workers: 2, queues: [q]}]\npolicies:\n  - fifo\n  - {policy: fifo, topology: two, label: t}\nobjectives:\n  - {class: fast, wait_p99: 2s}\n",
    );
    let o = fairsim()
        .current_dir(d)
        .arg("run")
        .arg(&sc)
        .args(["--out", "r", "--quiet", "--combine", "--seeds", "2"])
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut unlisted = Vec::new();
    for entry in std::fs::read_dir(d.join("r")).expect("results folder") {
        let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
        if name == "fifo" || name == "t" {
            continue;
        }
        if !fairsim::scenario::RESERVED_LABELS.iter().any(|r| r.eq_ignore_ascii_case(&name)) {
            unlisted.push(name);
        }
    }
    assert!(
        ["scorecard.csv", "tenant_classes.csv", "seeds.csv", "seeds_paired.csv"]
            .iter()
            .all(|f| d.join("r").join(f).is_file()),
        "the optional files ran"
    );
    assert!(unlisted.is_empty(), "top-level names a label could take: {unlisted:?}");
}

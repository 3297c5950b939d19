//! `fairsim run --jobs N`: the entries simulated at once write the same
//! folder, file for file and byte for byte, as one after another; the
//! only text that may differ is the command line the provenance records
//! (`fairsim-results.json` and the report's provenance line show the
//! `--jobs` typed). The memory guard runs fewer at once, says so, and
//! changes nothing else.

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// Three entries on the same arrivals: lottery (it draws its winners from
/// the seed), fifo on a topology of two pools, and drr; a batch at 60 s
/// makes a backlog, so the orders differ and each entry's files do too.
const SCENARIO: &str = "name: parallel
seed: 7
workers: 6
log: {tick: 10s}
classes:
  fast: {priority: 1}
  slow: {priority: 5}
workload:
  - {tenant: A, class: fast, arrivals: {poisson: 2/s, stop: 300s}, service: {exponential: 1s}}
  - {tenant: B, class: slow, arrivals: {poisson: 1/s, stop: 300s}, service: {exponential: 2s}}
  - {tenant: C, class: fast, arrivals: {batch: 200, at: 60s}, service: 500ms}
topologies:
  split:
    queues: [fast, slow]
    route: [{class: fast, to: fast}, {to: slow}]
    pools:
      - {name: fast, workers: 3, queues: [fast]}
      - {name: slow, workers: 3, queues: [slow, fast]}
policies:
  - lottery
  - {policy: fifo, topology: split, label: split}
  - drr
";

/// The files that record the command line as typed.
const PROVENANCE: [&str; 2] = ["fairsim-results.json", "report.html"];

/// Runs the scenario in `dir` with `--out out --logs full` and `extra`,
/// the start date fixed, then moves the folder to `name`; (its path, stderr).
fn run_as(dir: &Path, name: &str, extra: &[&str], env: &[(&str, &str)]) -> (PathBuf, String) {
    let sc = write_scenario(dir, "parallel.yaml", SCENARIO);
    let mut cmd = fairsim();
    cmd.current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "951782400")
        .env_remove("FAIRSIM_MEMORY_AVAILABLE")
        .arg("run")
        .arg(&sc)
        .args(["--out", "out", "--force", "--logs", "full", "--audit"])
        .args(extra);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().expect("fairsim runs");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "fairsim run {extra:?}: {err}");
    let kept = dir.join(name);
    std::fs::rename(dir.join("out"), &kept).expect("move the folder aside");
    (kept, err)
}

/// Asserts that `b` holds the same files as `a` with the same bytes, the
/// command line in the provenance files aside (`--jobs` as typed there).
fn assert_same(a: &Path, jobs_a: &str, b: &Path, jobs_b: &str) {
    let (fa, fb) = (files(a), files(b));
    let names = |f: &[(String, Vec<u8>)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&fa), names(&fb), "the same files");
    assert!(fa.len() > 20, "every log, chart and the report: {:?}", names(&fa));
    for ((name, x), (_, y)) in fa.iter().zip(&fb) {
        if x == y {
            continue;
        }
        assert!(PROVENANCE.contains(&name.as_str()), "{name} differs between {jobs_a} and {jobs_b}");
        let typed = |bytes: &[u8], jobs: &str| String::from_utf8_lossy(bytes).replace(jobs, "--jobs N");
        assert_eq!(typed(x, jobs_a), typed(y, jobs_b), "{name} differs beyond the command line");
    }
}

#[test]
fn every_file_is_the_same_at_one_two_and_three_at_once() {
    let dir = tempdir();
    let (one, _) = run_as(dir.path(), "jobs1", &["--jobs", "1", "--quiet"], &[]);
    // the per-entry logs are there, the topology's too
    for f in ["lottery/jobs.csv", "split/jobs.csv", "split/pools.csv", "drr/ticks.csv", "comparison.csv"] {
        assert!(one.join(f).is_file(), "{f}");
    }
    // the entries do differ, so a mix-up of their folders would show
    let lottery = std::fs::read(one.join("lottery/jobs.csv")).unwrap();
    assert_ne!(lottery, std::fs::read(one.join("drr/jobs.csv")).unwrap());
    for jobs in ["2", "3"] {
        let (many, _) = run_as(dir.path(), &format!("jobs{jobs}"), &["--jobs", jobs, "--quiet"], &[]);
        assert_same(&one, "--jobs 1", &many, &format!("--jobs {jobs}"));
    }
    // the rows of comparison.csv stay in the scenario's order
    let policies: Vec<String> =
        read_csv(&one.join("comparison.csv")).iter().map(|r| r["policy"].clone()).collect();
    assert_eq!(policies, ["lottery", "split", "drr"]);
}

#[test]
fn jobs_zero_is_refused_with_exit_2() {
    let dir = tempdir();
    let sc = write_scenario(dir.path(), "parallel.yaml", SCENARIO);
    let o = fairsim()
        .arg("run")
        .arg(&sc)
        .arg("--out")
        .arg(dir.path().join("out"))
        .args(["--jobs", "0"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--jobs 0: give at least 1"), "{err}");
    assert!(!dir.path().join("out").exists(), "no folder for a refused run");
}

#[test]
fn too_little_memory_runs_one_at_a_time_with_a_notice_and_the_same_files() {
    let dir = tempdir();
    let (one, quiet) = run_as(dir.path(), "jobs1", &["--jobs", "1"], &[]);
    assert!(!quiet.contains("simulation at a time"), "one at a time asked: no notice: {quiet}");
    // 1,000 bytes hold no simulation: one runs at a time, whatever the estimate
    let (guarded, err) =
        run_as(dir.path(), "guarded", &["--jobs", "3"], &[("FAIRSIM_MEMORY_AVAILABLE", "1000")]);
    let notice: Vec<&str> = err.lines().filter(|l| l.contains("at a time")).collect();
    assert_eq!(notice.len(), 1, "one line: {err}");
    assert!(notice[0].contains("running 1 simulation at a time instead of 3"), "{err}");
    assert!(notice[0].contains("(FAIRSIM_MEMORY_AVAILABLE)"), "{err}");
    assert_same(&one, "--jobs 1", &guarded, "--jobs 3");
}

#[test]
fn a_memory_override_that_is_not_a_number_is_refused() {
    let dir = tempdir();
    let sc = write_scenario(dir.path(), "parallel.yaml", SCENARIO);
    let o = fairsim()
        .env("FAIRSIM_MEMORY_AVAILABLE", "lots")
        .arg("run")
        .arg(&sc)
        .arg("--out")
        .arg(dir.path().join("out"))
        .args(["--jobs", "2"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("FAIRSIM_MEMORY_AVAILABLE=lots: give the free memory as a whole number of bytes"),
        "{err}"
    );
}

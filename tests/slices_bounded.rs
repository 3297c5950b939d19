//! Slices stay bounded: a job failed for good by
//! the retry budget leaves no slicing behind for the next job in its slot,
//! and slices count in the limit on jobs and in the log estimate.

mod common;

use std::time::Duration;

use common::*;

const LOOPED: &str = "workers: 1
workload:
  - {tenant: B, count: 4, at: 1s, service: 2.5s, failure: {probability: 0.4}, slice: 650ms}
  - {tenant: A, arrivals: {every: 2.5s, count: 20}, service: 3s}
retry:
  budget: {limit: 2, window: 15s}
";

#[test]
fn a_budget_failure_of_a_sliced_job_does_not_slice_the_next_job_forever() {
    // The scenario looped for ever on seeds 1 and 4: a sliced B job
    // failed for good by the budget kept its slicing state, reset for a
    // retry that never came, and the next job given its slot (an A job of
    // 3 s, more than B's 2.5 s) ran slices of work it did not have (2.5 s
    // - 3 s wrapped around). By hand, whatever the draws: A's 20 jobs run
    // unsliced, each in one start of exactly 3 s, and every one of the 24
    // jobs ends once; a B job starts at most ceil(2.5 / 0.65) = 4 slices
    // per attempt (each attempt restarts from its first slice).
    for seed in ["1", "4"] {
        let dir = tempdir();
        let sc = dir.path().join("t.yaml");
        std::fs::write(&sc, LOOPED).expect("write scenario");
        let out = dir.path().join("out");
        fairsim()
            .args(["run", "--quiet", "--audit", "--no-plots", "--seed", seed, "--out"])
            .arg(&out)
            .arg(&sc)
            .timeout(Duration::from_secs(60))
            .assert()
            .success();
        let jobs = read_csv(&out.join("fifo/jobs.csv"));
        assert_eq!(jobs.len(), 24, "seed {seed}");
        let a: Vec<_> = jobs.iter().filter(|j| j["tenant"] == "A").collect();
        assert_eq!(a.len(), 20);
        for j in a {
            assert_eq!(
                (j["slices"].as_str(), j["outcome"].as_str()),
                ("1", "completed"),
                "seed {seed}: {j:?}"
            );
            assert!((secs(&j["finish"]) - secs(&j["start"]) - 3.0).abs() < 1e-9, "seed {seed}: {j:?}");
        }
        for j in jobs.iter().filter(|j| j["tenant"] == "B") {
            let (slices, attempts): (u32, u32) =
                (j["slices"].parse().unwrap(), j["attempts"].parse().unwrap());
            assert!(slices <= 4 * attempts, "seed {seed}: {j:?}");
        }
    }
}

/// `fairsim validate` of `text`: (exit code, stdout, stderr).
fn validate(text: &str) -> (Option<i32>, String, String) {
    let dir = tempdir();
    let sc = dir.path().join("t.yaml");
    std::fs::write(&sc, text).expect("write scenario");
    let out = fairsim().arg("validate").arg(&sc).output().expect("run fairsim");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn slices_count_in_the_limit_on_jobs() {
    // 10,000 jobs of 1 s in slices of 1 us: 10^4 x 10^6 = 10^10 starts,
    // past the 2 x 10^8 a run may simulate (a job limit of 10,000 alone
    // let it through, to run for hours).
    let err = validate_error(
        "workers: 1\nworkload: [{tenant: A, count: 10000, service: 1s, slice: 1us}]\n",
        "t.yaml",
    );
    assert!(err.contains("t.yaml:2:11") && err.contains("1.000e10 starts"), "{err}");
    // the same through a policy entry's slice, at the policy's line
    let err = validate_error(
        "workers: 1\nworkload: [{tenant: A, count: 10000, service: 1s}]\npolicies: [{policy: fifo, slice: 1us}]\n",
        "t.yaml",
    );
    assert!(err.contains("t.yaml:3:12") && err.contains("1.000e10 starts"), "{err}");
    // 200 jobs of 1 s in 1 ms slices: 200,000 starts, well inside
    let (code, _, err) =
        validate("workers: 1\nworkload: [{tenant: A, count: 200, service: 1s, slice: 1ms}]\n");
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn the_log_estimate_counts_slices() {
    // 10 jobs of 100 ms in 1 us slices: 10 x 100,000 = 10^6 starts, each a
    // row of dispatches.csv of at least ~20 bytes (`tick,time,A,default,
    // job,,`): at least 20 MB of logs, where the estimate said 2 kB (the
    // run writes 26.9 MB, 24.9 MB of it dispatches.csv).
    let (code, stdout, err) =
        validate("workers: 1\nworkload: [{tenant: A, count: 10, service: 100ms, slice: 1us}]\n");
    assert_eq!(code, Some(0), "{err}");
    let mb = stdout
        .split_whitespace()
        .collect::<Vec<_>>()
        .windows(2)
        .find(|w| w[1] == "MB" || w[1] == "GB")
        .map(|w| w[0].parse::<f64>().expect("a number before MB") * if w[1] == "GB" { 1e3 } else { 1.0 });
    assert!(mb.is_some_and(|m| m >= 20.0), "{stdout}");
}

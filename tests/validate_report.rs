//! `fairsim validate` and `run` say what a scenario asks of its pool before
//! simulating it: jobs and work per entry, the offered load, a makespan
//! bound, and a warning when the pool is offered more than it can serve.

mod common;

use common::*;

fn validate(text: &str) -> (String, String, Option<i32>) {
    let dir = tempdir();
    let sc = dir.path().join("v.yaml");
    std::fs::write(&sc, text).expect("write");
    let out = fairsim().arg("validate").arg(&sc).output().expect("run fairsim");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn validate_reports_jobs_offered_load_and_the_makespan_bound() {
    // 3 workers; A: a job every 2 s of 3 s, 151 jobs from 0 to 300 s (453 s
    // of work); B: 30 jobs of 10 s at 100 s (300 s). 753 s over 3 x 300 s:
    // rho 0.84 (0.8367); A alone offers 1.5 worker-seconds per second, no
    // stretch busier (B is a batch). The makespan is at least the last
    // arrival, 300 s = 5m 0s (753 / 3 = 251 s is less).
    let (out, err, code) = validate(
        "workers: 3
workload:
  - {tenant: A, arrivals: {every: 2s, count: 151}, service: 3s}
  - {tenant: B, arrivals: {batch: 30, at: 100s}, service: 10s}
",
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("entry at line 3: about 151 jobs, 7m 33s of work, arriving 0s to 5m 0s"), "{out}");
    assert!(
        out.contains("entry at line 4: about 30 jobs, 5m 0s of work, arriving 1m 40s to 1m 40s"),
        "{out}"
    );
    assert!(out.contains("in all: about 181 jobs, 12m 33s of work"), "{out}");
    assert!(out.contains("offered load ρ over the arrivals (0s to 5m 0s): 0.84"), "{out}");
    assert!(out.contains("makespan at least about 5m 0s"), "{out}");
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn an_overloaded_scenario_is_warned_about_by_validate_and_run() {
    // 4 jobs a second of 1 s on 2 workers for 50 s: 201 jobs, 201 s of work
    // over 2 x 50 s: rho 2.01; the run lasts at least 201 / 2 = 100.5 s.
    let text = "workers: 2
workload:
  - {tenant: A, arrivals: {every: 250ms, count: 201}, service: 1s}
";
    let (_, err, code) = validate(text);
    assert_eq!(code, Some(0));
    assert!(
        err.contains("warning: the workers are offered ρ = 2.01") && err.contains("at least 1m 40s"),
        "{err}"
    );
    let dir = tempdir();
    let sc = dir.path().join("v.yaml");
    std::fs::write(&sc, text).expect("write");
    let out = fairsim()
        .arg("run")
        .arg(&sc)
        .arg("--out")
        .arg(dir.path().join("o"))
        .arg("--no-plots")
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ρ = 2.01"));
}

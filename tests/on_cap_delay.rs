//! `on_cap: {delay: D}` delays the refused job only, as
//! a SQL queue that sets the refused row's `available_at` does.

mod common;

use common::*;

/// (arrival, start) of each job of the single policy, by job id.
fn starts(text: &str) -> Vec<(f64, f64)> {
    let (_dir, out) = run_yaml(text, &["--no-plots"]);
    let label = read_csv(&out.join("comparison.csv"))[0]["policy"].clone();
    let mut jobs = read_csv(&out.join(label).join("jobs.csv"));
    jobs.sort_by_key(|j| j["job"].parse::<u64>().expect("job id"));
    jobs.iter().map(|j| (secs(&j["arrival"]), secs(&j["start"]))).collect()
}

#[test]
fn only_the_refused_job_waits_out_the_delay() {
    // The PostgreSQL 15 case, derived by hand. 2 workers, F capped
    // at 1, 1 s jobs at 0, 0.2, 1.6 and 4.5 s, delay 3 s.
    // 0: job 0 starts (F runs 1), ends at 1.
    // 0.2: a worker claims job 1; F is at its cap: refused, available at 3.2.
    // 1.6: job 2 arrives; F runs none: starts 1.6, ends 2.6.
    // 3.2: job 1 is available again, F runs none: starts 3.2, ends 4.2.
    // 4.5: job 3 starts. Production: 0, 3.2, 1.6, 4.5; the tenant-wide delay
    // (the bug) started jobs 2 and 3 at 6.2 and 9.2.
    let got = starts(
        "workers: 2
tenants: {F: {cap: 1}}
workload:
  - {tenant: F, count: 1, at: 0s, service: 1s}
  - {tenant: F, count: 1, at: 200ms, service: 1s}
  - {tenant: F, count: 1, at: 1600ms, service: 1s}
  - {tenant: F, count: 1, at: 4500ms, service: 1s}
policies:
  - {policy: fifo, on_cap: {delay: 3s}}
",
    );
    assert_eq!(got, [(0.0, 0.0), (0.2, 3.2), (1.6, 1.6), (4.5, 4.5)]);
}

#[test]
fn the_tenants_other_jobs_start_as_soon_as_its_cap_frees() {
    // 2 workers, F capped at 1 under `spare: hold` (lend would give the
    // idle worker to job 2 at 0), three 1 s jobs at 0, delay 10 s.
    // 0: job 0 starts; job 1 is claimed and refused (F at its cap): back at
    // 10; job 2 waits in place (only the refused job is delayed).
    // 1: job 0 ends, F's cap frees: job 2 starts at 1, ends at 2.
    // 10: job 1 starts. Waits from arrival: 0, 10, 1.
    let got = starts(
        "workers: 2
tenants: {F: {cap: 1}}
workload:
  - {tenant: F, count: 3, service: 1s}
policies:
  - {policy: fifo, spare: hold, on_cap: {delay: 10s}}
",
    );
    assert_eq!(got, [(0.0, 0.0), (0.0, 10.0), (0.0, 1.0)]);
}

//! A topology's cost grows with its work and its declared queues and pools,
//! not with queues x tenants each case runs under a
//! 1.5 GiB address-space limit that the old build, which built one policy
//! with per-tenant state for every declared queue, overran (2.7 GB resident
//! for the first case; the second aborted on allocation under 8 GB).

mod common;

use std::process::Command;

use common::*;

/// Runs `text` as a scenario under `ulimit -v` (KiB); the number of rows of
/// the policy's jobs.csv.
fn run_bounded(text: &str, limit_kib: u64) -> usize {
    let dir = tempdir();
    let sc = dir.path().join("t.yaml");
    std::fs::write(&sc, text).expect("write scenario");
    let out = dir.path().join("out");
    let bin = assert_cmd::cargo::cargo_bin("fairsim");
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {limit_kib} && exec \"$0\" run \"$1\" --out \"$2\" --quiet --no-plots"))
        .arg(&bin)
        .arg(&sc)
        .arg(&out)
        .status()
        .expect("run sh");
    assert!(status.success(), "fairsim run failed under a {limit_kib} KiB limit: {status}");
    read_csv(&out.join("fifo").join("jobs.csv")).len()
}

fn sharded(tenants: u32, queues: u32) -> String {
    format!(
        "workers: 1
workload:
  - {{tenants: {{count: {tenants}, prefix: t}}, count: 200, service: 1s}}
topologies:
  t:
    queues: [{{prefix: q, count: {queues}}}]
    route: [{{shard: {{count: {queues}, prefix: q}}}}]
    pools: [{{name: p, count: {queues}, workers: 1, queues: [\"q{{i}}\"]}}]
policies: [{{policy: fifo, topology: t}}]
"
    )
}

const LIMIT_KIB: u64 = 1536 * 1024;

#[test]
fn twenty_thousand_queues_and_tenants_run_200_jobs_in_bounded_memory() {
    // the scenario: 200 jobs, every one of them ends
    assert_eq!(run_bounded(&sharded(20_000, 20_000), LIMIT_KIB), 200);
}

#[test]
fn the_largest_topology_with_100k_tenants_runs_in_bounded_memory() {
    // 65,535 queues (the most a topology declares) x 100,000 tenants
    assert_eq!(run_bounded(&sharded(100_000, 65_535), LIMIT_KIB), 200);
}

#[test]
fn validate_counts_the_rows_written_per_declared_queue_and_pool() {
    // queue_totals.csv and pools.csv write a row per queue and per pool
    // (2.9 MB for 65,535 of each), whatever the work: the estimate says so
    let dir = tempdir();
    let sc = dir.path().join("t.yaml");
    std::fs::write(&sc, sharded(100_000, 65_535)).expect("write scenario");
    let out = fairsim().arg("validate").arg(&sc).output().expect("validate");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains("full logs:")).expect("an estimate line");
    assert!(line.contains("MB"), "the estimate counts the declared rows: {line}");
}

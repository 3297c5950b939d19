//! Waits under a planner count from arrival, as everywhere: the ledger holds a job before it becomes claimable, and that time is
//! part of its wait; only the claimable age (`oldest_age_max`) starts at
//! the promotion.

mod common;

use common::*;

#[test]
fn a_planners_waits_count_from_arrival_in_summary_and_comparison() {
    // One worker; three 1 s jobs of A at 0. The planner wakes at the first
    // arrival and then every 10 s, plans at no cost and promotes one job
    // when main is empty (depth_below 1). Promotions: job 0 at 0, job 1 at
    // 10, job 2 at 20; each starts at once on the idle worker. Waits from
    // arrival: 0, 10, 20 s: mean 10, p99 (rank ceil(2.97) = 3) and max 20.
    // Time claimable in main: 0 each, so oldest_age_max = 0. Counted from
    // promotion (the bug) every wait was 0.
    let (_dir, out) = run_yaml(
        "workers: 1
workload:
  - {tenant: A, count: 3, service: 1s}
topologies:
  planned:
    planner: {interval: 10s, batch: 1, depth_below: 1, policy: fifo}
policies:
  - {policy: fifo, topology: planned, label: planner}
",
        &["--no-plots"],
    );
    let jobs = read_csv(&out.join("planner/jobs.csv"));
    let mut waits: Vec<f64> = jobs.iter().map(|j| secs(&j["wait"])).collect();
    waits.sort_by(f64::total_cmp);
    assert_eq!(waits, [0.0, 10.0, 20.0]);
    let summary = read_csv(&out.join("planner/summary.csv"));
    let all = summary.iter().find(|r| r["scope"] == "all").expect("all row");
    assert_eq!(secs(&all["wait_mean"]), 10.0);
    assert_eq!(secs(&all["wait_p99"]), 20.0);
    assert_eq!(secs(&all["wait_max"]), 20.0);
    assert_eq!(secs(&all["oldest_age_max"]), 0.0);
    let a = summary.iter().find(|r| r["scope"] == "tenant" && r["name"] == "A").expect("A row");
    assert_eq!(secs(&a["wait_max"]), 20.0);
    let cmp = read_csv(&out.join("comparison.csv"));
    assert_eq!(secs(&cmp[0]["wait_p99"]), 20.0);
    assert_eq!(secs(&cmp[0]["worst_tenant_p99"]), 20.0);
}

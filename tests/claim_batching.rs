//! Claim batching (`batch: N` on a pool, the priority-classes article's
//! "a worker that claims twenty jobs in one statement"): a fetch claims N
//! jobs and the worker runs them one after another. Each answer is derived
//! by hand in the test's comment.

mod common;

use std::collections::HashMap;

use common::*;

/// Runs `text` with `--policy label` and returns its jobs.csv rows in start order.
fn starts(text: &str, label: &str) -> Vec<HashMap<String, String>> {
    let (_dir, out) = run_yaml(text, &["--no-plots", "--policy", label]);
    let mut rows = read_csv(&out.join(label).join("jobs.csv"));
    rows.sort_by(|a, b| secs(&a["start"]).total_cmp(&secs(&b["start"])).then(a["job"].cmp(&b["job"])));
    rows
}

/// Jobs of class `lo` in each run of 20 consecutive starts.
fn lo_per_batch(rows: &[HashMap<String, String>]) -> Vec<usize> {
    rows.chunks(20).map(|c| c.iter().filter(|r| r["class"] == "lo").count()).collect()
}

/// drr over two classes of the given weights, `n_hi` and `n_lo` one-second
/// jobs at t = 0, one worker claiming 20 per fetch.
fn weighted_classes(hi: u32, lo: u32, n_hi: u32, n_lo: u32) -> String {
    format!(
        "workers: 1
classes: {{hi: {{weight: {hi}}}, lo: {{weight: {lo}}}}}
workload:
  - {{tenant: A, class: hi, count: {n_hi}, service: 1s}}
  - {{tenant: B, class: lo, count: {n_lo}, service: 1s}}
topologies:
  batched:
    queues: [jobs]
    pools: [{{name: w, workers: 1, queues: [jobs], batch: 20}}]
policies:
  - {{policy: drr, over: classes, topology: batched, label: drr}}
",
    )
}

#[test]
fn ninety_ten_is_two_low_jobs_in_every_batch_of_twenty() {
    // drr over classes, weights 9 and 1, quantum 1 job: each round gives hi
    // 9 jobs and lo 1, a pattern of period 10. A claim of 20 takes 20
    // consecutive picks, two whole periods: exactly 2 lo jobs, in each of
    // the 1,000 / 20 = 50 batches.
    let rows = starts(&weighted_classes(9, 1, 900, 100), "drr");
    assert_eq!(rows.len(), 1000);
    assert_eq!(lo_per_batch(&rows), vec![2; 50]);
}

#[test]
fn the_same_split_written_ninety_ten_arrives_in_bursts_of_ten() {
    // The same 90/10 split written as weights 90 and 10: a drr visit gives
    // quantum x weight = 90 hi jobs, then 10 lo. The period is 100 picks,
    // five batches: four of pure hi, then one of 10 hi and 10 lo (hi's
    // visit comes first: classes in declaration order).
    let rows = starts(&weighted_classes(90, 10, 900, 100), "drr");
    assert_eq!(lo_per_batch(&rows), [0, 0, 0, 0, 10].repeat(10));
}

#[test]
fn ninety_nine_to_one_cannot_be_spread_over_batches_of_twenty() {
    // weights 99 and 1: one lo job per 100 picks, i.e. 0.2 per batch of 20,
    // which no batch can hold: 4 batches in 5 carry none and the fifth
    // carries the whole share at once. 1,000 jobs: 50 batches, 10 with one
    // lo job and 40 without, and within each 100 picks exactly one.
    let rows = starts(&weighted_classes(99, 1, 990, 10), "drr");
    let per = lo_per_batch(&rows);
    assert_eq!(per.len(), 50);
    assert!(per.iter().all(|&n| n <= 1), "{per:?}");
    assert_eq!(per.iter().filter(|&&n| n == 1).count(), 10);
    for period in per.chunks(5) {
        assert_eq!(period.iter().sum::<usize>(), 1, "{per:?}");
    }
}

const PRIORITY: &str = "workers: 1
classes: {interactive: {priority: 1}, bulk: {priority: 9}}
workload:
  - {tenant: A, class: bulk, count: 100, service: 1s}
  - {tenant: B, class: interactive, count: 1, at: 500ms, service: 1s}
topologies:
  one-by-one:
    queues: [jobs]
    pools: [{name: w, workers: 1, queues: [jobs]}]
  batched:
    queues: [jobs]
    pools: [{name: w, workers: 1, queues: [jobs], batch: 20}]
policies:
  - {policy: priority, topology: one-by-one, label: single}
  - {policy: priority, topology: batched, label: batch}
";

#[test]
fn a_claim_ordered_by_priority_holds_an_urgent_job_behind_the_whole_batch() {
    // 100 bulk jobs at t = 0, one interactive job at 0.5 s, strict priority.
    // One job per fetch: the worker's next fetch is at 1 s and takes the
    // interactive job (wait 0.5 s). Twenty per fetch: the fetch at 0 claimed
    // twenty bulk jobs, run 0..20 s; the next fetch is at 20 s (wait 19.5 s).
    for (label, start) in [("single", 1.0), ("batch", 20.0)] {
        let rows = starts(PRIORITY, label);
        let urgent = rows.iter().find(|r| r["class"] == "interactive").expect("the urgent job ran");
        assert_eq!((secs(&urgent["start"]), secs(&urgent["wait"])), (start, start - 0.5), "{label}");
    }
}

#[test]
fn a_batch_takes_the_first_queue_dry_then_fills_from_the_next() {
    // Strict poll [main, slow]: 5 jobs in main and 100 in slow at t = 0, a
    // sixth main job at 0.5 s. The claim at 0 takes main's 5, then 15 from
    // slow: starts 0..4 from main, 5..19 from slow; the late main job waits
    // for the next claim, at 20 s.
    let text = "workers: 1
classes: {a: {}, b: {}}
workload:
  - {tenant: A, class: a, count: 5, service: 1s}
  - {tenant: B, class: b, count: 100, service: 1s}
  - {tenant: C, class: a, count: 1, at: 500ms, service: 1s}
topologies:
  two:
    queues: [main, slow]
    route: [{class: b, to: slow}, {to: main}]
    pools: [{name: w, workers: 1, queues: [main, slow], batch: 20}]
policies:
  - {policy: fifo, topology: two, label: batch}
";
    let rows = starts(text, "batch");
    let queues: Vec<&str> = rows[..21].iter().map(|r| r["queue"].as_str()).collect();
    assert_eq!(queues[..5], ["main"; 5]);
    assert_eq!(queues[5..20], ["slow"; 15]);
    let late = rows.iter().find(|r| r["tenant"] == "C").expect("C ran");
    assert_eq!(secs(&late["start"]), 20.0);
    assert_eq!(queues[20], "main");
}

#[test]
fn batches_of_twenty_leave_the_second_worker_idle_at_the_end() {
    // Two workers, 30 one-second jobs at t = 0. One per fetch: two at a time,
    // makespan 15 s. Twenty per fetch: the first worker claims 20 (runs
    // 0..20 s), the second the remaining 10 (0..10 s): makespan 20 s, the
    // second worker idle for the last 10 s while work was claimed elsewhere.
    let text = "workers: 2
workload:
  - {tenant: A, count: 30, service: 1s}
topologies:
  single:
    queues: [jobs]
    pools: [{name: w, workers: 2, queues: [jobs]}]
  batched:
    queues: [jobs]
    pools: [{name: w, workers: 2, queues: [jobs], batch: 20}]
policies:
  - {policy: fifo, topology: single, label: single}
  - {policy: fifo, topology: batched, label: batch}
";
    for (label, makespan, at_ten) in [("single", 15.0, 2), ("batch", 20.0, 1)] {
        let rows = starts(text, label);
        let last = rows.iter().map(|r| secs(&r["finish"])).fold(0.0, f64::max);
        let started_at_ten = rows.iter().filter(|r| secs(&r["start"]) == 10.0).count();
        assert_eq!((last, started_at_ten), (makespan, at_ten), "{label}");
    }
}

#[test]
fn batching_is_refused_where_a_claim_would_skip_a_cap() {
    let text = "workers: 1
tenants: {A: {cap: 1}}
workload:
  - {tenant: A, count: 3, service: 1s}
topologies:
  batched:
    queues: [jobs]
    pools: [{name: w, workers: 1, queues: [jobs], batch: 4}]
policies:
  - {policy: fifo, topology: batched}
";
    let err = validate_error(text, "cap.yaml");
    assert!(err.contains("cap.yaml:8:58:") && err.contains("tenant caps"), "{err}");
}

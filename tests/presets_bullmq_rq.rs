//! The BullMQ and RQ presets: start times derived by hand from BullMQ's
//! `moveToActive` (bullmq 6.2.0, wait list, then the prioritized set; the
//! queue limiter) and RQ's worker (rq 2.10.0, `dequeue_any` in list order,
//! a forked work horse per job), each preset against the same topology
//! written by hand, and their errors.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;

fn starts(out: &Path, label: &str) -> HashMap<String, Vec<f64>> {
    let mut m: HashMap<String, Vec<f64>> = HashMap::new();
    for r in read_csv(&out.join(label).join("jobs.csv")) {
        m.entry(r["class"].clone()).or_default().push(secs(&r["start"]));
    }
    for v in m.values_mut() {
        v.sort_by(f64::total_cmp);
    }
    m
}

/// One BullMQ queue, `emails`; a job without priority is priority 0.
const BULL: &str = "classes: {emails/p0: {priority: 0}, emails/p1: {priority: 1}, emails/p5: {priority: 5}}
workload:
  - {tenant: A, class: emails/p5, count: 2, service: 400ms}
  - {tenant: B, class: emails/p1, count: 1, service: 400ms}
  - {tenant: C, class: emails/p0, count: 1, service: 400ms}
";

#[test]
fn bullmq_takes_unprioritized_then_by_priority_under_the_limiter() {
    // two workers of `emails`, concurrency 1 each (one pool of 2), the
    // queue's limiter {max: 3, duration: 1000} (milliseconds). Four jobs at
    // 0: moveToActive pops the wait list first (C's job, no priority), then
    // the prioritized set by score: B's (1), then A's two (5) in insertion
    // order. At 0: C and B start (the limiter's key counts 2 and expires at
    // 1). At 0.4 both end: A's first starts (count 3); the second finds the
    // limit reached and waits for the key to expire: it starts at 1.
    let text = format!(
        "workers: 2\n{BULL}topologies:\n  bq: {{bullmq: {{workers: [{{queue: emails, concurrency: 1, limiter: {{max: 3, duration: 1000}}}}, {{queue: emails}}]}}}}\npolicies: [{{topology: bq}}]\n"
    );
    let (_d, out) = run_yaml(&text, &["--no-plots"]);
    let s = starts(&out, "bq");
    assert_eq!(s["emails/p0"], [0.0]);
    assert_eq!(s["emails/p1"], [0.0]);
    assert_eq!(s["emails/p5"], [0.4, 1.0]);
}

#[test]
fn bullmq_runs_as_the_topology_written_by_hand() {
    let head = format!(
        "workers: 2\nseed: 9\n{BULL}  - {{tenant: D, class: emails/p5, arrivals: {{poisson: 20/s, stop: 20s}}, service: {{exponential: 300ms}}}}\n  - {{tenant: E, class: emails/p1, arrivals: {{poisson: 5/s, stop: 20s}}, service: 100ms}}\n"
    );
    let preset = format!(
        "{head}topologies:\n  bq: {{bullmq: {{workers: [{{queue: emails, concurrency: 8, limiter: {{max: 20, duration: 1000}}}}]}}}}\npolicies: [{{topology: bq, label: x}}]\n"
    );
    let hand = format!(
        "{head}topologies:
  bq:
    queues: [emails]
    pools: [{{name: emails, workers: 8, queues: [emails], limiter: {{max: 20, duration: 1s}}}}]
policies: [{{policy: priority, topology: bq, label: x}}]
"
    );
    let (_a, p) = run_yaml(&preset, &["--no-plots"]);
    let (_b, h) = run_yaml(&hand, &["--no-plots"]);
    let p = std::fs::read(p.join("x/jobs.csv")).expect("jobs");
    let h = std::fs::read(h.join("x/jobs.csv")).expect("jobs");
    assert!(p.len() > 10_000, "a run of some size");
    assert!(p == h, "the preset's jobs.csv differs from the hand-written topology's");
}

const RQ: &str = "classes: {high: {}, default: {}, low: {}}
workload:
  - {tenant: L, class: low, count: 3, service: 1s}
  - {tenant: H, class: high, at: 500ms, count: 1, service: 1s}
  - {tenant: D, class: default, at: 600ms, count: 1, service: 1s}
";

#[test]
fn rq_workers_fork_each_job_and_take_queues_in_order() {
    // `rq worker high default low` twice, fork 0.1 s: a worker that takes
    // a job forks for 0.1 s before it runs. At 0 both take low jobs: they
    // run 0.1 to 1.1. high (0.5) and default (0.6) wait; at 1.1 the two
    // workers dequeue high then default (list order, though the third low
    // job is older): both start at 1.2 and end at 2.2; the low job then
    // starts at 2.3.
    let text = format!(
        "workers: 2\n{RQ}topologies:\n  rq: {{rq: {{workers: [{{count: 2, queues: [high, default, low]}}], fork: 100ms}}}}\npolicies: [{{topology: rq}}]\n"
    );
    let (_d, out) = run_yaml(&text, &["--no-plots"]);
    let s = starts(&out, "rq");
    assert_eq!(s["low"], [0.1, 0.1, 2.3]);
    assert_eq!(s["high"], [1.2]);
    assert_eq!(s["default"], [1.2]);
}

#[test]
fn rq_runs_as_the_topology_written_by_hand() {
    let head = format!(
        "workers: 2\nseed: 4\n{RQ}  - {{tenant: P, class: low, arrivals: {{poisson: 3/s, stop: 30s}}, service: {{exponential: 500ms}}}}\n  - {{tenant: Q, class: high, arrivals: {{poisson: 1/s, stop: 30s}}, service: 200ms}}\n"
    );
    let preset = format!(
        "{head}costs: {{finish: 5ms}}\ntopologies:\n  rq: {{rq: {{workers: [{{count: 2, queues: [high, default, low]}}, {{count: 1, queues: [low, high], dequeue_strategy: random}}], fork: 24ms}}}}\npolicies: [{{topology: rq, label: x}}]\n"
    );
    let hand = format!(
        "{head}costs: {{finish: 5ms}}
topologies:
  rq:
    queues: [high, default, low]
    route: [{{class: high, to: high}}, {{class: default, to: default}}, {{class: low, to: low}}]
    pools:
      - {{name: workers0, workers: 2, queues: [high, default, low], costs: {{claim: 24ms}}}}
      - {{name: workers1, workers: 1, queues: [low, high], poll: random, costs: {{claim: 24ms}}}}
policies: [{{policy: fifo, topology: rq, label: x}}]
"
    );
    let (_a, p) = run_yaml(&preset, &["--no-plots"]);
    let (_b, h) = run_yaml(&hand, &["--no-plots"]);
    let p = std::fs::read(p.join("x/jobs.csv")).expect("jobs");
    let h = std::fs::read(h.join("x/jobs.csv")).expect("jobs");
    assert!(p.len() > 4_000, "a run of some size");
    assert!(p == h, "the preset's jobs.csv differs from the hand-written topology's");
}

#[test]
fn bad_options_are_errors_at_their_place() {
    let cases = [
        ("{bullmq: {workers: [{queue: emails, concurency: 2}]}}", "s.yaml:7:42: unknown key `concurency` in a worker; did you mean `concurrency`?"),
        ("{bullmq: {workers: [{queue: emails, limiter: {max: 2}}]}}", "s.yaml:7:51: BullMQ's limiter is `{max: N, duration: MS}`"),
        ("{bullmq: {workers: [{queue: emails, limiter: {max: 2, duration: 1000}}, {queue: emails, limiter: {max: 3, duration: 1000}}]}}", "has a different limiter on another worker"),
        ("{rq: {workers: [{queues: [high], dequeue_strategy: round_robin}]}}", "s.yaml:7:57: `round_robin` rotates each RQ worker's own queue list"),
        ("{rq: {workers: [{count: 1}], fork: 24ms, costs: {claim: 1ms}}}", "already costs 0.024 s per start"),
        ("{rq: {workers: [{count: 1}], costs: {poll_interval: 1s}}}", "a preset's poll interval is the processor's own setting"),
        ("{rq: {workers: [{count: 1}]}, pools: [{name: p, workers: 1, queues: [default]}]}", "a `rq` preset writes the whole topology, so it takes no `pools`"),
    ];
    for (preset, want) in cases {
        let text = format!("workers: 2\n\nworkload:\n  - {{tenant: A, count: 1, service: 1s}}\n\ntopologies:\n  t: {preset}\npolicies: [{{topology: t}}]\n");
        let err = validate_error(&text, "s.yaml");
        assert!(err.contains(want), "{preset}:\nwant {want}\ngot  {err}");
    }
}

//! Reservation ahead (`prefetch:`): worker nodes that take jobs before a
//! worker is free for them, as Celery's `worker_prefetch_multiplier` does.
//! Each answer is derived by hand in the test's comment from the rules of
//! docs/scenario.md (Reservation ahead): a node holds at most multiplier x
//! workers unacknowledged jobs (acknowledged at their start, or at their
//! end under `acks_late`); a job pushed to a queue goes to the node that
//! has waited longest on it, and a node that takes one and still has room
//! waits again at the back; `fair` hands a held job to an idle worker of
//! its node, `fcfs` to the node's first worker. 1 s ticks: a dispatch at t
//! falls in tick floor(t) + 1.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;

fn jobs(out: &Path, label: &str) -> Vec<HashMap<String, String>> {
    let mut rows = read_csv(&out.join(label).join("jobs.csv"));
    rows.sort_by_key(|j| j["job"].parse::<u64>().expect("job id"));
    rows
}

fn starts(out: &Path, label: &str) -> Vec<f64> {
    jobs(out, label).iter().map(|r| secs(&r["start"])).collect()
}

/// Two nodes of 2 workers on one queue, with `prefetch`: at 0 a long job
/// (10 s), a 2 s job, a long one, a 2 s one (jobs 0-3, in that order), and
/// four 1 s jobs at 1 s (jobs 4-7).
fn two_nodes(prefetch: &str) -> String {
    format!(
        "workers: 4
workload:
  - {{tenant: long, count: 1, service: 10s}}
  - {{tenant: short, count: 1, service: 2s}}
  - {{tenant: long, count: 1, service: 10s}}
  - {{tenant: short, count: 1, service: 2s}}
  - {{tenant: short, count: 4, at: 1s, service: 1s}}
topologies:
  celery:
    pools: [{{name: node, count: 2, workers: 2, queues: [default], prefetch: {prefetch}}}]
policies:
  - fifo
  - {{policy: fifo, topology: celery, label: nodes}}
"
    )
}

#[test]
fn a_node_busy_with_long_jobs_holds_the_short_ones_it_reserved() {
    // multiplier 4: each node holds up to 8 jobs not yet started, so it
    // never fills here. Both wait at 0, in a drawn order, say X before Y.
    // Job 0 (long) -> X, which waits again behind Y; job 1 -> Y; job 2
    // (long) -> X; job 3 -> Y: X runs the two long jobs (0 - 10), Y the two
    // 2 s ones (0 - 2), and the line is X, Y again. At 1 the four 1 s jobs
    // alternate: 4 -> X, 5 -> Y, 6 -> X, 7 -> Y. Y's workers free at 2:
    // jobs 5 and 7 start at 2; jobs 4 and 6 wait for X's long jobs, until
    // 10, while Y's workers idle from 3. The other draw swaps X and Y only.
    let (_d, out) = run_yaml(&two_nodes("{multiplier: 4}"), &["--no-plots"]);
    assert_eq!(starts(&out, "nodes"), [0.0, 0.0, 0.0, 0.0, 10.0, 2.0, 10.0, 2.0]);
    // one queue and four workers, no reservation: 4 and 5 at 2, 6 and 7 at 3
    assert_eq!(starts(&out, "fifo"), [0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 3.0, 3.0]);
    // the node of the long jobs ran jobs 0, 2, 4, 6
    let rows = jobs(&out, "nodes");
    let x = &rows[0]["pool"];
    for (j, r) in rows.iter().enumerate() {
        assert_eq!(&r["pool"] == x, j % 2 == 0, "job {j} on {}", r["pool"]);
    }
    // at 3 (tick 4) Y's workers are idle while X holds jobs 4 and 6 of
    // `short`: passed over `prefetched`, in that tick only (the next
    // dispatch is at 10, when X starts them)
    let ticks = read_csv(&out.join("nodes/ticks.csv"));
    let skipped: Vec<&str> = ticks.iter().map(|r| r["skipped"].as_str()).collect();
    assert_eq!(skipped[..5], ["", "", "", "short:prefetched", ""]);
    // pools.csv: each node reserved 4, held at most 2 at once (X: jobs 4 and
    // 6; Y: 0 and 2 at 0, then 5 and 7); held 0 + 0 + 9 + 9 = 18 s on X and
    // 0 + 0 + 1 + 1 = 2 s on Y, over 4 starts each: 4.5 s and 0.5 s
    let pools = read_csv(&out.join("nodes/pools.csv"));
    let mut held: Vec<(String, String, String)> = pools
        .iter()
        .map(|p| (p["reserved"].clone(), p["held_max"].clone(), p["held_mean"].clone()))
        .collect();
    held.sort();
    assert_eq!(held, [("4".into(), "2".into(), "0.5".into()), ("4".into(), "2".into(), "4.5".into())]);
}

#[test]
fn acks_late_with_multiplier_1_takes_a_job_only_for_a_free_worker() {
    // multiplier 1 with acks_late: a node holds at most 1 x 2 jobs counting
    // its running ones. At 0: job 0 -> X, 1 -> Y, 2 -> X (X full), 3 -> Y
    // (Y full); nobody waits on the queue. At 1 jobs 4-7 stay in it. At 2
    // Y's jobs end and acknowledge: Y takes 4 and 5 and starts them; at 3
    // they end: Y takes 6 and 7. The same as one queue on four workers.
    let (_d, out) = run_yaml(&two_nodes("{multiplier: 1, acks_late: true}"), &["--no-plots"]);
    assert_eq!(starts(&out, "nodes"), [0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 3.0, 3.0]);
    assert_eq!(starts(&out, "nodes"), starts(&out, "fifo"));
}

#[test]
fn multiplier_1_without_acks_late_still_holds_two_jobs_behind_long_ones() {
    // multiplier 1, acknowledged at the start: a node holds 2 jobs not yet
    // started. At 0 X takes 0 and 2 and Y takes 1 and 3 (each full after
    // its second); their starts acknowledge them and each node, full
    // before, waits again: in the order the nodes start (pool order), so
    // the line is the draw's X, Y or Y, X. At 1 jobs 4-7 alternate between
    // them: two of them go to X and wait until 10, two to Y and start at
    // 2. Which two depends on the draw; the waits do not: 1, 1, 9, 9.
    let (_d, out) = run_yaml(&two_nodes("{multiplier: 1}"), &["--no-plots"]);
    let mut waits: Vec<f64> = jobs(&out, "nodes")[4..].iter().map(|r| secs(&r["wait"])).collect();
    waits.sort_by(f64::total_cmp);
    assert_eq!(waits, [1.0, 1.0, 9.0, 9.0]);
}

#[test]
fn fcfs_runs_every_job_on_the_first_worker_of_the_node() {
    // one node of 4 workers, multiplier 4. A 10 s job at 0 and three 1 s
    // jobs at 1. fair: the three go to idle workers at 1. fcfs: every job
    // is written to the first worker, busy or not: they run after the long
    // one, at 10, 11 and 12, while three workers idle; at 1 (tick 2) their
    // tenant is passed over `prefetched`.
    let text = "workers: 4
workload:
  - {tenant: long, count: 1, service: 10s}
  - {tenant: short, count: 3, at: 1s, service: 1s}
topologies:
  fair:
    pools: [{name: node, workers: 4, queues: [default], prefetch: {multiplier: 4}}]
  fcfs:
    pools: [{name: node, workers: 4, queues: [default], prefetch: {multiplier: 4, handoff: fcfs}}]
policies:
  - {policy: fifo, topology: fair, label: fair}
  - {policy: fifo, topology: fcfs, label: fcfs}
";
    let (_d, out) = run_yaml(text, &["--no-plots"]);
    assert_eq!(starts(&out, "fair"), [0.0, 1.0, 1.0, 1.0]);
    assert_eq!(starts(&out, "fcfs"), [0.0, 10.0, 11.0, 12.0]);
    let ticks = read_csv(&out.join("fcfs/ticks.csv"));
    assert_eq!(ticks[1]["skipped"], "short:prefetched");
    // 13 s of service on 4 workers over a 13 s makespan: 0.25; held 0, 9,
    // 10 and 11 s: 7.5 s on average
    let pool = &read_csv(&out.join("fcfs/pools.csv"))[0];
    assert_eq!((pool["utilization"].as_str(), pool["held_max"].as_str()), ("0.250000", "3"));
    assert_eq!(pool["held_mean"], "7.5");
}

/// One node of 2 workers, multiplier 1 with acks_late, jobs of 1 s and
/// `second` at 0 and two 1 s jobs at 0.5, with `refetch: 60s` (label
/// `deferred`) and without (`at-once`).
fn refetching(second: &str) -> String {
    format!(
        "workers: 2
workload:
  - {{tenant: a, count: 1, service: 1s}}
  - {{tenant: a, count: 1, service: {second}}}
  - {{tenant: a, count: 2, at: 500ms, service: 1s}}
topologies:
  late:
    pools: [{{name: node, workers: 2, queues: [default], prefetch: {{multiplier: 1, acks_late: true, refetch: 60s}}}}]
  now:
    pools: [{{name: node, workers: 2, queues: [default], prefetch: {{multiplier: 1, acks_late: true}}}}]
policies:
  - {{policy: fifo, topology: late, label: deferred}}
  - {{policy: fifo, topology: now, label: at-once}}
"
    )
}

#[test]
fn a_full_node_acknowledging_under_refetch_asks_again_at_its_next_event() {
    // jobs 0 and 1 (1 s and 1.01 s) fill the node; jobs 2 and 3 wait in the
    // queue from 0.5. At once: job 0's end at 1 acknowledges it and the
    // node takes job 2 (start 1), job 1's end at 1.01 job 3 (start 1.01).
    // With refetch the node asks again only at its next event, job 1's end
    // at 1.01 (10 ms later, past the 1 ms turn of its loop): both start
    // at 1.01. (Its timer ticks every 60 s on a drawn phase: it would come
    // first only if that tick fell in (1, 1.01], a chance of 1 in 6,000 for
    // a seed, and the scenario's seed is fixed.)
    let (_d, out) = run_yaml(&refetching("1010ms"), &["--no-plots"]);
    assert_eq!(starts(&out, "at-once"), [0.0, 0.0, 1.0, 1.01]);
    assert_eq!(starts(&out, "deferred"), [0.0, 0.0, 1.01, 1.01]);
}

#[test]
fn an_event_in_the_same_turn_leaves_the_node_to_its_timer() {
    // the second job ends 0.5 ms after the first: in the same turn of the
    // node's loop as the acknowledgement at 1, so it wakes nothing, and
    // the node has no other job to start or end: it idles with jobs queued
    // until its timer's next tick T, some instant in (1, 61], and then
    // starts both. At once: 1 and 1.0005.
    let (_d, out) = run_yaml(&refetching("1000500us"), &["--no-plots"]);
    assert_eq!(starts(&out, "at-once"), [0.0, 0.0, 1.0, 1.0005]);
    let got = starts(&out, "deferred");
    assert_eq!(got[2], got[3]);
    assert!(got[2] > 1.0005 && got[2] <= 61.0, "{got:?}");
}

#[test]
fn a_prefetch_the_model_cannot_run_is_refused_at_its_line_and_column() {
    let pool = |keys: &str, top: &str| {
        format!(
            "workers: 2\n{top}workload:\n  - {{tenant: T, count: 1, service: 1s}}\ntopologies:\n  t:\n    pools: [{{name: p, workers: 2, queues: [default], {keys}}}]\npolicies: [{{policy: fifo, topology: t}}]\n"
        )
    };
    let cases = [
        ("prefetch: {multiplier: 4, handof: fair}", "", ":6:", "did you mean `handoff`?"),
        ("prefetch: {multiplier: 4, handoff: lifo}", "", ":6:", "fair"),
        ("prefetch: {handoff: fair}", "", ":6:", "multiplier"),
        ("prefetch: {multiplier: 4000000000}", "", ":6:", "multiplier: 0"),
        ("prefetch: {multiplier: 1, refetch: 2m}", "", ":6:", "at most 60s"),
        ("batch: 2, prefetch: {multiplier: 1}", "", ":6:", "remove `batch` or `prefetch`"),
        (
            "limiter: {max: 1, duration: 1s}, prefetch: {multiplier: 1}",
            "",
            ":6:",
            "remove `limiter` or `prefetch`",
        ),
        ("prefetch: {multiplier: 1}, costs: {poll_interval: 10ms}", "", ":6:", "poll_interval: 0s"),
        ("prefetch: {multiplier: 1}", "tenants: {T: {cap: 1}}\n", ":7:", "tenant caps"),
        ("prefetch: {multiplier: 1}", "resources: {cpu: 2}\n", ":7:", "`resources:`"),
    ];
    for (keys, top, at, says) in cases {
        let msg = validate_error(&pool(keys, top), "p.yaml");
        assert!(msg.contains(&format!("p.yaml{at}")) && msg.contains(says), "{keys}: {msg}");
    }
    // run refuses the same, at the same place, and writes nothing
    let dir = tempdir();
    let sc = write_scenario(dir.path(), "p.yaml", &pool("batch: 2, prefetch: {multiplier: 1}", ""));
    let out = dir.path().join("out");
    let o = fairsim().arg("run").arg(&sc).arg("--out").arg(&out).output().expect("runs");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("p.yaml:6:"));
    assert!(!out.exists());
    // a policy entry's own cap on a topology of nodes
    let entry_cap = "workers: 2\nworkload:\n  - {tenant: T, count: 1, service: 1s}\ntopologies:\n  t:\n    pools: [{name: p, workers: 2, queues: [default], prefetch: {multiplier: 1}}]\npolicies:\n  - {policy: fifo, topology: t, tenants: {T: {cap: 1}}}\n";
    let msg = validate_error(entry_cap, "e.yaml");
    assert!(msg.contains("e.yaml:8:") && msg.contains("tenant caps"), "{msg}");
    // and behind a planner
    let planner = "workers: 2\nworkload:\n  - {tenant: T, count: 1, service: 1s}\ntopologies:\n  t:\n    planner: {interval: 1s, batch: 2}\n    pools: [{name: p, workers: 2, queues: [main], prefetch: {multiplier: 1}}]\npolicies: [{policy: fifo, topology: t}]\n";
    let msg = validate_error(planner, "l.yaml");
    assert!(msg.contains("l.yaml:7:") && msg.contains("planner"), "{msg}");
}

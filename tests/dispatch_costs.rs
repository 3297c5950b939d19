//! Dispatch costs: claim, refusal and finish costs occupy
//! the worker, a poll interval idles it; each test's answer is derived by
//! hand in its comment.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;

/// The rows of `label/jobs.csv` by job id.
fn jobs(out: &Path, label: &str) -> Vec<HashMap<String, String>> {
    let mut rows = read_csv(&out.join(label).join("jobs.csv"));
    rows.sort_by_key(|j| j["job"].parse::<u64>().expect("job id"));
    rows
}

fn column(rows: &[HashMap<String, String>], key: &str) -> Vec<f64> {
    rows.iter().map(|r| secs(&r[key])).collect()
}

/// The one label of a scenario with one policy entry.
fn only_label(out: &Path) -> String {
    read_csv(&out.join("comparison.csv"))[0]["policy"].clone()
}

#[test]
fn claim_and_finish_costs_space_one_workers_starts() {
    // 1 worker, claim 0.1 s, finish 0.2 s, three 1 s jobs at 0.
    // 0: the worker claims job 0; its service starts at 0.1, ends at 1.1;
    // the worker finishes until 1.3, claims job 1: start 1.4, end 2.4, free
    // 2.6; job 2: start 2.7, end 3.7, the worker free at 3.9.
    // Waits are start - arrival (the claim counts): 0.1, 1.4, 2.7.
    // pools.csv: busy 3 s, overhead 3 x (0.1 + 0.2) = 0.9 s, makespan 3.7:
    // utilization 3 / 3.7 = 0.810811, occupancy 3.9 / 3.7 = 1.054054.
    let (_d, out) = run_yaml(
        "workers: 1
costs: {claim: 100ms, finish: 200ms}
workload:
  - {tenant: A, count: 3, service: 1s}
policies: [fifo]
",
        &["--no-plots"],
    );
    let rows = jobs(&out, "fifo");
    assert_eq!(column(&rows, "start"), [0.1, 1.4, 2.7]);
    assert_eq!(column(&rows, "finish"), [1.1, 2.4, 3.7]);
    assert_eq!(column(&rows, "wait"), [0.1, 1.4, 2.7]);
    let pools = read_csv(&out.join("fifo/pools.csv"));
    assert_eq!(pools.len(), 1);
    let p = &pools[0];
    assert_eq!((p["pool"].as_str(), p["workers"].as_str(), p["started"].as_str()), ("default", "1", "3"));
    assert_eq!(secs(&p["busy"]), 3.0);
    assert_eq!(secs(&p["overhead"]), 0.9);
    assert_eq!(p["utilization"], "0.810811");
    assert_eq!(p["occupancy"], "1.054054");
}

#[test]
fn a_saturated_worker_completes_one_job_per_claim_service_and_finish() {
    // 1 worker, claim c = 0.25 s, service s = 0.5 s, finish f = 0.25 s, 1,000
    // jobs at 0: job k is claimed at k (c + s + f) = k s, starts at k + 0.25
    // and ends at k + 0.75; the run's throughput is 1 / (c + s + f) = 1 job
    // a second: the last job ends at 999.75.
    let (_d, out) = run_yaml(
        "workers: 1
costs: {claim: 250ms, finish: 250ms}
workload:
  - {tenant: A, count: 1000, service: 500ms}
policies: [fifo]
",
        &["--no-plots"],
    );
    let rows = jobs(&out, "fifo");
    let starts = column(&rows, "start");
    for (k, s) in starts.iter().enumerate() {
        assert_eq!(*s, k as f64 + 0.25, "job {k}");
    }
    let cmp = &read_csv(&out.join("comparison.csv"))[0];
    assert_eq!(secs(&cmp["makespan"]), 999.75);
}

/// Starts of three jobs arriving at 0.2, 1.2 and 2.6 s (1 s each) on one
/// worker that polls every 0.5 s; `pool` is the YAML of the topology, if any.
const POLLED: &str = "workers: 1
workload:
  - {tenant: A, count: 1, at: 200ms, service: 1s}
  - {tenant: A, count: 1, at: 1200ms, service: 1s}
  - {tenant: A, count: 1, at: 2600ms, service: 1s}
";

#[test]
fn an_idle_worker_sees_new_work_at_its_next_poll() {
    // The worker's looks are at 0, 0.5, 1, ... while idle. Job 0 arrives at
    // 0.2: seen at 0.5, runs to 1.5. Job 1 arrived at 1.2 while it was busy:
    // a worker that becomes free looks at once, so it starts at 1.5, ends at
    // 2.5; the look at 2.5 finds nothing, the next is at 3.0, after job 2's
    // arrival at 2.6: it starts at 3.0. The same on the default pool (top
    // level `costs`) and on a topology's pool (its own `costs`).
    let default = format!("{POLLED}costs: {{poll_interval: 500ms}}\npolicies: [fifo]\n");
    let (_d, out) = run_yaml(&default, &["--no-plots"]);
    assert_eq!(column(&jobs(&out, "fifo"), "start"), [0.5, 1.5, 3.0]);
    let pooled = format!(
        "{POLLED}topologies:
  t:
    pools: [{{name: p, workers: 1, queues: [default], costs: {{poll_interval: 500ms}}}}]
policies: [{{policy: fifo, topology: t, label: pooled}}]
"
    );
    let (_d, out) = run_yaml(&pooled, &["--no-plots"]);
    assert_eq!(column(&jobs(&out, "pooled"), "start"), [0.5, 1.5, 3.0]);
    // waits: 0.3, 0.3, 0.4; the sleep is idle time, not overhead
    assert_eq!(column(&jobs(&out, "pooled"), "wait"), [0.3, 0.3, 0.4]);
    let pools = read_csv(&out.join("pooled/pools.csv"));
    assert_eq!(secs(&pools[0]["overhead"]), 0.0);
}

#[test]
fn a_refused_claim_holds_its_worker() {
    // 2 workers, F capped at 1, `on_cap: {delay: 3s}`, refusal 0.5 s.
    // 0: F's job 0 starts on worker 1 (until 1).
    // 0.2: worker 2 claims F's job 1: refused at the cap, back at 3.2; the
    // refusal holds worker 2 until 0.7.
    // 0.3: G's job arrives: no worker is free (1 busy until 1, 2 until 0.7).
    // 0.7: worker 2 is free: G's job starts (wait 0.4; 0.3 without the cost).
    // 3.2: F's job 1 is claimable again, F runs nothing: it starts at 3.2.
    // Overhead: the one refusal, 0.5 s.
    let (_d, out) = run_yaml(
        "workers: 2
tenants: {F: {cap: 1}}
costs: {refusal: 500ms}
workload:
  - {tenant: F, count: 1, at: 0s, service: 1s}
  - {tenant: F, count: 1, at: 200ms, service: 1s}
  - {tenant: G, count: 1, at: 300ms, service: 1s}
policies:
  - {policy: fifo, on_cap: {delay: 3s}}
",
        &["--no-plots"],
    );
    let label = only_label(&out);
    let rows = jobs(&out, &label);
    assert_eq!(column(&rows, "start"), [0.0, 3.2, 0.7]);
    let pools = read_csv(&out.join(&label).join("pools.csv"));
    assert_eq!(secs(&pools[0]["overhead"]), 0.5);
}

#[test]
fn each_pool_pays_its_own_costs_and_inherits_the_others() {
    // Top-level claim 10 ms; pool `horses` sets its own claim, 24 ms (RQ's
    // fork), and inherits finish 0; pool `fast` inherits the 10 ms.
    // Queue h goes to horses (1 worker), queue f to fast (1 worker); two 1 s
    // jobs at 0 in each. horses: starts 0.024 and 1.048 (1.024 + 0.024);
    // fast: 0.01 and 1.02. Overheads 0.048 and 0.02. The default-pool entry
    // (fifo) pays the top-level 10 ms on its 2 workers: starts 0.01, 0.01,
    // 1.02, 1.02, and its pools.csv has the one row `default`.
    let (_d, out) = run_yaml(
        "workers: 2
costs: {claim: 10ms}
classes: {slow: {}, quick: {}}
workload:
  - {tenant: A, class: slow, count: 2, service: 1s}
  - {tenant: B, class: quick, count: 2, service: 1s}
topologies:
  rq:
    queues: [h, f]
    route: [{class: slow, to: h}, {to: f}]
    pools:
      - {name: horses, workers: 1, queues: [h], costs: {claim: 24ms}}
      - {name: fast, workers: 1, queues: [f]}
policies:
  - fifo
  - {policy: fifo, topology: rq, label: rq}
",
        &["--no-plots"],
    );
    let rq = jobs(&out, "rq");
    let by_pool = |pool: &str| -> Vec<f64> {
        rq.iter().filter(|r| r["pool"] == pool).map(|r| secs(&r["start"])).collect()
    };
    assert_eq!(by_pool("horses"), [0.024, 1.048]);
    assert_eq!(by_pool("fast"), [0.01, 1.02]);
    let pools = read_csv(&out.join("rq/pools.csv"));
    let overhead: Vec<f64> = pools.iter().map(|p| secs(&p["overhead"])).collect();
    assert_eq!(overhead, [0.048, 0.02]);
    let mut plain = column(&jobs(&out, "fifo"), "start");
    plain.sort_by(f64::total_cmp);
    assert_eq!(plain, [0.01, 0.01, 1.02, 1.02]);
    let pools = read_csv(&out.join("fifo/pools.csv"));
    assert_eq!(pools.len(), 1);
    assert_eq!(pools[0]["pool"], "default");
    assert_eq!(secs(&pools[0]["overhead"]), 0.04);
}

#[test]
fn without_costs_no_run_writes_overhead_or_a_default_pools_file() {
    // the default path: the same scenario without `costs` keeps pools.csv's
    // six columns, and the default pool writes none
    let (_d, out) = run_yaml(
        "workers: 1
workload:
  - {tenant: A, count: 2, service: 1s}
topologies:
  t:
    pools: [{name: p, workers: 1, queues: [default]}]
policies: [fifo, {policy: fifo, topology: t, label: t}]
",
        &["--no-plots"],
    );
    assert!(!out.join("fifo/pools.csv").exists());
    let text = std::fs::read_to_string(out.join("t/pools.csv")).expect("pools.csv");
    assert_eq!(text.lines().next(), Some("pool,workers,queues,started,busy,utilization"));
}

#[test]
fn a_misspelt_cost_is_refused_at_its_line_and_column_with_a_guess() {
    let msg = validate_error(
        "workers: 1\ncosts: {clam: 1ms}\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n",
        "c.yaml",
    );
    assert!(msg.contains("c.yaml:2:"), "{msg}");
    assert!(msg.contains("did you mean `claim`?"), "{msg}");
    let msg = validate_error(
        "workers: 1\nworkload:\n  - {tenant: A, count: 1, service: 1s}\ntopologies:\n  t:\n    pools: [{name: p, workers: 1, queues: [default], costs: {finsh: 1ms}}]\npolicies: [{policy: fifo, topology: t}]\n",
        "p.yaml",
    );
    assert!(msg.contains("p.yaml:6:"), "{msg}");
    assert!(msg.contains("did you mean `finish`?"), "{msg}");
    let msg = validate_error(
        "workers: 1\ncosts: {claim: soon}\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n",
        "d.yaml",
    );
    assert!(msg.contains("d.yaml:2:") && msg.contains("costs.claim"), "{msg}");
}

#[test]
fn costs_with_capacity_changes_or_a_polling_planner_are_refused() {
    let msg = validate_error(
        "workers: 2\ncosts: {finish: 1ms}\ncapacity: [{at: 1s, workers: 1}]\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n",
        "cap.yaml",
    );
    assert!(msg.contains("cap.yaml:2:") && msg.contains("capacity"), "{msg}");
    let msg = validate_error(
        "workers: 1\ncosts: {poll_interval: 1s}\nworkload:\n  - {tenant: A, count: 1, service: 1s}\ntopologies:\n  p:\n    planner: {interval: 1s, batch: 1}\npolicies: [{policy: fifo, topology: p}]\n",
        "plan.yaml",
    );
    assert!(msg.contains("plan.yaml:7:") && msg.contains("poll"), "{msg}");
}

#[test]
fn a_poll_nobody_took_keeps_its_phase_and_never_starts_a_job_before_its_arrival() {
    // A pool of 2 workers polling every 0.1 s; 4 ms jobs at 1, 1.05 and 3.
    // 1: both look (their first look on the 0.1 s grid at or after the
    // event); W1 takes job 0 (ends 1.004), W2 finds nothing, next look 1.1.
    // 1.004: W1 sleeps, next look 1.104. 1.05: job 1 is queued: the looks
    // are planned at 1.1 (W2) and 1.104 (W1). 1.1: W2 takes job 1. 1.104:
    // nothing is queued: W1's look finds nothing and it sleeps on its phase.
    // 3: job 2 arrives; the next looks are 1.104 + ceil(1.896 / 0.1) x 0.1
    // = 3.004 (W1) and 1.204 + 18 x 0.1 = 3.004 (W2): job 2 starts at
    // 3.004. (Left as it was, W1's look at 1.104 sent the clock back to it
    // and job 2 started at 1.104, before its arrival.)
    let (_d, out) = run_yaml(
        "workers: 2
workload:
  - {tenant: A, count: 1, at: 1s, service: 4ms}
  - {tenant: A, count: 1, at: 1050ms, service: 4ms}
  - {tenant: A, count: 1, at: 3s, service: 4ms}
topologies:
  t: {queues: [q], pools: [{name: p, workers: 2, queues: [q], costs: {poll_interval: 100ms}}]}
policies:
  - {policy: fifo, topology: t}
",
        &["--no-plots"],
    );
    let rows = jobs(&out, "fifo");
    assert_eq!(column(&rows, "start"), [1.0, 1.1, 3.004]);
}

#[test]
fn a_capped_job_waiting_under_a_microsecond_poll_costs_no_event_per_look() {
    // 2 workers polling every 1 us, tenant C capped at 1 with `spare: hold`,
    // three 30 min jobs at 0. Job 0 starts at 0; jobs 1 and 2 are capped, so
    // the second worker looks, finds nothing claimable and sleeps. Job 0
    // ends at 1800 s: that frees C's cap, and the sleeper's first look at or
    // after 1800 s on its 1 us phase from 0 is 1800 s itself: job 1 starts
    // at 1800, job 2 at 3600 (the worker that ran job 0 looks at once, but
    // C is at its cap until 3600). Before, every look that found a capped
    // job planned the next one: 1.8e9 looks per half hour, a run that did
    // not end (the fuzzer's hang); now only a change plans a look.
    let (_d, out) = run_yaml(
        "workers: 2
costs: {poll_interval: 1us}
tenants:
  C: {cap: 1}
workload:
  - {tenant: C, arrivals: {batch: 3}, service: 30m}
policies: [{policy: fifo, spare: hold}]
",
        &["--no-plots"],
    );
    assert_eq!(column(&jobs(&out, "fifo"), "start"), [0.0, 1800.0, 3600.0]);
}

//! The observation log's skip reasons that queues, pools and delays add:
//! `throttled`, `not_subscribed` and `delayed`, each on a run whose
//! dispatches are derived by hand in the comment, tick by tick (1 s ticks:
//! a dispatch at t falls in tick floor(t) + 1, a completion at a whole
//! second in the tick ending then).

mod common;

use std::collections::HashMap;

use common::*;

/// The `skipped` cell of each tick of `label` in order.
fn skipped(text: &str, label: &str) -> Vec<String> {
    let (_dir, out) = run_yaml(text, &["--no-plots", "--policy", label]);
    read_csv(&out.join(label).join("ticks.csv")).iter().map(|r| r["skipped"].clone()).collect()
}

#[test]
fn a_throttled_tenant_is_passed_over_while_the_worker_serves_main() {
    // One worker polling [main, slow] strictly. A's throttle allows one job
    // per hour: A0 goes to main, A1 and A2 to slow; B0 and B1 to main. The
    // worker takes A0 (t = 0), B0 (1), B1 (2) from main while A's two jobs
    // wait in slow: ticks 1-3 list A as throttled; then A1 (3) and A2 (4)
    // from slow, with nothing passed over.
    let text = "workers: 1
workload:
  - {tenant: A, count: 3, service: 1s}
  - {tenant: B, count: 2, service: 1s}
topologies:
  throttled:
    queues: [main, slow]
    route: [{tenant: A, throttle: {limit: 1, window: 1h}, to: slow}, {to: main}]
    pools: [{name: w, workers: 1, queues: [main, slow]}]
policies:
  - {policy: fifo, topology: throttled, label: throttled}
";
    assert_eq!(skipped(text, "throttled"), ["A:throttled", "A:throttled", "A:throttled", "", ""]);
}

#[test]
fn tenants_in_a_queue_no_idle_worker_polls_are_not_subscribed() {
    // Pool p polls main, pool q polls slow, one worker each. M has one 1 s
    // job (main), S three 2 s jobs (slow). t = 0: p takes M0, q takes S0.
    // t = 1: p is idle, main is empty and slow (S1, S2) is polled only by
    // q, which is busy: S is passed over, not_subscribed (tick 2). t = 2:
    // q takes S1; p idle again with S2 waiting: tick 3 lists S again. t = 4:
    // q takes S2 and nothing waits. Ticks 1-6 (the last job ends at 6 s).
    let text = "workers: 2
classes: {fast: {}, bulk: {}}
workload:
  - {tenant: M, class: fast, count: 1, service: 1s}
  - {tenant: S, class: bulk, count: 3, service: 2s}
topologies:
  split:
    queues: [main, slow]
    route: [{class: bulk, to: slow}, {to: main}]
    pools: [{name: p, workers: 1, queues: [main]}, {name: q, workers: 1, queues: [slow]}]
policies:
  - {policy: fifo, topology: split, label: split}
";
    assert_eq!(skipped(text, "split"), ["", "S:not_subscribed", "S:not_subscribed", "", "", ""]);
}

#[test]
fn a_tenant_waiting_out_its_cap_delay_is_listed_as_delayed() {
    // Three workers, A (cap 1) has two 3 s jobs at t = 0, B one 1 s job at
    // 1.5 s, `on_cap: {delay: 2s}`. A0 runs 0-3; A1 is refused at 0 (tick
    // 1: at_cap) and is away until 2. At 1.5 B's job arrives, and the tick's
    // first dispatch with a free worker finds A's job waiting out its delay
    // (tick 2: delayed); B starts. At 2 A1 is back and met at the cap again
    // in the same stretch: it waits in place (tick 3: at_cap) and starts at
    // 3. Held in place instead, A is only ever at_cap.
    let text = "workers: 3
tenants: {A: {cap: 1}}
workload:
  - {tenant: A, count: 2, service: 3s}
  - {tenant: B, count: 1, at: 1500ms, service: 1s}
policies:
  - {policy: fifo, spare: hold, label: held}
  - {policy: fifo, spare: hold, on_cap: {delay: 2s}, label: delayed}
";
    let delayed = skipped(text, "delayed");
    assert_eq!(delayed[..3], ["A:at_cap", "A:delayed", "A:at_cap"], "{delayed:?}");
    assert!(skipped(text, "held").iter().all(|s| !s.contains("delayed")));
}

#[test]
fn tenants_in_a_planners_ledger_are_delayed_until_promoted() {
    // A planner waking every minute, planning for 10 s. Two jobs arrive at
    // t = 0: at the first dispatch decision (t = 0, tick 1) both tenants
    // wait in the ledger; they are promoted at 10 s and start then.
    let text = "workers: 2
workload:
  - {tenant: A, count: 1, service: 1s}
  - {tenant: B, count: 1, service: 1s}
topologies:
  planned:
    planner: {interval: 1m, batch: 10, depth_below: 1, cost: {base: 10s, per_active_tenant: 0s}}
policies:
  - {policy: fifo, topology: planned, label: planned}
";
    let ticks = skipped(text, "planned");
    assert_eq!(ticks[0], "A:delayed B:delayed");
}

#[test]
fn the_log_lists_a_passed_over_tenant_in_every_tick_it_waits_refused() {
    // 2 workers, A capped at 1, fifo (spare lend). At 1000 s A has a 10 s and
    // a 1 s job, B four 1 s jobs. At 1000 A's 10 s job starts, its 1 s job is
    // refused at the cap and B's first starts; B's others start at 1001, 1002
    // and 1003, each time with A's job waiting refused. What happens at an
    // instant counts in the tick that begins there (a tick closes before the
    // arrivals and dispatch of its end instant), so the ticks ending at 1001,
    // 1002, 1003 and 1004 all list A:at_cap (the defect listed it only in
    // the first, when A was first refused). At 1004 only A waits: the free
    // worker is lent and A's 1 s job starts, in the tick ending at 1005.
    let dir = tempdir();
    let sc = write_scenario(
        dir.path(),
        "skips.yaml",
        "workers: 2\ntenants: {A: {cap: 1}, B: {}}\nworkload:\n\
           - {tenant: A, count: 1, at: 1000s, service: 10s}\n\
           - {tenant: A, count: 1, at: 1000s, service: 1s}\n\
           - {tenant: B, count: 4, at: 1000s, service: 1s}\n\
         policies: [fifo]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let ticks: HashMap<String, HashMap<String, String>> =
        read_csv(&out.join("fifo").join("ticks.csv")).into_iter().map(|r| (r["time"].clone(), r)).collect();
    for t in ["1001", "1002", "1003", "1004"] {
        assert_eq!(ticks[t]["skipped"], "A:at_cap", "tick ending at {t}");
        assert_eq!(ticks[t]["chosen"], if t == "1001" { "A B" } else { "B" }, "tick ending at {t}");
    }
    assert_eq!(ticks["1005"]["chosen"], "A");
    assert_eq!(tenant_starts(&out, "fifo")["A"], [1000.0, 1004.0]);
}

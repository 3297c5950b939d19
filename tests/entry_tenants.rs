//! A policy entry's own `tenants: {NAME: {cap, weight}}`: the entry's run
//! sees those caps and weights, the other entries the scenario's, on
//! identical arrivals. Every expected start is worked out by hand.

mod common;

use common::*;

/// Starts of tenant `t`'s jobs in `label`'s run, in job order.
fn starts(out: &std::path::Path, label: &str, t: &str) -> Vec<f64> {
    tenant_starts(out, label).remove(t).unwrap_or_default()
}

#[test]
fn a_cap_on_the_entry_binds_only_that_entry() {
    // 2 workers; A's three 1 s jobs arrive at 0, then B's three.
    // fifo: A0, A1 at 0; A2, B0 at 1; B1, B2 at 2.
    // A capped at 1 (work lent only when nobody else waits): A0 and B0 at 0,
    // A1 and B1 at 1, A2 and B2 at 2.
    // `spare: hold` with A alone would also give 0, 1, 2 for A.
    let (_d, out) = run_yaml(
        "workers: 2
tenants: {A: {}, B: {}}
workload:
  - {tenant: A, count: 3, service: 1s}
  - {tenant: B, count: 3, service: 1s}
policies:
  - fifo
  - {policy: fifo, label: cap-a-1, tenants: {A: {cap: 1}}}
",
        &[],
    );
    assert_eq!(starts(&out, "fifo", "A"), [0.0, 0.0, 1.0]);
    assert_eq!(starts(&out, "fifo", "B"), [1.0, 2.0, 2.0]);
    assert_eq!(starts(&out, "cap-a-1", "A"), [0.0, 1.0, 2.0]);
    assert_eq!(starts(&out, "cap-a-1", "B"), [0.0, 1.0, 2.0]);
}

#[test]
fn a_strict_cap_on_the_entry_idles_workers() {
    // A alone, three 1 s jobs at 0 on 2 workers: 0, 0, 1 without a cap;
    // 0, 1, 2 with cap 1 held strictly.
    let (_d, out) = run_yaml(
        "workers: 2
workload:
  - {tenant: A, count: 3, service: 1s}
policies:
  - fifo
  - {policy: fifo, label: held, spare: hold, tenants: {A: {cap: 1}}}
",
        &[],
    );
    assert_eq!(starts(&out, "fifo", "A"), [0.0, 0.0, 1.0]);
    assert_eq!(starts(&out, "held", "A"), [0.0, 1.0, 2.0]);
}

/// Jobs of each tenant started before `t` in `label`'s run.
fn started_before(out: &std::path::Path, label: &str, t: f64) -> (usize, usize) {
    let m = tenant_starts(out, label);
    let n = |who: &str| m[who].iter().filter(|&&s| s < t).count();
    (n("A"), n("B"))
}

#[test]
fn a_weight_on_the_entry_splits_the_worker_as_the_weights_say() {
    // One worker, A and B backlogged with 100 one-second jobs each. Equal
    // weights share it 1:1: 20 jobs each in the first 40 s. A weight of 3
    // for A on the entry shares it 3:1: 30 and 10 (one job either way for
    // which of a tied pair goes first).
    let (_d, out) = run_yaml(
        "workers: 1
workload:
  - {tenant: A, count: 100, service: 1s}
  - {tenant: B, count: 100, service: 1s}
policies:
  - wfq
  - {policy: wfq, label: wfq-a3, tenants: {A: {weight: 3}}}
  - {policy: drr, label: drr-a3, tenants: {A: {weight: 3}}}
",
        &[],
    );
    let near = |(a, b): (usize, usize), want: (usize, usize)| {
        a.abs_diff(want.0) <= 1 && b.abs_diff(want.1) <= 1 && a + b == 40
    };
    let plain = started_before(&out, "wfq", 40.0);
    assert!(near(plain, (20, 20)), "{plain:?}");
    for label in ["wfq-a3", "drr-a3"] {
        let got = started_before(&out, label, 40.0);
        assert!(near(got, (30, 10)), "{label}: {got:?}");
    }
}

#[test]
fn an_entry_override_reaches_a_topology_run() {
    // The first test's arrivals on a topology: one queue `q` polled by a
    // pool of 2 workers. The engine's caps hold across queues, so the
    // starts are the same as on the default topology.
    let (_d, out) = run_yaml(
        "workers: 2
tenants: {A: {}, B: {}}
workload:
  - {tenant: A, count: 3, service: 1s}
  - {tenant: B, count: 3, service: 1s}
topologies:
  one:
    queues: [q]
    pools: [{name: p, workers: 2, queues: [q]}]
policies:
  - {policy: fifo, topology: one, label: plain}
  - {policy: fifo, topology: one, label: capped, tenants: {A: {cap: 1}}}
",
        &[],
    );
    assert_eq!(starts(&out, "plain", "A"), [0.0, 0.0, 1.0]);
    assert_eq!(starts(&out, "capped", "A"), [0.0, 1.0, 2.0]);
    assert_eq!(starts(&out, "capped", "B"), [0.0, 1.0, 2.0]);
}

#[test]
fn a_sweep_over_a_scenario_with_entry_overrides_keeps_each_entrys_cap() {
    // A alone, three 1 s jobs at 0. fifo on 2 workers waits 0, 0, 1 (mean
    // 1/3), on 3 workers 0, 0, 0; the entry holding A to 1 job waits 0, 1, 2
    // (mean 1) however many workers there are. Arrivals are fixed, so every
    // seed gives the same.
    let dir = tempdir();
    let sc = write_scenario(
        dir.path(),
        "s.yaml",
        "workers: 2
workload:
  - {tenant: A, count: 3, service: 1s}
policies:
  - fifo
  - {policy: fifo, label: held, spare: hold, tenants: {A: {cap: 1}}}
",
    );
    let out = dir.path().join("sweep");
    fairsim()
        .arg("sweep")
        .arg(&sc)
        .args(["--seeds", "2", "--set", "workers=2,3", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .success();
    let rows = read_csv(&out.join("runs.csv"));
    assert_eq!(rows.len(), 8, "2 points x 2 seeds x 2 entries");
    for r in rows {
        let want = match (r["workers"].as_str(), r["policy"].as_str()) {
            ("2", "fifo") => 1.0 / 3.0,
            ("3", "fifo") => 0.0,
            (_, "held") => 1.0,
            other => panic!("unexpected row {other:?}"),
        };
        // written with 6 decimals
        assert!((secs(&r["wait_mean"]) - want).abs() < 1e-6, "{r:?}");
    }
}

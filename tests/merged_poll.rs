//! What processor presets expand to, written by hand: a pool polling its
//! queues `merged` (Solid Queue's `*`, GoodJob's unordered lists) and the
//! routing rule `to: "{class}"` (a job to the queue named as its class,
//! also for classes a trace declares). Answers derived by hand.

mod common;

use std::collections::HashMap;

use common::*;

fn starts(text: &str, label: &str) -> HashMap<String, f64> {
    let (_d, out) = run_yaml(text, &["--no-plots"]);
    read_csv(&out.join(label).join("jobs.csv"))
        .iter()
        .map(|r| (r["tenant"].clone(), secs(&r["start"])))
        .collect()
}

/// Queues a and b, one worker polling [b, a] with `poll`; X (class a) runs
/// 0 to 1, then A (class a, at 0.4) and B (class b, at 0.5) wait for it.
fn two_queues(classes: &str, poll: &str, policy: &str) -> String {
    format!(
        "workers: 1
classes: {classes}
workload:
  - {{tenant: X, class: a, count: 1, service: 1s}}
  - {{tenant: A, class: a, at: 400ms, count: 1, service: 1s}}
  - {{tenant: B, class: b, at: 500ms, count: 1, service: 1s}}
topologies:
  t:
    queues: [a, b]
    route: [{{to: \"{{class}}\"}}]
    pools: [{{name: p, workers: 1, queues: [b, a]{poll}}}]
policies: [{{policy: {policy}, topology: t, label: x}}]
"
    )
}

#[test]
fn merged_queues_go_by_the_policys_order_not_the_list() {
    // fifo: at 1 the oldest job of both queues is A (0.4), though the list
    // puts b first: A at 1, B at 2. Polled strictly, b first: B at 1, A at 2.
    let s = starts(&two_queues("{a: {}, b: {}}", ", poll: merged", "fifo"), "x");
    assert_eq!((s["X"], s["A"], s["B"]), (0.0, 1.0, 2.0));
    let s = starts(&two_queues("{a: {}, b: {}}", "", "fifo"), "x");
    assert_eq!((s["X"], s["A"], s["B"]), (0.0, 2.0, 1.0));
    // priority, b's class at 1 and a's at 5: B first at 1 (though A is
    // older), then A at 2
    let s = starts(&two_queues("{a: {priority: 5}, b: {priority: 1}}", ", poll: merged", "priority"), "x");
    assert_eq!((s["X"], s["A"], s["B"]), (0.0, 2.0, 1.0));
}

#[test]
fn merged_polling_needs_an_order_the_queues_share() {
    let err = validate_error(&two_queues("{a: {}, b: {}}", ", poll: merged", "drr"), "m.yaml");
    assert!(err.contains("m.yaml:12:12: policy `drr`: pool `p` polls its queues merged"), "{err}");
}

#[test]
fn a_trace_class_goes_to_the_queue_it_names() {
    // the trace's `queue` and `priority` columns make the classes bulk/p5
    // and mailers/p1 (declared by the trace, not the scenario); `{class}`
    // sends each to its queue. One worker polls [mailers, bulk] strictly:
    // bulk's first job runs 0 to 1, then mailers' (0.5) at 1, then bulk's
    // second at 2. (Every job in the first queue would have run the
    // second bulk job at 1.)
    let dir = tempdir();
    std::fs::write(
        dir.path().join("t.csv"),
        "created_at,tenant,queue,priority,service\n0,A,bulk,5,1\n0,A,bulk,5,1\n0.5,B,mailers,1,1\n",
    )
    .unwrap();
    let text = "workers: 1
workload:
  - trace: {path: t.csv, columns: {class: queue, priority: priority, service: service}, time_format: epoch_s}
topologies:
  t:
    queues: [mailers, bulk]
    route: [{to: \"{class}\"}]
    pools: [{name: p, workers: 1, queues: [mailers, bulk]}]
policies: [{policy: fifo, topology: t, label: x}]
";
    let sc = write_scenario(dir.path(), "s.yaml", text);
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let rows = read_csv(&out.join("x/jobs.csv"));
    let got: Vec<(String, String, f64)> =
        rows.iter().map(|r| (r["class"].clone(), r["queue"].clone(), secs(&r["start"]))).collect();
    assert!(got.contains(&("mailers/p1".into(), "mailers".into(), 1.0)), "{got:?}");
    assert!(got.contains(&("bulk/p5".into(), "bulk".into(), 0.0)), "{got:?}");
    assert!(got.contains(&("bulk/p5".into(), "bulk".into(), 2.0)), "{got:?}");
}

//! The GoodJob preset: start times derived by hand from GoodJob's queue
//! string and scheduler (good_job 4.19.2, `multi_scheduler.rb`,
//! `scheduler.rb`, `Job.queue_parser`, `dequeueing_ordered`), the preset
//! against the same topology written by hand, and its errors.

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

/// GoodJob's default priority is 0 and smaller runs first: `default`'s
/// jobs at 0, mailers' at 1, the others at 5.
const WORKLOAD: &str = "classes: {default: {priority: 0}, real_time: {priority: 5}, background: {priority: 5}, mailers/p1: {priority: 1}}
workload:
  - {tenant: A, class: background, at: 0s, count: 1, service: 1s}
  - {tenant: B, class: mailers/p1, at: 100ms, count: 1, service: 1s}
  - {tenant: C, class: background, at: 200ms, count: 1, service: 1s}
  - {tenant: D, class: real_time, at: 300ms, count: 1, service: 1s}
  - {tenant: E, at: 400ms, count: 1, service: 1s}
";

#[test]
fn ordered_lists_go_in_order_and_star_by_priority() {
    // `+real_time,background:1;*:1`: scheduler 0 has one thread on
    // real_time then background (`+`: queue_ordered first), scheduler 1
    // one thread on every queue by priority, created_at; LISTEN/NOTIFY
    // wakes the first scheduler with a free thread whose queues match.
    // 0: bg1 (background) to scheduler 0, runs to 1. 0.1: mail matches
    // only scheduler 1: runs 0.1 to 1.1. bg2 (0.2), rt (0.3), d (default,
    // priority 0, 0.4) wait. At 1 scheduler 0's thread looks again:
    // real_time before background, rt at 1. At 1.1 scheduler 1's: d
    // (priority 0) before bg2 (5): d at 1.1. At 2 scheduler 0: bg2.
    let text = format!(
        "workers: 2\n{WORKLOAD}topologies:\n  gj: {{good_job: {{queues: \"+real_time,background:1;*:1\"}}}}\npolicies: [{{topology: gj}}]\n"
    );
    let (_d, out) = run_yaml(&text, &["--no-plots"]);
    let s = starts(&out, "gj");
    assert_eq!(s["background"], [0.0, 2.0]);
    assert_eq!(s["mailers/p1"], [0.1]);
    assert_eq!(s["real_time"], [1.0]);
    assert_eq!(s["default"], [1.1]);
}

#[test]
fn excluded_queues_are_left_to_the_other_schedulers() {
    // `-background:1;background:1`: scheduler 0 takes every queue but
    // background, by priority; scheduler 1 only background. 0: bg1 to
    // scheduler 1 (0 to 1). 0.1: mail to scheduler 0 (0.1 to 1.1). 0.2:
    // bg2 waits for scheduler 1. 0.3 rt and 0.4 d wait for scheduler 0. At
    // 1 scheduler 1 takes bg2; at 1.1 scheduler 0 takes d (priority 0)
    // before rt (5); rt at 2.1.
    let text = format!(
        "workers: 2\n{WORKLOAD}topologies:\n  gj: {{good_job: {{queues: \"-background:1;background:1\"}}}}\npolicies: [{{topology: gj}}]\n"
    );
    let (_d, out) = run_yaml(&text, &["--no-plots"]);
    let s = starts(&out, "gj");
    assert_eq!(s["background"], [0.0, 1.0]);
    assert_eq!(s["mailers/p1"], [0.1]);
    assert_eq!(s["default"], [1.1]);
    assert_eq!(s["real_time"], [2.1]);
}

#[test]
fn the_preset_runs_as_the_topology_written_by_hand() {
    // unordered `real_time,background` (merged), `mailers:2` and `*`
    // with max_threads 3, polling every 2 s without LISTEN/NOTIFY
    let head = format!(
        "workers: 2\nseed: 3\n{WORKLOAD}  - {{tenant: F, class: background, arrivals: {{poisson: 5/s, stop: 30s}}, service: {{exponential: 500ms}}}}\n  - {{tenant: G, class: mailers/p1, arrivals: {{poisson: 3/s, stop: 30s}}, service: 300ms}}\n  - {{tenant: H, class: real_time, arrivals: {{poisson: 2/s, stop: 30s}}, service: 200ms}}\n"
    );
    let preset = format!(
        "{head}topologies:\n  gj: {{good_job: {{queues: \"real_time,background;mailers:2;*\", max_threads: 3, enable_listen_notify: false, poll_interval: 2}}}}\npolicies: [{{topology: gj, label: x}}]\n"
    );
    let hand = format!(
        "{head}topologies:
  gj:
    queues: [real_time, background, mailers, default]
    route: [{{class: real_time, to: real_time}}, {{class: background, to: background}}, {{class: mailers/p1, to: mailers}}, {{class: default, to: default}}]
    pools:
      - {{name: scheduler0, workers: 3, queues: [real_time, background], poll: merged, costs: {{poll_interval: 2s}}}}
      - {{name: scheduler1, workers: 2, queues: [mailers], costs: {{poll_interval: 2s}}}}
      - {{name: scheduler2, workers: 3, queues: [real_time, background, mailers, default], poll: merged, costs: {{poll_interval: 2s}}}}
policies: [{{policy: priority, topology: gj, label: x}}]
"
    );
    let (_a, p) = run_yaml(&preset, &["--no-plots"]);
    let (_b, h) = run_yaml(&hand, &["--no-plots"]);
    let p = std::fs::read(p.join("x/jobs.csv")).expect("jobs");
    let h = std::fs::read(h.join("x/jobs.csv")).expect("jobs");
    assert!(p.len() > 10_000, "a run of some size");
    assert!(p == h, "the preset's jobs.csv differs from the hand-written topology's");
}

#[test]
fn bad_queue_strings_and_options_are_errors_at_their_place() {
    let cases = [
        ("{good_job: {queues: \"a:x\"}}", "s.yaml:10:27: `a:x`: the thread count after `:`"),
        ("{good_job: {queues: \"a,,b\"}}", "s.yaml:10:27: `a,,b` has an empty queue name"),
        (
            "{good_job: {max_thread: 2}}",
            "s.yaml:10:19: unknown key `max_thread` in `good_job`; did you mean `max_threads`?",
        ),
        (
            "{good_job: {enable_listen_notify: false, poll_interval: 0}}",
            "s.yaml:10:63: without LISTEN/NOTIFY",
        ),
        ("{good_job: {queues: \"+a,b\"}, sidekiq: {}}", "already is a `sidekiq` deployment"),
    ];
    for (preset, want) in cases {
        let text =
            format!("workers: 2\n{WORKLOAD}topologies:\n  gj: {preset}\npolicies: [{{topology: gj}}]\n");
        let err = validate_error(&text, "s.yaml");
        assert!(err.contains(want), "{preset}:\nwant {want}\ngot  {err}");
    }
}

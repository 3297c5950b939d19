//! Weighted polling over three and four queues: a queue
//! comes first in a fetch with probability w / (sum of the weights of the
//! non-empty queues), docs/scenario.md's promise. tests/topologies.rs pins
//! two queues only, which lets `u -= x.1` in `Pool::fetch_order` become
//! `u += x.1` or `u /= x.1` unnoticed (the middle queue of three is then
//! never first); these cases catch both.
//!
//! Set-up of each case: one worker, one pool polling every queue, fifo in
//! each queue, 10,000 one-second jobs routed to each non-empty queue at
//! t = 0. With one worker each dispatch is one fetch, whose first non-empty
//! queue always has a claimable job, so the queue of the k-th start is the
//! fetch's first choice. In the first 10,000 starts no queue can run dry
//! (each holds 10,000), so every fetch sees the same non-empty set and the
//! counts are multinomial(10,000, p). Tolerance: a count is within 5
//! standard deviations sqrt(n p (1 - p)) of n p; a correct poll fails that
//! with probability below 6e-7 per count (normal tail), and the draws are
//! seeded, so the test is deterministic. A probability off by 0.03 or more
//! (300 of 10,000, over 6 sd for every p here) fails it; the two mutants
//! above take the middle queue's 0.3 to 0.

mod common;

use std::collections::HashMap;

use common::*;

/// `weights` per queue `q0`, `q1`, ...; `empty` queues get no jobs. Returns
/// how many of the first `n` starts came from each queue.
fn first_choices(weights: &[u32], empty: &[usize], n: usize) -> Vec<usize> {
    let k = weights.len();
    let mut yaml = String::from("workers: 1\nclasses: {");
    yaml += &(0..k).map(|i| format!("c{i}: {{}}")).collect::<Vec<_>>().join(", ");
    yaml += "}\nworkload:\n";
    for i in (0..k).filter(|i| !empty.contains(i)) {
        yaml += &format!("  - {{tenant: T{i}, class: c{i}, count: 10000, service: 1s}}\n");
    }
    let queues: Vec<String> = (0..k).map(|i| format!("q{i}")).collect();
    let route: Vec<String> = (0..k).map(|i| format!("{{class: c{i}, to: q{i}}}")).collect();
    let w: Vec<String> = weights.iter().map(u32::to_string).collect();
    yaml += &format!(
        "topologies:\n  t:\n    queues: [{q}]\n    route: [{r}]\n    pools: [{{name: p, workers: 1, queues: [{q}], poll: weighted, weights: [{w}]}}]\npolicies: [{{policy: fifo, topology: t, label: w}}]\n",
        q = queues.join(", "),
        r = route.join(", "),
        w = w.join(", ")
    );
    let (_dir, out) = run_yaml(&yaml, &["--no-plots"]);
    let rows = read_csv(&out.join("w").join("jobs.csv"));
    // one worker, 1 s jobs from t = 0: the k-th start is at k - 1 seconds
    let early: Vec<&HashMap<String, String>> = rows.iter().filter(|r| secs(&r["start"]) < n as f64).collect();
    assert_eq!(early.len(), n);
    (0..k).map(|i| early.iter().filter(|r| r["queue"] == format!("q{i}")).count()).collect()
}

fn assert_multinomial(counts: &[usize], p: &[f64], n: usize) {
    for (i, (&c, &p)) in counts.iter().zip(p).enumerate() {
        let mean = n as f64 * p;
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        assert!(
            (c as f64 - mean).abs() <= 5.0 * sd,
            "queue q{i}: {c} of {n} first, expected {mean:.0} +- {:.0} (5 sd); all: {counts:?}",
            5.0 * sd
        );
    }
}

#[test]
fn three_backlogged_queues_come_first_six_three_one() {
    // Sidekiq's `-q critical,6 -q default,3 -q bulk,1`: 6/10, 3/10, 1/10;
    // sd 49, 46 and 30 over 10,000 fetches
    let n = 10_000;
    let counts = first_choices(&[6, 3, 1], &[], n);
    assert_multinomial(&counts, &[0.6, 0.3, 0.1], n);
}

#[test]
fn an_empty_queue_of_four_drops_out_of_the_sum() {
    // weights 1, 4, 2, 3 with q1 empty: the non-empty sum is 1 + 2 + 3 = 6,
    // so 1/6, 0, 2/6, 3/6 (not 1/10, 2/10, 3/10 of all four weights, where
    // q1's share would go to whichever queue follows it)
    let n = 10_000;
    let counts = first_choices(&[1, 4, 2, 3], &[1], n);
    assert_eq!(counts[1], 0, "the empty queue was never a choice");
    assert_multinomial(&counts, &[1.0 / 6.0, 0.0, 2.0 / 6.0, 3.0 / 6.0], n);
}

#[test]
fn an_empty_middle_queue_of_three_leaves_the_outer_two_in_proportion() {
    // weights 6, 3, 1 with q1 empty: 6/7 and 1/7
    let n = 10_000;
    let counts = first_choices(&[6, 3, 1], &[1], n);
    assert_eq!(counts[1], 0);
    assert_multinomial(&counts, &[6.0 / 7.0, 0.0, 1.0 / 7.0], n);
}

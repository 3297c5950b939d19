//! The shipped Sidekiq-style flood: the story its header tells, read from
//! each label's jobs.csv with nearest-rank percentiles computed here.
//!
//! The bounds come from the scenario's arithmetic: the flood is 20,000 x 3 s
//! = 60,000 s of work. Under fifo a critical job arriving in the first hour
//! waits behind the part of the dump still queued, far past 5 s. Shuffle
//! sharding puts all of it on the flooder's 2 one-thread shards, so the run
//! lasts at least 30,000 s, and utilization is at most the total work over
//! 10 x 30,000 s, about 0.22.

mod common;

use std::collections::HashMap;

use common::*;

struct Job {
    tenant: String,
    class: String,
    start: f64,
    finish: f64,
    wait: f64,
}

fn jobs(out: &std::path::Path, label: &str) -> Vec<Job> {
    read_csv(&out.join(label).join("jobs.csv"))
        .into_iter()
        .map(|r| Job {
            tenant: r["tenant"].clone(),
            class: r["class"].clone(),
            start: secs(&r["start"]),
            finish: secs(&r["finish"]),
            wait: secs(&r["wait"]),
        })
        .collect()
}

/// Nearest-rank 99th percentile.
fn p99(mut w: Vec<f64>) -> f64 {
    w.sort_by(f64::total_cmp);
    w[((0.99 * w.len() as f64).ceil() as usize).max(1) - 1]
}

fn class_p99(j: &[Job], class: &str) -> f64 {
    p99(j.iter().filter(|x| x.class == class).map(|x| x.wait).collect())
}

/// The worst p99 among the tenants but `flood`, and whose it is.
fn worst_other(j: &[Job]) -> (f64, String) {
    let mut by: HashMap<&str, Vec<f64>> = HashMap::new();
    for x in j.iter().filter(|x| x.tenant != "flood") {
        by.entry(&x.tenant).or_default().push(x.wait);
    }
    assert_eq!(by.len(), 19, "19 tenants besides the flooder");
    by.into_iter().map(|(t, w)| (p99(w), t.to_string())).max_by(|a, b| a.0.total_cmp(&b.0)).unwrap()
}

/// Busy worker time over 10 workers x the last finish.
fn utilization(j: &[Job]) -> f64 {
    let busy: f64 = j.iter().map(|x| x.finish - x.start).sum();
    busy / (10.0 * j.iter().map(|x| x.finish).fold(0.0, f64::max))
}

#[test]
fn the_sidekiq_flood_tells_its_story() {
    let dir = tempdir();
    let out = dir.path().join("out");
    run(&scenario("sidekiq-flood.yaml"), &out, &["--no-plots"]);
    let comparison: HashMap<String, f64> = read_csv(&out.join("comparison.csv"))
        .into_iter()
        .map(|r| (r["policy"].clone(), secs(&r["utilization"])))
        .collect();
    let mut util = HashMap::new();
    for label in ["fifo", "weighted", "shuffle-2-10", "weighted-cap"] {
        let j = jobs(&out, label);
        assert_eq!(j.len(), 24_039, "{label}: the same arrivals under every entry");
        let u = utilization(&j);
        // the headline figure is the one jobs.csv gives (4 decimals)
        assert!((u - comparison[label]).abs() < 1e-4, "{label}: {u} vs {}", comparison[label]);
        util.insert(label, u);
    }

    let fifo = jobs(&out, "fifo");
    assert!(class_p99(&fifo, "critical") > 5.0, "fifo fails critical p99 <= 5 s");
    assert!(util["fifo"] >= 0.8);

    let weighted = jobs(&out, "weighted");
    assert!(class_p99(&weighted, "critical") <= 5.0);
    assert!(class_p99(&weighted, "default") <= 60.0);
    let (worst, who) = worst_other(&weighted);
    assert!(worst > 60.0, "weighted fails every tenant but the flooder: {worst} ({who})");
    // ... on their bulk jobs: every job of theirs that waited past a minute is bulk
    assert!(weighted.iter().filter(|x| x.tenant != "flood" && x.wait > 60.0).all(|x| x.class == "bulk"));
    assert!(util["weighted"] >= 0.8);

    let shuffle = jobs(&out, "shuffle-2-10");
    let work: f64 = shuffle.iter().map(|x| x.finish - x.start).sum();
    assert!(util["shuffle-2-10"] <= work / (10.0 * 30_000.0) + 1e-9);
    assert!(util["shuffle-2-10"] < 0.8, "shuffle fails utilization");
    assert!(worst_other(&shuffle).0 > 60.0, "shuffle fails the others' p99");

    let capped = jobs(&out, "weighted-cap");
    assert!(class_p99(&capped, "critical") <= 5.0);
    assert!(class_p99(&capped, "default") <= 60.0);
    let (worst, who) = worst_other(&capped);
    assert!(worst <= 60.0, "the cap protects the others: {worst} ({who})");
    assert!(util["weighted-cap"] >= 0.8);
}

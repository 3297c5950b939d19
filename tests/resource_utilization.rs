//! Utilization per resource (`resources.csv`) and the headline utilization
//! of a pool bounded by `resources:` alone (it used to read 0.0%).

mod common;

use common::*;

/// Two entries, each one job every 10 s from 0 to 90 s (10 jobs), every job
/// holding 1 gpu and 1 mem for 10 s: each job ends as the next of its entry
/// arrives, so exactly 2 run at any time from 0 to 100 s. No tenant waits
/// (2 of 4 gpus, 2 of 10 mem), so the policy does not matter.
const GPUS: &str = "name: gpus\nresources: {gpu: 4, mem: 10}\nlog: {tick: 10s}\nworkload:\n\
  - {tenant: A, arrivals: {every: 10s, count: 10}, service: 10s, cost: {gpu: 1, mem: 1}}\n\
  - {tenant: B, arrivals: {every: 10s, count: 10}, service: 10s, cost: {gpu: 1, mem: 1}}\n\
policies: [fifo, round_robin]\n";

#[test]
fn a_resources_only_pool_reports_each_resource_and_its_busiest_as_the_headline() {
    let (_d, out) = run_yaml(GPUS, &["--no-plots"]);
    // used = 20 jobs x 10 s x 1 = 200 resource-seconds of each resource;
    // gpu 200 / (4 x 100 s) = 0.5, mem 200 / (10 x 100 s) = 0.2
    for label in ["fifo", "round_robin"] {
        let rows = read_csv(&out.join(label).join("resources.csv"));
        let got: Vec<(&str, &str, &str, &str)> = rows
            .iter()
            .map(|r| {
                (
                    r["resource"].as_str(),
                    r["capacity"].as_str(),
                    r["used"].as_str(),
                    r["utilization"].as_str(),
                )
            })
            .collect();
        assert_eq!(got, [("gpu", "4", "200", "0.5000"), ("mem", "10", "200", "0.2000")], "{label}");
    }
    // the headline is the busiest resource, gpu, no longer 0
    let cmp = read_csv(&out.join("comparison.csv"));
    assert_eq!(cmp.len(), 2);
    for r in &cmp {
        assert_eq!(r["makespan"], "100");
        assert_eq!(r["utilization"], "0.5000", "{}", r["policy"]);
    }
    // and the top-level file gathers both policies' rows
    let top = read_csv(&out.join("resources.csv"));
    let keys: Vec<(&str, &str)> =
        top.iter().map(|r| (r["policy"].as_str(), r["resource"].as_str())).collect();
    assert_eq!(keys, [("fifo", "gpu"), ("fifo", "mem"), ("round_robin", "gpu"), ("round_robin", "mem")]);
}

/// With `workers:` as well, the headline stays busy worker time: 2 jobs
/// running at all times on 8 workers over 100 s is 200 / 800 = 0.25, while
/// resources.csv still says gpu 0.5.
#[test]
fn with_workers_the_headline_stays_worker_time() {
    let (_d, out) = run_yaml(
        &GPUS.replace("name: gpus\n", "name: gpus\nworkers: 8\n"),
        &["--no-plots", "--logs", "summary"],
    );
    let cmp = read_csv(&out.join("comparison.csv"));
    assert_eq!(cmp[0]["utilization"], "0.2500");
    let gpu = &read_csv(&out.join("fifo/resources.csv"))[0];
    assert_eq!((gpu["resource"].as_str(), gpu["utilization"].as_str()), ("gpu", "0.5000"));
}

/// A job holding 3 gpus for 5 s out of a run of 10 s on 4 gpus (a second,
/// costless job keeps the run going to 10 s): 15 / 40 = 0.375; a job that
/// holds none of a resource adds nothing to it.
#[test]
fn used_weighs_each_job_by_the_amount_it_holds() {
    let text = "name: w\nresources: {gpu: 4}\nworkload:\n\
      - {tenant: A, count: 1, service: 5s, cost: {gpu: 3}}\n\
      - {tenant: B, count: 1, service: 10s}\n\
      policies: [fifo]\n";
    let (_d, out) = run_yaml(text, &["--no-plots", "--logs", "summary"]);
    let gpu = &read_csv(&out.join("fifo/resources.csv"))[0];
    assert_eq!((gpu["used"].as_str(), gpu["utilization"].as_str()), ("15", "0.3750"));
    assert_eq!(read_csv(&out.join("comparison.csv"))[0]["utilization"], "0.3750");
}

#[test]
fn a_pool_bounded_by_resources_alone_logs_no_worker_count() {
    // No `workers:`, 4 cpus, jobs of 2 cpus: two run at once. The worker
    // count is unbounded, so `workers_free` is empty (it printed 4294967295).
    let dir = tempdir();
    let sc = write_scenario(
        dir.path(),
        "res.yaml",
        "resources: {cpu: 4}\nworkload:\n  - {tenant: A, count: 4, service: 1s, cost: {cpu: 2}}\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let ticks = read_csv(&out.join("fifo").join("ticks.csv"));
    assert!(ticks.iter().all(|r| r["workers_free"].is_empty()), "{ticks:?}");
    let starts: Vec<String> =
        read_csv(&out.join("fifo").join("jobs.csv")).iter().map(|r| r["start"].clone()).collect();
    assert_eq!(starts, ["0", "0", "1", "1"]);
}

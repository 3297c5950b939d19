//! Retries after failed attempts (`retry:`): backoff before a retry becomes
//! claimable, and a retry budget per tenant that stops a retry storm, each
//! against an answer derived in the test's comment.

mod common;

use std::collections::HashMap;

use common::*;

type Rows = Vec<HashMap<String, String>>;

/// Runs `text` under fifo; (comparison.csv, jobs.csv) rows.
fn run_fifo(text: &str) -> (Rows, Rows) {
    let (_dir, out) = run_yaml(text, &["--no-plots", "--policy", "fifo"]);
    (read_csv(&out.join("comparison.csv")), read_csv(&out.join("fifo/jobs.csv")))
}

/// One job of 1 s that fails all 4 of its attempts (probability 1 - 10^-6
/// per attempt: all four fail unless a one-in-250,000 draw says otherwise,
/// and the seed is fixed), under `retry` (empty: none).
fn always_failing(retry: &str) -> String {
    format!(
        "workers: 1
{retry}workload:
  - {{tenant: A, count: 1, service: 1s, failure: {{probability: 0.999999, max_attempts: 4}}}}
"
    )
}

#[test]
fn backoff_delays_each_retry_by_its_wait() {
    // no backoff: attempts 0-1, 1-2, 2-3, 3-4: failed at 4 s.
    let (_, jobs) = run_fifo(&always_failing(""));
    assert_eq!((jobs[0]["finish"].as_str(), jobs[0]["outcome"].as_str()), ("4", "failed"));
    // exponential from 1 s: waits 1, 2, 4 s: attempts 0-1, 2-3, 5-6, 10-11.
    let (_, jobs) = run_fifo(&always_failing("retry: {backoff: {exponential: 1s, max: 1m}}\n"));
    assert_eq!((jobs[0]["finish"].as_str(), jobs[0]["attempts"].as_str()), ("11", "4"));
    // capped at 3 s: waits 1, 2, 3 s: attempts 0-1, 2-3, 5-6, 9-10.
    let (_, jobs) = run_fifo(&always_failing("retry: {backoff: {exponential: 1s, max: 3s}}\n"));
    assert_eq!(jobs[0]["finish"], "10");
    // fixed 5 s: attempts 0-1, 6-7, 12-13, 18-19.
    let (_, jobs) = run_fifo(&always_failing("retry: {backoff: {fixed: 5s}}\n"));
    assert_eq!(jobs[0]["finish"], "19");
    // full jitter on a fixed 5 s: each wait in (0, 5 s], so the end lies in (4, 19]
    let (_, jobs) = run_fifo(&always_failing("retry: {backoff: {fixed: 5s}, jitter: 1}\n"));
    let end = secs(&jobs[0]["finish"]);
    assert!(end > 4.0 && end <= 19.0 && end != 19.0, "{end}");
}

#[test]
fn a_retry_budget_stops_a_retry_storm_from_taking_the_workers() {
    // One worker. A sends 50 jobs of 1 s that fail every attempt (at most 5
    // attempts each), B 50 healthy jobs of 1 s, all at 0. Without a budget
    // every A job is tried 5 times: 250 s of A work, and the worker is
    // never idle, so the run ends at 250 + 50 = 300 s. With a budget of 10
    // retries per hour for each tenant, the first 10 failures are retried
    // and every later failure (including those 10 retries failing again)
    // finds the budget spent: A gets 50 + 10 = 60 attempts, and the run
    // ends at 60 + 50 = 110 s.
    let text = |retry: &str| {
        format!(
            "workers: 1
{retry}workload:
  - {{tenant: A, count: 50, service: 1s, failure: {{probability: 0.999999, max_attempts: 5}}}}
  - {{tenant: B, count: 50, service: 1s}}
"
        )
    };
    let attempts_of_a = |jobs: &Rows| -> f64 {
        jobs.iter().filter(|j| j["tenant"] == "A").map(|j| secs(&j["attempts"])).sum()
    };
    let (cmp, jobs) = run_fifo(&text(""));
    assert_eq!((attempts_of_a(&jobs), secs(&cmp[0]["makespan"])), (250.0, 300.0));
    let (cmp, jobs) = run_fifo(&text("retry: {budget: {limit: 10, window: 1h}}\n"));
    assert_eq!((attempts_of_a(&jobs), secs(&cmp[0]["makespan"])), (60.0, 110.0));
    assert!(jobs.iter().filter(|j| j["tenant"] == "B").all(|j| j["outcome"] == "completed"));
}

#[test]
fn misuse_is_refused_at_its_place() {
    let job = "workload: [{tenant: A, count: 1, service: 1s}]\n";
    let cases = [
        ("retry: {backoff: {exponential: 1s}}\n", "2:18", "needs `max:`"),
        ("retry: {backoff: {fixed: 1s, max: 5s}}\n", "2:18", "`backoff` is `{fixed: D}`"),
        ("retry: {backoff: {exponential: 5s, max: 1s}}\n", "2:41", "`max` must be at least"),
        ("retry: {jitter: 0.5}\n", "2:17", "give `backoff:` too"),
        ("retry: {backoff: {fixed: 1s}, jitter: 2}\n", "2:39", "`jitter` must be from 0"),
        ("retry: {budget: {limit: 0, window: 1m}}\n", "2:25", "`limit` must be at least 1"),
    ];
    for (retry, place, msg) in cases {
        let text = format!("workers: 1\n{retry}{job}");
        let err = validate_error(&text, "r.yaml");
        assert!(err.contains(&format!("r.yaml:{place}")) && err.contains(msg), "{text}\n{err}");
    }
}

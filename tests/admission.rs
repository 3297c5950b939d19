//! Admission rules (`admission:`), each against an answer derived in the
//! test's comment: the M/M/1/K blocking probability of a depth limit, a
//! token bucket's rate x t + burst, and the three actions job by job.

mod common;

use std::collections::HashMap;

use common::*;

type Rows = Vec<HashMap<String, String>>;

/// Runs `text` and returns (comparison.csv rows, jobs.csv rows of `label`).
fn run_text(text: &str, label: &str, extra: &[&str]) -> (Rows, Rows) {
    let mut args = vec!["--no-plots", "--policy", label];
    args.extend_from_slice(extra);
    let (_dir, out) = run_yaml(text, &args);
    let cmp = read_csv(&out.join("comparison.csv"));
    let jobs = if out.join(label).join("jobs.csv").exists() {
        read_csv(&out.join(label).join("jobs.csv"))
    } else {
        Vec::new()
    };
    (cmp, jobs)
}

#[test]
fn a_depth_limit_on_an_mm1_queue_blocks_as_mm1k_predicts() {
    // M/M/1 with rho = 0.8 and at most 4 jobs waiting: the system holds at
    // most K = 5 (4 waiting, 1 running), an M/M/1/K queue. By PASTA an
    // arrival finds it full with probability
    //   P_K = (1 - rho) rho^K / (1 - rho^(K+1)) = 0.2 x 0.32768 / 0.737856 = 0.088818.
    // Over 2,000,000 arrivals the binomial sd would be 0.0002; arrivals in
    // a busy stretch are correlated, so the bound is 0.002.
    let text = "seed: 7
workers: 1
workload:
  - {tenant: A, arrivals: {poisson: 0.8/s, count: 2000000}, service: {exponential: 1s}}
admission:
  - {max_queued: 4, action: reject}
policies: [fifo]
";
    let (cmp, _) = run_text(text, "fifo", &["--logs", "summary"]);
    let jobs: f64 = cmp[0]["jobs"].parse().unwrap();
    let rejected: f64 = cmp[0]["rejected"].parse().unwrap();
    let p = rejected / jobs;
    assert!((p - 0.088818).abs() < 0.002, "blocking {p:.6}");
}

#[test]
fn a_token_bucket_admits_rate_times_t_plus_burst() {
    // Ten jobs a second for 100 s into a bucket of rate 1/s and burst 5:
    // 5 at once (t = 0 .. 0.4), then one each second from 1.0 to 99.0: 104
    // admitted, 896 rejected, naming the rule.
    let text = "workers: 4
workload:
  - {tenant: A, arrivals: {every: 100ms, count: 1000}, service: 1ms}
admission:
  - {tenant: A, throttle: {rate: 1/s, burst: 5}}
policies: [fifo]
";
    let (cmp, jobs) = run_text(text, "fifo", &[]);
    assert_eq!((cmp[0]["completed"].as_str(), cmp[0]["rejected"].as_str()), ("104", "896"));
    let rejected: Vec<_> = jobs.iter().filter(|r| r["outcome"] == "rejected").collect();
    assert!(rejected.iter().all(|r| r["admission_rule"] == "rule 1" && r["admission"] == "accepted"));
}

#[test]
fn a_bucket_fed_at_exactly_its_rate_never_spills_and_one_us_faster_does() {
    // Rate 10/s, burst 1: a job every 100 ms drains exactly the one unit the
    // job before it poured, so the level is 0 at each arrival and 0 + 1 <=
    // 1: all 1,000 are admitted. This is the edge of `fits`'s comparison
    // (level + 1 <= burst + 1e-9): with the tolerance's sign flipped even the
    // first job (level 0) is refused, and with `<` for `<=` every job is.
    // Every 99,999 us instead leaves 1e-5 of a unit per job (10 x 0.099999
    // = 0.99999 drained), far past the 1e-9 tolerance: the second job finds
    // 1e-5 + 1 > 1 and spills, the third finds the bucket drained to 0
    // (1e-5 - 0.99999 < 0) and fits, and so on: every other job, 500.
    let exact = "workers: 4
workload:
  - {tenant: A, arrivals: {every: 100ms, count: 1000}, service: 1ms}
admission:
  - {tenant: A, throttle: {rate: 10/s, burst: 1}}
policies: [fifo]
";
    let (cmp, _) = run_text(exact, "fifo", &[]);
    assert_eq!((cmp[0]["completed"].as_str(), cmp[0]["rejected"].as_str()), ("1000", "0"));
    let (cmp, _) = run_text(&exact.replace("100ms", "99999us"), "fifo", &[]);
    assert_eq!((cmp[0]["completed"].as_str(), cmp[0]["rejected"].as_str()), ("500", "500"));
}

/// The (refused, deferred) cells of each tick of `label`'s ticks.csv.
fn refusals_per_tick(text: &str, label: &str) -> Vec<(String, String)> {
    let (_dir, out) = run_yaml(text, &["--no-plots", "--policy", label]);
    let ticks = read_csv(&out.join(label).join("ticks.csv"));
    ticks.iter().map(|r| (r["refused"].clone(), r["deferred"].clone())).collect()
}

const THREE: &str = "workers: 1
workload:
  - {tenant: A, count: 3, service: 1s}
admission:
  - {tenant: \"*\", max_queued: 1, ACTION}
policies: [fifo]
";

/// (start, outcome, admission) of each job in id order.
fn by_job(jobs: &[HashMap<String, String>]) -> Vec<(String, String, String)> {
    let mut rows: Vec<_> = jobs.to_vec();
    rows.sort_by_key(|r| r["job"].parse::<u32>().unwrap());
    rows.iter().map(|r| (r["start"].clone(), r["outcome"].clone(), r["admission"].clone())).collect()
}

fn row(start: &str, outcome: &str, admission: &str) -> (String, String, String) {
    (start.into(), outcome.into(), admission.into())
}

#[test]
fn a_refused_job_sent_again_is_the_same_job_until_its_retries_run_out() {
    // One worker, at most 1 job waiting per tenant, three 1 s jobs at t = 0.
    // Job 0 is admitted (1 waiting) and starts at 0; jobs 1 and 2 are
    // refused. Sent again 1.5 s later: job 1 is admitted (job 0 started, 0
    // waiting) and, the worker free since 1 s, starts at 1.5; job 2, checked
    // just after it (1 waiting), is refused again, sent at 3.0, admitted and
    // started (the worker is free from 2.5). With one re-send allowed, job 2
    // is rejected at 1.5 instead.
    let retry = THREE.replace("ACTION", "action: retry, after: 1500ms, retries: 2");
    let (_, jobs) = run_text(&retry, "fifo", &[]);
    assert_eq!(
        by_job(&jobs),
        [
            row("0", "completed", "accepted"),
            row("1.5", "completed", "retried 1"),
            row("3", "completed", "retried 2")
        ]
    );
    assert!(jobs.iter().all(|r| r["arrival"] == "0"), "the same job keeps its arrival");
    // the observation log: two refusals in tick 1 (t = 0), one in tick 2
    // (t = 1.5), none in ticks 3 and 4 (the last job ends at 4 s)
    let ticks = refusals_per_tick(&retry, "fifo");
    let refused: Vec<&str> = ticks.iter().map(|t| t.0.as_str()).collect();
    assert_eq!(refused, ["A:2", "A:1", "", ""], "{ticks:?}");
    let once = THREE.replace("ACTION", "action: retry, after: 1500ms, retries: 1");
    let (cmp, jobs) = run_text(&once, "fifo", &[]);
    assert_eq!(by_job(&jobs)[2], row("", "rejected", "retried 1"));
    assert_eq!(cmp[0]["rejected"], "1");
}

#[test]
fn a_deferred_job_becomes_claimable_later_and_counts_as_deferred() {
    // As above, with `action: defer, by: 2s`: jobs 1 and 2 are taken in but
    // claimable only at 2 s (the worker idles from 1 s to 2 s); they start
    // at 2 and 3, waits 2 s and 3 s from their arrival.
    let defer = THREE.replace("ACTION", "action: defer, by: 2s");
    let (cmp, jobs) = run_text(&defer, "fifo", &[]);
    assert_eq!(
        by_job(&jobs),
        [
            row("0", "completed", "accepted"),
            row("2", "completed", "deferred"),
            row("3", "completed", "deferred")
        ]
    );
    assert_eq!((cmp[0]["rejected"].as_str(), cmp[0]["deferred"].as_str()), ("0", "2"));
    let ticks = refusals_per_tick(&defer, "fifo");
    assert_eq!(ticks[0], (String::new(), "A:2".to_string()), "{ticks:?}");
    assert!(ticks[1..].iter().all(|t| t.0.is_empty() && t.1.is_empty()), "{ticks:?}");
}

#[test]
fn an_action_key_without_its_action_is_an_error_at_its_place() {
    let bad = THREE.replace("ACTION", "after: 5s");
    let err = validate_error(&bad, "bad.yaml");
    // line 5 `  - {tenant: "*", max_queued: 1, after: 5s}`: `5s` at column 41
    // (`after:` at 34-39, a space, then the value)
    assert!(err.contains("bad.yaml:5:41: `after` goes with `action: retry`"), "{err}");
}

#[test]
fn a_resend_past_the_horizon_is_refused_at_its_key() {
    // 100 re-sends 100,000 days apart end 10^7 days (8.6 x 10^17 us) after
    // the arrival, past half of 2^53 us: the error points at `after` (line
    // 5 `  - {tenant: "*", max_queued: 1, action: retry, after: 100000d,
    // retries: 100}`: `after:` at 49-54, the value at column 56).
    let bad = THREE.replace("ACTION", "action: retry, after: 100000d, retries: 100");
    let err = validate_error(&bad, "bad.yaml");
    assert!(err.contains("bad.yaml:5:56: `after` x `retries` (100) must stay under half"), "{err}");
}

#[test]
fn the_report_draws_admitted_deferred_and_rejected_jobs_per_tenant_when_admission_refuses() {
    // A batch of 5 jobs at 0 s on 1 worker with at most 2 waiting: all five
    // arrive before the instant's dispatch, so jobs 0 and 1 are admitted
    // (both waiting) and jobs 2, 3 and 4 rejected: bars 2 and 3.
    // Without a rule nothing is refused and the chart is not drawn.
    let dir = tempdir();
    let text = "workers: 1\nworkload: [{tenant: A, count: 5, service: 1s}]\nadmission: [{max_queued: 2}]\n";
    std::fs::write(dir.path().join("t.yaml"), text).expect("write");
    let out = dir.path().join("out");
    run(&dir.path().join("t.yaml"), &out, &["--policy", "fifo"]);
    let svg = std::fs::read_to_string(out.join("charts/fifo-admission.svg")).expect("admission chart");
    assert!(svg.contains("admitted") && svg.contains("rejected"), "{svg}");
    let a = read_csv(&out.join("fifo/summary.csv")).into_iter().find(|r| r["name"] == "A").expect("A");
    assert_eq!((a["jobs"].as_str(), a["rejected"].as_str(), a["deferred"].as_str()), ("5", "3", "0"));
    std::fs::write(dir.path().join("t.yaml"), "workers: 1\nworkload: [{tenant: A, count: 5, service: 1s}]\n")
        .expect("write");
    let out = dir.path().join("out2");
    run(&dir.path().join("t.yaml"), &out, &["--policy", "fifo"]);
    assert!(!out.join("charts/fifo-admission.svg").exists());
}

//! The admission rules beyond counts and buckets: a limit on queued work,
//! predicted delay (B/μ and the oldest age) against a class `sla`, a
//! deadline or a wait, fixed calendar windows, and rule sets chosen per
//! policy entry, each against an answer derived in the test's comment.
//! Every run compares policies on identical arrivals (same seed, same
//! stream), so a policy with `admission: none` is the run without rules.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;

type Row = HashMap<String, String>;

/// jobs.csv of `label` in `out`, in job id order.
fn jobs_of(out: &Path, label: &str) -> Vec<Row> {
    let mut rows = read_csv(&out.join(label).join("jobs.csv"));
    rows.sort_by_key(|r| r["job"].parse::<u64>().unwrap());
    rows
}

/// The comparison.csv row of `label`.
fn cmp_of(out: &Path, label: &str) -> Row {
    read_csv(&out.join("comparison.csv")).into_iter().find(|r| r["policy"] == label).expect("policy row")
}

/// Wait (start − arrival, s) of each started job.
fn waits(jobs: &[Row]) -> Vec<f64> {
    jobs.iter().filter(|r| !r["start"].is_empty()).map(|r| secs(&r["start"]) - secs(&r["arrival"])).collect()
}

/// Ids of the jobs that were not rejected.
fn admitted(jobs: &[Row]) -> Vec<u64> {
    jobs.iter().filter(|r| r["outcome"] != "rejected").map(|r| r["job"].parse().unwrap()).collect()
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(0.0, f64::max)
}

#[test]
fn backlog_over_workers_keeps_a_flooded_interactive_class_within_its_sla() {
    // One worker, fifo, one class `interactive` with sla 10 s. Tenant S
    // sends a 1 s job every 2 s from 0 (100 jobs, ρ = 0.5); tenant F floods
    // 50 jobs of 1 s at 20.5 s. The rule refuses a job when the work ahead
    // of it over the one worker, B/μ, exceeds the sla.
    //
    // Why the admitted waits stay within the bound: under fifo with c
    // work-conserving workers, every worker is busy from a job's arrival to
    // its start, and only on work that was ahead of it at arrival (running
    // or queued); so c·wait <= B and wait <= B/c <= sla.
    //
    // With the rule (`fifo`): S's jobs at 0..20 find the worker free. At
    // 20.5 S's job of 20 has 0.5 s left, and flood job k finds the k flood
    // jobs admitted before it queued (dispatch follows the instant's
    // arrivals): B = 0.5 + k s <= 10 for k <= 9; job 10 finds 10.5 s and is
    // refused, and so is every later one (refused jobs add nothing): 40
    // rejected. Flood job k starts at 21 + k, wait 0.5 + k, at most 9.5 s.
    // S's job at 22 finds flood 1..9 queued (9 s; flood 0 ended at 22),
    // starts at 31 (wait 9), and S's later waits shrink by 1 s a job. So
    // 110 completed, max wait 9.5 s, no sla miss. (Counting only queued
    // work, without the 0.5 s left of the running job, would admit flood
    // job 10 and let it wait 10.5 s.)
    //
    // Without rules (`open`, `admission: none`): flood job k waits 0.5 + k,
    // up to 49.5 s, past the sla for k >= 10 (40 jobs); S's job at 22 + 2i
    // starts at 71 + i (after the last flood job, while 71 + i >= 22 + 2i),
    // wait 49 − i, past the sla for i <= 38 (39 jobs): 79 misses.
    let text = "workers: 1
classes:
  interactive: {priority: 1, sla: 10s}
workload:
  - {tenant: S, class: interactive, arrivals: {every: 2s, count: 100}, service: 1s}
  - {tenant: F, class: interactive, count: 50, at: 20500ms, service: 1s}
admission:
  - {class: interactive, predict: backlog, max_wait: sla}
policies:
  - fifo
  - {policy: fifo, label: open, admission: none}
";
    let (_dir, out) = run_yaml(text, &["--no-plots"]);
    let (ruled, open) = (jobs_of(&out, "fifo"), jobs_of(&out, "open"));
    let (rc, oc) = (cmp_of(&out, "fifo"), cmp_of(&out, "open"));
    assert_eq!((rc["rejected"].as_str(), rc["completed"].as_str()), ("40", "110"));
    assert!((max(&waits(&ruled)) - 9.5).abs() < 1e-9, "{:?}", waits(&ruled));
    assert_eq!(rc["sla_misses"], "0");
    assert!(
        ruled.iter().filter(|r| r["outcome"] == "rejected").all(|r| r["tenant"] == "F"),
        "only the flood is refused"
    );
    assert_eq!((oc["rejected"].as_str(), oc["completed"].as_str()), ("0", "150"));
    assert!((max(&waits(&open)) - 49.5).abs() < 1e-9);
    assert_eq!(oc["sla_misses"], "79");
    assert_eq!(waits(&open).iter().filter(|&&w| w > 10.0).count(), 79);
}

#[test]
fn the_oldest_age_lags_where_backlog_over_workers_does_not() {
    // One worker, a 10 s job every second from 0 to 60 (61 jobs), each
    // rule refusing a predicted wait over 5 s, one set per policy.
    //
    // `backlog` (B/μ): job 0 starts at 0. At 1..4 s the running job has
    // 9..6 s left: refused. At 5 s it has 5 s left: admitted, starts at 10
    // (wait 5). From 6 s the queued 10 s job is ahead too; at 10 s job 5 is
    // still queued (10 s ahead); at 11..14 s job 5 has 9..6 s left; at 15 s,
    // 5 s: admitted, starts at 20. So jobs 0, 5, 15, 25, 35, 45, 55, waits
    // 0 and 5 s each; 54 refused.
    //
    // `oldest`: at 1 s nothing waits (age 0): job 1 admitted; at t = 2..6
    // the oldest waiting job (1, claimable since 1 s) is t − 1 <= 5 s old:
    // admitted; at 7 s it is 6 s old: refused. Job j (1..6) starts at 10j
    // (one worker, 10 s each), so the queue is never empty again before
    // 60 s, and its head is then 9 s old or more: jobs 0..6 admitted, with
    // waits 10j − j = 9j, up to 54 s, although each was admitted when the
    // measured age was at most 5 s.
    let text = "workers: 1
workload:
  - {tenant: A, arrivals: {every: 1s, count: 61}, service: 10s}
admission_sets:
  backlog: [{predict: backlog, max_wait: 5s}]
  oldest: [{predict: oldest, max_wait: 5s}]
policies:
  - {policy: fifo, label: by-backlog, admission: backlog}
  - {policy: fifo, label: by-oldest, admission: oldest}
";
    let (_dir, out) = run_yaml(text, &["--no-plots"]);
    let b = jobs_of(&out, "by-backlog");
    assert_eq!(admitted(&b), [0, 5, 15, 25, 35, 45, 55]);
    assert_eq!(waits(&b), [0.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0]);
    assert!(b.iter().filter(|r| r["outcome"] == "rejected").all(|r| r["admission_rule"] == "backlog rule 1"));
    let o = jobs_of(&out, "by-oldest");
    assert_eq!(admitted(&o), [0, 1, 2, 3, 4, 5, 6]);
    assert_eq!(waits(&o), [0.0, 9.0, 18.0, 27.0, 36.0, 45.0, 54.0]);
    assert_eq!(cmp_of(&out, "by-oldest")["rejected"], "54");
}

#[test]
fn a_deadline_bound_refuses_the_jobs_that_could_not_finish_in_time() {
    // One worker; A sends five 1 s jobs due 3 s after arriving at 0, then B
    // one 1 s job without a deadline. Job k of A finds k jobs queued ahead
    // (nothing started yet): predicted finish k + 1 <= 3 for k <= 2, so
    // jobs 3 and 4 are refused; B's job has no deadline and passes the rule.
    // Admitted jobs finish at 1, 2, 3 (A, due at 3: on time) and 4 (B): no
    // deadline miss. Without rules A's jobs 3 and 4 finish at 4 and 5,
    // past 3: two misses.
    let text = "workers: 1
workload:
  - {tenant: A, count: 5, service: 1s, deadline: 3s}
  - {tenant: B, count: 1, service: 1s}
admission:
  - {predict: backlog, max_wait: deadline}
policies:
  - fifo
  - {policy: fifo, label: open, admission: none}
";
    let (_dir, out) = run_yaml(text, &["--no-plots"]);
    assert_eq!(admitted(&jobs_of(&out, "fifo")), [0, 1, 2, 5]);
    let (rc, oc) = (cmp_of(&out, "fifo"), cmp_of(&out, "open"));
    assert_eq!((rc["rejected"].as_str(), rc["deadline_misses"].as_str()), ("2", "0"));
    assert_eq!((oc["rejected"].as_str(), oc["deadline_misses"].as_str()), ("0", "2"));
}

#[test]
fn a_work_limit_counts_seconds_where_a_depth_limit_counts_jobs() {
    // One worker, per tenant at most 10 s of queued work (`work`) or 2
    // queued jobs (`count`). At 0 A sends five 4 s jobs, then B five 1 s
    // jobs; A sends one more 4 s job at 5 s.
    // `work`: A's jobs fit while 4k + 4 <= 10: jobs 0 and 1 (8 s), then
    // 12 s > 10: jobs 2..4 refused; B's five 1 s jobs total 5 s: all in. At
    // 5 s A's jobs 0 and 1 have started (at 0 and 4): A's queue holds 0 s,
    // so its sixth job is in. Admitted: A 0, 1, 10 and B 5..9 (ids: A's
    // batch 0..4, B's 5..9, A's later job 10).
    // `count`: two of A's and two of B's at 0 (ids 0, 1, 5, 6), and A's job
    // at 5 s (A's two have started): the small jobs pay like the large ones.
    let text = "workers: 1
workload:
  - {tenant: A, count: 5, service: 4s}
  - {tenant: B, count: 5, service: 1s}
  - {tenant: A, count: 1, at: 5s, service: 4s}
admission_sets:
  work: [{tenant: \"*\", max_queued_work: 10s}]
  count: [{tenant: \"*\", max_queued: 2}]
policies:
  - {policy: fifo, label: work, admission: work}
  - {policy: fifo, label: count, admission: count}
";
    let (_dir, out) = run_yaml(text, &["--no-plots"]);
    assert_eq!(admitted(&jobs_of(&out, "work")), [0, 1, 5, 6, 7, 8, 9, 10]);
    assert_eq!(admitted(&jobs_of(&out, "count")), [0, 1, 5, 6, 10]);
}

#[test]
fn a_fixed_window_admits_twice_its_limit_across_a_boundary() {
    // A job every 10 s from 59m10s (3550 s) to 61m00s (12 jobs), at most 5 per hour.
    // Fixed windows [0, 1h), [1h, 2h): 59:10, :20, :30, :40, :50 fill the
    // first; the count starts afresh at 1h, so 60:00 .. 60:40 fill the
    // second: 10 admitted, 2N, within the 90 s from 59:10 to 60:40; 60:50
    // and 61:00 refused. A sliding window of 1 h admits the first 5 and
    // nothing more until 1h59m10s: 5 admitted, 7 refused. The same fixed
    // window as a routing throttle (no admission) sends the same two jobs,
    // 60:50 and 61:00, to its overflow queue and the other ten to `main`.
    let text = "workers: 4
workload:
  - {tenant: A, arrivals: {every: 10s, start: 3550s, count: 12}, service: 1s}
admission_sets:
  fixed: [{tenant: A, throttle: {limit: 5, per: 1h}}]
  sliding: [{tenant: A, throttle: {limit: 5, window: 1h}}]
topologies:
  hourly:
    queues: [main, slow]
    route: [{throttle: {limit: 5, per: 1h}, to: slow}, {to: main}]
    pools: [{name: all, workers: 4, queues: [main, slow]}]
policies:
  - {policy: fifo, label: fixed, admission: fixed}
  - {policy: fifo, label: sliding, admission: sliding}
  - {policy: fifo, label: routed, topology: hourly}
";
    let (_dir, out) = run_yaml(text, &["--no-plots"]);
    let fixed = jobs_of(&out, "fixed");
    assert_eq!(admitted(&fixed), (0..10).collect::<Vec<u64>>());
    let span = secs(&fixed[9]["arrival"]) - secs(&fixed[0]["arrival"]);
    assert!((span - 90.0).abs() < 1e-9, "{span}");
    assert_eq!(admitted(&jobs_of(&out, "sliding")), (0..5).collect::<Vec<u64>>());
    let routes = read_csv(&out.join("routed").join("routes.csv"));
    let placed: Vec<(&str, &str)> = routes.iter().map(|r| (r["rule"].as_str(), r["jobs"].as_str())).collect();
    assert_eq!(placed[..2], [("1", "2"), ("2", "10")]);
}

/// A scenario with one admission rule `RULE`, for the error tests.
const BASE: &str = "workers: 2
classes:
  web: {sla: 5s}
workload:
  - {tenant: A, count: 3, service: 1s}
admission:
  - RULE
";

fn rule_error(rule: &str) -> String {
    validate_error(&BASE.replace("RULE", rule), "bad.yaml")
}

#[test]
fn misused_rule_keys_are_errors_at_their_place() {
    // line 7 is `  - RULE`: the rule's map opens at column 5
    let cases = [
        // two limits: at the rule
        ("{max_queued: 2, max_queued_work: 5s}", "bad.yaml:7:5: an admission rule limits one thing"),
        // zero work: at the value (`max_queued_work: ` is 17 characters from 6)
        ("{max_queued_work: 0s}", "bad.yaml:7:23: `max_queued_work` must be greater than zero"),
        // an unknown predictor: at it (`predict: ` from 6, value at 15)
        ("{predict: soon, max_wait: 5s}", "bad.yaml:7:15: `predict: soon` is not a predictor"),
        // no bound: at the rule
        ("{predict: backlog}", "bad.yaml:7:5: `predict` needs `max_wait`"),
        // a bound without a predictor: at the bound (`max_queued: 3, ` is
        // 15 characters from 6, `max_wait: ` 10 more)
        ("{max_queued: 3, max_wait: 5s}", "bad.yaml:7:31: `max_wait` goes with `predict"),
        // the default class has no sla: at `sla` (`class: default, ` 16
        // characters from 6, `predict: oldest, ` 17, `max_wait: ` 10)
        (
            "{class: default, predict: oldest, max_wait: sla}",
            "bad.yaml:7:49: `max_wait: sla`: class `default` has no `sla`",
        ),
        // neither a duration nor a word: at it
        ("{predict: oldest, max_wait: soon}", "bad.yaml:7:33: `max_wait`:"),
        // a fixed window of zero length: at `per`'s value (`throttle: {` 11
        // characters from 6, `limit: 5, ` 10, `per: ` 5)
        ("{throttle: {limit: 5, per: 0s}}", "bad.yaml:7:32: `per` must be greater than zero"),
        // a window both sliding and fixed: at the throttle map
        ("{throttle: {limit: 5, window: 1h, per: 1h}}", "bad.yaml:7:16: a throttle is one of"),
    ];
    for (rule, want) in cases {
        let err = rule_error(rule);
        assert!(err.contains(want), "{rule}: {err}");
    }
}

#[test]
fn a_policy_naming_an_undeclared_set_or_a_set_named_none_is_an_error() {
    // line 5 `  - {policy: fifo, admission: strict}`: the map opens at 5,
    // `policy: fifo, ` takes 6..19, `admission: ` 20..30, the name at 31
    let text = "workers: 1
workload:
  - {tenant: A, count: 3, service: 1s}
policies:
  - {policy: fifo, admission: strict}
";
    let err = validate_error(text, "bad.yaml");
    assert!(err.contains("bad.yaml:5:31: `admission: strict` on a policy is `none` or the name of a rule set under `admission_sets:` (none are declared)"), "{err}");
    // line 5 `  none: [{max_queued: 1}]`: the list at column 9
    let text = "workers: 1
workload:
  - {tenant: A, count: 3, service: 1s}
admission_sets:
  none: [{max_queued: 1}]
";
    let err = validate_error(text, "bad.yaml");
    assert!(err.contains("bad.yaml:5:9: a rule set may not be called `none`"), "{err}");
}

#[test]
fn a_backlog_prediction_without_workers_is_an_error_at_the_predictor() {
    // only resources: no worker count to divide by. Line 6
    // `  - {predict: backlog, max_wait: 5s}`: the value at column 15.
    let text = "resources: {cpu: 4}
workload:
  - {tenant: A, count: 3, service: 1s, cost: {cpu: 1}}
policies: [fifo]
admission:
  - {predict: backlog, max_wait: 5s}
";
    let err = validate_error(text, "bad.yaml");
    assert!(
        err.contains("bad.yaml:6:15: `predict: backlog` divides the queued work by the workers"),
        "{err}"
    );
}

//! Rate limits on starts: a pool's `limiter:` (and the default pool's
//! top-level one, and `start_limits:` of groups of tenants) holds jobs
//! claimable while it allows no start, logs them `rate_limited` and wakes
//! the pool when it allows one. Each answer is derived by hand in the
//! test's comment (1 s ticks: a dispatch at t falls in tick floor(t) + 1).

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;

/// A one-queue topology of `workers` workers with `limiter`, and `entries`.
fn limited(workers: u32, limiter: &str, entries: &str) -> String {
    format!(
        "workers: {workers}
workload:
{entries}topologies:
  t:
    pools: [{{name: p, workers: {workers}, queues: [default], limiter: {limiter}}}]
policies: [{{policy: fifo, topology: t, label: limited}}]
"
    )
}

fn jobs(out: &Path) -> Vec<HashMap<String, String>> {
    let mut rows = read_csv(&out.join("limited/jobs.csv"));
    rows.sort_by_key(|j| j["job"].parse::<u64>().expect("job id"));
    rows
}

fn starts(text: &str) -> Vec<f64> {
    let (_d, out) = run_yaml(text, &["--no-plots"]);
    jobs(&out).iter().map(|r| secs(&r["start"])).collect()
}

#[test]
fn bullmqs_limiter_starts_max_jobs_per_window_on_idle_workers() {
    // 8 workers, {max: 2, duration: 1s}, five 0.1 s jobs at 0. BullMQ's
    // moveToActive INCRs the limiter key per start and sets its expiry at
    // the first: the window [0, 1) takes two starts, the others wait with
    // six workers idle; at 1 the key has expired: a new window, two more;
    // at 2 the last. Starts 0, 0, 1, 1, 2; the waiting tenant is passed
    // over `rate_limited` in ticks 1 and 2 (at 0 and at 1), not in tick 3.
    let text = limited(8, "{max: 2, duration: 1s}", "  - {tenant: T, count: 5, service: 100ms}\n");
    let (_d, out) = run_yaml(&text, &["--no-plots"]);
    let got: Vec<f64> = jobs(&out).iter().map(|r| secs(&r["start"])).collect();
    assert_eq!(got, [0.0, 0.0, 1.0, 1.0, 2.0]);
    let ticks = read_csv(&out.join("limited/ticks.csv"));
    let skipped: Vec<&str> = ticks.iter().map(|r| r["skipped"].as_str()).collect();
    assert_eq!(skipped[..3], ["T:rate_limited", "T:rate_limited", ""]);
    let skips = read_csv(&out.join("limited/skips.csv"));
    assert!(skips.iter().any(|r| r["reason"] == "rate_limited" && r["tenant"] == "T"));
}

#[test]
fn one_worker_under_the_limiter_waits_for_the_window_not_for_itself() {
    // 1 worker, {max: 2, duration: 1s}, five 0.1 s jobs at 0: the window
    // opened at 0 takes job 0 (0 - 0.1) and job 1 (0.1 - 0.2); job 2 waits
    // for the window to close at 1 and opens [1, 2): 1 and 1.1; job 4 at 2.
    let text = limited(1, "{max: 2, duration: 1s}", "  - {tenant: T, count: 5, service: 100ms}\n");
    assert_eq!(starts(&text), [0.0, 0.1, 1.0, 1.1, 2.0]);
}

#[test]
fn the_window_opens_at_the_first_start_not_on_the_clock() {
    // 8 workers, {max: 2, duration: 1s}, three 0.1 s jobs at 0.5: the
    // window opens at 0.5 and holds until 1.5, so the third starts at 1.5
    // (a calendar window [k, k + 1) would have let it start at 1)
    let text = limited(8, "{max: 2, duration: 1s}", "  - {tenant: T, count: 3, at: 500ms, service: 100ms}\n");
    assert_eq!(starts(&text), [0.5, 0.5, 1.5]);
}

#[test]
fn a_token_bucket_starts_its_burst_then_its_rate() {
    // 8 workers, {rate: 2/s, burst: 2}, five 0.1 s jobs at 0: two start at
    // 0 (the bucket holds 2); it drains one start each 0.5 s: 0.5, 1.0, 1.5
    let text = limited(8, "{rate: 2/s, burst: 2}", "  - {tenant: T, count: 5, service: 100ms}\n");
    assert_eq!(starts(&text), [0.0, 0.0, 0.5, 1.0, 1.5]);
}

#[test]
fn a_sliding_window_lets_a_start_in_when_its_oldest_is_a_window_old() {
    // 8 workers, {limit: 2, window: 1s}; jobs at 0 and 0.6 start at once;
    // a third at 0.7 waits until the one of 0 is 1 s old: 1.0; a fourth at
    // 1.2 until the one of 0.6 is: 1.6
    let text = limited(
        8,
        "{limit: 2, window: 1s}",
        "  - {tenant: T, count: 1, at: 0s, service: 100ms}
  - {tenant: T, count: 1, at: 600ms, service: 100ms}
  - {tenant: T, count: 1, at: 700ms, service: 100ms}
  - {tenant: T, count: 1, at: 1200ms, service: 100ms}
",
    );
    assert_eq!(starts(&text), [0.0, 0.6, 1.0, 1.6]);
}

#[test]
fn limits_belong_to_their_pool() {
    // two queues, each with its pool of 4; only pool `slow` is limited to
    // {max: 1, duration: 1s}: its three jobs start at 0, 1, 2, while pool
    // `fast` starts its three at 0
    let (_d, out) = run_yaml(
        "workers: 8
classes: {s: {}, f: {}}
workload:
  - {tenant: A, class: s, count: 3, service: 100ms}
  - {tenant: B, class: f, count: 3, service: 100ms}
topologies:
  t:
    queues: [slow, fast]
    route: [{class: s, to: slow}, {to: fast}]
    pools:
      - {name: slow, workers: 4, queues: [slow], limiter: {max: 1, duration: 1s}}
      - {name: fast, workers: 4, queues: [fast]}
policies: [{policy: fifo, topology: t, label: limited}]
",
        &["--no-plots"],
    );
    let rows = jobs(&out);
    let of = |pool: &str| -> Vec<f64> {
        rows.iter().filter(|r| r["pool"] == pool).map(|r| secs(&r["start"])).collect()
    };
    assert_eq!(of("slow"), [0.0, 1.0, 2.0]);
    assert_eq!(of("fast"), [0.0, 0.0, 0.0]);
}

#[test]
fn a_bad_limiter_is_refused_at_its_line_and_column() {
    let with = |l: &str| limited(1, l, "  - {tenant: T, count: 1, service: 1s}\n");
    let msg = validate_error(&with("{maxx: 2, duration: 1s}"), "l.yaml");
    assert!(msg.contains("l.yaml:6:") && msg.contains("did you mean `max`?"), "{msg}");
    let msg = validate_error(&with("{max: 2}"), "m.yaml");
    assert!(msg.contains("m.yaml:6:") && msg.contains("{max: 20, duration: 1s}"), "{msg}");
    let msg = validate_error(&with("{max: 0, duration: 1s}"), "z.yaml");
    assert!(msg.contains("z.yaml:6:") && msg.contains("at least 1"), "{msg}");
    let batched = "workers: 1\nworkload:\n  - {tenant: T, count: 1, service: 1s}\ntopologies:\n  t:\n    pools: [{name: p, workers: 1, queues: [default], batch: 2, limiter: {max: 1, duration: 1s}}]\npolicies: [{policy: fifo, topology: t}]\n";
    let msg = validate_error(batched, "b.yaml");
    assert!(msg.contains("b.yaml:6:") && msg.contains("batch"), "{msg}");
}

/// Starts of a one-policy run of `text` (label `label`) by job id, after
/// `fairsim check` passed on its folder (run_yaml runs with the audit on).
fn checked_starts(text: &str, label: &str) -> (Vec<f64>, Vec<String>) {
    let (_d, out) = run_yaml(text, &["--no-plots", "--logs", "full"]);
    let check = fairsim().arg("check").arg(&out).output().expect("check runs");
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stdout));
    let mut rows = read_csv(&out.join(label).join("jobs.csv"));
    rows.sort_by_key(|j| j["job"].parse::<u64>().expect("job id"));
    let skipped = read_csv(&out.join(label).join("ticks.csv")).iter().map(|r| r["skipped"].clone()).collect();
    (rows.iter().map(|r| secs(&r["start"])).collect(), skipped)
}

#[test]
fn the_default_pool_takes_a_top_level_limiter() {
    // The first test's case without a topology: 8 workers, top-level
    // {max: 2, duration: 1s}, five 0.1 s jobs at 0: starts 0, 0, 1, 1, 2,
    // T passed over `rate_limited` in ticks 1 and 2
    let (got, skipped) = checked_starts(
        "workers: 8
limiter: {max: 2, duration: 1s}
workload:
  - {tenant: T, count: 5, service: 100ms}
policies: [fifo]
",
        "fifo",
    );
    assert_eq!(got, [0.0, 0.0, 1.0, 1.0, 2.0]);
    assert_eq!(skipped[..3], ["T:rate_limited", "T:rate_limited", ""]);
}

/// 4 workers; A's two 0.1 s jobs (0, 1), B's one (2), C's two (3, 4), all
/// at 0, fifo; `limits` is the `start_limits:` list.
fn shared(limits: &str) -> String {
    format!(
        "workers: 4
start_limits:
{limits}workload:
  - {{tenant: A, count: 2, service: 100ms}}
  - {{tenant: B, count: 1, service: 100ms}}
  - {{tenant: C, count: 2, service: 100ms}}
policies: [fifo]
"
    )
}

#[test]
fn a_start_limit_shared_by_two_tenants_counts_both() {
    // A and B share {max: 1, duration: 1s} (a downstream API's allowance),
    // C is not limited. 0: job 0 (A) opens the window [0, 1) and starts;
    // job 1 (A) finds it full: A is set aside; job 2 (B) too; C's jobs 3
    // and 4 start on the idle workers. 1: the window has closed, A and B
    // are claimable: job 1 (the older) opens [1, 2) and starts; job 2 is
    // set aside again until 2. Starts 0, 1, 2, 0, 0; the log passes A and
    // B over `rate_limited` in tick 1, B in tick 2.
    let (got, skipped) =
        checked_starts(&shared("  - {tenants: [A, B], limiter: {max: 1, duration: 1s}}\n"), "fifo");
    assert_eq!(got, [0.0, 1.0, 2.0, 0.0, 0.0]);
    assert_eq!(skipped[..3], ["A:rate_limited B:rate_limited", "B:rate_limited", ""]);
    // one limiter each (per tenant): B's job has its own window and starts at 0
    let (got, _) = checked_starts(
        &shared("  - {tenants: [A], limiter: {max: 1, duration: 1s}}\n  - {tenants: [B], limiter: {max: 1, duration: 1s}}\n"),
        "fifo",
    );
    assert_eq!(got, [0.0, 1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn a_tenants_start_limit_holds_across_a_topologys_pools() {
    // A's jobs go to qa (pool pa), B's to qb (pool pb), 2 workers each; A
    // and B share {max: 1, duration: 1s}. Each window takes one start from
    // either pool: A's first at 0, then (A set aside before B, so let go
    // first) A's second at 1, B's at 2 and 3, with workers idle in both pools.
    let (got, _) = checked_starts(
        "workers: 4
start_limits:
  - {tenants: [A, B], limiter: {max: 1, duration: 1s}}
workload:
  - {tenant: A, count: 2, service: 100ms}
  - {tenant: B, count: 2, service: 100ms}
topologies:
  t:
    queues: [qa, qb]
    route: [{tenant: A, to: qa}, {to: qb}]
    pools: [{name: pa, workers: 2, queues: [qa]}, {name: pb, workers: 2, queues: [qb]}]
policies: [{policy: fifo, topology: t, label: limited}]
",
        "limited",
    );
    assert_eq!(got, [0.0, 1.0, 2.0, 3.0]);
}

#[test]
fn bad_start_limits_are_refused_at_their_place() {
    let base = "workers: 1\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n  - {tenant: B, count: 1, service: 1s}\n";
    let twice = format!("{base}start_limits:\n  - {{tenants: [A], limiter: {{max: 1, duration: 1s}}}}\n  - {{tenants: [B, A], limiter: {{max: 1, duration: 1s}}}}\n");
    let msg = validate_error(&twice, "t.yaml");
    assert!(msg.contains("t.yaml:7:") && msg.contains("already in start limit 1"), "{msg}");
    let unknown = format!("{base}start_limits:\n  - {{tenants: [Z], limiter: {{max: 1, duration: 1s}}}}\n");
    let msg = validate_error(&unknown, "u.yaml");
    assert!(msg.contains("u.yaml:6:") && msg.contains("`Z`"), "{msg}");
    let top = format!("{base}limiter: {{max: 0, duration: 1s}}\n");
    let msg = validate_error(&top, "z.yaml");
    assert!(msg.contains("z.yaml:5:") && msg.contains("at least 1"), "{msg}");
    let batched = format!("{base}start_limits:\n  - {{tenants: [A], limiter: {{max: 1, duration: 1s}}}}\ntopologies:\n  t:\n    pools: [{{name: p, workers: 1, queues: [default], batch: 2}}]\npolicies: [{{policy: fifo, topology: t}}]\n");
    let msg = validate_error(&batched, "b.yaml");
    assert!(msg.contains("b.yaml:6:") && msg.contains("batch"), "{msg}");
}

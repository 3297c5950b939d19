//! A claim refused at the tenant's cap under `on_cap: {delay}` frees the
//! worker of the pool that made it, counts as no start and no busy time,
//! and sends the job back to its own queue; under a claim cost the job
//! leaves its queue at the claim, a claim before jobs.csv's `start`, and
//! `fairsim check` judges caps and queue lengths at that instant. Each
//! expected figure is derived by hand in the test.

mod common;

use common::*;

/// Runs `text` with full logs and `fairsim check`s the folder.
fn run_checked(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, out) = run_yaml(text, &["--no-plots", "--logs", "full"]);
    let check = fairsim().arg("check").arg(&out).output().expect("fairsim check runs");
    assert!(
        check.status.success(),
        "check failed:\n{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    (dir, out)
}

/// (job, tenant, start) sorted by job id.
fn starts(out: &std::path::Path, label: &str) -> Vec<(u64, String, f64)> {
    let mut v: Vec<_> = read_csv(&out.join(label).join("jobs.csv"))
        .iter()
        .map(|j| (j["job"].parse().expect("job id"), j["tenant"].clone(), secs(&j["start"])))
        .collect();
    v.sort_by_key(|r| r.0);
    v
}

/// (name, figures...) rows of a small CSV, as strings.
fn rows(path: &std::path::Path, cols: &[&str]) -> Vec<Vec<String>> {
    read_csv(path).iter().map(|r| cols.iter().map(|c| r[*c].clone()).collect()).collect()
}

#[test]
fn a_refused_claim_frees_its_own_pool_and_counts_as_no_start() {
    // Pool pb (1 worker) serves B's queue, pool pa (2 workers) A's; A is
    // capped at 1, refused claims come back 10 s later. At 0: pb starts B's
    // job 2; pa starts A's job 0 and claims job 1, refused (A at its cap):
    // the worker that made the claim is pa's, and only pa's is freed (the
    // job had never run, so its recorded pool was pb's index 0: freeing that
    // one ran two B jobs at once on pb's single worker). B's jobs run one at
    // a time: 0, 1, 2. Job 1 comes back at 10 to queue qa, and starts then.
    let text = "workers: 3
tenants: {A: {cap: 1}}
workload:
  - {tenant: A, count: 2, service: 2s}
  - {tenant: B, count: 3, service: 1s}
topologies:
  t:
    queues: [qa, qb]
    route: [{tenant: A, to: qa}, {tenant: B, to: qb}]
    pools: [{name: pb, workers: 1, queues: [qb]}, {name: pa, workers: 2, queues: [qa]}]
policies:
  - {policy: fifo, label: delayed, topology: t, spare: hold, on_cap: {delay: 10s}}
";
    let (_dir, out) = run_checked(text);
    let got = starts(&out, "delayed");
    let want = [(0, "A", 0.0), (1, "A", 10.0), (2, "B", 0.0), (3, "B", 1.0), (4, "B", 2.0)];
    assert_eq!(got, want.map(|(j, t, s)| (j, t.to_string(), s)).to_vec());
    // pools: pb ran 3 jobs of 1 s; pa 2 of 2 s (the refused claim ran
    // nothing and is no start)
    let pools = rows(&out.join("delayed/pools.csv"), &["pool", "started", "busy"]);
    assert_eq!(pools, [["pb", "3", "3"], ["pa", "2", "4"]]);
    // queues: qa's two A jobs waited 0 and 10 s from arrival (mean 5, max
    // 10), routed once each; qb's B jobs 0, 1, 2 (mean 1, max 2)
    let queues =
        rows(&out.join("delayed/queue_totals.csv"), &["queue", "routed", "started", "wait_mean", "wait_max"]);
    assert_eq!(queues, [["qa", "2", "2", "5", "10"], ["qb", "3", "3", "1", "2"]]);
}

#[test]
fn under_a_claim_cost_a_job_leaves_its_queue_at_the_claim() {
    // One worker, each claim 0.5 s. A arrives at 0.8 and is claimed at
    // once: its service starts at 1.3, ends at 2.3. B arrives at 0.9,
    // is claimed at 2.3, starts at 2.8. At the end of tick 1 (t = 1) only B
    // waits (A's claim took it at 0.8); at t = 2 B still waits; at t = 3
    // nobody. The dispatch rows come at the service starts, ticks 2 and 3.
    let text = "workers: 1
costs: {claim: 500ms}
workload:
  - {tenant: A, count: 1, at: 800ms, service: 1s}
  - {tenant: B, count: 1, at: 900ms, service: 1s}
policies: [fifo]
";
    let (_dir, out) = run_checked(text);
    let got = starts(&out, "fifo");
    assert_eq!(got, [(0, "A".to_string(), 1.3), (1, "B".to_string(), 2.8)]);
    let ticks = read_csv(&out.join("fifo/ticks.csv"));
    let waiting: Vec<(String, String)> =
        ticks.iter().map(|r| (r["tick"].clone(), r["waiting"].clone())).collect();
    assert_eq!(
        waiting[..3],
        [("1".into(), "B:1".into()), ("2".into(), "B:1".into()), ("3".into(), "".into())]
    );
    let d = rows(&out.join("fifo/dispatches.csv"), &["tick", "time", "tenant"]);
    assert_eq!(d, [["2", "1.3", "A"], ["3", "2.8", "B"]]);
}

#[test]
fn a_loan_over_the_cap_is_judged_at_the_claim() {
    // Two workers, each claim 0.5 s, A capped at 1 under spare: lend. At 0
    // A's job 0 is claimed; job 1 is refused at the cap with nobody else
    // claimable, so the idle worker is lent and claims it at 0 too: both
    // start at 0.5 and end at 2.5. B arrives at 0.2, after the loan and
    // before the starts (a check judging the loan at jobs.csv's start saw B
    // waiting and called it a violation); it is claimed at 2.5, starts at 3.
    let text = "workers: 2
costs: {claim: 500ms}
tenants: {A: {cap: 1}}
workload:
  - {tenant: A, count: 2, service: 2s}
  - {tenant: B, count: 1, at: 200ms, service: 1s}
policies:
  - {policy: fifo, spare: lend}
";
    let (_dir, out) = run_checked(text);
    let got = starts(&out, "fifo");
    assert_eq!(got, [(0, "A".to_string(), 0.5), (1, "A".to_string(), 0.5), (2, "B".to_string(), 3.0)]);
}

#[test]
fn check_charges_a_first_start_the_claim_of_a_pool_it_may_have_been_in() {
    // p0 (1 worker, no claim cost) and p1 (1 worker, claims take 1 s) poll
    // one queue. At 0: p0 runs A 0-5; p1 claims X at 0, runs it 1-6. B
    // arrives at 5: p0 runs its first attempt 5-6, which fails. D arrived at
    // 5.5, ahead of B's retry, so at 6 p0 takes D (6-16) and p1 claims B
    // again: claim 6-7, second attempt 7-8, failed. jobs.csv names the pool
    // of the last start (p1) only; charging B's first start p1's 1 s claim
    // made it hold a worker from 4, beside A and X: "3 jobs ran at once on
    // 2 workers", which never happened. At most 2 held at any time.
    let text = "workers: 2
workload:
  - {tenant: A, arrivals: {every: 1s, start: 0s, count: 1}, service: 5s}
  - {tenant: X, arrivals: {every: 1s, start: 0s, count: 1}, service: 5s}
  - {tenant: B, arrivals: {every: 1s, start: 5s, count: 1}, service: 1s, failure: {probability: 0.999999, max_attempts: 2}}
  - {tenant: D, arrivals: {every: 1s, start: 5.5s, count: 1}, service: 10s}
topologies:
  two:
    queues: [q0]
    pools:
      - {name: p0, workers: 1, queues: [q0]}
      - {name: p1, workers: 1, queues: [q0], costs: {claim: 1s}}
policies:
  - {policy: fifo, topology: two}
";
    let (_dir, out) = run_checked(text);
    let s: Vec<(u64, String, f64)> = starts(&out, "fifo");
    let want = [(0, "A", 0.0), (1, "X", 1.0), (2, "B", 5.0), (3, "D", 6.0)];
    for ((id, tenant, start), (wid, wt, ws)) in s.iter().zip(want) {
        assert_eq!((*id, tenant.as_str()), (wid, wt));
        assert!((start - ws).abs() < 1e-9, "job {id} starts at {start}, by hand {ws}");
    }
    let d = rows(&out.join("fifo/dispatches.csv"), &["time", "job", "pool"]);
    let want = [["0", "0", "p0"], ["1", "1", "p1"], ["5", "2", "p0"], ["6", "3", "p0"], ["7", "2", "p1"]];
    assert_eq!(d, want.map(|r| r.map(String::from)).to_vec());
    let b = &read_csv(&out.join("fifo/jobs.csv"))[2];
    assert_eq!((b["finish"].as_str(), b["pool"].as_str(), b["outcome"].as_str()), ("8", "p1", "failed"));
}

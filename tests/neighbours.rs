//! One direct test per policy whose expected dispatch order is derived by
//! hand and differs from what the policy's nearest wrong neighbours would do
//! (alternation, a cumulative count instead of a window, the front of the
//! rotation instead of the back, jobs instead of work, strict priority, FIFO).
//!
//! Where the wrong neighbour is itself a shipped policy or a setting of one
//! (fifo, round_robin, priority, drr, wfq; `share` or `bands` with a 1000 h
//! window for a cumulative count; `aging` with a huge `max_boost` for an
//! uncapped boost), the test runs it on the same scenario and asserts its
//! different answer too: that is the proof that the scenario can tell the two
//! apart. Every comment gives the derivation of both answers.
//!
//! All scenarios use constant service times, so workers free at known
//! instants; at one instant the engine handles completions, then arrivals,
//! then dispatch (docs/architecture.md).

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;
use fairsim::run::simulate_audited;
use fairsim::scenario::load_str;

type Row = HashMap<String, String>;

/// Runs every policy of the scenario under the audit; jobs.csv per label.
fn run_all(yaml: &str) -> HashMap<String, Vec<Row>> {
    let sc = load_str(yaml, Path::new("neighbours.yaml")).unwrap_or_else(|e| panic!("{e}"));
    let mut out = HashMap::new();
    for spec in &sc.policies {
        let dir = tempdir();
        let (_, audit) =
            simulate_audited(&sc, spec, Some(dir.path())).unwrap_or_else(|e| panic!("{}: {e}", spec.label));
        assert!(audit.violations.is_empty(), "{}: {:?}", spec.label, &audit.violations[..1]);
        out.insert(spec.label.clone(), read_csv(&dir.path().join("jobs.csv")));
    }
    out
}

/// Started jobs as (start, job id, tenant), in dispatch order (start time, then id).
fn started(rows: &[Row]) -> Vec<(f64, u64, String)> {
    let mut v: Vec<(f64, u64, String)> = rows
        .iter()
        .filter(|r| !r["start"].is_empty())
        .map(|r| (secs(&r["start"]), r["job"].parse().expect("job id"), r["tenant"].clone()))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    v
}

/// The tenants of the first `n` started jobs, concatenated (one-letter tenants).
fn order(rows: &[Row], n: usize) -> String {
    started(rows).into_iter().take(n).map(|(_, _, t)| t).collect()
}

/// Tenants of the jobs started in [from, to), concatenated.
fn order_between(rows: &[Row], from: f64, to: f64) -> String {
    started(rows).into_iter().filter(|(s, _, _)| *s >= from && *s < to).map(|(_, _, t)| t).collect()
}

/// Start times of one tenant's jobs, ascending.
fn starts_of(rows: &[Row], tenant: &str) -> Vec<f64> {
    started(rows).into_iter().filter(|(_, _, t)| t == tenant).map(|(s, _, _)| s).collect()
}

/// Finish time of a tenant's (only) job.
fn finish_of(rows: &[Row], tenant: &str) -> f64 {
    secs(&rows.iter().find(|r| r["tenant"] == tenant).expect("tenant")["finish"])
}

#[test]
fn fifo_runs_the_oldest_job_not_the_next_tenant_or_the_top_class() {
    // One worker, 1 s jobs. A sends 3 jobs of class lo (priority 5) at t = 0;
    // B one job of class hi (priority 1) at 0.5 s.
    // fifo: A's jobs are older, so A 0, A 1, A 2, then B at 3: "AAAB".
    // round_robin: at t = 1 A is at the front of the rotation (it went back
    // after its turn at 0, and B joined behind it at 0.5): A 1, B 2: "AABA".
    // priority: at t = 1 class hi goes first: B at 1: "ABAA".
    let runs = run_all(
        "workers: 1\nclasses: {hi: {priority: 1}, lo: {priority: 5}}\nworkload:\n  - {tenant: A, class: lo, count: 3, service: 1s}\n  - {tenant: B, class: hi, count: 1, at: 500ms, service: 1s}\npolicies: [fifo, round_robin, priority]\n",
    );
    assert_eq!(order(&runs["fifo"], 4), "AAAB");
    assert_eq!(starts_of(&runs["fifo"], "B"), [3.0]);
    assert_eq!(order(&runs["round_robin"], 4), "AABA");
    assert_eq!(order(&runs["priority"], 4), "ABAA");
}

#[test]
fn priority_serves_the_lowest_number_first_then_arrival_order() {
    // One worker, 1 s jobs, all at t = 0, in this arrival order (job ids 0-5):
    // L L (class lo, 5), P P (hi, 1), M (mid, 3), Q (hi, 1).
    // priority: hi in arrival order P P Q, then mid M, then lo L L: "PPQMLL".
    // Reversed comparator (higher number first) would give "LLMPPQ";
    // fifo gives arrival order "LLPPMQ"; round_robin (declaration order
    // L, P, M, Q, one job per turn) "LPMQLP"; priority with round robin
    // inside the class (hierarchical) rotates P and Q: "PQPMLL".
    let runs = run_all(
        "workers: 1\nclasses: {hi: {priority: 1}, mid: {priority: 3}, lo: {priority: 5}}\nworkload:\n  - {tenant: L, class: lo, count: 2, service: 1s}\n  - {tenant: P, class: hi, count: 2, service: 1s}\n  - {tenant: M, class: mid, count: 1, service: 1s}\n  - {tenant: Q, class: hi, count: 1, service: 1s}\npolicies: [priority, fifo, round_robin, hierarchical]\n",
    );
    assert_eq!(order(&runs["priority"], 6), "PPQMLL");
    assert_eq!(order(&runs["fifo"], 6), "LLPPMQ");
    assert_eq!(order(&runs["round_robin"], 6), "LPMQLP");
    assert_eq!(order(&runs["hierarchical"], 6), "PQPMLL");
}

#[test]
fn round_robin_gives_one_job_per_turn_whatever_the_weight_or_the_job_size() {
    // One worker. A (weight 3) has 10 jobs of 4 s, B (weight 1) 10 jobs of 1 s.
    // round_robin counts turns, not weight nor service: A B A B ..., starts
    // A 0, B 4, A 5, B 9, A 10, B 14.
    // wfq (cost: jobs) tags A 1/3, 2/3, 1, ... and B 1, 2, ...; A wins the tie
    // at 1 (lower job id): "AAABAAAB". fifo: A's ten jobs first.
    let runs = run_all(
        "workers: 1\ntenants: {A: {weight: 3}, B: {weight: 1}}\nworkload:\n  - {tenant: A, count: 10, service: 4s}\n  - {tenant: B, count: 10, service: 1s}\npolicies: [round_robin, wfq, fifo]\n",
    );
    assert_eq!(order(&runs["round_robin"], 6), "ABABAB");
    assert_eq!(starts_of(&runs["round_robin"], "B")[..3], [4.0, 9.0, 14.0]);
    assert_eq!(order(&runs["wfq"], 8), "AAABAAAB");
    assert_eq!(order(&runs["fifo"], 10), "AAAAAAAAAA");
}

#[test]
fn round_robin_puts_a_newcomer_behind_the_tenants_already_waiting() {
    // One worker, 1 s jobs. A and B have 10 jobs each at t = 0; C 3 jobs at 2.5 s.
    // Rotation after each start: t=0 A -> [B, A]; t=1 B -> [A, B]; t=2 A -> [B, A];
    // C joins the back at 2.5: [B, A, C]; t=3 B, t=4 A, t=5 C, t=6 B, t=7 A,
    // t=8 C: "ABABACBAC", C starts at 5, 8, 11.
    // Newcomer at the front of the rotation instead: [C, B, A] at t=3, so C
    // starts at 3, 6, 9 ("ABACBACBA"). fifo: C after all 20 older jobs, at 20.
    let runs = run_all(
        "workers: 1\nworkload:\n  - {tenant: A, count: 10, service: 1s}\n  - {tenant: B, count: 10, service: 1s}\n  - {tenant: C, count: 3, at: 2500ms, service: 1s}\npolicies: [round_robin, fifo]\n",
    );
    assert_eq!(order(&runs["round_robin"], 9), "ABABACBAC");
    assert_eq!(starts_of(&runs["round_robin"], "C"), [5.0, 8.0, 11.0]);
    assert_eq!(starts_of(&runs["fifo"], "C"), [20.0, 21.0, 22.0]);
}

#[test]
fn drr_serves_a_quantum_per_visit_and_carries_the_debt_of_a_large_job() {
    // (1) One worker, 1 s jobs, weights A 3, B 2, quantum 1 job: a visit adds
    // 3 (A) or 2 (B) jobs of credit and the flow keeps the worker while its
    // deficit is positive: "AAABB AAABB". wfq with the same weights interleaves
    // by tags (A 1/3, 2/3, 1, 4/3, ...; B 1/2, 1, 3/2, ...; A wins ties by job
    // id): "ABAABABAAB". round_robin ignores the weights: "ABABABABAB".
    let runs = run_all(
        "workers: 1\ntenants: {A: {weight: 3}, B: {weight: 2}}\nworkload:\n  - {tenant: A, count: 20, service: 1s}\n  - {tenant: B, count: 20, service: 1s}\npolicies: [drr, wfq, round_robin]\n",
    );
    assert_eq!(order(&runs["drr"], 10), "AAABBAAABB");
    assert_eq!(order(&runs["wfq"], 10), "ABAABABAAB");
    assert_eq!(order(&runs["round_robin"], 10), "ABABABABAB");

    // (2) cost: work, quantum 1 s, equal weights; A's jobs take 3 s, B's 1 s.
    // t=0 A: credit 1 > 0, runs a 3 s job, deficit -2. t=3 B: 1, runs, 0.
    // t=4 A: -1, skipped (deficit); B runs. t=5 A: 0, skipped; B runs.
    // t=6 A: 1, runs (-2). So starts A 0, B 3, 4, 5, A 6, B 9, 10, 11, A 12:
    // "ABBBABBBA", work 3 s : 3 s. Forgiving the debt (deficit reset to 0),
    // or cost: jobs, alternates "ABABABABA": work 3 s : 1 s.
    let runs = run_all(
        "workers: 1\nworkload:\n  - {tenant: A, count: 20, service: 3s}\n  - {tenant: B, count: 20, service: 1s}\npolicies: [{policy: drr, cost: work, quantum: 1s, label: work}, {policy: drr, label: jobs}]\n",
    );
    assert_eq!(order(&runs["work"], 9), "ABBBABBBA");
    assert_eq!(starts_of(&runs["work"], "A")[..3], [0.0, 6.0, 12.0]);
    assert_eq!(order(&runs["jobs"], 9), "ABABABABA");
}

#[test]
fn wfq_interleaves_by_finish_tag_and_charges_service_with_cost_work() {
    // (1) One worker, 1 s jobs, weights A 3, B 2, every job queued at t = 0
    // (V = 0): tags A 1/3, 2/3, 1, 4/3, 5/3, 2-; B 1/2, 1, 3/2, 2; ties go to
    // the lower job id (A's): "ABAABABAAB". DRR with quantum 1 job serves
    // bursts of a visit's credit: "AAABBAAABB"; round_robin "ABABABABAB".
    let runs = run_all(
        "workers: 1\ntenants: {A: {weight: 3}, B: {weight: 2}}\nworkload:\n  - {tenant: A, count: 20, service: 1s}\n  - {tenant: B, count: 20, service: 1s}\npolicies: [wfq, drr, round_robin]\n",
    );
    assert_eq!(order(&runs["wfq"], 10), "ABAABABAAB");
    assert_eq!(order(&runs["drr"], 10), "AAABBAAABB");
    assert_eq!(order(&runs["round_robin"], 10), "ABABABABAB");

    // (2) cost: work, equal weights, A's jobs 2 s, B's 1 s: tags A 2, 4, 6, ...,
    // B 1, 2, 3, 4, 5, 6: B1 A2 B2 B3 A4 B4 B5 A6 B6 (A wins the ties by job
    // id): "BABBABBAB", two seconds of B for every two of A. cost: jobs gives
    // tags 1, 2, 3 to both: "ABABABABA", work 2 : 1 for A.
    let runs = run_all(
        "workers: 1\nworkload:\n  - {tenant: A, count: 20, service: 2s}\n  - {tenant: B, count: 20, service: 1s}\npolicies: [{policy: wfq, cost: work, label: work}, {policy: wfq, label: jobs}]\n",
    );
    assert_eq!(order(&runs["work"], 9), "BABBABBAB");
    assert_eq!(starts_of(&runs["work"], "A")[..3], [1.0, 5.0, 9.0]);
    assert_eq!(order(&runs["jobs"], 9), "ABABABABA");
}

/// Longest run of consecutive `t` in a dispatch sequence.
fn longest_run(seq: &str, t: char) -> usize {
    seq.split(|c| c != t).map(str::len).max().unwrap_or(0)
}

#[test]
fn lottery_draws_in_proportion_to_weight_with_bursts_no_rotation_allows() {
    // One worker, 1 s jobs, weights A 9, B 1, 2000 jobs each: A stays
    // backlogged for the first n = 2000 dispatches (it needs about 1800), so
    // they are independent draws with p = 0.9. A's count is Binomial(2000,
    // 0.9): mean 1800, sd sqrt(2000 x 0.9 x 0.1) = 13.4; allowed 4 sd = 53.
    // Bursts: each of B's ~200 draws is followed by 10 or more A's with
    // probability 0.9^10 = 0.349, so some run of >= 10 A's is certain
    // (P(none) ~ 0.651^200 = 1e-37).
    // Neighbours: round_robin ignores the weight (1000 A's: outside 4 sd);
    // drr with quantum 1 job gives exactly 9 A's per B ("AAAAAAAAAB"): the
    // right count, but never a run of 10.
    let runs = run_all(
        "workers: 1\ntenants: {A: {weight: 9}, B: {weight: 1}}\nworkload:\n  - {tenant: A, count: 2000, service: 1s}\n  - {tenant: B, count: 2000, service: 1s}\npolicies: [lottery, round_robin, drr]\n",
    );
    let a_count = |label: &str| order(&runs[label], 2000).matches('A').count() as f64;
    assert!((a_count("lottery") - 1800.0).abs() <= 53.0, "lottery: {} A's in 2000", a_count("lottery"));
    assert!(longest_run(&order(&runs["lottery"], 2000), 'A') >= 10);
    assert_eq!(a_count("round_robin"), 1000.0);
    assert_eq!(a_count("drr"), 1800.0);
    assert_eq!(longest_run(&order(&runs["drr"], 2000), 'A'), 9);
}

#[test]
fn share_counts_service_in_the_window_not_since_the_start() {
    // One worker, 1 s jobs, equal weights, window 10 s. A has 100 jobs at
    // t = 0 and runs alone until B's 100 jobs arrive at 20 s. Service of a
    // flow at a pick at t: its starts in (t - 10, t).
    // t=20: A 9 (starts 11-19), B 0 -> B; t=21: A 8, B 1 -> B; t=22: 7/2 B;
    // t=23: 6/3 B; t=24: 5/4 B; t=25: A 4 (16-19), B 5 -> A; t=26..29: A 4,
    // B 5 -> A; t=30: A 5 (25-29), B 4 (21-24) -> B; ... blocks of five:
    // "BBBBBAAAAABBBBBAAAAA" in [20, 40).
    // A cumulative count (service never leaves: window 1000 h) owes B all of
    // A's 20 jobs: B for 20 turns, t = 20..39. round_robin alternates: B joins
    // behind A, "ABAB...".
    let runs = run_all(
        "workers: 1\nworkload:\n  - {tenant: A, count: 100, service: 1s}\n  - {tenant: B, count: 100, at: 20s, service: 1s}\npolicies: [{policy: share, window: 10s, label: share}, {policy: share, window: 1000h, label: cumulative}, round_robin]\n",
    );
    assert_eq!(order_between(&runs["share"], 0.0, 20.0), "A".repeat(20));
    assert_eq!(order_between(&runs["share"], 20.0, 40.0), "BBBBBAAAAABBBBBAAAAA");
    assert_eq!(order_between(&runs["cumulative"], 20.0, 40.0), "B".repeat(20));
    assert_eq!(order_between(&runs["round_robin"], 20.0, 26.0), "ABABAB");
}

#[test]
fn drf_equalises_dominant_shares_not_task_counts() {
    // Capacity 10 CPU, 10 GB, no worker limit; A's tasks <1 CPU, 1 GB> (dominant
    // share 0.1 per task, both resources), B's <4 CPU, 1 GB> (dominant: CPU,
    // 0.4 per task); 1 h tasks, both backlogged. Progressive filling (the
    // smaller dominant share goes next; ties to the tenant whose share changed
    // least recently): A 0 -> 0.1; B 0 -> 0.4 (CPU 5); A 0.1, 0.2, 0.3 -> 0.4
    // (CPU 8); tie at 0.4, B older: B needs 4 CPU, 2 free, does not fit; A 0.5,
    // 0.6 (CPU 10). At t = 0: A 6, B 1, dominant shares 0.6 and 0.4.
    // Alternation (DRF's share forced to 0, or round_robin with the same fit
    // check): A, B, A, B (CPU 10), then neither fits: A 2, B 2. fifo: A's jobs
    // are older, 10 of them fill the CPUs: A 10, B 0.
    let runs = run_all(
        "resources: {cpu: 10, mem: 10}\nworkload:\n  - {tenant: A, count: 20, service: 1h, cost: {cpu: 1, mem: 1}}\n  - {tenant: B, count: 20, service: 1h, cost: {cpu: 4, mem: 1}}\npolicies: [drf, round_robin, fifo]\n",
    );
    let at_zero = |label: &str| {
        let s = started(&runs[label]);
        let n = |t: &str| s.iter().filter(|(start, _, tenant)| *start == 0.0 && tenant == t).count();
        (n("A"), n("B"))
    };
    assert_eq!(at_zero("drf"), (6, 1));
    assert_eq!(at_zero("round_robin"), (2, 2));
    assert_eq!(at_zero("fifo"), (10, 0));
}

#[test]
fn aging_boosts_by_wait_but_no_further_than_max_boost() {
    // One worker; classes hi (priority 1), mid (2), lo (5); step 10 s,
    // max_boost 2. K (hi) runs a 100 s job from t = 0; meanwhile L (lo)
    // arrives at 1 s, M (mid) at 80 s, H (hi) at 95 s, 1 s jobs.
    // At t = 100, effective = priority - min(floor(wait / 10 s), 2):
    // L 5 - min(9, 2) = 3; M 2 - 2 = 0; H 1 - 0 = 1 -> M. At 101: H 1 (wait
    // 6 s), L 3 -> H; then L at 102: "KMHL".
    // Uncapped boost (max_boost 100): L 5 - 9 = -4 goes first, then M (0),
    // H (1): "KLMH". Strict priority: "KHML". fifo: "KLMH".
    let runs = run_all(
        "workers: 1\nclasses: {hi: {priority: 1}, mid: {priority: 2}, lo: {priority: 5}}\nworkload:\n  - {tenant: K, class: hi, count: 1, service: 100s}\n  - {tenant: L, class: lo, count: 1, at: 1s, service: 1s}\n  - {tenant: M, class: mid, count: 1, at: 80s, service: 1s}\n  - {tenant: H, class: hi, count: 1, at: 95s, service: 1s}\npolicies: [{policy: aging, step: 10s, max_boost: 2, label: aging}, {policy: aging, step: 10s, max_boost: 100, label: uncapped}, priority, fifo]\n",
    );
    assert_eq!(order(&runs["aging"], 4), "KMHL");
    assert_eq!(starts_of(&runs["aging"], "L"), [102.0]);
    assert_eq!(order(&runs["uncapped"], 4), "KLMH");
    assert_eq!(order(&runs["priority"], 4), "KHML");
    assert_eq!(order(&runs["fifo"], 4), "KLMH");
}

#[test]
fn bands_floor_is_measured_over_the_rolling_window() {
    // One worker, 1 s jobs; class hi (priority 1) has 100 jobs at t = 0, class
    // lo (priority 9, floor 0.2, window 10 s) 20 jobs at 50 s. The rule at a
    // pick at t: lo goes when n_lo < 0.2 (n + 1) over the dispatches in
    // (t - 10, t]. t=50: 9 hi starts (41-49), n_lo 0 < 2 -> lo; t=51: n 9
    // (42-50), n_lo 1 < 2 -> lo; t=52: n_lo 2, not < 2 -> hi; ... t=60: the
    // window holds 51-59, n_lo 1 -> lo; t=61: 52-60, n_lo 1 -> lo. So lo
    // starts at 50, 51, 60, 61, ..., 90, 91 while hi is backlogged.
    // Cumulative floor (window 1000 h): at 50, n = 50 all-time dispatches, so
    // lo takes k dispatches in a row while k < 0.2 (51 + k), k < 12.75: 13 in
    // a row, 50..62. Strict priority: lo waits for hi's 100 jobs, starts at 100.
    let runs = run_all(
        "workers: 1\nclasses: {hi: {priority: 1}, lo: {priority: 9}}\nworkload:\n  - {tenant: H, class: hi, count: 100, service: 1s}\n  - {tenant: L, class: lo, count: 20, at: 50s, service: 1s}\npolicies: [{policy: bands, window: 10s, floor: {lo: 0.2}, label: bands}, {policy: bands, window: 1000h, floor: {lo: 0.2}, label: cumulative}, priority]\n",
    );
    let expected: Vec<f64> = (5..10).flat_map(|k| [10.0 * k as f64, 10.0 * k as f64 + 1.0]).collect();
    assert_eq!(starts_of(&runs["bands"], "L")[..10], expected[..]);
    let cumulative: Vec<f64> = (50..60).map(f64::from).collect();
    assert_eq!(starts_of(&runs["cumulative"], "L")[..10], cumulative[..]);
    assert_eq!(starts_of(&runs["priority"], "L")[0], 100.0);
}

#[test]
fn reserve_holds_one_worker_for_its_class_and_lends_it_while_idle() {
    // Two workers, one reserved for class urgent. B (bulk) has 10 jobs of
    // 10 s at t = 0; U (urgent) 3 jobs of 1 s at 5 s.
    // t=0: urgent has nothing queued, B borrows both workers. t=10: both free;
    // U gets the reserved one (10-11) and the other goes by age to B (10-20).
    // t=11, 12: the reserve frees and U has queued work: U again. t=13: U has
    // nothing queued, B borrows the reserve again. U starts 10, 11, 12; B
    // starts 0, 0, 10, 13, 20, 23.
    // Strict priority: both workers go to U at 10, U starts 10, 10, 11.
    // fifo: U queues behind the 10 older bulk jobs (pairs at 0, 10, ..., 40):
    // 50, 50, 51. A dedicated worker that is never lent: U starts 5, 6, 7.
    let runs = run_all(
        "workers: 2\nclasses: {urgent: {priority: 1}, bulk: {priority: 5}}\nworkload:\n  - {tenant: B, class: bulk, count: 10, service: 10s}\n  - {tenant: U, class: urgent, count: 3, at: 5s, service: 1s}\npolicies: [{policy: reserve, class: urgent, workers: 1}, priority, fifo]\n",
    );
    assert_eq!(starts_of(&runs["reserve"], "U"), [10.0, 11.0, 12.0]);
    assert_eq!(starts_of(&runs["reserve"], "B")[..6], [0.0, 0.0, 10.0, 13.0, 20.0, 23.0]);
    assert_eq!(starts_of(&runs["priority"], "U"), [10.0, 10.0, 11.0]);
    assert_eq!(starts_of(&runs["fifo"], "U"), [50.0, 50.0, 51.0]);
}

#[test]
fn edf_orders_by_deadline_not_by_slack_arrival_or_size() {
    // One worker, all at t = 0, arrival order Z, A, B:
    // Z 1 s, no deadline; A 5 s, due 6 s (slack 1 s); B 1 s, due 3 s (slack 2 s).
    // edf: B (3), A (6), then Z: B 0-1, A 1-6, Z 6-7, no miss (Jackson's rule:
    // deadline order meets every deadline when some order can).
    // Least slack: A (1) before B (2): A 0-5, B 5-6, late for 3: one miss.
    // fifo: Z 0-1, A 1-6, B 6-7: one miss. Jobs without a deadline first
    // (the key's flag inverted) gives Z, B, A: A ends at 7, one miss.
    let runs = run_all(
        "workers: 1\nworkload:\n  - {tenant: Z, count: 1, service: 1s}\n  - {tenant: A, count: 1, service: 5s, deadline: 6s}\n  - {tenant: B, count: 1, service: 1s, deadline: 3s}\npolicies: [edf, {policy: edf, order: slack, label: slack}, fifo]\n",
    );
    assert_eq!(order(&runs["edf"], 3), "BAZ");
    assert_eq!((finish_of(&runs["edf"], "B"), finish_of(&runs["edf"], "A")), (1.0, 6.0));
    assert_eq!(order(&runs["slack"], 3), "ABZ");
    assert_eq!(finish_of(&runs["slack"], "B"), 6.0, "least slack misses B's deadline");
    assert_eq!(order(&runs["fifo"], 3), "ZAB");
}

#[test]
fn hierarchical_keeps_class_priority_and_rotates_tenants_inside_a_class() {
    // One worker, 1 s jobs, all at t = 0 in this arrival order: Z 2 jobs of
    // class lo (priority 5), X 3 and Y 2 of class hi (priority 1); tenants in
    // declaration order Z, X, Y.
    // hierarchical (then: round_robin): class hi first, X and Y taking turns,
    // then lo: "XYXYXZZ".
    // priority (arrival order inside a class): "XXXYYZZ". round_robin over
    // tenants, blind to classes: "ZXYZXYX". fifo: "ZZXXXYY".
    let runs = run_all(
        "workers: 1\nclasses: {hi: {priority: 1}, lo: {priority: 5}}\nworkload:\n  - {tenant: Z, class: lo, count: 2, service: 1s}\n  - {tenant: X, class: hi, count: 3, service: 1s}\n  - {tenant: Y, class: hi, count: 2, service: 1s}\npolicies: [hierarchical, priority, round_robin, fifo]\n",
    );
    assert_eq!(order(&runs["hierarchical"], 7), "XYXYXZZ");
    assert_eq!(order(&runs["priority"], 7), "XXXYYZZ");
    assert_eq!(order(&runs["round_robin"], 7), "ZXYZXYX");
    assert_eq!(order(&runs["fifo"], 7), "ZZXXXYY");
}

#[test]
fn round_robin_newcomers_join_the_back_in_arrival_order() {
    // One worker; declaration order A, B, C. A's 10 s job starts at 1000 s;
    // C gets work at 1001 s, B at 1002 s. Each joins the back of the rotation
    // when its first job arrives, so C (earlier) goes before B: C starts
    // when A's job ends at 1010 s, B at 1011 s. Sorting newcomers by the
    // declared order instead would start B first.
    let dir = tempdir();
    let sc = write_scenario(
        dir.path(),
        "rr.yaml",
        "workers: 1\ntenants: {A: {}, B: {}, C: {}}\nworkload:\n\
           - {tenant: A, count: 1, at: 1000s, service: 10s}\n\
           - {tenant: C, count: 1, at: 1001s, service: 1s}\n\
           - {tenant: B, count: 1, at: 1002s, service: 1s}\n\
         policies: [round_robin]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let s = tenant_starts(&out, "round_robin");
    assert_eq!((s["A"][0], s["C"][0], s["B"][0]), (1000.0, 1010.0, 1011.0));
}

#[test]
fn a_lent_worker_goes_to_the_tenant_refused_longest_ago() {
    // 3 workers; D and F capped at 1; drr over tenants, cost jobs, quantum 2,
    // spare lend. At t = 0, in this order: D 0.5 s, F 1 s, F 1 s, B 0.75 s,
    // D 1 s, D 1 s. t = 0: D, F and B each start one job; D's and F's
    // second jobs are refused at their caps (D first, then F). t = 0.5: D's
    // job ends, its next (1 s) starts, its third is refused again: D is now
    // the most recently refused. t = 0.75: B's job ends and only D and F wait,
    // both at their caps: the idle worker is lent, to F, refused at t = 0 and
    // waiting since, not to D, refused at 0.5. So F's second job starts at
    // 0.75 s and D's third when a worker frees after that, at 1 s (F's first).
    let dir = tempdir();
    let sc = write_scenario(
        dir.path(),
        "drr.yaml",
        "workers: 3\ntenants: {D: {cap: 1}, B: {}, F: {cap: 1}}\nworkload:\n\
           - {tenant: D, count: 1, service: 500ms}\n\
           - {tenant: F, count: 2, service: 1s}\n\
           - {tenant: B, count: 1, service: 750ms}\n\
           - {tenant: D, count: 2, service: 1s}\n\
         policies: [{policy: drr, cost: jobs, quantum: 2, spare: lend}]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let s = tenant_starts(&out, "drr");
    assert_eq!(s["F"], [0.0, 0.75]);
    assert_eq!(s["D"], [0.0, 0.5, 1.0]);
}

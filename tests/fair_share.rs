//! The fair-share family (drr, wfq, lottery, share, drf) against answers
//! derived by hand or from theory: weighted splits, the cost unit (the
//! jobs-versus-work point of the priority-classes article, see
//! docs/background.md), Ghodsi et al.'s DRF example, lottery's
//! binomial spread, the share rule's per-window split, and the engine's audit.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;
use fairsim::model::{PolicySpec, Scenario};
use fairsim::run::{simulate, simulate_audited};
use fairsim::scenario::load_str;

type Row = HashMap<String, String>;

fn scenario(yaml: &str) -> Scenario {
    load_str(yaml, Path::new("fair_share.yaml")).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the scenario's policy with this label under the audit and returns jobs.csv.
fn run_jobs(sc: &Scenario, label: &str) -> Vec<Row> {
    let spec: &PolicySpec =
        sc.policies.iter().find(|p| p.label == label).unwrap_or_else(|| panic!("no policy {label}"));
    let dir = tempdir();
    let (_, audit) = simulate_audited(sc, spec, Some(dir.path())).unwrap_or_else(|e| panic!("{label}: {e}"));
    assert!(audit.checks > 0, "{label}: audit checked nothing");
    assert!(audit.violations.is_empty(), "{label}: {:?}", &audit.violations[..audit.violations.len().min(3)]);
    read_csv(&dir.path().join("jobs.csv"))
}

/// Per tenant: (jobs started before `t`, worker-seconds of service received in [0, t)).
fn service_before(jobs: &[Row], t: f64) -> HashMap<String, (u64, f64)> {
    let mut out: HashMap<String, (u64, f64)> = HashMap::new();
    for j in jobs {
        let (start, finish) = (secs(&j["start"]), secs(&j["finish"]));
        if start < t {
            let e = out.entry(j["tenant"].clone()).or_default();
            e.0 += 1;
            e.1 += finish.min(t) - start;
        }
    }
    out
}

/// Fractions of the total for tenants A, B, C.
fn fractions(values: [f64; 3]) -> [f64; 3] {
    let total: f64 = values.iter().sum();
    values.map(|v| v / total)
}

fn assert_close(label: &str, what: &str, got: [f64; 3], want: [f64; 3], rel: f64) {
    for i in 0..3 {
        assert!(
            (got[i] - want[i]).abs() <= rel * want[i],
            "{label}: {what} fractions {got:?}, expected {want:?} within {}%",
            rel * 100.0
        );
    }
}

/// Three tenants with weights 3:2:1, each with a backlog far larger than the
/// measurement window can serve (12 workers; see each test for the margin).
fn three_tenants(a_service: &str, b_service: &str, c_service: &str, policies: &str) -> Scenario {
    scenario(&format!(
        "workers: 12\ntenants:\n  A: {{weight: 3}}\n  B: {{weight: 2}}\n  C: {{weight: 1}}\nworkload:\n  - {{tenant: A, count: 20000, service: {a_service}}}\n  - {{tenant: B, count: 20000, service: {b_service}}}\n  - {{tenant: C, count: 20000, service: {c_service}}}\npolicies: {policies}\n"
    ))
}

#[test]
fn drr_and_wfq_split_service_3_2_1_among_backlogged_tenants() {
    // Equal 1 s jobs: 12 workers serve 12 jobs/s, so in [0, 1000s) 12 000 jobs;
    // 3:2:1 gives A 6000, B 4000, C 2000, all far below the 20 000 each has.
    // Service received = worker-seconds in the window; expected fractions 1/2, 1/3, 1/6.
    let sc = three_tenants("1s", "1s", "1s", "[drr, wfq, {policy: drr, cost: work, label: drr-work}]");
    for label in ["drr", "wfq", "drr-work"] {
        let jobs = run_jobs(&sc, label);
        let s = service_before(&jobs, 1000.0);
        let work = ["A", "B", "C"].map(|t| s[t].1);
        assert_close(label, "service", fractions(work), [0.5, 1.0 / 3.0, 1.0 / 6.0], 0.01);
    }
}

#[test]
fn cost_jobs_splits_job_counts_3_2_1_but_not_work() {
    // B's jobs take 10 s, A's and C's 1 s. With cost: jobs the weights divide
    // job counts: 3:2:1 among jobs started in [0, 2000s). Work then splits
    // 3x1 : 2x10 : 1x1 = 3 : 20 : 1, so B gets 20/24 of the service, not 1/3.
    // Backlog margin: 12 workers / mean job (3x1 + 2x10 + 1x1)/6 = 4 s -> 3 jobs/s,
    // A starts 1.5/s = 3000 in 2000 s, below its 20 000.
    let sc = three_tenants("1s", "10s", "1s", "[drr, wfq, share]");
    for label in ["drr", "wfq", "share"] {
        let jobs = run_jobs(&sc, label);
        let s = service_before(&jobs, 2000.0);
        let counts = ["A", "B", "C"].map(|t| s[t].0 as f64);
        assert_close(label, "job count", fractions(counts), [0.5, 1.0 / 3.0, 1.0 / 6.0], 0.01);
        let work = ["A", "B", "C"].map(|t| s[t].1);
        assert_close(label, "work", fractions(work), [3.0 / 24.0, 20.0 / 24.0, 1.0 / 24.0], 0.02);
    }
}

#[test]
fn cost_work_splits_work_3_2_1_but_not_job_counts() {
    // Same workload, cost: work: the weights divide worker-seconds, 1/2, 1/3, 1/6
    // of 12 x 2000 s. Counts are work / job size: A 3/1, B 2/10, C 1/1 ->
    // 3 : 0.2 : 1 = 15:1:5, fractions 15/21, 1/21, 5/21.
    // Backlog margin: A gets 6 worker-seconds/s = 6 jobs/s, 12 000 in 2000 s < 20 000.
    let sc = three_tenants(
        "1s",
        "10s",
        "1s",
        "[{policy: drr, cost: work, label: drr}, {policy: wfq, cost: work, label: wfq}, {policy: share, cost: work, label: share}]",
    );
    for label in ["drr", "wfq", "share"] {
        let jobs = run_jobs(&sc, label);
        let s = service_before(&jobs, 2000.0);
        let work = ["A", "B", "C"].map(|t| s[t].1);
        assert_close(label, "work", fractions(work), [0.5, 1.0 / 3.0, 1.0 / 6.0], 0.01);
        let counts = ["A", "B", "C"].map(|t| s[t].0 as f64);
        assert_close(label, "job count", fractions(counts), [15.0 / 21.0, 1.0 / 21.0, 5.0 / 21.0], 0.02);
    }
}

#[test]
fn over_class_splits_by_class_weight_with_arrival_order_inside_a_class() {
    // Classes hi (weight 2) and lo (weight 1); tenants A and B send hi jobs
    // (A's batch first), C sends lo jobs; 6 workers, 1 s jobs, T = 500 s: 3000
    // dispatches, 2000 hi and 1000 lo. Inside hi, jobs run in arrival order, so
    // all of A's 2500 jobs start before any of B's: B has none before T.
    let sc = scenario(
        "workers: 6\nclasses:\n  hi: {weight: 2}\n  lo: {weight: 1}\nworkload:\n  - {tenant: A, class: hi, count: 2500, service: 1s}\n  - {tenant: B, class: hi, count: 2500, service: 1s}\n  - {tenant: C, class: lo, count: 2500, service: 1s}\npolicies: [{policy: drr, over: class}, {policy: wfq, over: classes}, {policy: share, over: class}, {policy: lottery, over: class}]\n",
    );
    for label in ["drr", "wfq", "share", "lottery"] {
        let jobs = run_jobs(&sc, label);
        let s = service_before(&jobs, 500.0);
        let count = |t: &str| s.get(t).map_or(0, |e| e.0) as f64;
        assert_eq!(count("A") + count("B") + count("C"), 3000.0, "{label}");
        assert_eq!(count("B"), 0.0, "{label}: B's jobs queue behind A's in class hi");
        // deterministic policies: within 1%; lottery: Binomial(3000, 2/3), sd 25.8, 4 sd = 103
        let tolerance = if label == "lottery" { 103.0 } else { 20.0 };
        assert!((count("A") - 2000.0).abs() <= tolerance, "{label}: hi got {}", count("A"));
    }
}

#[test]
fn drf_reproduces_ghodsi_et_al() {
    // NSDI 2011, section 4: 9 CPUs and 18 GB; A's tasks <1 CPU, 4 GB>, B's
    // <3 CPU, 1 GB>. DRF equalises dominant shares: A runs 3 tasks (<3, 12>,
    // dominant memory 12/18 = 2/3), B runs 2 (<6, 2>, dominant CPU 6/9 = 2/3).
    // Alternation reaches the same 3 and 2 here (A, B, A, B, A, then nothing
    // fits), so this is a reproduction, not a discriminating test: see
    // tests/neighbours.rs `drf_equalises_dominant_shares_not_task_counts`.
    let sc = scenario(
        "resources: {cpu: 9, mem: 18}\nworkload:\n  - {tenant: A, count: 20, service: 1h, cost: {cpu: 1, mem: 4}}\n  - {tenant: B, count: 20, service: 1h, cost: {cpu: 3, mem: 1}}\npolicies: [drf]\n",
    );
    let jobs = run_jobs(&sc, "drf");
    let at_zero = |t: &str| jobs.iter().filter(|j| j["tenant"] == t && secs(&j["start"]) == 0.0).count();
    assert_eq!((at_zero("A"), at_zero("B")), (3, 2));
}

/// Dispatch order of a lottery run, read from jobs.csv (one worker: one draw per job).
fn lottery_draws(sc: &Scenario) -> (Vec<String>, Vec<Row>) {
    let jobs = run_jobs(sc, "lottery");
    let mut started: Vec<(f64, String)> =
        jobs.iter().map(|j| (secs(&j["start"]), j["tenant"].clone())).collect();
    started.sort_by(|a, b| a.0.total_cmp(&b.0));
    (started.into_iter().map(|(_, t)| t).collect(), jobs)
}

#[test]
fn lottery_shares_converge_to_the_weights_within_four_sigma() {
    // One worker, 1 s jobs, every tenant backlogged for the first 6000 s
    // (each has 6000 jobs): the first n = 6000 dispatches are independent
    // draws with p = 1/2, 1/3, 1/6. Each count is Binomial(n, p): mean n p,
    // standard deviation sqrt(n p (1 - p)) = 38.7, 36.5, 28.9; we allow 4 sigma
    // (a correct sampler fails this with probability about 6e-5 per tenant).
    let sc = scenario(
        "workers: 1\ntenants:\n  A: {weight: 3}\n  B: {weight: 2}\n  C: {weight: 1}\nworkload:\n  - {tenant: A, count: 6000, service: 1s}\n  - {tenant: B, count: 6000, service: 1s}\n  - {tenant: C, count: 6000, service: 1s}\npolicies: [lottery]\n",
    );
    let (draws, _) = lottery_draws(&sc);
    let n: f64 = 6000.0;
    for (t, p) in [("A", 0.5f64), ("B", 1.0 / 3.0), ("C", 1.0 / 6.0)] {
        let count = draws[..6000].iter().filter(|d| *d == t).count() as f64;
        let sigma = (n * p * (1.0 - p)).sqrt();
        assert!(
            (count - n * p).abs() <= 4.0 * sigma,
            "{t}: {count} draws, expected {} +- {}",
            n * p,
            4.0 * sigma
        );
    }
    // It is only statistically fair: somewhere in the run C (1/6) goes 20
    // dispatches without a turn, which DRR (C every 6th dispatch) never allows.
    // C is drawn about 1000 times; each draw is followed by 20 or more non-C
    // draws with probability (5/6)^20 = 0.026, so about 26 such gaps are
    // expected and P(none) is about (1 - 0.026)^1000 = 4e-12.
    let longest_gap = draws[..6000].split(|d| d == "C").map(|run| run.len()).max().unwrap_or(0);
    assert!(longest_gap >= 20, "longest run without C: {longest_gap}");
}

#[test]
fn lottery_is_reproducible_per_seed() {
    // Batch arrivals and constant service: the workload does not depend on the
    // seed, so any difference between seeds is the policy's own draws.
    let yaml = "workers: 2\ntenants:\n  A: {weight: 2}\n  B: {}\nworkload:\n  - {tenant: A, count: 300, service: 1s}\n  - {tenant: B, count: 300, service: 1s}\npolicies: [lottery]\n";
    let sc = scenario(yaml);
    let csv = |sc: &Scenario| {
        let dir = tempdir();
        simulate(sc, &sc.policies[0], Some(dir.path()), None, true).expect("runs");
        std::fs::read(dir.path().join("jobs.csv")).expect("jobs.csv")
    };
    let first = csv(&sc);
    assert_eq!(first, csv(&sc), "same seed, same jobs.csv");
    let mut other = sc.clone();
    other.seed += 1;
    let (a, b) = (lottery_draws(&sc).0, lottery_draws(&other).0);
    assert_ne!(a, b, "a different seed draws differently");
    assert_ne!(first, csv(&other));
}

#[test]
fn share_splits_completions_3_1_in_every_full_window() {
    // Four workers, 1 s jobs, weights 3:1, window 1m. Each full window
    // [60k, 60k + 60), k >= 1, holds 60 completion instants x 4 = 240
    // completions (window 0 has 59: nothing finishes at t = 0); 3:1 is 180 and
    // 60. Both tenants stay backlogged: A needs 180 per window, 1980 up to the
    // end of window 10, and has 3000.
    // Tolerance: the rule serves the flow with the smallest (service in window)
    // / weight, one job at a time, so the keys stay within about one job's
    // step (1/w <= 1) of each other: |n_A - 3 n_B| <= 3 for the sliding count.
    // A fixed window's completions differ from a sliding count by the starts of
    // one instant (at most 4 per tenant), so |C_A - 3 C_B| <= 3 + 4 + 3 x 4 = 19.
    let sc = scenario(
        "workers: 4\ntenants:\n  A: {weight: 3}\n  B: {weight: 1}\nworkload:\n  - {tenant: A, count: 3000, service: 1s}\n  - {tenant: B, count: 3000, service: 1s}\npolicies: [{policy: share, window: 1m}]\n",
    );
    let jobs = run_jobs(&sc, "share");
    let mut exact = 0;
    for k in 1..=10 {
        let (lo, hi) = (60.0 * k as f64, 60.0 * (k + 1) as f64);
        let done = |t: &str| {
            jobs.iter().filter(|j| j["tenant"] == t && (lo..hi).contains(&secs(&j["finish"]))).count() as i64
        };
        let (a, b) = (done("A"), done("B"));
        assert_eq!(a + b, 240, "window {k}");
        assert!((a - 3 * b).abs() <= 19, "window {k}: A {a}, B {b}");
        exact += (a == 180) as u32;
    }
    eprintln!("share: {exact} of 10 windows split exactly 180:60");
}

/// The `chosen` column of the first `n` ticks.
fn chosen_ticks(out: &Path, label: &str, n: usize) -> Vec<String> {
    read_csv(&out.join(label).join("ticks.csv")).into_iter().take(n).map(|r| r["chosen"].clone()).collect()
}

#[test]
fn every_new_policy_passes_the_audit_on_the_shipped_scenarios() {
    // Besides the audit and every job completing, each scenario pins an order.
    // abc-rotation (two workers, unit jobs, caps of 1, equal weights): drr
    // (quantum 1 job: one job per visit, then the back of the list), wfq (tags
    // A 1..40, B 1..3, C 1..2, ties to the lower job id) and share (fewest
    // starts in the window first, ties to the least recently served, then
    // declaration order) all reproduce the article's table: "A B", "C A",
    // "B C", "A B", then A alone takes both workers.
    // drf counts workers as its one resource (share = running / 2), ties to
    // the tenant whose share changed least recently, and a finish changes a
    // share: at t=2 A's and C's jobs end (A's first, lower job id), so B (last
    // changed at t=1), then A (t=2, before C): "B A"; at t=3 C, A; t=4 B, A.
    // fifo would give "A B" for three ticks (B's jobs are older than C's).
    // lottery is random (tested statistically above); only the audit here.
    // abc-rotation-d: D's two jobs arrive at 7 s with only A waiting; with
    // caps of 1 and two workers, every one of the five gives D a worker at
    // 7 s (A may take one, then it is at its cap while D is claimable) and
    // its second job at 8 s.
    // noisy-neighbor: six equal tenants, a small one uses about 0.25 of the 8
    // workers, far below its 1/6; each policy serves it within a few worker
    // releases (12.5/s), so the typical tenant's p99 is below 3 s, where
    // fifo's is about 420 s (tests/noisy_neighbor.rs).
    let table = ["A B", "C A", "B C", "A B", "A A"];
    let drf = ["A B", "C A", "B A", "C A", "B A", "A A"];
    for s in ["abc-rotation.yaml", "abc-rotation-d.yaml", "noisy-neighbor.yaml"] {
        for p in ["drr", "wfq", "lottery", "share", "drf"] {
            let out = tempdir();
            // `run` asserts success; --audit makes any violation a failure (exit 1)
            run(&scenario_path(s), out.path(), &["--policy", p, "--no-plots"]);
            let rows = read_csv(&out.path().join("comparison.csv"));
            assert_eq!(rows.len(), 1);
            assert_eq!(rows[0]["jobs"], rows[0]["completed"], "{s} {p}: every job completes");
            match (s, p) {
                (_, "lottery") if s != "noisy-neighbor.yaml" => {}
                ("noisy-neighbor.yaml", _) => {
                    let p99 = secs(&rows[0]["tenant_p99_median"]);
                    assert!(p99 < 3.0, "{s} {p}: typical small tenant p99 {p99}");
                }
                (_, "drf") => assert_eq!(chosen_ticks(out.path(), p, 6), drf, "{s} {p}"),
                _ => assert_eq!(chosen_ticks(out.path(), p, 5), table, "{s} {p}"),
            }
            if s == "abc-rotation-d.yaml" {
                let jobs = read_csv(&out.path().join(p).join("jobs.csv"));
                let mut d: Vec<f64> =
                    jobs.iter().filter(|j| j["tenant"] == "D").map(|j| secs(&j["start"])).collect();
                d.sort_by(f64::total_cmp);
                assert_eq!(d, [7.0, 8.0], "{s} {p}: D's starts");
            }
        }
    }
}

fn scenario_path(name: &str) -> std::path::PathBuf {
    common::scenario(name)
}

/// Every fair-share policy variant, in the given spare modes, as YAML flow entries.
fn every_variant(spares: &[&str]) -> String {
    let mut policies = Vec::new();
    for p in ["drr", "wfq", "lottery", "share"] {
        for over in ["tenant", "class"] {
            for spare in spares {
                policies.push(format!(
                    "{{policy: {p}, over: {over}, spare: {spare}, label: {p}-{over}-{spare}}}"
                ));
            }
        }
    }
    for spare in spares {
        policies.push(format!("{{policy: drf, spare: {spare}, label: drf-{spare}}}"));
    }
    policies.push("{policy: drr, cost: work, quantum: 100ms, label: drr-small-quantum}".into());
    policies.join(", ")
}

/// Runs every policy of `sc` under the audit; every arrival must end exactly once.
fn keeps_every_promise(sc: &Scenario, jobs: u64) {
    for spec in &sc.policies {
        let (stats, audit) =
            simulate_audited(sc, spec, None).unwrap_or_else(|e| panic!("{}: {e}", spec.label));
        assert!(audit.violations.is_empty(), "{}: {:?}", spec.label, &audit.violations[..1]);
        assert_eq!(stats.all.jobs, jobs, "{}", spec.label);
        assert_eq!(stats.all.completed + stats.all.failed, jobs, "{}: every job ends once", spec.label);
        assert!(stats.all.failed > 0, "{}: some jobs used all their attempts", spec.label);
    }
}

#[test]
fn caps_classes_and_retries_in_both_spare_modes_keep_every_promise() {
    // Caps, two classes, failed attempts that re-queue; every policy variant
    // in both spare modes. The audit checks caps (hold: never exceeded; lend:
    // only while nobody else is claimable) and monopoly at every dispatch.
    // Every tenant has a cap below the 4 workers: the audit's monopoly check
    // ("one tenant holds every worker while another is claimable") also fires
    // when an uncapped tenant legitimately took every idle worker before the
    // other's job arrived (fifo too; see the report), so it is kept out of play.
    let sc = scenario(&format!(
        "workers: 4\ntenants:\n  A: {{cap: 2, weight: 3}}\n  B: {{cap: 1, weight: 2}}\n  C: {{cap: 3}}\nclasses:\n  hi: {{weight: 2}}\n  lo: {{}}\nworkload:\n  - {{tenant: A, class: hi, arrivals: {{poisson: 3/s, count: 400}}, service: {{exponential: 1s}}, failure: {{probability: 0.3, max_attempts: 3}}}}\n  - {{tenant: B, class: lo, arrivals: {{poisson: 1/s, count: 200}}, service: {{uniform: {{min: 1s, max: 4s}}}}}}\n  - {{tenant: C, class: hi, count: 300, at: 20s, service: 500ms, failure: {{probability: 0.2, max_attempts: 2}}}}\n  - {{tenant: C, class: lo, count: 100, at: 0s, service: 2s}}\npolicies: [{}]\n",
        every_variant(&["lend", "hold"])
    ));
    keeps_every_promise(&sc, 1000);
}

#[test]
fn resource_fit_and_retries_keep_every_promise() {
    // Resource costs that often do not fit (B needs 5 of 6 CPUs), failed
    // attempts; no caps, spare: lend (so the audit checks no over-cap
    // borrowing: with caps *and* resources the audit counts a tenant parked
    // for no_fit as claimable and flags lend mode's legitimate borrowing for
    // every policy, fifo included; see the report).
    let sc = scenario(&format!(
        "workers: 4\nresources: {{cpu: 6}}\ntenants:\n  A: {{weight: 3}}\n  B: {{weight: 2}}\n  C: {{}}\nclasses:\n  hi: {{weight: 2}}\n  lo: {{}}\nworkload:\n  - {{tenant: A, class: hi, arrivals: {{poisson: 3/s, count: 400}}, service: {{exponential: 1s}}, cost: {{cpu: 2}}, failure: {{probability: 0.3, max_attempts: 3}}}}\n  - {{tenant: B, class: lo, arrivals: {{poisson: 1/s, count: 200}}, service: {{uniform: {{min: 1s, max: 4s}}}}, cost: {{cpu: 5}}}}\n  - {{tenant: C, class: hi, count: 300, at: 20s, service: 500ms, cost: {{cpu: 1}}, failure: {{probability: 0.2, max_attempts: 2}}}}\n  - {{tenant: C, class: lo, count: 100, at: 0s, service: 2s}}\npolicies: [{}]\n",
        every_variant(&["lend"])
    ));
    keeps_every_promise(&sc, 1000);
}

#[test]
fn bad_over_or_cost_values_are_load_errors_with_the_line() {
    let base = "workers: 1\nworkload:\n  - {tenant: A, count: 1, service: 1s}\npolicies:\n  - fifo\n";
    for (entry, needle) in [
        ("{policy: drr, over: tenant_groups}", "`over: tenant_groups` is not valid"),
        ("{policy: wfq, cost: dollars}", "`cost: dollars` is not valid"),
        ("{policy: lottery, cost: work}", "does not take `cost`"),
        ("{policy: drf, over: class}", "does not take `over`"),
    ] {
        let yaml = format!("{base}  - {entry}\n");
        match load_str(&yaml, Path::new("s.yaml")) {
            Err(fairsim::error::Error::Input { line, message, .. }) => {
                assert_eq!(line, 6, "{entry}");
                assert!(message.contains(needle), "{entry}: {message}");
            }
            other => panic!("{entry}: expected an input error, got {:?}", other.map(|s| s.name)),
        }
    }
}

#[test]
fn drr_with_a_quantum_far_below_the_jobs_jumps_its_debt_rounds() {
    // One worker, A and B with three 1000 s jobs each, drr cost work,
    // quantum 1us. The first visits give each 1us of credit, enough to start
    // a job (credit > 0), leaving a debt of 999.999999 s: a billion visits
    // each before the next start. A is ahead in the rotation and its debt is
    // no larger, so the starts alternate A B A B A B, 1000 s apart. Visiting
    // one round at a time (with a skip record each) took 15 s and 8 GB for
    // two jobs; the debt rounds are jumped over now.
    let dir = tempdir();
    let sc = write_scenario(
        dir.path(),
        "drr-tiny.yaml",
        "workers: 1\nworkload:\n  - {tenant: A, count: 3, service: 1000s}\n  - {tenant: B, count: 3, service: 1000s}\n\
         policies: [{policy: drr, cost: work, quantum: 1us}]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--logs", "summary"]);
    fairsim().arg("run").arg(&sc).arg("--out").arg(&out).arg("--quiet").arg("--no-plots").assert().success();
    let s = tenant_starts(&out, "drr");
    assert_eq!(s["A"], [0.0, 2000.0, 4000.0]);
    assert_eq!(s["B"], [1000.0, 3000.0, 5000.0]);
}

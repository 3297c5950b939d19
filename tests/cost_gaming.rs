//! Cost gaming (the backpressure article's "cost estimator can be gamed"):
//! a tenant declaring a tenth of its true service against an honest one,
//! same demand, one worker, under each `charge:` of drr and wfq with `cost:
//! work`; and the errors of the `declared` and `charge` keys.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;
use fairsim::model::Scenario;
use fairsim::run::simulate_audited;
use fairsim::scenario::load_str;

/// Both tenants send a job every 500 ms until STOP (2 s of work per second
/// each, against one worker: both stay backlogged the whole time); `gamer`
/// declares a tenth of each job's true service.
const STOP: f64 = 3000.0;

fn scenario(service: &str, policies: &str) -> Scenario {
    let yaml = format!(
        "workers: 1\nworkload:\n\
         - {{tenant: gamer, arrivals: {{every: 500ms, stop: {STOP}s}}, service: {service}, declared: {{factor: 0.1}}}}\n\
         - {{tenant: honest, arrivals: {{every: 500ms, stop: {STOP}s}}, service: {service}}}\n\
         policies:\n{policies}"
    );
    load_str(&yaml, Path::new("cost_gaming.yaml")).unwrap_or_else(|e| panic!("{e}"))
}

/// The gamer's share of the worker-seconds served in [0, STOP), per policy
/// label, each run under the audit.
fn gamer_shares(sc: &Scenario) -> HashMap<String, f64> {
    let mut shares = HashMap::new();
    for spec in &sc.policies {
        let dir = tempdir();
        let (_, audit) =
            simulate_audited(sc, spec, Some(dir.path())).unwrap_or_else(|e| panic!("{}: {e}", spec.label));
        assert!(audit.violations.is_empty(), "{}: {:?}", spec.label, audit.violations.first());
        let mut served: HashMap<String, f64> = HashMap::new();
        for j in read_csv(&dir.path().join("jobs.csv")) {
            let (start, finish) = (secs(&j["start"]), secs(&j["finish"]));
            if start < STOP {
                *served.entry(j["tenant"].clone()).or_default() += finish.min(STOP) - start;
            }
        }
        shares.insert(spec.label.clone(), served["gamer"] / (served["gamer"] + served["honest"]));
    }
    shares
}

fn assert_share(shares: &HashMap<String, f64>, label: &str, want: f64, tol: f64) {
    let got = shares[label];
    eprintln!("{label}: {got:.4} (derived {want:.4})");
    assert!((got - want).abs() <= tol, "{label}: gamer's share {got:.4}, derived {want:.4} +- {tol}");
}

#[test]
fn declared_costs_let_the_gamer_take_ten_elevenths_and_actual_or_bounded_take_it_back() {
    // Constant 1 s jobs. drr gives each flow the same charge per round,
    // wfq serves tags that grow by the charge, and share serves the flow
    // charged least in its window, so all three split *charges* equally
    // while both flows are backlogged:
    // - oracle (true service): equal work, 1/2;
    // - declared: the gamer is charged 0.1 s per 1 s job, so equal charges
    //   mean 10 gamer jobs per honest one: 10 / 11 = 0.909 of the worker;
    // - drr and share actual: with one worker the next pick comes after the
    //   attempt ended and its 0.9 s of debt was settled, so every job is
    //   charged its true 1 s: 1/2 (share counts the 0.9 s in its window
    //   from the end rather than the start, 1 s later: no change in the
    //   long run);
    // - bounded (p50): after the first completion the class median is 1 s,
    //   so the gamer's 0.1 s is raised to 1 s: 1/2;
    // - wfq actual: the debt moves the tags of jobs queued *after* it is
    //   learned, and the gamer's backlog was tagged earlier. Gamer job k
    //   arrives at k / 2 s and gets tag 0.1 k + 0.9 n(k / 2), n(t) = g t the
    //   gamer jobs finished by t (g its jobs, i.e. its worker share, per
    //   second); the honest flow's job k gets tag k. Served in tag order at
    //   rate 1: honest jobs served = V, gamer jobs = V / (0.1 + 0.45 g), so
    //   g / (1 - g) = 1 / (0.1 + 0.45 g): 0.45 g^2 + 1.1 g - 1 = 0,
    //   g = (-1.1 + sqrt(1.21 + 1.8)) / 0.9 = 0.7055.
    // share's window is 10m: the balance it keeps is within one job's
    // charge of the window's total (a 1 s honest job against the honest
    // flow's ~55 s in 600 s: 2 % of its 1/11, under 0.002 of the share).
    // Tolerance: the start (first job, first round) and the end (the job
    // running at STOP) shift a share by a few seconds in 3000: 0.005 for the
    // exact splits; the fluid model of wfq actual ignores the tags' max with
    // V and rounding to whole jobs: 0.01.
    let sc = scenario(
        "1s",
        "  - {policy: drr, cost: work, label: drr-oracle}\n  - {policy: drr, cost: work, charge: declared, label: drr-declared}\n  - {policy: drr, cost: work, charge: actual, label: drr-actual}\n  - {policy: drr, cost: work, charge: bounded, label: drr-bounded}\n  - {policy: wfq, cost: work, label: wfq-oracle}\n  - {policy: wfq, cost: work, charge: declared, label: wfq-declared}\n  - {policy: wfq, cost: work, charge: actual, label: wfq-actual}\n  - {policy: wfq, cost: work, charge: bounded, label: wfq-bounded}\n  - {policy: share, window: 10m, cost: work, label: share-oracle}\n  - {policy: share, window: 10m, cost: work, charge: declared, label: share-declared}\n  - {policy: share, window: 10m, cost: work, charge: actual, label: share-actual}\n  - {policy: share, window: 10m, cost: work, charge: bounded, label: share-bounded}\n",
    );
    let shares = gamer_shares(&sc);
    for p in ["drr", "wfq", "share"] {
        assert_share(&shares, &format!("{p}-oracle"), 0.5, 0.005);
        assert_share(&shares, &format!("{p}-declared"), 10.0 / 11.0, 0.005);
        assert_share(&shares, &format!("{p}-bounded"), 0.5, 0.005);
    }
    assert_share(&shares, "drr-actual", 0.5, 0.005);
    assert_share(&shares, "share-actual", 0.5, 0.005);
    let g = (-1.1 + (1.21f64 + 1.8).sqrt()) / 0.9;
    assert_share(&shares, "wfq-actual", g, 0.01);
}

#[test]
fn a_median_bound_is_too_low_for_exponential_jobs_and_a_p90_bound_is_not() {
    // Exponential jobs of mean 1 s, drr. Each job is charged c(S), a
    // function of its own true size S; drr equalises the flows' charges,
    // and the jobs it takes from a flow are in arrival order whatever their
    // size, so the gamer runs c_h / c_g jobs per honest one and (equal
    // mean sizes) gets the share c_h / (c_g + c_h) of the worker, with
    // c = E[charge]. With the bound m (the learned quantile, close to the
    // true one, -ln(1 - q)) and E[(S - a)+] = e^-a for S ~ Exp(1):
    // - gamer: E[max(0.1 S, m)] = m + 0.1 e^(-10 m);
    // - honest: E[max(S, m)] = m + e^-m.
    // p50: m = ln 2: c_g = 0.69324, c_h = 1.19315, share 0.6325 (the median
    // is below the mean: most of the gamer's jobs are charged less than
    // they run). p90: m = ln 10: c_g = 2.30259, c_h = 2.40259, share
    // 0.5106. actual settles every job at its size: 1/2 (one worker, as in
    // the constant case). Tolerance 0.02: the learned quantile is that of
    // the last 1000 jobs (p90's relative spread about 4 %, which moves the
    // share by under 0.01), and about 3000 jobs each carry the sampling
    // noise of their sizes.
    let sc = scenario(
        "{exponential: 1s}",
        "  - {policy: drr, cost: work, charge: actual, label: actual}\n  - {policy: drr, cost: work, charge: bounded, label: p50}\n  - {policy: drr, cost: work, charge: bounded, quantile: 0.9, label: p90}\n",
    );
    let shares = gamer_shares(&sc);
    let share = |m: f64| {
        let (cg, ch) = (m + 0.1 * (-10.0 * m).exp(), m + (-m).exp());
        ch / (cg + ch)
    };
    assert_share(&shares, "actual", 0.5, 0.02);
    assert_share(&shares, "p50", share(2f64.ln()), 0.02);
    assert_share(&shares, "p90", share(10f64.ln()), 0.02);
}

#[test]
fn bad_declared_and_charge_keys_are_errors_at_their_place() {
    let entry = |declared: &str| {
        format!("workers: 1\nworkload:\n  - {{tenant: A, count: 1, service: 1s, declared: {declared}}}\npolicies: [fifo]\n")
    };
    // line 3 `  - {tenant: A, count: 1, service: 1s, declared: {factor: F}}`:
    // `declared:` at columns 40-48, `{` at 50, `factor:` at 51-57, F at 59
    for bad in ["0", "-0.1", ".nan", ".inf", "101"] {
        let err = validate_error(&entry(&format!("{{factor: {bad}}}")), "bad.yaml");
        assert!(err.contains("bad.yaml:3:59: declared `factor`"), "{bad}: {err}");
        assert!(err.contains("above 0 and at most 100"), "{bad}: {err}");
    }
    // an unknown key inside `declared` names the key
    let err = validate_error(&entry("{factr: 0.1}"), "bad.yaml");
    assert!(err.contains("bad.yaml:3:") && err.contains("factr"), "{err}");
    // a trace entry cannot declare: the trace gives every job's service
    let err = validate_error(
        "workers: 1\nworkload:\n  - {trace: {path: t.csv}, declared: {factor: 0.1}}\npolicies: [fifo]\n",
        "bad.yaml",
    );
    assert!(err.contains("a `trace` entry takes no `declared`"), "{err}");

    let policy = |p: &str| {
        format!("workers: 1\nworkload:\n  - {{tenant: A, count: 1, service: 1s}}\npolicies:\n  - {p}\n")
    };
    // line 5 `  - {policy: drr, charge: actual}`: the value `actual` at column 27
    let err = validate_error(&policy("{policy: drr, charge: actual}"), "bad.yaml");
    assert!(err.contains("bad.yaml:5:27") && err.contains("add `cost: work` or remove `charge`"), "{err}");
    // `  - {policy: wfq, cost: work, quantile: 0.9}`: `0.9` at column 41
    let err = validate_error(&policy("{policy: wfq, cost: work, quantile: 0.9}"), "bad.yaml");
    assert!(
        err.contains("bad.yaml:5:41") && err.contains("`quantile` applies to `charge: bounded` only"),
        "{err}"
    );
    // `  - {policy: share, window: 10m, cost: work, charge: bounded, quantile: 1.5}`: `1.5` at column 60
    let err =
        validate_error(&policy("{policy: share, cost: work, charge: bounded, quantile: 1.5}"), "bad.yaml");
    assert!(err.contains("bad.yaml:5:60") && err.contains("must be above 0 and at most 1"), "{err}");
    // a policy that charges nothing has no `charge`; a word not in the list
    let err = validate_error(&policy("{policy: fifo, charge: declared}"), "bad.yaml");
    assert!(err.contains("bad.yaml:5:") && err.contains("charge"), "{err}");
    let err = validate_error(&policy("{policy: drr, cost: work, charge: true}"), "bad.yaml");
    assert!(err.contains("bad.yaml:5:") && err.contains("oracle, declared, actual, bounded"), "{err}");
}

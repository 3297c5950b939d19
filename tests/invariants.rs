//! The backpressure article's invariants as property tests, over generated
//! scenarios, under every registered policy (the variants in `POLICIES`
//! cover them all; `every_registered_policy_is_covered` keeps it so) and
//! three topologies. Each case runs in-process through the library with
//! the engine's audit on, and its output files are checked:
//! - each arrival ends exactly once, and summary.csv and ticks.csv count
//!   the outcomes, refusals and deferrals jobs.csv lists;
//! - bounded admission under `max_queued` (replayed in
//!   `invariants/admission_replay.rs`);
//! - retries and slices charged to the job's own tenant and class;
//! - start >= claimable, an attempt lasts its service, running <= workers,
//!   and under `hold` running <= cap per tenant;
//! - work conservation, when the policy promises it;
//! - aging's starvation bound;
//! - policy monotonicity in weight (`invariants/monotonicity.rs`).
//!
//! docs/testing.md, "Property tests", lists them with what each checks.
//! Case counts and seeds are fixed (CI is reproducible);
//! `FAIRSIM_INVARIANT_CASES=N` runs N generated cases instead, and
//! `FAIRSIM_INVARIANT_SEED=S` draws them from seed S.

#[path = "invariants/admission_replay.rs"]
mod admission_replay;
#[path = "invariants/checks.rs"]
mod checks;
mod common;
#[path = "invariants/lives.rs"]
mod lives;
#[path = "invariants/monotonicity.rs"]
mod monotonicity;
#[path = "invariants/outputs.rs"]
mod outputs;
#[path = "invariants/scenario_gen.rs"]
mod scenario_gen;

use std::path::Path;

use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};

use checks::{check_run, Coverage};
use scenario_gen::{gen, POLICIES};

#[test]
fn every_registered_policy_is_covered() {
    for p in fairsim::policy::registry() {
        assert!(
            POLICIES.iter().any(|(_, e)| e.starts_with(&format!("policy: {},", p.name))
                || *e == format!("policy: {}", p.name)),
            "{}",
            p.name
        );
    }
}

/// A fixed-seed runner of `cases` cases (or `FAIRSIM_INVARIANT_CASES`).
pub fn runner(cases: u32, seed: u64) -> TestRunner {
    let env =
        |k: &str| std::env::var(k).ok().map(|v| v.parse::<u64>().unwrap_or_else(|_| panic!("{k}: {v}")));
    let cases = env("FAIRSIM_INVARIANT_CASES").map_or(cases, |n| n as u32);
    let seed = env("FAIRSIM_INVARIANT_SEED").unwrap_or(seed);
    TestRunner::new(Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        // a failure prints its scenario; save it in tests/invariants/regressions/
        failure_persistence: None,
        max_shrink_iters: 2000,
        ..Config::default()
    })
}

/// Fails the test with the shrunk case, or returns normally.
pub fn outcome<T: std::fmt::Debug>(r: Result<(), TestError<T>>) {
    if let Err(e) = r {
        panic!("{e}");
    }
}

#[test]
fn invariants_hold_over_generated_scenarios() {
    let cov = std::cell::Cell::new(Coverage::default());
    let mut runner = runner(600, 20_261_201);
    outcome(runner.run(&gen(), |g| {
        let yaml = g.yaml();
        if let Ok(path) = std::env::var("FAIRSIM_INVARIANT_TRACE") {
            std::fs::write(path, &yaml).expect("trace file");
        }
        let run = outputs::run_one(&yaml).map_err(|e| TestCaseError::fail(format!("{e}\n{yaml}")))?;
        let mut c = cov.get();
        let r = check_run(&run, &mut c);
        cov.set(c);
        r.map_err(|e| TestCaseError::fail(format!("{e}\n{yaml}")))
    }));
    // Every check must have had something to check: these counts would
    // drop to 0 if a generator change starved one (a check that cannot fail).
    let c = cov.get();
    println!("{c:#?}");
    let n = c.cases;
    assert!(c.rejected > n && c.deferred > n && c.resent > n && c.expired > n / 20, "{c:?}");
    assert!(c.failed_retried > n && c.sliced > n, "{c:?}");
    assert!(c.admission.accepts > 2 * n && c.admission.filled > n / 2, "{c:?}");
    assert!(c.admission.refusals > n && c.admission.passed_by_deferral > n / 20, "{c:?}");
    assert!(c.cap_reached > n / 10 && c.workers_full > n / 2, "{c:?}");
    assert!(c.conserving > n / 4 && c.conserving_waits > n / 5 && c.aging_pairs > n, "{c:?}");
}

/// Runs every scenario in tests/invariants/regressions/ through every check.
#[test]
fn saved_regression_scenarios_hold() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/invariants/regressions");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .expect("regressions folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml") && !monotonicity::is_pair(p))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let run =
            outputs::run_file(&file, common::tempdir()).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        check_run(&run, &mut Coverage::default()).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    }
}

#[test]
fn lowering_a_weight_never_raises_the_share() {
    let lowered = std::cell::Cell::new(0u32);
    let mut runner = runner(250, 20_261_202);
    outcome(runner.run(&monotonicity::pair(), |p| {
        let moved = monotonicity::check(&p).map_err(TestCaseError::fail)?;
        lowered.set(lowered.get() + u32::from(moved));
        Ok(())
    }));
    // the weight must matter in most pairs, or the property is empty
    assert!(lowered.get() > 250 / 3, "the share fell in only {} pairs", lowered.get());
}

/// The monotonicity counterexamples kept in tests/invariants/regressions/
/// (`# lowered: T w -> w'`): each still shows the lowered weight receiving
/// more worker-seconds in the saturated window. A finding, kept visible:
/// when a policy change makes one monotone, this fails and its file goes.
#[test]
fn monotonicity_counterexamples_still_reproduce() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/invariants/regressions");
    let mut found = 0;
    for file in std::fs::read_dir(&folder).expect("regressions folder").map(|e| e.expect("entry").path()) {
        if !monotonicity::is_pair(&file) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("read");
        let line = text.lines().find_map(|l| l.strip_prefix("# lowered: ")).expect("header");
        let (tenant, weights) = line.split_once(' ').expect("T w -> w'");
        let (high, low) = weights.split_once(" -> ").expect("w -> w'");
        let from = format!("  {tenant}: {{weight: {high}}}");
        assert!(text.contains(&from), "{}: no `{from}`", file.display());
        let lowered = text.replace(&from, &format!("  {tenant}: {{weight: {low}}}"));
        let (at_high, at_low, w) = monotonicity::shares(&text, &lowered, tenant).expect("runs");
        println!(
            "{}: {tenant} at {high}: {at_high} us, at {low}: {at_low} us of [0, {w} us]",
            file.display()
        );
        assert!(
            at_low > at_high,
            "{}: monotone now ({at_low} <= {at_high}); delete the file",
            file.display()
        );
        found += 1;
    }
    assert!(found >= 1);
}

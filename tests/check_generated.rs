//! `fairsim check` over generated runs: for scenarios drawn by the
//! invariant tests' generator (every registered policy, three topologies,
//! admission rules, failures, slices, caps, resources), the folder `run`
//! writes passes every rule of `check`. A rule that fails here is either a
//! defect in fairsim's outputs or a rule claiming more than the files say.
//! 100 cases in CI; `FAIRSIM_CHECK_CASES=N` runs N, `FAIRSIM_CHECK_SEED=S`
//! draws them from seed S.

mod common;
#[allow(dead_code)]
#[path = "invariants/scenario_gen.rs"]
mod scenario_gen;

use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};

use fairsim::run::{run_all, RunOptions};

fn env(k: &str) -> Option<u64> {
    std::env::var(k).ok().map(|v| v.parse::<u64>().unwrap_or_else(|_| panic!("{k}: {v}")))
}

/// Runs `yaml` with full logs and checks its folder; the check's report.
fn run_and_check(yaml: &str) -> Result<String, String> {
    let dir = common::tempdir();
    let file = dir.path().join("prop.yaml");
    std::fs::write(&file, yaml).expect("write scenario");
    let sc = fairsim::scenario::load(&file).map_err(|e| format!("load: {e}"))?;
    let out = dir.path().join("out");
    let opts = RunOptions { out: Some(out.clone()), no_plots: true, ..RunOptions::default() };
    run_all(&sc, &opts, &|_, _, _| {}).map_err(|e| format!("run: {e}"))?;
    let mut report = Vec::new();
    let ok = fairsim::check::check_folder(&out, &mut report).map_err(|e| format!("check: {e}"))?;
    let report = String::from_utf8(report).expect("utf-8");
    if ok {
        Ok(report)
    } else {
        Err(report)
    }
}

#[test]
fn check_passes_on_generated_runs() {
    let cases = env("FAIRSIM_CHECK_CASES").unwrap_or(100) as u32;
    let seed = env("FAIRSIM_CHECK_SEED").unwrap_or(20_261_217);
    let mut runner = TestRunner::new(Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        max_shrink_iters: 500,
        ..Config::default()
    });
    // how often each rule really checked something, so that a rule skipped
    // in every case cannot pass unnoticed
    let counts = std::cell::RefCell::new(std::collections::BTreeMap::<String, u32>::new());
    let r = runner.run(&scenario_gen::gen(), |g| {
        let yaml = g.yaml();
        let report = run_and_check(&yaml).map_err(|e| TestCaseError::fail(format!("{e}\n{yaml}")))?;
        for line in report.lines() {
            if let Some((rule, rest)) = line.split_once(": ").and_then(|(_, r)| r.split_once(": ")) {
                if rest.starts_with("ok") {
                    *counts.borrow_mut().entry(rule.to_string()).or_default() += 1;
                }
            }
        }
        Ok(())
    });
    if let Err(e) = r {
        panic!("{e}");
    }
    let counts = counts.into_inner();
    println!("{cases} generated runs pass; rules checked (not skipped) per run: {counts:?}");
    for rule in
        ["ends-once", "start-after-arrival", "finish", "workers", "caps", "work-conserving", "log-agrees"]
    {
        let n = counts.get(rule).copied().unwrap_or(0);
        assert!(n * 10 >= cases, "{rule} checked in only {n} of {cases} runs");
    }
}

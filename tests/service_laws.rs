//! The heavy-tailed and empirical service laws through the command line:
//! what the loader refuses, at which place (alpha <= 1 without `max`, a
//! tail past the horizon, a histogram of the wrong shape, a missing trace),
//! and an empirical law that draws only the run times a trace recorded.
//! The laws' own statistics (10^6 draws against their means and tails)
//! are unit tests of the sampler (`workload::generator::service_tests`).

mod common;

use std::collections::BTreeMap;

use common::*;

/// Refused by `validate` with exit 2 at line 3 and the column of `at` in
/// the entry, with `what` in the message.
fn refused(entry: &str, at: &str, what: &str) {
    let dir = tempdir();
    let text = format!("workers: 1\nworkload:\n  - {entry}\n");
    let (code, err) = validate_text(dir.path(), &text);
    let col = 5 + entry.find(at).unwrap_or_else(|| panic!("`{at}` in `{entry}`"));
    assert_eq!(code, Some(2), "{entry}: {err}");
    assert!(err.contains(&format!("bad.yaml:3:{col}: ")), "{entry}: expected column {col}: {err}");
    assert!(err.contains(what), "{entry}: {err}");
}

#[test]
fn bad_laws_are_refused_at_their_place() {
    let e = |svc: &str| format!("{{tenant: A, count: 3, service: {svc}}}");
    // an unbounded Pareto of alpha <= 1 has no mean
    refused(&e("{pareto: {alpha: 1, min: 1s}}"), "1, min", "infinite mean");
    refused(&e("{pareto: {alpha: 0.5, min: 1s}}"), "0.5", "bound it with `max");
    // alpha 1.1 from 1 h: (3600 / 9.007e9)^1.1 = e^(-16.2) = 9e-8 > 10^-9
    refused(&e("{pareto: {alpha: 1.1, min: 1h}}"), "1h", "more often than once in 10^9");
    refused(&e("{pareto: {alpha: 0, min: 1s, max: 2s}}"), "0, min", "must be a number above 0");
    refused(&e("{pareto: {alpha: 2, min: 2s, max: 1s}}"), "1s}", "`max` must be greater than `min`");
    refused(&e("{histogram: {edges: [0s, 1s, 2s], counts: [1]}}"), "[1]", "needs 2 numbers, not 1");
    refused(&e("{histogram: {edges: [0s, 2s, 1s], counts: [1, 1]}}"), "1s]", "must increase strictly");
    refused(&e("{histogram: {edges: [1s], counts: []}}"), "[1s]", "from 2 to");
    refused(&e("{histogram: {edges: [0s, 1s], counts: [0]}}"), "[0]", "positive count");
    refused(&e("{histogram: {edges: [0s, 1s], counts: [-1]}}"), "-1", "from 0 to 10^15");
    refused(&e("{pareto: {alpha: 2, min: 1s}, exponential: 1s}"), "{pareto", "exactly one of");
    refused(&e("{pareto: {alpha: 2, min: 1s, scale: 1}}"), "scale", "unknown field `scale`");
    refused(&e("{empirical: {path: nowhere.csv}}"), "nowhere", "cannot read trace");
    refused(&e("{empirical: {path: ., format: csv}}"), ".,", "not a regular file");
}

#[test]
fn accepted_laws_pass_validation() {
    let dir = tempdir();
    for svc in [
        "{pareto: {alpha: 2.5, min: 1s}}",
        // alpha 1.1 from 1 s: (1 / 9.007e9)^1.1 = e^(-25.2) < 10^-9
        "{pareto: {alpha: 1.1, min: 1s}}",
        "{pareto: {alpha: 0.5, min: 10ms, max: 1h}}",
        "{histogram: {edges: [0s, 100ms, 1s, 30s], counts: [50, 45, 5]}}",
    ] {
        let text = format!("workers: 1\nworkload:\n  - {{tenant: A, count: 3, service: {svc}}}\n");
        let (code, err) = validate_text(dir.path(), &text);
        assert_eq!(code, Some(0), "{svc}: {err}");
    }
}

/// The recorded run times of the shipped CSV trace: finished − started of
/// each row, in microseconds, read here without fairsim.
fn recorded() -> Vec<u64> {
    let text = std::fs::read_to_string(scenario("traces/jobs.csv")).expect("readable");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).expect("a column");
    let (s, f) = (col("started_at"), col("finished_at"));
    // "2026-11-28 10:00:01.100000+00": the seconds of the minute and the minute
    let micros = |t: &str| -> u64 {
        let clock = &t[11..26];
        let (h, m, sec) = (&clock[0..2], &clock[3..5], &clock[6..]);
        let (whole, frac) = sec.split_once('.').expect("a fraction");
        (h.parse::<u64>().unwrap() * 3600 + m.parse::<u64>().unwrap() * 60 + whole.parse::<u64>().unwrap())
            * 1_000_000
            + frac.parse::<u64>().unwrap()
    };
    lines.map(|l| l.split(',').collect::<Vec<_>>()).map(|r| micros(r[f]) - micros(r[s])).collect()
}

#[test]
fn an_empirical_law_draws_only_what_the_trace_recorded() {
    // 3,000 jobs drawn from the 12 rows' run times: every service is one of
    // them, and each distinct value appears in proportion to the rows that
    // recorded it (k of 12), within its 99% binomial interval
    let rec = recorded();
    assert_eq!(rec.len(), 12);
    let dir = tempdir();
    std::fs::copy(scenario("traces/jobs.csv"), dir.path().join("jobs.csv")).expect("copy");
    let sc = write_scenario(
        dir.path(),
        "emp.yaml",
        "workers: 100\nworkload:\n  - {tenant: A, arrivals: {every: 1s, count: 3000},\n     service: {empirical: {path: jobs.csv, columns: {arrival: created_at, tenant: account_id, started: started_at, finished: finished_at}}}}\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let jobs = read_csv(&out.join("fifo").join("jobs.csv"));
    assert_eq!(jobs.len(), 3000);
    let mut drawn: BTreeMap<u64, usize> = BTreeMap::new();
    for j in &jobs {
        let us = (secs(&j["service"]) * 1e6).round() as u64;
        *drawn.entry(us).or_default() += 1;
    }
    let mut expected: BTreeMap<u64, usize> = BTreeMap::new();
    for &r in &rec {
        *expected.entry(r).or_default() += 1;
    }
    assert!(drawn.keys().all(|k| expected.contains_key(k)), "{drawn:?} against {expected:?}");
    let n = jobs.len() as f64;
    for (value, k) in &expected {
        let p = *k as f64 / 12.0;
        let got = *drawn.get(value).unwrap_or(&0) as f64 / n;
        let half = 2.5758 * (p * (1.0 - p) / n).sqrt();
        assert!((got - p).abs() <= half, "{value} us: {got} against {p} +- {half}");
    }
}

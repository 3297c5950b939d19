//! Time-varying Poisson arrivals (`arrivals: {poisson, profile}`) through
//! the command line: what the loader refuses and where, and a run whose
//! policies all see the same arrivals, none of them where the profile's
//! factor is 0. The counts against their Poisson and MMPP laws are unit
//! tests of the generator (`workload::generator::profile_tests`).

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

fn entry(arrivals: &str) -> String {
    format!("{{tenant: A, service: 1s, arrivals: {arrivals}}}")
}

#[test]
fn bad_profiles_are_refused_at_their_place() {
    let day23 = vec!["1"; 23].join(", ");
    refused(
        &entry(&format!("{{poisson: 1/s, stop: 1h, profile: {{daily: [{day23}]}}}}")),
        "[1,",
        "exactly 24 factors",
    );
    refused(&entry("{poisson: 1/s, stop: 1h, profile: {weekly: [1, 1]}}"), "[1, 1]", "exactly 7 factors");
    refused(
        &entry("{poisson: 1/s, stop: 1h, profile: {steps: [{at: 10s, factor: 2}, {at: 5s, factor: 1}]}}"),
        "5s",
        "strictly increasing",
    );
    refused(
        &entry("{poisson: 1/s, stop: 1h, profile: {steps: [{at: 10s, factor: -1}]}}"),
        "-1",
        "at least 0",
    );
    refused(
        &entry("{poisson: 1/s, stop: 1h, profile: {steps: [{at: 10s, factor: .nan}]}}"),
        ".nan",
        "finite",
    );
    refused(&entry("{poisson: 1/s, stop: 1h, profile: {}}"), "{}", "at least one of");
    refused(&entry("{poisson: 1/s, stop: 1h, profile: {hourly: [1]}}"), "hourly", "unknown field `hourly`");
    refused(
        &entry("{every: 1s, stop: 1h, profile: {weekly: [1, 1, 1, 1, 1, 1, 1]}}"),
        "{weekly",
        "`poisson` arrivals only",
    );
    refused(
        &entry("{batch: 3, profile: {weekly: [1, 1, 1, 1, 1, 1, 1]}}"),
        "{weekly",
        "`poisson` arrivals only",
    );
    refused(
        &entry("{poisson: 1/s, stop: 1h, profile: {bursts: {on: 0s, off: 1s, high: 2}}}"),
        "0s",
        "greater than zero",
    );
    refused(
        &entry("{poisson: 1/s, stop: 1h, profile: {bursts: {on: 1s, off: 1s, high: 0}}}"),
        "{on",
        "both 0",
    );
    // from 10 s the rate is 0 for good, and only a count ends the entry:
    // its last jobs would never come
    refused(
        &entry("{poisson: 1/s, count: 100, profile: {steps: [{at: 10s, factor: 0}]}}"),
        "{steps",
        "long-run rate",
    );
    // 0 over the whole of [0, 1 h): no arrivals at all
    refused(
        &entry("{poisson: 1/s, stop: 1h, profile: {steps: [{at: 0s, factor: 0}]}}"),
        "{steps",
        "no arrivals",
    );
    // 10^6/s x 2000 = 2 x 10^9/s at the peak
    refused(
        &entry("{poisson: 1000000/s, count: 5, profile: {bursts: {on: 1s, off: 1s, high: 2000}}}"),
        "{bursts",
        "peak rate",
    );
    // bursts of 1 ms and 1 ms over 10^6 s: 2 x 10^6 / 0.002 = 10^9 flips
    refused(
        &entry("{poisson: 1/s, stop: 1000000s, profile: {bursts: {on: 1ms, off: 1ms, high: 2}}}"),
        "{on",
        "flip about",
    );
}

#[test]
fn every_policy_sees_the_same_arrivals_and_none_at_factor_zero() {
    // 5/s with factor 0 on [20 s, 40 s) and a daily shape that is 0 but
    // for hour 0 (which covers the whole minute): arrivals in [0, 20 s)
    // and [40 s, 60 s) only, identical under both policies
    let daily = std::iter::once("1").chain(std::iter::repeat_n("0", 23)).collect::<Vec<_>>().join(", ");
    let text = format!(
        "workers: 2\nworkload:\n  - {{tenant: A, service: 100ms, arrivals: {{poisson: 5/s, stop: 60s, profile: \
         {{steps: [{{at: 20s, factor: 0}}, {{at: 40s, factor: 1}}], daily: [{daily}]}}}}}}\n  - {{tenant: B, service: 100ms, \
         arrivals: {{poisson: 2/s, stop: 60s, profile: {{bursts: {{on: 5s, off: 5s, high: 2}}}}}}}}\npolicies: [fifo, round_robin]\n"
    );
    let (_dir, out) = run_yaml(&text, &[]);
    let arrivals = |label: &str| {
        let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for r in read_csv(&out.join(label).join("jobs.csv")) {
            m.entry(r["tenant"].clone()).or_default().push(r["arrival"].clone());
        }
        m
    };
    let (fifo, rr) = (arrivals("fifo"), arrivals("round_robin"));
    assert_eq!(fifo, rr);
    let a: Vec<f64> = fifo["A"].iter().map(|s| secs(s)).collect();
    assert!(!a.is_empty());
    assert!(a.iter().all(|t| !(20.0..40.0).contains(t) && *t < 60.0), "{a:?}");
    // B's bursts with low 0: each off period is silent, so some gap of B's
    // arrivals is longer than any at 2 x 2/s is likely to be (at 4/s a gap
    // past 3 s has a chance of e^-12 each)
    let b: Vec<f64> = fifo["B"].iter().map(|s| secs(s)).collect();
    assert!(b.windows(2).any(|w| w[1] - w[0] > 3.0), "no silent off period in {b:?}");
}

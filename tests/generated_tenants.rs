//! Generated tenants (`tenants: {count, prefix}` in a workload entry) with
//! a weight and cap for the whole set, and names of the set declared under
//! `tenants:` with their own.

mod common;

use common::*;

/// Finish time of tenant `who`'s last job before 50 s (the set's own
/// entry sends one job at 100 s, to a tenant drawn at random, after all
/// the jobs the tests reason about).
fn last_finish(jobs: &[std::collections::HashMap<String, String>], who: &str) -> f64 {
    jobs.iter()
        .filter(|r| r["tenant"] == who)
        .map(|r| secs(&r["finish"]))
        .filter(|&f| f < 50.0)
        .fold(0.0, f64::max)
}

#[test]
fn a_declared_name_of_a_generated_set_gets_its_own_weight() {
    // g0 and g1 from one set of weight 1; g1 declared with weight 2.5. One
    // worker, four 1 s jobs each at t = 0, wfq: g1's finish tags are 0.4,
    // 0.8, 1.2, 1.6 and g0's 1, 2, 3, 4 (no ties), so the order is g1 g1
    // g0 g1 g1 g0 g0 g0: g1's last job ends at 5 s, g0's first at 3 s.
    // With the set's weight for both they would alternate (g1's last at 8 s
    // or 7 s, by the tie rule).
    let (_d, out) = run_yaml(
        "
workers: 1
tenants: {g1: {weight: 2.5}}
workload:
  - {tenants: {count: 2, prefix: g}, arrivals: {batch: 1, at: 100s}, service: 1s}
  - {tenant: g0, arrivals: {batch: 4, at: 0s}, service: 1s}
  - {tenant: g1, arrivals: {batch: 4, at: 0s}, service: 1s}
policies: [wfq]
",
        &[],
    );
    let jobs = read_csv(&out.join("wfq/jobs.csv"));
    assert_eq!(last_finish(&jobs, "g1"), 5.0);
    let g0_first =
        jobs.iter().filter(|r| r["tenant"] == "g0").map(|r| secs(&r["finish"])).fold(f64::MAX, f64::min);
    assert_eq!(g0_first, 3.0);
    // the declared name is the set's tenant, not a second tenant
    let tenants = read_csv(&out.join("wfq/tenants.csv"));
    let names: std::collections::BTreeSet<&str> = tenants.iter().map(|r| r["tenant"].as_str()).collect();
    assert_eq!(names, ["g0", "g1"].into_iter().collect());
}

#[test]
fn a_set_s_cap_applies_to_each_tenant_unless_a_name_overrides_it() {
    // the set caps each tenant at 1 running job; c1 is declared with cap 3.
    // Four workers, six 1 s jobs each at t = 0, fifo holding capped jobs
    // (`spare: hold`: no lending once c1 is done):
    // c0 runs one at a time (last ends at 6 s), c1 three at a time (two
    // rounds: last ends at 2 s); 1 + 3 = 4 workers, so neither waits for a
    // worker
    let (_d, out) = run_yaml(
        "
workers: 4
tenants: {c1: {cap: 3}}
workload:
  - {tenants: {count: 2, prefix: c, cap: 1}, arrivals: {batch: 1, at: 100s}, service: 1s}
  - {tenant: c0, arrivals: {batch: 6, at: 0s}, service: 1s}
  - {tenant: c1, arrivals: {batch: 6, at: 0s}, service: 1s}
policies: [{policy: fifo, spare: hold}]
",
        &[],
    );
    let jobs = read_csv(&out.join("fifo/jobs.csv"));
    assert_eq!(last_finish(&jobs, "c0"), 6.0);
    assert_eq!(last_finish(&jobs, "c1"), 2.0);
}

#[test]
fn generated_set_mistakes_are_errors_at_their_place() {
    let err = validate_error(
        "
workers: 2
workload:
  - {tenants: {count: 2, prefix: c, cap: 0}, count: 4, service: 1s}
",
        "cap.yaml",
    );
    // `0` of `cap: 0` is at line 4, column 42
    assert!(
        err.contains("cap.yaml:4:42:") && err.contains("cap 0 must be a whole number of at least 1"),
        "{err}"
    );
    let err = validate_error(
        "
workers: 2
workload:
  - {tenants: {count: 2, prefix: c, weight: 2}, count: 4, service: 1s}
  - {tenants: {count: 2, prefix: c, weight: 3}, count: 4, service: 1s}
",
        "twice.yaml",
    );
    assert!(err.contains("twice.yaml:5:15:") && err.contains("another weight or cap"), "{err}");
    let err = validate_error(
        "
workers: 2
tenants: {c1: {weight: 2}}
workload:
  - {tenant: c1, count: 4, service: 1s}
  - {tenants: {count: 2, prefix: c}, count: 4, service: 1s}
",
        "order.yaml",
    );
    assert!(err.contains("order.yaml:5:14:") && err.contains("move this entry below"), "{err}");
}

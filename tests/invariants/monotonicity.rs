//! Policy monotonicity (the backpressure article's invariant 7): lowering a tenant's
//! weight never increases the share it receives under the same demand and
//! capacity.
//!
//! A pair of runs differs only in one tenant's weight; both have the same
//! seed and entries, so they see the same arrivals and service times
//! (common random numbers, asserted job by job). The share is the tenant's
//! worker-seconds in the window [0, W], with W = min over tenants of (its
//! work arriving at 0) / workers: no tenant can finish its batch at 0 in
//! less, so every tenant has demand throughout the window, which is
//! saturated. No failures, slices or caps, so every attempt is the interval
//! [start, start + service) of jobs.csv. Checked on one worker (see
//! [`max_workers`] for why).

use std::path::Path;

use proptest::prelude::*;

use crate::outputs::{run_one, Run};
use crate::scenario_gen::Service;

/// The policies that divide by tenant weight (directly, or inside the
/// classes of a composition).
pub const WEIGHTED: &[(&str, &str)] = &[
    ("drr", "policy: drr"),
    ("drr-work", "policy: drr, cost: work"),
    ("wfq", "policy: wfq"),
    ("wfq-work", "policy: wfq, cost: work"),
    ("share", "policy: share, window: 5s"),
    ("share-work", "policy: share, cost: work, window: 5s"),
    ("lottery", "policy: lottery"),
    ("drf", "policy: drf"),
    ("hierarchical", "policy: hierarchical, then: drr"),
    ("priority-wfq", "policy: priority, then: {policy: wfq, cost: work}"),
    ("bands-share", "policy: bands, floor: {c1: 0.3}, window: 5s, then: share"),
];

#[derive(Debug, Clone)]
pub struct Pair {
    pub seed: u64,
    pub workers: u32,
    pub weights: Vec<f64>,
    /// (tenant, class, batch count, service)
    pub entries: Vec<(usize, usize, u32, Service)>,
    /// Poisson arrivals on top: (tenant, class, rate per s, count)
    pub extra: Vec<(usize, usize, u32, u32)>,
    pub tenant: usize,
    /// The lowered weight is weight x this.
    pub factor: f64,
    pub policy: usize,
}

fn service() -> impl Strategy<Value = Service> {
    prop_oneof![
        (100u32..2000).prop_map(Service::Constant),
        (100u32..2000).prop_map(Service::Exponential),
        (100u32..1500, 0u32..1500).prop_map(|(a, d)| Service::Uniform(a, a + d)),
    ]
}

/// The most workers of a pair: 1, or `FAIRSIM_MONOTONICITY_WORKERS`.
///
/// On one worker the property held for every policy of [`WEIGHTED`] over
/// 1,500 pairs. On several it does not hold in worker-seconds: a different
/// order of starts over workers that free at different times can give the
/// lowered tenant more of the window (the `monotonicity-*.yaml`
/// counterexamples in tests/invariants/regressions/, for drr with `cost:
/// work` and bands over share). So the fixed-seed run is on one worker,
/// and the counterexamples are asserted as findings.
fn max_workers() -> u32 {
    std::env::var("FAIRSIM_MONOTONICITY_WORKERS").map_or(1, |v| v.parse().expect("a number of workers"))
}

pub fn pair() -> impl Strategy<Value = Pair> {
    (
        any::<u64>(),
        1u32..=max_workers(),
        prop::collection::vec(prop::sample::select(vec![0.5, 1.0, 2.0, 3.0, 5.0]), 2..4),
        prop::collection::vec((0usize..4, 0usize..2, 5u32..25, service()), 2..6),
        prop::collection::vec((0usize..4, 0usize..2, 1u32..4, 1u32..10), 0..2),
        0usize..4,
        prop::sample::select(vec![0.1, 0.25, 0.5, 0.8, 0.99]),
        0..WEIGHTED.len(),
    )
        .prop_map(|(seed, workers, weights, entries, extra, tenant, factor, policy)| Pair {
            seed,
            workers,
            weights,
            entries,
            extra,
            tenant,
            factor,
            policy,
        })
}

impl Pair {
    /// The scenario with the chosen tenant's weight times `factor`. Every
    /// tenant gets a batch at 0, so that every tenant has demand in the window.
    pub fn yaml(&self, factor: f64) -> String {
        let n = self.weights.len();
        let mut s = format!("name: pair\nseed: {}\nworkers: {}\ntenants:\n", self.seed, self.workers);
        for (i, w) in self.weights.iter().enumerate() {
            let w = if i == self.tenant % n { w * factor } else { *w };
            s.push_str(&format!("  T{i}: {{weight: {w}}}\n"));
        }
        s.push_str("classes:\n  c0: {priority: 1}\n  c1: {priority: 3}\nworkload:\n");
        let mut has_batch = vec![false; n];
        for (t, c, count, svc) in &self.entries {
            has_batch[t % n] = true;
            s.push_str(&format!(
                "  - {{tenant: T{}, class: c{c}, count: {count}, service: {}}}\n",
                t % n,
                svc_yaml(svc)
            ));
        }
        for (t, _) in has_batch.iter().enumerate().filter(|(_, b)| !**b) {
            s.push_str(&format!("  - {{tenant: T{t}, class: c1, count: 10, service: 1s}}\n"));
        }
        for (t, c, rate, count) in &self.extra {
            s.push_str(&format!(
                "  - {{tenant: T{}, class: c{c}, arrivals: {{poisson: {rate}/s, count: {count}}}, service: 700ms}}\n",
                t % n
            ));
        }
        let (label, entry) = WEIGHTED[self.policy];
        s.push_str(&format!("policies:\n  - {{label: {label}, {entry}}}\n"));
        s
    }
}

fn svc_yaml(s: &Service) -> String {
    match *s {
        Service::Constant(m) => format!("{m}ms"),
        Service::Exponential(m) => format!("{{exponential: {m}ms}}"),
        Service::Uniform(a, b) => format!("{{uniform: {{min: {a}ms, max: {b}ms}}}}"),
    }
}

/// The saturated window's end W (µs): min over tenants of their work
/// arriving at 0, over the workers.
fn window(run: &Run) -> i64 {
    let n = run.sc.tenants.len();
    let mut work = vec![0i64; n];
    for j in run.jobs.iter().filter(|j| j.arrival == 0) {
        work[run.sc.tenants.id_of(&j.tenant).expect("tenant") as usize] += j.service;
    }
    work.into_iter().min().unwrap_or(0) / i64::from(run.sc.workers)
}

/// The tenant's worker-seconds (µs) in [0, w].
fn received(run: &Run, tenant: &str, w: i64) -> i64 {
    run.jobs
        .iter()
        .filter(|j| j.tenant == tenant)
        .filter_map(|j| j.start.map(|s| (s.min(w), (s + j.service).min(w))))
        .map(|(a, b)| b - a)
        .sum()
}

/// The chosen tenant's share at its weight and at the lowered weight, and W.
pub fn shares(yaml_high: &str, yaml_low: &str, tenant: &str) -> Result<(i64, i64, i64), String> {
    let (high, low) = (run_one(yaml_high)?, run_one(yaml_low)?);
    let key = |r: &Run| {
        let mut v: Vec<_> = r.jobs.iter().map(|j| (j.id, j.tenant.clone(), j.arrival, j.service)).collect();
        v.sort_unstable();
        v
    };
    if key(&high) != key(&low) {
        return Err("the runs differ in arrivals or service times: not common random numbers".into());
    }
    let w = window(&high);
    Ok((received(&high, tenant, w), received(&low, tenant, w), w))
}

/// Checks one pair: lowered weight, no more worker-seconds in [0, W];
/// whether they were strictly fewer.
pub fn check(p: &Pair) -> Result<bool, String> {
    let tenant = format!("T{}", p.tenant % p.weights.len());
    let (high, low, w) = shares(&p.yaml(1.0), &p.yaml(p.factor), &tenant)?;
    if w <= 0 {
        return Err("empty window".into());
    }
    if low > high {
        return Err(format!(
            "{}: lowering {tenant}'s weight x{} raised its worker-seconds in [0, {w} us] from {high} to {low} us\n{}",
            WEIGHTED[p.policy].0,
            p.factor,
            p.yaml(1.0)
        ));
    }
    Ok(low < high)
}

/// Whether a regressions file is a monotonicity pair (its header says
/// `# lowered: TENANT WEIGHT`).
pub fn is_pair(file: &Path) -> bool {
    std::fs::read_to_string(file).is_ok_and(|s| s.lines().any(|l| l.starts_with("# lowered: ")))
}

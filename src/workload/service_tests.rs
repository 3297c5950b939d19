//! The service samplers against their laws: 10^6 draws each from a fixed
//! stream (deterministic), the sample mean and a tail fraction inside the
//! 99% intervals the law itself gives (theory's variance, not the sample's).

use super::*;
use crate::workload::rng::{stream, Purpose};

const N: usize = 1_000_000;
/// Two-sided 99% normal quantile.
const Z99: f64 = 2.575_829_303_548_901;

fn draws(spec: &ServiceSpec, seed: u64) -> Vec<f64> {
    let s = Service::new(spec);
    let mut rng = stream(seed, 0, Purpose::Workload);
    (0..N).map(|_| s.sample(&mut rng) as f64 / SECOND as f64).collect()
}

/// The sample mean lies within z99 standard errors (sd / sqrt n) of `mean`.
fn mean_within(x: &[f64], mean: f64, sd: f64) {
    let m = x.iter().sum::<f64>() / x.len() as f64;
    let half = Z99 * sd / (x.len() as f64).sqrt();
    assert!((m - mean).abs() <= half, "sample mean {m} outside {mean} +- {half}");
}

/// The fraction of draws above `at` lies within the 99% interval of a
/// binomial proportion `p` over the draws.
fn tail_within(x: &[f64], at: f64, p: f64) {
    let k = x.iter().filter(|&&v| v > at).count() as f64;
    let n = x.len() as f64;
    let half = Z99 * (p * (1.0 - p) / n).sqrt();
    assert!((k / n - p).abs() <= half, "P(S > {at}) = {} outside {p} +- {half}", k / n);
}

#[test]
fn pareto_mean_and_tail_match_the_law() {
    // alpha 2.5, min 1 s: mean alpha min / (alpha - 1) = 5/3 s; variance
    // min^2 alpha / ((alpha - 1)^2 (alpha - 2)) = 2.5 / (2.25 x 0.5) = 20/9;
    // P(S > 10 s) = (1/10)^2.5 = 0.0031623
    let spec = ServiceSpec::Pareto { alpha: 2.5, min: SECOND, max: None };
    assert!((spec.mean_secs() - 5.0 / 3.0).abs() < 1e-12);
    let x = draws(&spec, 7);
    assert!(x.iter().all(|&v| v >= 1.0));
    mean_within(&x, 5.0 / 3.0, (20.0f64 / 9.0).sqrt());
    tail_within(&x, 10.0, 10f64.powf(-2.5));
}

#[test]
fn bounded_pareto_stays_inside_and_matches_its_truncated_law() {
    // alpha 1, min 1 s, max 100 s: density L H / (H - L) x^-2 on [1, 100],
    // mean L H / (H - L) ln(H/L) = 100/99 ln 100 = 4.6517 s, E[S^2] =
    // L H / (H - L) (H - L) = 100, so sd = sqrt(100 - 4.6517^2) = 8.8506;
    // P(S > 10) = ((L/x) - (L/H)) / (1 - L/H) = (0.1 - 0.01) / 0.99 = 1/11
    let spec = ServiceSpec::Pareto { alpha: 1.0, min: SECOND, max: Some(100 * SECOND) };
    let mean = 100.0 / 99.0 * 100f64.ln();
    assert!((spec.mean_secs() - mean).abs() < 1e-12, "{}", spec.mean_secs());
    let x = draws(&spec, 11);
    assert!(x.iter().all(|&v| (1.0..=100.0).contains(&v)));
    mean_within(&x, mean, (100.0 - mean * mean).sqrt());
    tail_within(&x, 10.0, 1.0 / 11.0);
    // alpha 2.5 bounded at 10 s: P(S > 2) = (2^-2.5 - 10^-2.5) / (1 - 10^-2.5)
    let spec = ServiceSpec::Pareto { alpha: 2.5, min: SECOND, max: Some(10 * SECOND) };
    let (a, b) = (2f64.powf(-2.5), 10f64.powf(-2.5));
    tail_within(&draws(&spec, 12), 2.0, (a - b) / (1.0 - b));
}

#[test]
fn histogram_draws_bins_by_count_and_uniformly_inside() {
    // bins [0, 1) s and [1, 10) s with counts 3 and 1: P(S >= 1) = 1/4;
    // mean 3/4 x 0.5 + 1/4 x 5.5 = 1.75 s; E[S^2] = 3/4 x 1/3 + 1/4 x
    // (1 + 10 + 100)/3 = 9.5, sd sqrt(9.5 - 1.75^2) = 2.5372;
    // P(S > 5.5) = 1/4 x 4.5/9 = 1/8
    let h = Histogram { edges: vec![0, SECOND, 10 * SECOND], cumulative: vec![0.75, 1.0] };
    let spec = ServiceSpec::Histogram(Arc::new(h));
    assert!((spec.mean_secs() - 1.75).abs() < 1e-12);
    let x = draws(&spec, 3);
    assert!(x.iter().all(|&v| (0.0..10.0).contains(&v)));
    tail_within(&x, 0.999_999_5, 0.25);
    tail_within(&x, 5.5, 0.125);
    mean_within(&x, 1.75, (9.5f64 - 1.75 * 1.75).sqrt());
}

#[test]
fn empirical_draws_each_recorded_value_alike() {
    // recorded 1 s, 2 s, 7 s: mean 10/3 s, variance (1 + 4 + 49)/3 - 100/9
    // = 62/9; each value a third of the draws: P(S > 2) = 1/3
    let spec = ServiceSpec::Empirical(vec![SECOND, 2 * SECOND, 7 * SECOND].into());
    assert!((spec.mean_secs() - 10.0 / 3.0).abs() < 1e-12);
    let x = draws(&spec, 5);
    assert!(x.iter().all(|&v| v == 1.0 || v == 2.0 || v == 7.0));
    mean_within(&x, 10.0 / 3.0, (62.0f64 / 9.0).sqrt());
    tail_within(&x, 2.0, 1.0 / 3.0);
    tail_within(&x, 1.0, 2.0 / 3.0);
}

//! Profiled Poisson arrivals against their laws, through the loader and
//! the entry generator: counts per interval inside the Poisson intervals
//! the profile's integral gives, none where the factor is 0, and on/off
//! bursts with the mean and the overdispersion of a two-state MMPP.
//! Deterministic: fixed seeds, each entry's own stream.

use std::path::Path;

use super::*;

/// Two-sided 99% normal quantile.
const Z99: f64 = 2.575_829_303_548_901;

/// The arrival times (seconds) of the only entry of `yaml` under `seed`.
fn times(yaml: &str, seed: u64) -> Vec<f64> {
    let sc = crate::scenario::load_str(yaml, Path::new("p.yaml")).expect("loads");
    let g = EntryGenerator::new(&sc.workload[0], seed, 0, Path::new("p.yaml"));
    g.map(|a| a.time as f64 / SECOND as f64).collect()
}

/// `k` lies in the 99% interval of a Poisson count of mean `m` (normal
/// approximation, good for means of hundreds and more).
fn poisson_within(k: usize, m: f64, what: &str) {
    let half = Z99 * m.sqrt();
    assert!((k as f64 - m).abs() <= half, "{what}: {k} arrivals outside {m} +- {half:.1}");
}

#[test]
fn steps_give_their_counts_and_none_at_factor_zero() {
    // 10/s; factor 1 on [0, 100 s), 0 on [100, 200 s), 3 on [200, 300 s):
    // expected 100 x 10 = 1000, 0, 100 x 30 = 3000 arrivals, 4000 in all
    let yaml = "workers: 1\nworkload:\n  - {tenant: A, service: 1ms, arrivals: {poisson: 10/s, stop: 300s, \
                profile: {steps: [{at: 100s, factor: 0}, {at: 200s, factor: 3}]}}}\n";
    let sc = crate::scenario::load_str(yaml, Path::new("p.yaml")).expect("loads");
    assert_eq!(sc.workload[0].arrivals.expected_count(), 4000.0);
    let (mut first, mut last) = (0, 0);
    for seed in 1..=20 {
        let t = times(yaml, seed);
        assert!(t.iter().all(|&x| !(100.0..200.0).contains(&x)), "seed {seed}: an arrival at factor 0");
        assert!(t.iter().all(|&x| x < 300.0), "seed {seed}: an arrival at or past the stop");
        first += t.iter().filter(|&&x| x < 100.0).count();
        last += t.iter().filter(|&&x| x >= 200.0).count();
    }
    // over 20 seeds: Poisson of means 20 x 1000 and 20 x 3000
    poisson_within(first, 20_000.0, "[0, 100 s)");
    poisson_within(last, 60_000.0, "[200 s, 300 s)");
}

/// Exact Poisson quantile bounds of mean `m`: the smallest k with
/// P(N <= k) >= q, summed in log space (means up to 10^6).
fn poisson_quantile(m: f64, q: f64) -> usize {
    let (mut k, mut log_p, mut cdf) = (0usize, -m, 0.0f64);
    loop {
        cdf += log_p.exp();
        if cdf >= q {
            return k;
        }
        k += 1;
        log_p += m.ln() - (k as f64).ln();
    }
}

#[test]
fn a_daily_shape_gives_hourly_counts_inside_their_poisson_intervals() {
    // factors 0.2 at night (22:00 to 06:00), 2.0 at noon, 1 otherwise, at
    // 0.5/s: an hour of factor f expects 1800 f arrivals (360 at night,
    // 3600 at noon); 30 days
    let mut daily = [1.0; 24];
    for h in [22, 23, 0, 1, 2, 3, 4, 5] {
        daily[h] = 0.2;
    }
    daily[12] = 2.0;
    let list = daily.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(", ");
    let yaml = format!(
        "workers: 1\nworkload:\n  - {{tenant: A, service: 1ms, arrivals: {{poisson: 0.5/s, stop: 30d, profile: {{daily: [{list}]}}}}}}\n"
    );
    let t = times(&yaml, 7);
    let mut hourly = vec![0usize; 30 * 24];
    for x in &t {
        hourly[(*x / 3600.0) as usize] += 1;
    }
    // each of the 720 hourly counts against its own exact 99% interval:
    // about 1% fall outside by chance, Binomial(720, 0.01) of mean 7.2; more
    // than 17 outside has a chance under 10^-3
    let mut outside = 0;
    for (i, k) in hourly.iter().enumerate() {
        let m = 1800.0 * daily[i % 24];
        if *k < poisson_quantile(m, 0.005) || *k > poisson_quantile(m, 0.995) {
            outside += 1;
        }
    }
    assert!(outside <= 17, "{outside} of 720 hourly counts outside their 99% intervals");
    // each hour of the day summed over the 30 days, against its interval
    // at 99% for the 24 of them together (Bonferroni: 1 - 0.01/24 each)
    for h in 0..24 {
        let k: usize = (0..30).map(|d| hourly[d * 24 + h]).sum();
        let m = 30.0 * 1800.0 * daily[h];
        let (lo, hi) = (poisson_quantile(m, 0.005 / 24.0), poisson_quantile(m, 1.0 - 0.005 / 24.0));
        assert!((lo..=hi).contains(&k), "hour {h}: {k} arrivals outside [{lo}, {hi}] (mean {m})");
    }
}

#[test]
fn bursts_have_the_mean_and_overdispersion_of_a_two_state_mmpp() {
    // on: mean 10 s at 4 x 2/s = 8/s; off: mean 30 s at 0. Switching
    // rates a = 1/10 (leave on), b = 1/30 (leave off); on a share
    // pi = b / (a + b) = 1/4 of the time; mean rate 8/4 = 2/s. Counts over
    // windows of T s (T long beside 1 / (a + b) = 7.5 s) have index of
    // dispersion Var / mean -> 1 + 2 (l1 - l2)^2 pi (1 - pi) / ((a + b) l)
    // = 1 + 2 x 64 x 3/16 / (2/15 x 2) = 91 (Heffes & Lucantoni 1986; the
    // rate's autocovariance (l1 - l2)^2 pi (1 - pi) e^(-(a + b) t)
    // integrated twice), less 2 (l1 - l2)^2 pi (1 - pi) (1 - e^(-(a+b)T))
    // / ((a + b)^2 T l) for a finite T: at T = 600 s, 90 x (1 - 7.5/600)
    // = 88.9, so 89.9
    let yaml =
        "workers: 1\nworkload:\n  - {tenant: A, service: 1ms, arrivals: {poisson: 2/s, stop: 6000000s, \
                profile: {bursts: {on: 10s, off: 30s, high: 4}}}}\n";
    let t = times(yaml, 3);
    let windows = 10_000;
    let mut counts = vec![0f64; windows];
    for x in &t {
        counts[(*x / 600.0) as usize] += 1.0;
    }
    let n = windows as f64;
    let mean = counts.iter().sum::<f64>() / n;
    let var = counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / (n - 1.0);
    // the mean window count 1200, with the standard error of the mean of
    // 10^4 windows of variance 89.9 x 1200: sqrt(107,880 / 10^4) = 3.3
    let se = (89.9 * 1200.0 / n).sqrt();
    assert!((mean - 1200.0).abs() <= Z99 * se, "mean count per window {mean}, expected 1200 +- {}", Z99 * se);
    // the sample variance of n windows has a relative standard error of
    // sqrt((2 + k) / (n - 1)), k the counts' excess kurtosis (0 if normal;
    // a window holds about 15 exponential bursts, allowed up to 1): 1.7%,
    // 99% within 4.5%
    let idc = var / mean;
    let tol = Z99 * (3.0 / (n - 1.0)).sqrt();
    assert!(
        (idc / 89.9 - 1.0).abs() <= tol,
        "index of dispersion {idc}, expected 89.9 +- {:.1}%",
        tol * 100.0
    );
}

#[test]
fn equal_high_and_low_is_plain_poisson() {
    // bursts with high = low = 1 change no rate: a Poisson count, index
    // of dispersion 1 (the sample variance within 11.5% of the mean)
    let yaml =
        "workers: 1\nworkload:\n  - {tenant: A, service: 1ms, arrivals: {poisson: 2/s, stop: 600000s, \
                profile: {bursts: {on: 10s, off: 30s, high: 1, low: 1}}}}\n";
    let t = times(yaml, 3);
    let mut counts = vec![0f64; 1000];
    for x in &t {
        counts[(*x / 600.0) as usize] += 1.0;
    }
    let mean = counts.iter().sum::<f64>() / 1000.0;
    let var = counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / 999.0;
    poisson_within(t.len(), 1_200_000.0, "all windows");
    assert!((var / mean - 1.0).abs() <= Z99 * (2.0f64 / 999.0).sqrt(), "index of dispersion {}", var / mean);
}

//! FIFO against queueing theory: the whole waiting-time distribution of an
//! M/M/c queue against Erlang C, and of an M/D/1 queue against its classical
//! closed form, beyond the means. A random-order policy matches the means
//! and P(wait > 0) (work conservation fixes those) but not the distribution,
//! and the test runs one to show it.
//!
//! Tolerances are sized from the statistics of each run: waits of
//! consecutive jobs are correlated, so each estimate's standard error is
//! taken by batch means (batches of 50,000 consecutive jobs, many busy
//! periods long, so nearly independent), and every check allows 4 standard
//! errors (a correct engine fails one check with probability about 6e-5).

use std::path::Path;

use fairsim::run::simulate;
use fairsim::scenario::load_str;

/// Waits in seconds of every job, in job-id (arrival) order, from jobs.csv.
fn waits(yaml: &str) -> Vec<f64> {
    let sc = load_str(yaml, Path::new("theory.yaml")).expect("valid scenario");
    let dir = tempfile::tempdir().expect("tempdir");
    simulate(&sc, &sc.policies[0], Some(dir.path()), None, false).expect("runs");
    let mut r = csv::Reader::from_path(dir.path().join("jobs.csv")).expect("jobs.csv");
    let h = r.headers().expect("header").clone();
    let col = |name: &str| h.iter().position(|x| x == name).expect(name);
    let (job, wait) = (col("job"), col("wait"));
    let mut v: Vec<(u64, f64)> = r
        .records()
        .map(|rec| {
            let rec = rec.expect("row");
            (rec[job].parse().expect("job"), rec[wait].parse().expect("wait"))
        })
        .collect();
    v.sort_by_key(|x| x.0);
    v.into_iter().map(|x| x.1).collect()
}

/// Mean of `f` over the waits and its standard error by batch means.
fn estimate(w: &[f64], f: impl Fn(f64) -> f64) -> (f64, f64) {
    let batches: Vec<f64> =
        w.chunks(50_000).map(|c| c.iter().map(|&x| f(x)).sum::<f64>() / c.len() as f64).collect();
    let k = batches.len() as f64;
    let mean = batches.iter().sum::<f64>() / k;
    let var = batches.iter().map(|b| (b - mean).powi(2)).sum::<f64>() / (k - 1.0);
    (mean, (var / k).sqrt())
}

/// Checks that the estimate of E[f(W)] is within 4 standard errors of `theory`;
/// returns the distance in standard errors.
fn within_4se(what: &str, w: &[f64], f: impl Fn(f64) -> f64, theory: f64) -> f64 {
    let (m, se) = estimate(w, f);
    let z = (m - theory) / se;
    eprintln!("{what}: {m:.6} +- {se:.6}, theory {theory:.6} ({z:+.1} se)");
    assert!(z.abs() <= 4.0, "{what}: {m:.6} vs theory {theory:.6}, {z:.1} standard errors ({se:.6})");
    z
}

/// Erlang C probability of waiting, via the stable Erlang B recursion.
fn erlang_c(c: u32, a: f64) -> f64 {
    let mut b = 1.0;
    for k in 1..=c {
        b = a * b / (k as f64 + a * b);
    }
    let rho = a / c as f64;
    b / (1.0 - rho + rho * b)
}

/// M/M/4 at utilisation 0.8 (lambda = 3.2/s, mean service 1 s). Erlang C:
/// C = P(W > 0) = 0.596432, and under FIFO the wait of a job that waits is
/// exponential with rate c mu - lambda = 0.8/s, so P(W > t) = C e^(-0.8 t):
/// t = 1, 2, 4 s: 0.267994, 0.120418, 0.024312; the p99 5.110476 s (where
/// it is 0.01); 8 s: 0.000991. E[W] = C / 0.8 = 0.745541 s.
/// Four runs of 1,000,000 jobs (80 batches); measured standard errors: mean
/// 0.0057 s, P(W > 0) 0.0012, P(W > 1) 0.0016, P(W > 8) 0.00013 (all
/// checks came out within 2 of them).
///
/// The wrong neighbour, random order (lottery over 200 tenants on the same
/// arrivals, a new job joining a random place in the service order): the
/// same P(W > 0) and nearly the same mean, but more short waits and a far
/// longer tail: measured P(W > 1) 0.209 and P(W > 8) 0.0082, 8 times FIFO's.
/// It must fail the distribution checks by more than 10 standard errors.
#[test]
fn fifo_mmc_wait_distribution_matches_erlang_c() {
    let (c, lambda, mu) = (4u32, 3.2f64, 1.0f64);
    let pw = erlang_c(c, lambda / mu);
    let theta = c as f64 * mu - lambda;
    let tail = |t: f64| pw * (-theta * t).exp();
    let p99 = (pw / 0.01).ln() / theta;
    assert!((pw - 0.596432).abs() < 1e-6 && (p99 - 5.110476).abs() < 1e-6, "formula check {pw} {p99}");
    let mmc = |seed: u64, policy: &str, tenants: &str| {
        format!(
            "name: mmc\nseed: {seed}\nworkers: {c}\nlog: {{tick: 1000s}}\nworkload:\n  - {{{tenants}, arrivals: {{poisson: {lambda}/s, count: 1000000}}, service: {{exponential: 1s}}}}\npolicies: [{policy}]\n"
        )
    };
    let mut w = Vec::new();
    for seed in 1..=4 {
        w.extend(waits(&mmc(seed, "fifo", "tenant: A")));
    }
    assert_eq!(w.len(), 4_000_000);
    within_4se("mean wait", &w, |x| x, pw / theta);
    within_4se("P(W > 0)", &w, |x| (x > 0.0) as u8 as f64, pw);
    for t in [1.0, 2.0, 4.0, p99, 8.0] {
        within_4se(&format!("P(W > {t})"), &w, |x| (x > t) as u8 as f64, tail(t));
    }

    let random = waits(&mmc(1, "lottery", "tenants: {count: 200, prefix: t}"));
    let (m, se) = estimate(&random, |x| x);
    assert!((m - pw / theta).abs() < 0.05, "random order keeps the mean near Erlang C's: {m} +- {se}");
    for t in [1.0, 8.0] {
        let (p, se) = estimate(&random, |x| (x > t) as u8 as f64);
        assert!((p - tail(t)).abs() > 10.0 * se, "random order at t = {t}: {p} vs FIFO's {}", tail(t));
    }
}

/// The M/D/1 waiting-time distribution (Poisson arrivals at lambda, constant
/// service D = 1 s, rho = lambda D), the classical closed form for FIFO
/// (Erlang; Crommelin 1932 for M/D/c):
/// P(W <= t) = (1 - rho) sum_{k=0}^{floor(t)} e^(lambda (t - k)) (-lambda (t - k))^k / k!
fn md1_cdf(lambda: f64, t: f64) -> f64 {
    let mut sum = 0.0;
    let mut fact = 1.0;
    for k in 0..=(t.floor() as i32) {
        if k > 0 {
            fact *= k as f64;
        }
        let x = lambda * (t - k as f64);
        sum += x.exp() * (-x).powi(k) / fact;
    }
    (1.0 - lambda) * sum
}

/// M/D/1 at rho = 0.5, 1,000,000 jobs (20 batches). Pollaczek-Khinchine:
/// E[W] = rho D / (2 (1 - rho)) = 0.5 s. P(W > 0) = rho = 0.5 for any
/// M/G/1 (PASTA: an arrival finds the server busy with the probability that
/// it is busy). The distribution: P(W > 1) = 1 - 0.5 e^0.5 = 0.175639,
/// P(W > 2) = 1 - 0.5 (e - 0.5 e^0.5) = 0.053039, P(W > 3) = 0.015251.
/// Measured standard errors: mean 0.0016 s, P(W > 0) 0.0008, P(W > 1) 0.0007,
/// P(W > 3) 0.0002 (all checks within 1.5 of them).
/// Random order (lottery over 200 tenants, measured): P(W > 1) 0.142 and
/// P(W > 3) 0.025, dozens of standard errors off.
#[test]
fn fifo_md1_wait_distribution_matches_the_closed_form() {
    let lambda = 0.5;
    assert!((1.0 - md1_cdf(lambda, 1.0) - 0.175639).abs() < 1e-6);
    assert!((1.0 - md1_cdf(lambda, 2.0) - 0.053039).abs() < 1e-6);
    assert!((md1_cdf(lambda, 0.0) - 0.5).abs() < 1e-12, "P(W = 0) = 1 - rho");
    let w = waits(&format!(
        "name: md1\nseed: 11\nworkers: 1\nlog: {{tick: 1000s}}\nworkload:\n  - {{tenant: A, arrivals: {{poisson: {lambda}/s, count: 1000000}}, service: 1s}}\n"
    ));
    within_4se("mean wait", &w, |x| x, lambda / (2.0 * (1.0 - lambda)));
    within_4se("P(W > 0)", &w, |x| (x > 0.0) as u8 as f64, lambda);
    for t in [1.0, 2.0, 3.0] {
        within_4se(&format!("P(W > {t})"), &w, |x| (x > t) as u8 as f64, 1.0 - md1_cdf(lambda, t));
    }
}

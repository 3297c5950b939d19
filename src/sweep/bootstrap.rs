//! A percentile bootstrap for the one figure of a sweep that is not a mean
//! over seeds: the ratio of two policies' means, mean(policy) / mean(baseline)
//! ("wfq's p99 is 0.0013x fifo's").
//!
//! Why not for the percentiles themselves: each run's p99 is one number per
//! seed, the seeds are independent replications, and what `sweep.csv`
//! estimates is the mean of that per-run figure; the Student t interval is
//! the interval for a mean of independent values, whatever the figure is a
//! percentile of (a percentile bootstrap of the same mean is no more exact
//! at 20-30 seeds, and usually a little narrower than it should be). A ratio
//! of two means is not a mean, so it has no t interval; resampling the seeds
//! (each seed's pair of runs kept together, so the common random numbers
//! still cancel) gives one.
//!
//! Deterministic: the resamples are drawn from a SplitMix64 stream seeded by
//! the caller from the row's identity, so the interval does not depend on
//! which thread or machine ran the sweep.

/// Resamples per interval.
pub const RESAMPLES: usize = 2000;

/// SplitMix64 (Steele, Lea & Flood 2014): small, fast, and fixed forever,
/// which a library generator is not promised to be.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        let out = crate::workload::rng::splitmix64(self.0);
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        out
    }

    /// Uniform in 0..n (Lemire's multiply-shift; its bias, below n / 2^64, is nil here).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

/// The 95% percentile-bootstrap interval of sum(x) / sum(y) over `pairs`
/// (x, y): [`RESAMPLES`] resamples of the pairs with replacement, the
/// ratio of each, and the 50th smallest and 50th largest of them (the 2.5%
/// and 97.5% points). `None` below two pairs or when a y is not positive
/// (a resample's denominator could then be zero or change sign).
pub fn ratio_interval(pairs: &[(f64, f64)], seed: u64) -> Option<(f64, f64)> {
    let n = pairs.len();
    if n < 2 || pairs.iter().any(|&(x, y)| y <= 0.0 || !x.is_finite() || !y.is_finite()) {
        return None;
    }
    let mut rng = SplitMix64(seed);
    let mut ratios: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let (mut sx, mut sy) = (0.0, 0.0);
            for _ in 0..n {
                let (x, y) = pairs[rng.below(n)];
                sx += x;
                sy += y;
            }
            sx / sy
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let k = RESAMPLES / 40;
    Some((ratios[k - 1], ratios[RESAMPLES - k]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact bootstrap distribution of the ratio for a small sample:
    /// all n^n ordered resamples, equally likely.
    fn exact(pairs: &[(f64, f64)]) -> Vec<f64> {
        let n = pairs.len();
        let mut out = Vec::new();
        for mut code in 0..n.pow(n as u32) {
            let (mut sx, mut sy) = (0.0, 0.0);
            for _ in 0..n {
                let (x, y) = pairs[code % n];
                code /= n;
                sx += x;
                sy += y;
            }
            out.push(sx / sy);
        }
        out
    }

    #[test]
    fn the_interval_ends_are_the_exact_resampling_quantiles() {
        // 5 pairs: 5^5 = 3125 equally likely resamples, enumerated above.
        // Each end must be a 2.5% (97.5%) point of that distribution: at most
        // 2.5% of the mass strictly beyond it, at least 2.5% at or beyond it,
        // give or take the Monte Carlo error of 2000 draws (sd of a 2.5%
        // proportion: sqrt(0.025 x 0.975 / 2000) = 0.0035; allowed 0.011).
        let pairs = [(1.0, 2.0), (3.0, 2.5), (0.5, 1.0), (4.0, 3.0), (2.0, 4.0)];
        let all = exact(&pairs);
        let total = all.len() as f64;
        let (lo, hi) = ratio_interval(&pairs, 7).unwrap();
        let below = |v: f64| all.iter().filter(|&&r| r < v).count() as f64 / total;
        let at_or_below = |v: f64| all.iter().filter(|&&r| r <= v).count() as f64 / total;
        let tol = 0.011;
        assert!(below(lo) <= 0.025 + tol && at_or_below(lo) >= 0.025 - tol, "{lo}");
        assert!(1.0 - at_or_below(hi) <= 0.025 + tol && 1.0 - below(hi) >= 0.025 - tol, "{hi}");
        // the point estimate sum(x)/sum(y) = 10.5 / 12.5 = 0.84 lies inside
        assert!(lo < 0.84 && 0.84 < hi);
        // the same seed, the same interval; another seed, nearly the same
        assert_eq!(ratio_interval(&pairs, 7), Some((lo, hi)));
        let (lo2, hi2) = ratio_interval(&pairs, 8).unwrap();
        assert!(below(lo2) <= 0.025 + tol && 1.0 - at_or_below(hi2) <= 0.025 + tol);
    }

    #[test]
    fn two_pairs_give_the_pairs_own_ratios() {
        // n = 2: the resamples are {a, a} (1/4), {a, b} twice (1/2), {b, b}
        // (1/4); the 2.5% point is then a's own ratio x_a / y_a = 0.5 and
        // the 97.5% point b's, 3 / 1 = 3 (each has 25% of the mass, so 2000
        // draws cannot miss it)
        assert_eq!(ratio_interval(&[(1.0, 2.0), (3.0, 1.0)], 1), Some((0.5, 3.0)));
        // a proportional sample has one ratio whatever is drawn
        assert_eq!(ratio_interval(&[(2.0, 1.0), (4.0, 2.0), (6.0, 3.0)], 3), Some((2.0, 2.0)));
        assert_eq!(ratio_interval(&[(1.0, 1.0)], 1), None);
        assert_eq!(ratio_interval(&[(1.0, 1.0), (1.0, 0.0)], 1), None);
    }
}

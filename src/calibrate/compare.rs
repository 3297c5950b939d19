//! The figures of a calibration: simulated against recorded starts, job by
//! job, per tenant and class, and in order. Times in µs; figures in seconds.

use std::collections::BTreeMap;

use crate::accounting::nearest_rank;
use crate::time::SECOND;

/// A recorded wait below this counts as this much in a relative error, so
/// a zero recorded wait gives a finite figure: (simulated − recorded) /
/// max(recorded, 1 s). Below a second the figure is then the absolute
/// error in seconds, which is what a reader wants of sub-second waits.
pub const WAIT_FLOOR: i64 = SECOND as i64;

/// One job: where it is, and when each side started it (`None`: never).
#[derive(Debug, Clone)]
pub struct Pair {
    pub tenant: String,
    pub class: String,
    pub arrival: i64,
    pub recorded: Option<i64>,
    pub simulated: Option<i64>,
}

impl Pair {
    /// simulated − recorded start, when both started it.
    pub fn error(&self) -> Option<i64> {
        Some(self.simulated?.saturating_sub(self.recorded?))
    }
}

/// A distribution of signed values in seconds (nearest-rank percentiles).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dist {
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    pub p90: f64,
    pub p99: f64,
    pub max_abs: f64,
}

fn secs(us: i64) -> f64 {
    us as f64 / SECOND as f64
}

fn mean(v: &[i64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    // summed in i128: a million waits of a year each stay exact
    let sum: i128 = v.iter().map(|&x| i128::from(x)).sum();
    sum as f64 / v.len() as f64 / SECOND as f64
}

/// The distribution of `v` (sorted here); all zero when empty.
pub fn dist(mut v: Vec<i64>) -> Dist {
    v.sort_unstable();
    let at = |p: f64| nearest_rank(&v, p).map_or(0.0, secs);
    Dist {
        n: v.len(),
        mean: mean(&v),
        median: at(50.0),
        p90: at(90.0),
        p99: at(99.0),
        max_abs: v.iter().map(|x| x.unsigned_abs()).max().map_or(0.0, |m| m as f64 / SECOND as f64),
    }
}

/// (simulated − recorded) / max(recorded, [`WAIT_FLOOR`]), for waits in seconds.
pub fn relative(simulated: f64, recorded: f64) -> f64 {
    (simulated - recorded) / recorded.max(secs(WAIT_FLOOR))
}

/// Mean and p99 wait of one tenant or class, on each side.
#[derive(Debug, Clone, PartialEq)]
pub struct Waits {
    pub name: String,
    /// Jobs both sides started.
    pub jobs: usize,
    pub simulated_mean: f64,
    pub recorded_mean: f64,
    pub simulated_p99: f64,
    pub recorded_p99: f64,
}

impl Waits {
    fn of(name: String, sim: Vec<i64>, rec: Vec<i64>) -> Waits {
        let (s, r) = (dist(sim), dist(rec));
        Waits {
            name,
            jobs: s.n,
            simulated_mean: s.mean,
            recorded_mean: r.mean,
            simulated_p99: s.p99,
            recorded_p99: r.p99,
        }
    }

    pub fn mean_relative(&self) -> f64 {
        relative(self.simulated_mean, self.recorded_mean)
    }

    pub fn p99_relative(&self) -> f64 {
        relative(self.simulated_p99, self.recorded_p99)
    }
}

/// How far the simulated order of starts is from the recorded one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Order {
    /// Pairs of jobs both sides started: n(n−1)/2.
    pub pairs: u128,
    /// Pairs started in the opposite order (ties on either side agree).
    pub discordant: u128,
    /// Jobs whose start rank (ties broken by arrival order) differs.
    pub moved: usize,
}

impl Order {
    pub fn discordant_fraction(&self) -> f64 {
        if self.pairs == 0 {
            0.0
        } else {
            self.discordant as f64 / self.pairs as f64
        }
    }
}

/// Strict inversions of `v` (i < j with v[i] > v[j]), by merge sort: O(n log n).
pub fn inversions(v: &mut [i64]) -> u128 {
    let mut buf = v.to_vec();
    fn sort(v: &mut [i64], buf: &mut [i64]) -> u128 {
        let n = v.len();
        if n < 2 {
            return 0;
        }
        let mid = n / 2;
        let mut count = sort(&mut v[..mid], &mut buf[..mid]) + sort(&mut v[mid..], &mut buf[mid..]);
        let (mut i, mut j, mut k) = (0, mid, 0);
        while i < mid && j < n {
            if v[j] < v[i] {
                // v[j] is below every one left of the first half
                count += (mid - i) as u128;
                buf[k] = v[j];
                j += 1;
            } else {
                buf[k] = v[i];
                i += 1;
            }
            k += 1;
        }
        buf[k..k + mid - i].copy_from_slice(&v[i..mid]);
        k += mid - i;
        buf[k..k + n - j].copy_from_slice(&v[j..n]);
        v.copy_from_slice(&buf[..n]);
        count
    }
    sort(v, &mut buf)
}

/// [`Order`] of the jobs both sides started, as (recorded, simulated) starts
/// in arrival order. A pair is discordant when one side starts i strictly
/// before j and the other strictly after: sorted by (recorded, simulated),
/// those are exactly the strict inversions of the simulated starts.
pub fn order(starts: &[(i64, i64)]) -> Order {
    let n = starts.len();
    let mut by_rec: Vec<usize> = (0..n).collect();
    by_rec.sort_by_key(|&k| (starts[k].0, starts[k].1));
    let mut sims: Vec<i64> = by_rec.iter().map(|&k| starts[k].1).collect();
    let discordant = inversions(&mut sims);
    // ranks with ties broken by arrival order (the index)
    let rank = |key: &dyn Fn(usize) -> i64| {
        let mut idx: Vec<usize> = (0..n).collect();
        idx.sort_by_key(|&k| (key(k), k));
        let mut r = vec![0; n];
        for (pos, &k) in idx.iter().enumerate() {
            r[k] = pos;
        }
        r
    };
    let (rr, rs) = (rank(&|k| starts[k].0), rank(&|k| starts[k].1));
    let moved = (0..n).filter(|&k| rr[k] != rs[k]).count();
    let n = n as u128;
    Order { pairs: n * n.saturating_sub(1) / 2, discordant, moved }
}

/// Every figure of a calibration.
#[derive(Debug, Clone)]
pub struct Calibration {
    pub jobs: usize,
    /// Started on both sides (the figures are over these).
    pub compared: usize,
    pub recorded_only: usize,
    pub simulated_only: usize,
    pub error: Dist,
    pub all: Waits,
    pub tenants: Vec<Waits>,
    pub classes: Vec<Waits>,
    pub order: Order,
}

/// Per-group waits, groups in name order.
fn groups(pairs: &[Pair], key: impl Fn(&Pair) -> &str) -> Vec<Waits> {
    let mut by: BTreeMap<&str, (Vec<i64>, Vec<i64>)> = BTreeMap::new();
    for p in pairs {
        if let (Some(s), Some(r)) = (p.simulated, p.recorded) {
            let e = by.entry(key(p)).or_default();
            e.0.push(s - p.arrival);
            e.1.push(r.saturating_sub(p.arrival));
        }
    }
    by.into_iter().map(|(name, (s, r))| Waits::of(name.to_string(), s, r)).collect()
}

/// The calibration of `pairs` (in arrival order).
pub fn calibrate(pairs: &[Pair]) -> Calibration {
    let both: Vec<&Pair> = pairs.iter().filter(|p| p.error().is_some()).collect();
    let starts: Vec<(i64, i64)> = both.iter().filter_map(|p| Some((p.recorded?, p.simulated?))).collect();
    let waits = |f: fn(&Pair) -> Option<i64>| {
        both.iter().filter_map(|p| Some(f(p)?.saturating_sub(p.arrival))).collect()
    };
    Calibration {
        jobs: pairs.len(),
        compared: both.len(),
        recorded_only: pairs.iter().filter(|p| p.recorded.is_some() && p.simulated.is_none()).count(),
        simulated_only: pairs.iter().filter(|p| p.simulated.is_some() && p.recorded.is_none()).count(),
        error: dist(both.iter().filter_map(|p| p.error()).collect()),
        all: Waits::of("all".into(), waits(|p| p.simulated), waits(|p| p.recorded)),
        tenants: groups(pairs, |p| &p.tenant),
        classes: groups(pairs, |p| &p.class),
        order: order(&starts),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inversions_match_the_pair_count_by_hand() {
        // [3, 1, 2]: (3,1), (3,2) -> 2; reversed 0..6 -> 6*5/2 = 15; ties are not inversions
        assert_eq!(inversions(&mut [3, 1, 2]), 2);
        assert_eq!(inversions(&mut [5, 4, 3, 2, 1, 0]), 15);
        assert_eq!(inversions(&mut [2, 2, 2]), 0);
        // against the O(n^2) definition on a scrambled sequence
        let v: Vec<i64> = (0..200).map(|i: i64| (i * 7919) % 101 - 50).collect();
        let brute = (0..v.len())
            .flat_map(|i| (i + 1..v.len()).map(move |j| (i, j)))
            .filter(|&(i, j)| v[i] > v[j])
            .count();
        assert_eq!(inversions(&mut v.clone()), brute as u128);
    }

    #[test]
    fn order_counts_pairs_started_the_other_way_round() {
        // recorded 0, 10, 20; simulated 5, 0, 20: only jobs 0 and 1 swap -> 1 of 3 pairs,
        // and both change rank (0<->1); a tie on one side (job 2 vs 3 recorded at 20) agrees
        let o = order(&[(0, 5), (10, 0), (20, 20), (20, 30)]);
        assert_eq!((o.pairs, o.discordant, o.moved), (6, 1, 2));
    }

    #[test]
    fn relative_error_of_a_zero_recorded_wait_is_the_error_in_seconds() {
        assert_eq!(relative(3.0, 0.0), 3.0);
        assert_eq!(relative(0.0, 0.0), 0.0);
        assert_eq!(relative(5.0, 10.0), -0.5);
    }
}

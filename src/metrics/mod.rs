//! Accounting: what each tenant and class received, and the wait statistics.
//!
//! Percentiles are exact and nearest-rank: the p-th percentile of n sorted
//! values is the value at 1-based rank ceil(p/100 * n) (the smallest value
//! with at least p% of the values at or below it). Only the reported ranks
//! ([`PERCENTILES`] and the maximum) are put in place, by selection (O(n)),
//! not by sorting every buffer. Memory: one `u64` per started job per group
//! (all, its tenant, its class), i.e. 24 bytes per job.

pub mod fairness;

use crate::engine::Outcome;
use crate::time::Time;

/// The percentiles fairsim reports (besides the maximum); [`GroupStats::finish`]
/// places exactly these ranks.
pub const PERCENTILES: [f64; 3] = [50.0, 95.0, 99.0];

/// 1-based nearest rank of the p-th percentile of `n` values (`n` > 0).
fn rank(n: usize, p: f64) -> usize {
    (((p / 100.0) * n as f64).ceil() as usize).clamp(1, n)
}

/// Nearest-rank percentile of sorted values; `None` for an empty slice.
pub fn nearest_rank<T: Copy>(sorted: &[T], p: f64) -> Option<T> {
    if sorted.is_empty() {
        return None;
    }
    Some(sorted[rank(sorted.len(), p) - 1])
}

/// Reorders `v` so that each of the given percentiles (ascending) and the
/// maximum sit at their nearest rank, as they would in the sorted slice:
/// a chain of selections over shrinking suffixes, O(n) in all.
fn place_ranks<T>(v: &mut [T], percentiles: &[f64], cmp: impl Fn(&T, &T) -> std::cmp::Ordering) {
    let n = v.len();
    if n == 0 {
        return;
    }
    let mut lo = 0;
    for idx in percentiles.iter().map(|&p| rank(n, p) - 1).chain([n - 1]) {
        if idx >= lo {
            v[lo..].select_nth_unstable_by(idx - lo, &cmp);
            lo = idx + 1;
        }
    }
}

/// Checks that `p` is a percentile [`GroupStats::finish`] placed.
fn placed(p: f64) -> f64 {
    assert!(PERCENTILES.contains(&p) || p == 100.0, "percentile {p} is not computed (see PERCENTILES)");
    p
}

/// Slowdown of a completed job: time in system over service,
/// (finish - arrival) / service = (wait + service) / service for a job that
/// ran once. `None` for a zero-length job (the ratio is undefined).
pub fn slowdown(arrival: Time, finish: Time, service: Time) -> Option<f64> {
    (service > 0).then(|| (finish - arrival) as f64 / service as f64)
}

/// Counts and waits of one group of jobs (everything, one tenant, one class).
#[derive(Debug, Clone, Default)]
pub struct GroupStats {
    /// Jobs that arrived.
    pub jobs: u64,
    pub completed: u64,
    pub failed: u64,
    pub rejected: u64,
    pub expired: u64,
    pub unfinished: u64,
    /// Wait of every job that started: first start minus arrival.
    pub waits: Vec<Time>,
    /// Longest time any job of the group sat claimable (including re-queues
    /// after failed attempts, and jobs that never started).
    pub oldest_age_max: Time,
    /// Service received (sum of attempt durations), for shares.
    pub service: Time,
    /// Jobs that waited longer than their class's `sla`.
    pub sla_misses: u64,
    /// Jobs that finished after their deadline, or expired.
    pub deadline_misses: u64,
    /// Slowdown of every completed job with non-zero service (see
    /// [`slowdown`]), stored as `f32` (7 significant digits, more than the
    /// 4 decimals written) to keep memory at 12 bytes per job for the three groups.
    pub slowdowns: Vec<f32>,
    /// Service received and entitled, summed over fairness windows
    /// (worker-microseconds; see [`fairness::ServiceWindows`]).
    pub received: f64,
    pub entitled: f64,
}

impl GroupStats {
    pub fn count_outcome(&mut self, o: Outcome) {
        match o {
            Outcome::Completed => self.completed += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::Rejected => self.rejected += 1,
            Outcome::Expired => self.expired += 1,
            Outcome::Unfinished => self.unfinished += 1,
        }
    }

    /// Places the reported percentiles of the waits and slowdowns (see
    /// [`PERCENTILES`]) so they can be read.
    pub fn finish(&mut self) {
        place_ranks(&mut self.waits, &PERCENTILES, Ord::cmp);
        place_ranks(&mut self.slowdowns, &PERCENTILES, f32::total_cmp);
    }

    pub fn slowdown_mean(&self) -> Option<f64> {
        if self.slowdowns.is_empty() {
            return None;
        }
        Some(self.slowdowns.iter().map(|&x| x as f64).sum::<f64>() / self.slowdowns.len() as f64)
    }

    /// Nearest-rank percentile of the slowdowns, `p` one of [`PERCENTILES`]
    /// or 100 (call `finish` first).
    pub fn slowdown_pct(&self, p: f64) -> Option<f64> {
        nearest_rank(&self.slowdowns, placed(p)).map(f64::from)
    }

    pub fn wait_mean(&self) -> Option<f64> {
        if self.waits.is_empty() {
            return None;
        }
        let sum: u128 = self.waits.iter().map(|&w| w as u128).sum();
        Some(sum as f64 / self.waits.len() as f64)
    }

    /// Nearest-rank percentile of the waits, `p` one of [`PERCENTILES`] or
    /// 100 (call `finish` first).
    pub fn wait_pct(&self, p: f64) -> Option<Time> {
        nearest_rank(&self.waits, placed(p))
    }

    pub fn wait_max(&self) -> Option<Time> {
        self.waits.last().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_matches_hand_computed_values() {
        // 10 values 1..=10: p50 -> rank 5 -> 5; p95 -> rank ceil(9.5)=10 -> 10;
        // p99 -> rank 10; p10 -> rank 1 -> 1; p11 -> rank ceil(1.1)=2 -> 2.
        let v: Vec<Time> = (1..=10).collect();
        assert_eq!(nearest_rank(&v, 50.0), Some(5));
        assert_eq!(nearest_rank(&v, 95.0), Some(10));
        assert_eq!(nearest_rank(&v, 99.0), Some(10));
        assert_eq!(nearest_rank(&v, 10.0), Some(1));
        assert_eq!(nearest_rank(&v, 11.0), Some(2));
        assert_eq!(nearest_rank(&v, 0.0), Some(1));
        assert_eq!(nearest_rank::<Time>(&[], 50.0), None);
        // 200 values 0..200: p99 -> rank 198 -> value 197.
        let w: Vec<Time> = (0..200).collect();
        assert_eq!(nearest_rank(&w, 99.0), Some(197));
        // the float version uses the same rank: 4 values, p50 -> rank 2, p99 -> rank 4
        assert_eq!(nearest_rank(&[1.0, 1.5, 3.0, 9.0], 50.0), Some(1.5));
        assert_eq!(nearest_rank(&[1.0, 1.5, 3.0, 9.0], 99.0), Some(9.0));
    }

    #[test]
    fn placed_ranks_equal_the_sorted_ones() {
        // an independent check of the selection chain: shuffled data of every
        // length 1..300 (many duplicates), against a full sort
        let mut x: u64 = 12345;
        for n in 1..300usize {
            let v: Vec<Time> = (0..n)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (x >> 33) % 50
                })
                .collect();
            let mut sorted = v.clone();
            sorted.sort_unstable();
            let mut g = GroupStats { waits: v, ..Default::default() };
            g.finish();
            for p in PERCENTILES {
                assert_eq!(g.wait_pct(p), nearest_rank(&sorted, p), "n {n} p {p}");
            }
            assert_eq!(g.wait_max(), sorted.last().copied(), "n {n}");
        }
    }

    #[test]
    #[should_panic(expected = "not computed")]
    fn an_unplaced_percentile_is_refused() {
        let mut g = GroupStats { waits: vec![3, 1, 2], ..Default::default() };
        g.finish();
        g.wait_pct(90.0);
    }

    #[test]
    fn slowdown_is_time_in_system_over_service() {
        // arrives at 10s, waits 3s, runs 2s, finishes at 15s: (3 + 2) / 2 = 2.5
        assert_eq!(slowdown(10_000_000, 15_000_000, 2_000_000), Some(2.5));
        // no wait: 1
        assert_eq!(slowdown(0, 500_000, 500_000), Some(1.0));
        assert_eq!(slowdown(5, 5, 0), None);
        // group figures: slowdowns 1, 1, 2.5, 10 -> mean 14.5/4 = 3.625, p50 rank 2 = 1, p99 rank 4 = 10
        let mut g = GroupStats { slowdowns: vec![10.0, 1.0, 2.5, 1.0], ..Default::default() };
        g.finish();
        assert_eq!(g.slowdown_mean(), Some(3.625));
        assert_eq!(g.slowdown_pct(50.0), Some(1.0));
        assert_eq!(g.slowdown_pct(99.0), Some(10.0));
    }

    #[test]
    fn wait_statistics_of_a_group() {
        // waits 0, 1, 2, ..., 19 s (20 jobs): mean 9.5 s; p50 rank 10 -> 9 s;
        // p95 rank 19 -> 18 s; p99 rank ceil(19.8) = 20 -> 19 s; max 19 s.
        let s = 1_000_000;
        let mut g = GroupStats { waits: (0..20).rev().map(|i| i * s).collect(), ..Default::default() };
        g.finish();
        assert_eq!(g.wait_mean(), Some(9.5 * s as f64));
        assert_eq!(g.wait_pct(50.0), Some(9 * s));
        assert_eq!(g.wait_pct(95.0), Some(18 * s));
        assert_eq!(g.wait_pct(99.0), Some(19 * s));
        assert_eq!(g.wait_max(), Some(19 * s));
    }
}

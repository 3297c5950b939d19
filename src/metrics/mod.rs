//! Accounting: what each tenant and class received, and the wait statistics.
//!
//! Percentiles are exact and nearest-rank: the p-th percentile of n sorted
//! values is the value at 1-based rank ceil(p/100 * n) (the smallest value
//! with at least p% of the values at or below it). Memory: one `u64` per
//! started job per group (all, its tenant, its class), i.e. 24 bytes per job.

pub mod fairness;

use crate::engine::Outcome;
use crate::time::Time;

/// Nearest-rank percentile of sorted values; `None` for an empty slice.
pub fn nearest_rank(sorted: &[Time], p: f64) -> Option<Time> {
    if sorted.is_empty() {
        return None;
    }
    let n = sorted.len();
    let rank = ((p / 100.0) * n as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, n) - 1])
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

    /// Sorts the waits so percentiles can be read.
    pub fn finish(&mut self) {
        self.waits.sort_unstable();
    }

    pub fn wait_mean(&self) -> Option<f64> {
        if self.waits.is_empty() {
            return None;
        }
        let sum: u128 = self.waits.iter().map(|&w| w as u128).sum();
        Some(sum as f64 / self.waits.len() as f64)
    }

    /// Nearest-rank percentile of the waits (call `finish` first).
    pub fn wait_pct(&self, p: f64) -> Option<Time> {
        nearest_rank(&self.waits, p)
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
        assert_eq!(nearest_rank(&[], 50.0), None);
        // 200 values 0..200: p99 -> rank 198 -> value 197.
        let w: Vec<Time> = (0..200).collect();
        assert_eq!(nearest_rank(&w, 99.0), Some(197));
    }
}

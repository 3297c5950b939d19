//! What an admission rule knows of one scope's queue: how many admitted
//! jobs wait to start, their service, the oldest of them, and the work its
//! started jobs still have to do. A rule keeps only the parts it reads
//! ([`Track`]), so a plain `max_queued` costs one counter.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use crate::model::{Limit, Predictor};
use crate::time::Time;

/// The parts of a [`Backlog`] a rule reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Track {
    /// Queued jobs (`max_queued`).
    pub jobs: bool,
    /// Queued service (`max_queued_work`, `predict: backlog`).
    pub work: bool,
    /// The remaining service of started jobs (`predict: backlog`).
    pub running: bool,
    /// The oldest claimable job (`predict: oldest`).
    pub oldest: bool,
}

impl Track {
    pub fn of(limit: &Limit) -> Self {
        match limit {
            Limit::Queued(_) => Track { jobs: true, ..Track::default() },
            Limit::QueuedWork(_) => Track { work: true, ..Track::default() },
            Limit::Rate(_) => Track::default(),
            Limit::Delay { predict: Predictor::Backlog, .. } => {
                Track { work: true, running: true, ..Track::default() }
            }
            Limit::Delay { predict: Predictor::Oldest, .. } => Track { oldest: true, ..Track::default() },
        }
    }

    /// Whether the rule counts the queue at all.
    pub fn any(&self) -> bool {
        self.jobs || self.work || self.running || self.oldest
    }
}

/// One scope's admitted jobs that are claimable and have not started yet,
/// and, for a backlog prediction, the estimated finishes of those that did.
#[derive(Debug, Default)]
pub struct Backlog {
    pub jobs: u64,
    /// Their service, µs.
    pub work: u64,
    /// (claimable since, job id) of each.
    ready: BTreeSet<(Time, u64)>,
    /// Start + service of each started job, earliest first; one that ran
    /// past its estimate (a slice paused, a failed attempt re-queued) is
    /// dropped at its estimate: the prediction is a first estimate.
    finishes: BinaryHeap<Reverse<Time>>,
    finish_sum: u128,
}

impl Backlog {
    /// An admitted job of `work` µs became claimable at `ready`.
    pub fn add(&mut self, track: Track, ready: Time, seq: u64, work: Time) {
        self.jobs += 1;
        if track.work {
            self.work += work;
        }
        if track.oldest {
            self.ready.insert((ready, seq));
        }
    }

    /// The job left the queue: `started` at that instant, or expired.
    pub fn remove(&mut self, track: Track, ready: Time, seq: u64, work: Time, started: Option<Time>) {
        self.jobs -= 1;
        if track.work {
            self.work -= work;
        }
        if track.oldest {
            self.ready.remove(&(ready, seq));
        }
        if let (true, Some(now)) = (track.running, started) {
            self.finishes.push(Reverse(now + work));
            self.finish_sum += u128::from(now + work);
        }
    }

    /// Forgets the started jobs whose estimated finish is not after `now`.
    fn settle(&mut self, now: Time) {
        while let Some(&Reverse(f)) = self.finishes.peek() {
            if f > now {
                break;
            }
            self.finishes.pop();
            self.finish_sum -= u128::from(f);
        }
    }

    /// The work ahead of a job arriving at `now`: queued service plus what
    /// the started jobs have left (µs).
    pub fn outstanding(&mut self, now: Time) -> u128 {
        self.settle(now);
        u128::from(self.work) + self.finish_sum - self.finishes.len() as u128 * u128::from(now)
    }

    /// How long the oldest claimable job has waited at `now` (0 when none).
    pub fn oldest_age(&self, now: Time) -> Time {
        self.ready.first().map_or(0, |&(r, _)| now.saturating_sub(r))
    }

    /// Whether nothing is queued and no started job is still counted (the
    /// entry can go; `now`: the time of the last event seen).
    pub fn is_empty(&mut self, now: Time) -> bool {
        self.settle(now);
        self.jobs == 0 && self.finishes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SECOND;

    #[test]
    fn outstanding_work_is_the_queue_plus_what_running_jobs_have_left() {
        // A 10 s job starts at 0; a 3 s job waits from 2 s. At 4 s the
        // running one has 6 s left: 3 + 6 = 9 s ahead; the oldest waited 2 s.
        // At 10 s the first is done (estimate reached): 3 s ahead.
        let t = Track { jobs: true, work: true, running: true, oldest: true };
        let mut b = Backlog::default();
        b.add(t, 0, 0, 10 * SECOND);
        b.remove(t, 0, 0, 10 * SECOND, Some(0));
        b.add(t, 2 * SECOND, 1, 3 * SECOND);
        assert_eq!(b.outstanding(4 * SECOND), u128::from(9 * SECOND));
        assert_eq!(b.oldest_age(4 * SECOND), 2 * SECOND);
        assert_eq!(b.outstanding(10 * SECOND), u128::from(3 * SECOND));
        assert!(!b.is_empty(10 * SECOND));
        b.remove(t, 2 * SECOND, 1, 3 * SECOND, None);
        assert!(b.is_empty(10 * SECOND));
    }
}

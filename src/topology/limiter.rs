//! A pool's start limiter (`limiter:`): how many jobs its
//! workers may start per interval, BullMQ's queue limiter among them. The
//! rate arithmetic is admission's ([`crate::admission::limit`]); this keeps
//! one counter per pool and says when it next allows a start, so a limited
//! pool sleeps until then instead of polling.

use crate::admission::limit::{AnchoredWindow, Bucket, SlidingWindow};
use crate::model::StartLimit;
use crate::time::Time;

#[derive(Debug, Clone)]
enum Count {
    Anchored(AnchoredWindow),
    Bucket(Bucket),
    Sliding(SlidingWindow),
}

#[derive(Debug, Clone)]
pub struct Limiter {
    spec: StartLimit,
    count: Count,
    /// Set while a start was refused: when the limiter allows one again.
    pub held_until: Option<Time>,
}

impl Limiter {
    pub fn new(spec: StartLimit) -> Self {
        let count = match spec {
            StartLimit::Anchored { .. } => Count::Anchored(AnchoredWindow::default()),
            StartLimit::Bucket { .. } => Count::Bucket(Bucket::new(0)),
            StartLimit::Sliding { .. } => Count::Sliding(SlidingWindow::default()),
        };
        Limiter { spec, count, held_until: None }
    }

    /// Whether a worker may start a job at `now`; when not, `held_until`
    /// says from when it may.
    pub fn allows(&mut self, now: Time) -> bool {
        let (fits, next) = match (&mut self.count, self.spec) {
            (Count::Anchored(w), StartLimit::Anchored { max, duration }) => {
                (w.fits(now, max, duration), w.next_fit(now, duration))
            }
            (Count::Bucket(b), StartLimit::Bucket { rate, burst }) => {
                let fits = b.fits(now, rate, burst);
                (fits, b.next_fit(now, rate, burst))
            }
            (Count::Sliding(w), StartLimit::Sliding { limit, window }) => {
                (w.fits(now, limit, window), w.next_fit(now, window))
            }
            _ => unreachable!("the count is built from the spec"),
        };
        self.held_until = (!fits).then_some(next.max(now + 1));
        fits
    }

    /// Counts a start at `now` (after [`Limiter::allows`] at that instant).
    pub fn count(&mut self, now: Time) {
        match (&mut self.count, self.spec) {
            (Count::Anchored(w), StartLimit::Anchored { duration, .. }) => w.count(now, duration),
            (Count::Bucket(b), StartLimit::Bucket { .. }) => b.pour(),
            (Count::Sliding(w), StartLimit::Sliding { limit, .. }) => w.count(now, limit),
            _ => unreachable!("the count is built from the spec"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SECOND;

    #[test]
    fn bullmqs_window_allows_max_starts_then_names_when_it_closes() {
        // max 2 per 1 s: two starts at 0, the third is held until 1 s
        let mut l = Limiter::new(StartLimit::Anchored { max: 2, duration: SECOND });
        for _ in 0..2 {
            assert!(l.allows(0));
            l.count(0);
        }
        assert!(!l.allows(0));
        assert_eq!(l.held_until, Some(SECOND));
        assert!(l.allows(SECOND));
        assert_eq!(l.held_until, None);
    }
}

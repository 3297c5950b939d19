//! Rate limits shared by admission rules and routing throttles: a leaky
//! bucket, a sliding-window and a fixed-window counter, each checked before
//! it is charged, so a job refused for another reason costs nothing.

use std::collections::VecDeque;

use crate::time::Time;

/// A leaky bucket: each job pours one unit in, it drains `rate` units per
/// second and holds `burst`.
#[derive(Debug, Clone, Copy)]
pub struct Bucket {
    level: f64,
    at: Time,
}

impl Bucket {
    pub fn new(now: Time) -> Self {
        Bucket { level: 0.0, at: now }
    }

    /// Drains the bucket to `now`; whether one more job fits.
    pub fn fits(&mut self, now: Time, rate: f64, burst: f64) -> bool {
        let drained = rate * (now - self.at) as f64 / 1e6;
        self.level = (self.level - drained).max(0.0);
        self.at = now;
        // a tolerance of 1e-9 jobs keeps exact-rate arrivals from spilling
        // on rounding alone
        self.level + 1.0 <= burst + 1e-9
    }

    /// Pours one job in (after [`Bucket::fits`] at the same instant).
    pub fn pour(&mut self) {
        self.level += 1.0;
    }

    /// The first instant after `now` at which one more job may fit (a
    /// limiter's wake-up; rounding may leave it a microsecond short, and the
    /// check at that instant then names a later one).
    pub fn next_fit(&self, now: Time, rate: f64, burst: f64) -> Time {
        // the tolerance of `fits`, so the instant named is the one it admits at
        let over = self.level + 1.0 - burst - 1e-9;
        let wait = (over / rate * 1e6).ceil().max(1.0);
        (self.at.saturating_add(wait.min(Time::MAX as f64 / 2.0) as Time)).max(now + 1)
    }
}

/// The times of the last `limit` jobs counted.
#[derive(Debug, Clone, Default)]
pub struct SlidingWindow {
    times: VecDeque<Time>,
}

impl SlidingWindow {
    /// Whether fewer than `limit` jobs were counted in the `window` before `now`.
    pub fn fits(&self, now: Time, limit: u32, window: Time) -> bool {
        !(self.times.len() as u32 >= limit && now - self.times.front().copied().unwrap_or(0) < window)
    }

    /// Counts a job at `now`, keeping the last `limit`.
    pub fn count(&mut self, now: Time, limit: u32) {
        self.times.push_back(now);
        if self.times.len() as u32 > limit {
            self.times.pop_front();
        }
    }

    /// When the oldest counted job leaves a full `window`.
    pub fn next_fit(&self, now: Time, window: Time) -> Time {
        self.times.front().map_or(now, |&t| t.saturating_add(window)).max(now)
    }
}

/// BullMQ's queue limiter: a window of `duration` opens at the first job
/// counted after the last one closed (the limiter key's `INCR`, with its
/// `PEXPIRE` set when the count is 1), and holds at most `max` jobs.
#[derive(Debug, Clone, Copy, Default)]
pub struct AnchoredWindow {
    opened: Option<Time>,
    count: u32,
}

impl AnchoredWindow {
    /// Whether one more job fits at `now`.
    pub fn fits(&self, now: Time, max: u32, duration: Time) -> bool {
        match self.opened {
            Some(o) if now < o.saturating_add(duration) => self.count < max,
            _ => true,
        }
    }

    /// Counts a job at `now`, opening a window if none is open.
    pub fn count(&mut self, now: Time, duration: Time) {
        if self.opened.is_none_or(|o| now >= o.saturating_add(duration)) {
            (self.opened, self.count) = (Some(now), 0);
        }
        self.count = self.count.saturating_add(1);
    }

    /// When the open window closes (the key's time to live runs out).
    pub fn next_fit(&self, now: Time, duration: Time) -> Time {
        self.opened.map_or(now, |o| o.saturating_add(duration)).max(now)
    }
}

/// The count of the current fixed window [k·per, (k+1)·per); a job in a
/// later window finds it empty (Naeem's article's `enqueue:{tenant}:{hour}` key,
/// which expires with its hour).
#[derive(Debug, Clone, Copy, Default)]
pub struct FixedWindow {
    window: u64,
    count: u32,
}

impl FixedWindow {
    /// Whether fewer than `limit` jobs were counted in the window holding `now`.
    pub fn fits(&self, now: Time, limit: u32, per: Time) -> bool {
        self.window != now / per || self.count < limit
    }

    /// Counts a job at `now`.
    pub fn count(&mut self, now: Time, per: Time) {
        let w = now / per;
        if w != self.window {
            (self.window, self.count) = (w, 0);
        }
        self.count = self.count.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SECOND;

    #[test]
    fn a_bucket_admits_its_burst_then_its_rate() {
        // rate 1/s, burst 5, ten jobs a second from t = 0: the first five
        // fit (levels 1, 1.9, 2.8, 3.7, 4.6: each gap drains 0.1); the next
        // fits when the level has drained to 4: at 1.0 s (4.6 - 0.6), and
        // then at 2.0 s, 3.0 s, ... 99.0 s: 5 + 99 = 104 jobs over [0, 100 s),
        // rate x t + burst less the one that would come at exactly 100 s.
        let mut b = Bucket::new(0);
        let mut admitted = 0;
        for i in 0..1000u64 {
            if b.fits(i * SECOND / 10, 1.0, 5.0) {
                b.pour();
                admitted += 1;
            }
        }
        assert_eq!(admitted, 104);
    }

    #[test]
    fn a_job_fits_the_instant_the_bucket_has_drained_one_job() {
        // rate 2/s, burst 3: three jobs at t = 0 fill it and a fourth does
        // not fit; one job drains in 1/rate = 0.5 s, so the next fits at
        // exactly 0.5 s and not a microsecond sooner; that one fills it
        // again, so the one after fits at exactly 1.0 s.
        let mut b = Bucket::new(0);
        for _ in 0..3 {
            assert!(b.fits(0, 2.0, 3.0));
            b.pour();
        }
        assert!(!b.fits(0, 2.0, 3.0));
        for t in [SECOND / 2, SECOND] {
            assert!(!b.fits(t - 1, 2.0, 3.0), "at {t} µs - 1");
            assert!(b.fits(t, 2.0, 3.0), "at {t} µs");
            b.pour();
        }
    }

    #[test]
    fn a_bucket_of_one_admits_jobs_exactly_its_rate_apart() {
        // burst 1, rate 10/s: every job fills the bucket, and it is empty
        // again exactly 100 ms later: ten jobs 100 ms apart all fit
        let mut b = Bucket::new(0);
        for k in 0..10 {
            assert!(b.fits(k * SECOND / 10, 10.0, 1.0), "job {k}");
            b.pour();
        }
    }

    #[test]
    fn a_window_slides_with_its_oldest_job() {
        // limit 2 per 10 s, jobs counted at 5 s and 6 s: the window is full
        // until the 5 s job is 10 s old, at 15 s
        let mut w = SlidingWindow::default();
        for t in [5, 6] {
            w.count(t * SECOND, 2);
        }
        assert!(!w.fits(15 * SECOND - 1, 2, 10 * SECOND));
        assert!(w.fits(15 * SECOND, 2, 10 * SECOND));
    }

    #[test]
    fn a_window_counts_only_what_it_was_told_to() {
        // limit 2 per 10 s: jobs at 0 and 1 fit; at 2 s one does not (two in
        // the last 10 s) and is not counted; at 10 s the job of t = 0 has
        // left the window, so one fits again.
        let mut w = SlidingWindow::default();
        for t in [0, 1] {
            assert!(w.fits(t * SECOND, 2, 10 * SECOND));
            w.count(t * SECOND, 2);
        }
        assert!(!w.fits(2 * SECOND, 2, 10 * SECOND));
        assert!(w.fits(10 * SECOND, 2, 10 * SECOND));
    }

    #[test]
    fn an_anchored_window_opens_at_the_first_job_after_the_last_closed() {
        // max 2 per 1 s: jobs at 0.5 and 0.7 fill the window [0.5, 1.5);
        // the next fits at 1.5, and opens [1.5, 2.5) however long after
        // the last window it comes (a calendar window would open at 1 s)
        let mut w = AnchoredWindow::default();
        for t in [SECOND / 2, 7 * SECOND / 10] {
            assert!(w.fits(t, 2, SECOND));
            w.count(t, SECOND);
        }
        assert!(!w.fits(SECOND, 2, SECOND));
        assert_eq!(w.next_fit(SECOND, SECOND), 3 * SECOND / 2);
        assert!(w.fits(3 * SECOND / 2, 2, SECOND));
    }

    #[test]
    fn a_bucket_names_the_instant_it_has_room_again() {
        // rate 2/s, burst 1: one job at 0 fills it; it has room at 0.5 s
        let mut b = Bucket::new(0);
        assert!(b.fits(0, 2.0, 1.0));
        b.pour();
        assert!(!b.fits(1, 2.0, 1.0));
        let at = b.next_fit(1, 2.0, 1.0);
        assert_eq!(at, SECOND / 2);
        assert!(b.fits(at, 2.0, 1.0));
    }

    #[test]
    fn a_fixed_window_forgets_its_count_at_each_boundary() {
        // limit 2 per 10 s: 0 and 9 s fill window 0, so 9.999999 s does not
        // fit; 10 s opens window 1 (however recent the last two were).
        let mut w = FixedWindow::default();
        for t in [0, 9 * SECOND] {
            assert!(w.fits(t, 2, 10 * SECOND));
            w.count(t, 10 * SECOND);
        }
        assert!(!w.fits(10 * SECOND - 1, 2, 10 * SECOND));
        assert!(w.fits(10 * SECOND, 2, 10 * SECOND));
    }
}

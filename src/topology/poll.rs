//! Idle polling (`costs: {poll_interval: P}`): a worker that found nothing
//! claimable looks again P later, as Solid Queue's `polling_interval` and
//! GoodJob's poll do, instead of being woken by the next job.
//!
//! A look that would see nothing new finds nothing, so only looks after
//! something happened are simulated: sleepers keep the time of their next
//! possible look and, when an event may have made work claimable, are
//! scheduled for their first look at or after it (on their own phase). A
//! run whose queues stay empty for an hour costs no events.

/// Idle workers of one pool between polls, in groups that look at the same
/// instants.
#[derive(Debug, Clone)]
pub struct Sleepers {
    interval: u64,
    /// (earliest next look, workers) not yet scheduled.
    unplanned: Vec<(u64, u32)>,
    /// (scheduled look, workers).
    planned: Vec<(u64, u32)>,
    asleep: u32,
}

impl Sleepers {
    /// `workers` idle workers whose first look is at 0.
    pub fn new(interval: u64, workers: u32) -> Self {
        debug_assert!(interval > 0, "no sleepers without an interval");
        let unplanned = if workers > 0 { vec![(0, workers)] } else { Vec::new() };
        Sleepers { interval, unplanned, planned: Vec::new(), asleep: workers }
    }

    /// `n` workers looked at `now` and found nothing.
    pub fn sleep(&mut self, now: u64, n: u32) {
        if n == 0 {
            return;
        }
        let first = now.saturating_add(self.interval);
        match self.unplanned.iter_mut().find(|g| g.0 == first) {
            Some(g) => g.1 += n,
            None => self.unplanned.push((first, n)),
        }
        self.asleep += n;
    }

    /// Something happened at `now`: each sleeper not yet scheduled looks at
    /// its first poll instant at or after `now`.
    pub fn plan(&mut self, now: u64) {
        self.catch_up(now);
        for (first, n) in self.unplanned.drain(..) {
            let at = match now.checked_sub(first) {
                None | Some(0) => first,
                Some(late) => first.saturating_add(late.div_ceil(self.interval) * self.interval),
            };
            match self.planned.iter_mut().find(|g| g.0 == at) {
                Some(g) => g.1 += n,
                None => self.planned.push((at, n)),
            }
        }
    }

    /// Looks planned before `now` that nobody took (nothing was queued
    /// then, so the engine did not stop there): those workers looked, found
    /// nothing and slept again, so their next look is the first on their
    /// phase at or after `now`. Left in place, a past look sent the clock
    /// back and started a job before its arrival.
    fn catch_up(&mut self, now: u64) {
        if !self.planned.iter().any(|g| g.0 < now) {
            return;
        }
        let interval = self.interval;
        let mut merged: Vec<(u64, u32)> = Vec::with_capacity(self.planned.len());
        for (at, n) in self.planned.drain(..) {
            let at = match now.checked_sub(at) {
                None | Some(0) => at,
                Some(late) => at.saturating_add(late.div_ceil(interval) * interval),
            };
            match merged.iter_mut().find(|g| g.0 == at) {
                Some(g) => g.1 += n,
                None => merged.push((at, n)),
            }
        }
        self.planned = merged;
    }

    /// The next scheduled look; `u64::MAX` when none is.
    pub fn next_look(&self) -> u64 {
        self.planned.iter().map(|g| g.0).min().unwrap_or(u64::MAX)
    }

    /// The workers whose look is due at `now`: awake again.
    pub fn wake(&mut self, now: u64) -> u32 {
        self.catch_up(now);
        let mut woken = 0;
        self.planned.retain(|&(at, n)| {
            let due = at <= now;
            woken += if due { n } else { 0 };
            !due
        });
        self.asleep -= woken;
        woken
    }

    /// Workers asleep.
    pub fn asleep(&self) -> u32 {
        self.asleep
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sleeper_looks_on_its_own_phase_after_the_event_that_woke_it() {
        // interval 5; two workers first look at 0: an event at 2 schedules
        // their look at 5; one finds nothing at 5 and sleeps, first look 10;
        // an event at 11 schedules it at 10 + ceil(1/5) 5 = 15
        let mut s = Sleepers::new(5, 2);
        assert_eq!(s.next_look(), u64::MAX, "nothing happened: no look");
        s.plan(2);
        assert_eq!(s.next_look(), 5);
        assert_eq!(s.wake(4), 0);
        assert_eq!(s.wake(5), 2);
        s.sleep(5, 1);
        assert_eq!(s.asleep(), 1);
        s.plan(11);
        assert_eq!(s.next_look(), 15);
        assert_eq!(s.wake(15), 1);
        assert_eq!(s.asleep(), 0);
    }

    #[test]
    fn a_look_nobody_took_moves_to_the_next_on_its_phase() {
        // interval 37; an event at 2000 plans a worker's look at 2035 (55 x
        // 37); it passes with nothing
        // queued (no event there); an event at 3000 finds its next look at
        // 2035 + ceil(965/37) 27 x 37 = 3034, not at 2035 (the past)
        let mut s = Sleepers::new(37, 1);
        s.plan(2000);
        assert_eq!(s.next_look(), 2035);
        s.plan(3000);
        assert_eq!(s.next_look(), 3034);
        assert_eq!(s.wake(3000), 0);
        assert_eq!(s.wake(3034), 1);
    }

    #[test]
    fn an_event_on_a_poll_instant_is_seen_at_that_look() {
        // first look 10, event at exactly 10: the look at 10 sees it
        let mut s = Sleepers::new(5, 0);
        s.sleep(5, 3);
        s.plan(10);
        assert_eq!(s.next_look(), 10);
        assert_eq!(s.wake(10), 3);
    }
}

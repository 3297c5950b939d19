//! Interruptible iteration: a job longer than its slice runs one slice per
//! claim and goes back to its queue with the rest of its work.

use super::Engine;
use crate::core::Slot;
use crate::time::Time;

/// A job that runs in slices (interruptible iteration), while in the system.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sliced {
    pub(super) slice: Time,
    pub(super) overhead: Time,
    /// Its whole service, and what is left of it.
    pub(super) total: Time,
    pub(super) left: Time,
    /// Slices run so far.
    pub(super) done: u32,
    /// Worker time the slices of the current attempt held, and how much of
    /// it a slowdown added.
    pub(super) held: Time,
    pub(super) excess: Time,
}

impl Engine<'_> {
    /// Adds a slice's worker time `ran` (of it `excess` from a slowdown) to
    /// its attempt's and returns the attempt's totals so far; `(ran,
    /// excess)` for a job that does not run in slices.
    pub(super) fn attempt_time(&mut self, slot: Slot, ran: Time, excess: Time) -> (Time, Time) {
        match self.sliced.get_mut(&slot) {
            Some(s) => {
                s.held += ran;
                s.excess += excess;
                (s.held, s.excess)
            }
            None => (ran, excess),
        }
    }

    /// After a slice of a sliced job: puts the job back in its queue with
    /// the next slice (true). After its last: when the attempt failed and
    /// will be retried, the retry starts again from the first slice;
    /// otherwise its whole service (the work its slices and resumes took)
    /// is restored for the accounting (false either way).
    pub(super) fn next_slice(&mut self, slot: Slot) -> bool {
        let Some(s) = self.sliced.get_mut(&slot) else { return false };
        let job = self.jobs.get_mut(slot);
        let overhead = if s.done > 0 { s.overhead } else { 0 };
        s.left -= job.service - overhead;
        s.done += 1;
        if s.left > 0 {
            job.service = s.left.min(s.slice) + s.overhead;
            job.ready = self.now;
            self.enqueue(slot);
            return true;
        }
        if job.attempts <= u32::from(job.failures) && job.attempts < u32::from(job.max_attempts) {
            (s.left, s.done, s.held, s.excess) = (s.total, 0, 0, 0);
            job.service = s.slice;
            return false;
        }
        job.service = s.total + Time::from(s.done - 1) * s.overhead;
        self.sliced.remove(&slot);
        false
    }
}

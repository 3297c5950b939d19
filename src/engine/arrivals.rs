//! Arrivals through admission: a job is taken in and queued, refused for
//! good, refused and sent again by its producer later (the same logical
//! job: same id, tenant and arrival, charged to the same budget), or taken
//! in but claimable only later (deferred).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::{Engine, Sliced};
use crate::admission::Decision;
use crate::core::{Job, Outcome, Slot, DEFERRED};
use crate::error::Result;
use crate::model::Slicing;
use crate::time::Time;

/// Jobs admission put off.
#[derive(Default)]
pub(super) struct PutOff {
    /// Refused jobs their producer sends again, by (time, job id).
    resend: BinaryHeap<Reverse<(Time, u64)>>,
    held: HashMap<u64, (Job, Option<Slicing>)>,
    /// Deferred jobs by (claimable time, job id, slot).
    deferred: BinaryHeap<Reverse<(Time, u64, Slot)>>,
    /// Failed jobs waiting out their retry backoff, likewise.
    pub(super) backoff: BinaryHeap<Reverse<(Time, u64, Slot)>>,
}

impl PutOff {
    /// The next instant a put-off job comes back.
    pub(super) fn next(&self) -> Time {
        let r = self.resend.peek().map_or(Time::MAX, |r| r.0 .0);
        let d = self.deferred.peek().map_or(Time::MAX, |r| r.0 .0);
        let b = self.backoff.peek().map_or(Time::MAX, |r| r.0 .0);
        r.min(d).min(b)
    }
}

impl Engine<'_> {
    #[inline(always)]
    pub(super) fn arrive(&mut self, job: Job, slicing: Option<Slicing>) -> Result<()> {
        self.rec.on_arrival(&job);
        if self.sc.admission.is_empty() {
            // the default path (no rules: every job is taken in) skips the
            // virtual `decide` and its `Decision`, and passes the job on once
            let slot = self.take_in(job, slicing);
            self.enqueue(slot);
            return Ok(());
        }
        self.admit(job, slicing)
    }

    #[inline(never)]
    fn admit(&mut self, mut job: Job, slicing: Option<Slicing>) -> Result<()> {
        match self.admission.decide(&job, self.now, &self.loads) {
            Decision::Accept => {
                let slot = self.take_in(job, slicing);
                self.enqueue(slot);
                Ok(())
            }
            Decision::Reject { rule } => {
                self.rec.on_refused(&job, self.admission.rule_name(rule), false);
                self.rec.on_end(self.sc, &job, self.now, Outcome::Rejected)
            }
            Decision::Retry { rule, after, max } => {
                self.rec.on_refused(&job, self.admission.rule_name(rule), false);
                if job.resends() >= max {
                    return self.rec.on_end(self.sc, &job, self.now, Outcome::Rejected);
                }
                job.admission += 1;
                let at = self.now.saturating_add(after);
                self.put_off.resend.push(Reverse((at, job.seq)));
                self.put_off.held.insert(job.seq, (job, slicing));
                Ok(())
            }
            Decision::Defer { rule, until } => {
                self.rec.on_refused(&job, self.admission.rule_name(rule), true);
                job.admission |= DEFERRED;
                job.ready = until;
                let seq = job.seq;
                let slot = self.take_in(job, slicing);
                self.put_off.deferred.push(Reverse((until, seq, slot)));
                Ok(())
            }
        }
    }

    /// Stores an admitted job (cut into slices if it runs in slices).
    #[inline(always)]
    fn take_in(&mut self, job: Job, slicing: Option<Slicing>) -> Slot {
        let total = job.service;
        let slot = self.jobs.insert(job);
        if let Some(s) = slicing.filter(|s| total > s.slice) {
            let (slice, overhead) = (s.slice, s.resume_overhead);
            self.sliced
                .insert(slot, Sliced { slice, overhead, total, left: total, done: 0, held: 0, excess: 0 });
            self.jobs.get_mut(slot).service = slice;
        }
        slot
    }

    /// Brings back the jobs put off until now: re-sent jobs go through
    /// admission again, deferred ones and retries after their backoff
    /// become claimable.
    pub(super) fn come_back(&mut self) -> Result<()> {
        while let Some(&Reverse((at, seq))) = self.put_off.resend.peek() {
            if at > self.now {
                break;
            }
            self.put_off.resend.pop();
            let (mut job, slicing) = self.put_off.held.remove(&seq).expect("a re-sent job is held");
            job.ready = self.now;
            self.admit(job, slicing)?;
        }
        while let Some(&Reverse((at, _, slot))) = self.put_off.deferred.peek() {
            if at > self.now {
                break;
            }
            self.put_off.deferred.pop();
            self.admission.on_claimable(self.jobs.get(slot));
            self.enqueue(slot);
        }
        while let Some(&Reverse((at, _, slot))) = self.put_off.backoff.peek() {
            if at > self.now {
                break;
            }
            self.put_off.backoff.pop();
            self.enqueue(slot);
        }
        Ok(())
    }
}

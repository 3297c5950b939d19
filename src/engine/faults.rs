//! Capacity over time and slow dependencies, as the engine lives them.
//!
//! A capacity change takes idle workers away first. The busy ones still to
//! remove either finish their attempt and leave (`drain`: the next that
//! many completions retire their worker instead of freeing it) or stop now
//! (`kill`), newest attempt first, as Kubernetes scales a ReplicaSet down by
//! deleting the pods that have run the shortest time: that loses the least
//! work. A killed attempt's work is lost and charged to its tenant; the job
//! goes back to its queue. The killed attempt still counts as one started
//! (`attempts`), and the job's planned failures move up by one, so a kill
//! neither spends nor causes a failure.

use std::collections::{HashMap, HashSet};

use super::Engine;
use crate::core::{JobState, Skip, Slot};
use crate::error::Result;
use crate::model::{faults::slowed, CapacityChange, Loss, Scenario, Slowdown};
use crate::time::Time;

/// The engine's state of capacity changes and slowdowns.
pub(super) struct Faults<'s> {
    changes: &'s [CapacityChange],
    /// Index of the next change to apply, and its time (`Time::MAX`: none).
    next: usize,
    next_at: Time,
    /// Workers the pool has now, not counting the retiring.
    pub(super) workers: u64,
    /// Busy workers a drain removed: each leaves when its attempt ends.
    pub(super) retiring: u64,
    /// The pool's size (workers plus retiring) from each time on, for the
    /// worker time utilization is measured against.
    steps: Vec<(Time, u64)>,
    pub(super) slowdowns: &'s [Slowdown],
    /// Attempts a slowdown stretched: slot -> the attempt's length.
    pub(super) stretched: HashMap<Slot, Time>,
}

impl<'s> Faults<'s> {
    pub(super) fn new(sc: &'s Scenario) -> Self {
        Faults {
            changes: &sc.capacity,
            next: 0,
            next_at: sc.capacity.first().map_or(Time::MAX, |c| c.at),
            workers: u64::from(sc.workers),
            retiring: 0,
            steps: vec![(0, u64::from(sc.workers))],
            slowdowns: &sc.slowdowns,
            stretched: HashMap::new(),
        }
    }

    /// When the next capacity change comes (`Time::MAX`: none).
    #[inline]
    pub(super) fn next_change(&self) -> Time {
        self.next_at
    }

    /// Whether capacity ever changes (then utilization is measured against
    /// [`Faults::worker_time`]).
    pub(super) fn changes_capacity(&self) -> bool {
        !self.changes.is_empty()
    }

    fn note_size(&mut self, now: Time) {
        let size = self.workers + self.retiring;
        match self.steps.last_mut() {
            Some(last) if last.0 == now => last.1 = size,
            _ => self.steps.push((now, size)),
        }
    }

    /// A busy worker whose attempt just ended: true when it retires (a
    /// drain removed it) rather than becoming free.
    #[inline]
    pub(super) fn retires(&mut self, now: Time) -> bool {
        if self.retiring == 0 {
            return false;
        }
        self.retiring -= 1;
        self.note_size(now);
        true
    }

    /// Worker-microseconds the pool offered over `[0, end]`.
    pub(super) fn worker_time(&self, end: Time) -> f64 {
        let mut total = 0.0;
        for (i, &(from, size)) in self.steps.iter().enumerate() {
            let to = self.steps.get(i + 1).map_or(end, |s| s.0).min(end);
            if to > from {
                total += size as f64 * (to - from) as f64;
            }
        }
        total
    }

    /// The length of an attempt of `service` starting at `now`, noting it
    /// when a slowdown stretches it.
    #[inline]
    pub(super) fn stretch(&mut self, slot: Slot, now: Time, job: &crate::core::Job) -> Time {
        let run = slowed(self.slowdowns, now, job.tenant, job.class, job.service);
        if run != job.service {
            self.stretched.insert(slot, run);
        }
        run
    }

    /// The length of the attempt running in `slot`, forgetting a stretch.
    #[inline]
    pub(super) fn take_length(&mut self, slot: Slot, service: Time) -> Time {
        if self.stretched.is_empty() {
            return service;
        }
        self.stretched.remove(&slot).unwrap_or(service)
    }
}

impl Engine<'_> {
    /// Applies the capacity changes due now.
    pub(super) fn change_capacity(&mut self) -> Result<()> {
        while self.faults.next_change() <= self.now {
            let c = self.faults.changes[self.faults.next];
            self.faults.next += 1;
            self.faults.next_at = self.faults.changes.get(self.faults.next).map_or(Time::MAX, |c| c.at);
            let target = u64::from(c.workers);
            let f = &mut self.faults;
            if target >= f.workers {
                // new workers replace retiring ones first: those stay on
                let add = target - f.workers;
                let kept = add.min(f.retiring);
                f.retiring -= kept;
                self.free_workers += (add - kept) as u32;
            } else {
                let remove = f.workers - target;
                let idle = remove.min(u64::from(self.free_workers));
                self.free_workers -= idle as u32;
                let busy = remove - idle;
                match c.loss {
                    Loss::Drain => f.retiring += busy,
                    Loss::Kill => {
                        // stopping more than the attempts that still hold a
                        // worker is not possible; the rest are retiring ones
                        let held = (self.running.len() as u64).saturating_sub(f.retiring);
                        self.kill(busy.min(held))?;
                        self.faults.retiring -= busy - busy.min(held);
                    }
                }
            }
            self.faults.workers = target;
            self.faults.note_size(self.now);
            self.admission.on_capacity(target);
        }
        Ok(())
    }

    /// Stops the `n` newest running attempts (latest start, then highest job
    /// id) and puts their jobs back in their queues.
    fn kill(&mut self, n: u64) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        let now = self.now;
        let mut by_start: Vec<(Time, u64, Slot)> = self
            .running
            .iter()
            .map(|a| {
                let job = self.jobs.get(a.slot);
                let len = self.faults.stretched.get(&a.slot).copied().unwrap_or(job.service);
                (a.finish() - len, job.seq, a.slot)
            })
            .collect();
        by_start.sort_unstable_by(|a, b| b.cmp(a));
        by_start.truncate(n as usize);
        let victims: HashSet<Slot> = by_start.iter().map(|v| v.2).collect();
        self.running.retain(|a| !victims.contains(&a.slot));
        // in job id order, so the re-queued jobs enter their queues in a fixed order
        by_start.sort_unstable_by_key(|v| v.1);
        for (started, _, slot) in by_start {
            self.faults.stretched.remove(&slot);
            let lost = now - started;
            let job = self.jobs.get(slot);
            let (t, cost) = (job.tenant as usize, job.cost);
            self.rec.on_attempt_end(job, now, lost);
            self.rec.on_lost(job, lost, true);
            self.policy.on_finish(job, now);
            for (free, c) in self.free_res.iter_mut().zip(cost) {
                *free += c;
            }
            let load = &mut self.loads[t];
            load.running -= 1;
            if load.parked == Some(Skip::AtCap) && load.running < load.cap && self.cap_delay.is_none() {
                load.parked = None;
                self.policy.unpark(t as u32, &self.jobs, now);
            }
            // a killed slice restarts itself; a killed first slice (or whole
            // job) restarts its attempt, which must not count as a failure
            let restarts_attempt = self.sliced.get(&slot).is_none_or(|s| s.done == 0);
            let job = self.jobs.get_mut(slot);
            if restarts_attempt {
                job.failures = job.failures.saturating_add(1);
                job.max_attempts = job.max_attempts.saturating_add(1);
            }
            debug_assert_eq!(job.state, JobState::Running);
            job.ready = now;
            self.enqueue(slot);
        }
        Ok(())
    }
}

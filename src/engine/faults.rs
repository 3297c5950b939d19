//! Capacity over time and slow dependencies, as the engine lives them.
//!
//! A capacity change takes idle workers away first. The busy ones still to
//! remove either finish their attempt and leave (`drain`: the next that
//! many completions retire their worker instead of freeing it) or stop now
//! (`kill`), newest attempt first, as Kubernetes scales a ReplicaSet down by
//! deleting the pods that have run the shortest time: that loses the least
//! work. A killed attempt's work is lost and charged to its tenant; the job
//! goes back to its queue. A stopped attempt does not count in `attempts`
//! (it shows in `slices`, every start), so a kill neither spends nor causes
//! a failure.
//!
//! A policy that preempts (`reserve` with `preempt:`) stops attempts the
//! same way, newest first among those it allows, but the workers stay: the
//! job it stopped them for takes them. At a checkpoint the stopped job keeps
//! its progress less the work since the checkpoint.

use std::collections::{HashMap, HashSet};

use super::Engine;
use crate::core::{JobState, Slot};
use crate::error::Result;
use crate::model::{faults::slowed, CapacityChange, Loss, Scenario, Slowdown, TenantId};
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
    /// Jobs preempted at a checkpoint, whose `service` is now what is left:
    /// slot -> their whole service, restored when the attempt ends.
    pub(super) resumed: HashMap<Slot, Time>,
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
            resumed: HashMap::new(),
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
                        // the idle went first, so each worker still to remove
                        // runs an attempt of its own (not a retiring one's)
                        debug_assert!(busy <= self.running.len() as u64 - f.retiring);
                        if busy > 0 {
                            self.kill(busy)?;
                        }
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
    /// id) and puts their jobs back in their queues; their workers leave.
    fn kill(&mut self, n: u64) -> Result<()> {
        let victims = self.newest(n as usize, |_| true);
        for (started, slot) in victims {
            self.stop(slot, started, None)?;
        }
        Ok(())
    }

    /// Stops the newest preemptible attempts the policy asked for; their
    /// workers stay, free for the jobs the policy stopped them for.
    pub(super) fn preempt(&mut self, p: crate::policy::Preemption) -> Result<()> {
        let allowed: HashSet<Slot> = (self.running.iter())
            .filter(|a| self.policy.preemptible(self.jobs.get(a.slot)))
            .map(|a| a.slot)
            .collect();
        let victims = self.newest(p.count as usize, |slot| allowed.contains(&slot));
        for (started, slot) in victims {
            self.stop(slot, started, Some(p.checkpoint))?;
            self.free_workers += 1;
        }
        Ok(())
    }

    /// Takes out of the running heap the `n` attempts of jobs `keep` allows
    /// that started last (ties: higher job id first): (start, slot) in job
    /// id order, so the re-queued jobs enter their queues in a fixed order.
    fn newest(&mut self, n: usize, keep: impl Fn(Slot) -> bool) -> Vec<(Time, Slot)> {
        let mut by_start: Vec<(Time, u64, Slot)> = self
            .running
            .iter()
            .filter(|a| keep(a.slot))
            .map(|a| {
                let job = self.jobs.get(a.slot);
                let len = self.faults.stretched.get(&a.slot).copied().unwrap_or(job.service);
                (a.finish() - len, job.seq, a.slot)
            })
            .collect();
        by_start.sort_unstable_by(|a, b| b.cmp(a));
        by_start.truncate(n);
        let victims: HashSet<Slot> = by_start.iter().map(|v| v.2).collect();
        self.running.retain(|a| !victims.contains(&a.slot));
        by_start.sort_unstable_by_key(|v| v.1);
        by_start.into_iter().map(|(t, _, slot)| (t, slot)).collect()
    }

    /// Ends the attempt in `slot` (started at `started`, already out of the
    /// running heap) and re-queues its job. `keep`: `None` (a kill) or
    /// `Some(None)` (preempted, restart) loses the attempt's work;
    /// `Some(Some(c))` (preempted at a checkpoint) keeps all but the last `c`
    /// of it, so the job has that much less to run.
    fn stop(&mut self, slot: Slot, started: Time, keep: Option<Option<Time>>) -> Result<()> {
        let now = self.now;
        self.faults.stretched.remove(&slot);
        let elapsed = now - started;
        let job = self.jobs.get(slot);
        let (t, cost) = (job.tenant as usize, job.cost);
        let sliced = self.sliced.contains_key(&slot);
        // a slice restarts whole; an unsliced job keeps what its checkpoint saved
        let kept = match keep {
            Some(Some(c)) if !sliced => elapsed.saturating_sub(c).min(job.service.saturating_sub(1)),
            _ => 0,
        };
        self.rec.on_attempt_end(job, now, elapsed);
        self.rec.on_lost(job, elapsed - kept, true);
        if self.placed {
            self.policy.on_ran(job, elapsed);
        }
        self.policy.on_finish(job, now);
        for (free, c) in self.free_res.iter_mut().zip(cost) {
            *free += c;
        }
        self.running_ended(t as TenantId);
        // its units are free again: a job parked as not fitting may fit
        self.unpark_no_fit();
        // the stopped attempt does not count as one (it shows in `slices`,
        // every start); a killed slice of a resumed attempt continues it
        let restarts_attempt = self.sliced.get(&slot).is_none_or(|s| s.done == 0);
        let job = self.jobs.get_mut(slot);
        if restarts_attempt {
            job.attempts -= 1;
        }
        if kept > 0 {
            self.faults.resumed.entry(slot).or_insert(job.service);
            job.service -= kept;
        }
        debug_assert_eq!(job.state, JobState::Running);
        job.ready = now;
        self.enqueue(slot);
        Ok(())
    }
}

//! Dispatch: while a worker is free and the policy proposes a job the gate
//! admits, start it (after any preemption the policy asks for, and with
//! idle workers lent over caps under `spare: lend`).

use super::{Attempt, Engine};
use crate::core::{Gate, JobState, Skip, Slot};
use crate::error::{Error, Result};
use crate::model::{Spare, TenantId};
use crate::prefetch::prefetch;
use crate::time::{HORIZON, HORIZON_TEXT};

impl Engine<'_> {
    /// Starts jobs while workers are free and the policy proposes one.
    /// `EXTRAS`: see [`Engine::uses_extras`].
    pub(super) fn dispatch<const EXTRAS: bool>(&mut self) -> Result<()> {
        if EXTRAS && self.preempts && self.free_workers == 0 && self.queued_total > 0 {
            if let Some(p) = self.policy.preemption() {
                self.preempt(p)?;
            }
        }
        if EXTRAS && self.reserves && self.queued_total > 0 {
            self.reserve_ahead()?;
        }
        if self.free_workers > 0 && self.queued_total > 0 && self.rec.lists_parked() {
            self.log_still_parked();
        }
        let mut borrow = false;
        while self.free_workers > 0 && self.queued_total > 0 {
            if let (true, Some(d)) = (EXTRAS, self.decisions.as_mut()) {
                d.before_pick(&*self.policy, &self.jobs, &self.loads, &self.free_res, borrow, self.now);
            }
            let pick = {
                let mut gate = Gate {
                    tenants: &mut self.loads,
                    free: self.free_res,
                    borrow,
                    parked: &mut self.gate_parked,
                    skips: &mut self.skips,
                    free_workers: self.free_workers,
                    expired: &mut self.expired,
                    logged: self.rec.logs_skips(),
                };
                self.policy.pick(&self.jobs, &mut gate, self.now)
            };
            self.sort_parked();
            self.end_expired()?;
            match pick {
                Some(slot) if EXTRAS && self.cap_delay.is_some() && !borrow && self.at_cap(slot) => {
                    self.delay_refused(slot);
                }
                Some(slot) => {
                    self.start::<EXTRAS>(slot)?;
                    if let (true, Some(d)) = (EXTRAS, self.decisions.as_mut()) {
                        d.after_start(&self.jobs, slot, self.now)?;
                    }
                    if let Some((slot, tenant)) = self.policy.next_hint() {
                        if let Some(job) = self.jobs.try_get(slot) {
                            prefetch(job);
                        }
                        self.warm_tenant(tenant);
                    }
                }
                None if self.spare == Spare::Lend && !borrow && self.only_parked_wait() => {
                    // Nobody below its cap can run: lend the idle workers to tenants at their cap.
                    borrow = true;
                    self.lend();
                }
                None => break,
            }
        }
        if let (true, Some(a)) = (EXTRAS, self.audit.as_mut()) {
            let mut blocked_by_fit = false;
            for &(t, r) in &self.skips {
                a.on_skip(t, r);
                blocked_by_fit |= r == Skip::NoFit;
            }
            a.after_round(
                self.now,
                self.free_workers,
                self.faults.workers.min(u64::from(u32::MAX)) as u32,
                &self.loads,
                self.spare,
                self.policy.work_conserving() && self.cap_delay.is_none(),
                blocked_by_fit,
            );
        }
        self.rec.on_skips(&mut self.skips);
        Ok(())
    }

    /// Lets a policy that reserves ahead take jobs for its nodes, whether a
    /// worker is free or not (a busy node still takes its reservation).
    #[cold]
    #[inline(never)]
    fn reserve_ahead(&mut self) -> Result<()> {
        let mut gate = Gate {
            tenants: &mut self.loads,
            free: self.free_res,
            borrow: false,
            parked: &mut self.gate_parked,
            skips: &mut self.skips,
            free_workers: self.free_workers,
            expired: &mut self.expired,
            logged: self.rec.logs_skips(),
        };
        self.policy.reserve(&self.jobs, &mut gate, self.now);
        self.sort_parked();
        self.end_expired()
    }

    /// Starts the job in `slot` on a free worker. `EXTRAS`: see
    /// [`Engine::uses_extras`].
    fn start<const EXTRAS: bool>(&mut self, slot: Slot) -> Result<()> {
        let now = self.now;
        let job = self.jobs.get_mut(slot);
        if EXTRAS && self.placed {
            (job.queue, job.pool) = self.policy.placement(slot);
        }
        job.state = JobState::Running;
        job.slices += 1;
        if EXTRAS && job.slices == 1 && self.admission_counts {
            self.admission.on_left_queue(self.jobs.get(slot), now);
        }
        let job = self.jobs.get_mut(slot);
        // a resumed slice continues the attempt its first slice started
        if !EXTRAS || self.sliced.is_empty() || self.sliced.get(&slot).is_none_or(|s| s.done == 0) {
            job.attempts += 1;
        }
        // a claim cost: the worker is taken now, the service starts later
        let claim = match EXTRAS && self.costs.is_some() {
            true => {
                let (pool, c) = self.costs_at(slot);
                self.charge_overhead(pool, c.claim);
                self.count_start();
                c.claim
            }
            false => 0,
        };
        let job = self.jobs.get_mut(slot);
        job.first_start.get_or_insert(now + claim);
        let (t, cost, seq, service) = (job.tenant as usize, job.cost, job.seq, job.service);
        if let (true, Some(a)) = (EXTRAS, self.audit.as_mut()) {
            for &(u, r) in &self.skips {
                a.on_skip(u, r);
            }
            a.on_dispatch(now, t as TenantId, &self.loads, self.spare);
        }
        self.loads[t].queued -= 1;
        self.loads[t].running += 1;
        self.queued_total -= 1;
        self.free_workers -= 1;
        for (free, c) in self.free_res.iter_mut().zip(cost) {
            *free -= c;
        }
        let run = match !EXTRAS || self.faults.slowdowns.is_empty() {
            true => service,
            false => self.faults.stretch(slot, now + claim, self.jobs.get(slot)),
        };
        // each at most HORIZON (a claim cost too): no overflow
        let finish = now + claim + run;
        if finish > HORIZON {
            return Err(Error::input(
                &self.sc.source,
                0,
                0,
                format!(
                    "job {seq} would finish at {} s, past {HORIZON_TEXT}; the workload's times or service times are too long",
                    crate::time::fmt_secs(finish)
                ),
            ));
        }
        if let (true, Some(a)) = (EXTRAS, self.audit.as_mut()) {
            let l = &self.loads[t];
            if l.queued == 0 || l.running >= l.cap {
                a.on_idle(t as TenantId);
            }
        }
        if claim > 0 {
            self.rec.on_claim(self.jobs.get(slot), self.loads[t].queued);
            self.defer_start(slot, now + claim, finish);
            return Ok(());
        }
        self.running.push(Attempt::new(finish, seq, slot));
        self.rec.on_start(self.jobs.get(slot), now, self.loads[t].queued);
        Ok(())
    }
}

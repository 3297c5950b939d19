//! `reserve`: reserved capacity with borrowing (the backpressure article): `workers: R`
//! are reserved for `class: C`. Outside the reserve every job competes in
//! arrival order; the reserve is capacity, not priority.
//!
//! Rules at each pick, with `F` idle workers and `R_free = R - min(R,
//! running jobs of C)` reserved workers not in use by C:
//! - while `R_free > 0`, a queued job of C goes first (it is entitled to a
//!   reserved worker), whatever the age of the other jobs;
//! - otherwise the oldest job (by ready time, then job id) of any class goes;
//! - borrowing: while C has no queued job, other classes may take any idle
//!   worker, the reserved ones included. Once C has a queued job, the others
//!   may only take a worker when `F > R_free`: the idle reserved workers are
//!   held for C (no preemption: a borrower already running keeps its worker).
//!
//! So an urgent job that arrives while borrowers hold every worker starts
//! at the next completion of any job: within one service time, never behind
//! the backlog. Passing over an older job for the reserve logs `reserved`
//! for its tenant.
//!
//! Cost: two arrival-ordered queues, O(log n) per dispatch.

use super::PolicyInfo;
use super::{KeyedQueue, Policy};
use crate::core::{Gate, Job, JobTable, Skip, Slot};
use crate::model::policy::ParamError;
use crate::model::{ClassId, Param, ParamDefault, ParamKind, PolicySpec, Scenario, TenantId};
use crate::time::Time;

pub struct Reserve {
    class: ClassId,
    reserved: u32,
    /// Running jobs of the reserve's class.
    running: u32,
    /// Queued jobs of the reserve's class (claimable or parked).
    queued: u64,
    owner: KeyedQueue<Time>,
    others: KeyedQueue<Time>,
}

const CLASS: Param = Param {
    name: "class",
    kind: ParamKind::Class,
    default: ParamDefault::Required,
    doc: "the class the workers are reserved for",
};

const WORKERS: Param = Param {
    name: "workers",
    kind: ParamKind::Count { min: 1 },
    default: ParamDefault::Count(1),
    doc: "how many workers are reserved (at most the pool's workers)",
};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "reserve",
    summary: "reserved capacity with borrowing: `workers` held for `class`, lent to others while that class has no queued job; arrival order otherwise",
    params: &[CLASS, WORKERS],
    build,
};

pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    let class: ClassId = spec.params.get(&CLASS).map_err(|_| {
        ParamError::from("reserve needs `class:`, the class the workers are reserved for, e.g. `{policy: reserve, class: interactive, workers: 2}`")
    })?;
    let reserved: u32 = spec.params.get(&WORKERS)?;
    if reserved > sc.workers {
        return Err(ParamError::at(
            &WORKERS,
            format!("`workers: {reserved}` must be between 1 and the pool's {} workers", sc.workers),
        ));
    }
    Ok(Box::new(Reserve {
        class,
        reserved,
        running: 0,
        queued: 0,
        owner: KeyedQueue::new(sc.tenants.len()),
        others: KeyedQueue::new(sc.tenants.len()),
    }))
}

impl Policy for Reserve {
    /// Not fully: idle reserved workers are held for the reserved class while
    /// it has a queued job, even when that job cannot start yet (its tenant is
    /// at its cap under `spare: hold`). That is the price of the guarantee.
    fn work_conserving(&self) -> bool {
        false
    }

    fn push(&mut self, job: &Job, slot: Slot, _now: Time) {
        if job.class == self.class {
            self.queued += 1;
            self.owner.push(job.tenant, job.ready, job.seq, slot);
        } else {
            self.others.push(job.tenant, job.ready, job.seq, slot);
        }
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, _now: Time) -> Option<Slot> {
        let reserve_free = self.reserved.saturating_sub(self.running);
        let held = if self.queued > 0 { reserve_free } else { 0 };
        let others_may = gate.free_workers() > held;
        loop {
            let own = self.owner.peek();
            let other = self.others.peek();
            let from_owner = match (own, other) {
                (None, None) => return None,
                (Some(_), _) if reserve_free > 0 => true,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some((r1, s1, ..)), Some((r2, s2, ..))) => !others_may || (r1, s1) < (r2, s2),
            };
            if !from_owner && !others_may {
                if let Some((_, _, tenant, _)) = other {
                    gate.note_skip(tenant, Skip::Reserved);
                }
                return None;
            }
            let (_, _, tenant, slot) = if from_owner { own } else { other }?;
            if gate.admit(jobs.get(slot)) {
                if from_owner {
                    if let (Some((r1, s1, ..)), Some((r2, s2, t, _))) = (own, other) {
                        if (r2, s2) < (r1, s1) {
                            gate.note_skip(t, Skip::Reserved);
                        }
                    }
                    self.owner.pop_tenant(tenant);
                    self.queued -= 1;
                    self.running += 1;
                } else {
                    self.others.pop_tenant(tenant);
                }
                return Some(slot);
            }
            self.owner.park(tenant);
            self.others.park(tenant);
        }
    }

    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, _now: Time) {
        self.owner.unpark(tenant);
        self.others.unpark(tenant);
    }

    fn on_finish(&mut self, job: &Job, _now: Time) {
        if job.class == self.class {
            self.running -= 1;
        }
    }
}

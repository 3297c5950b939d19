//! `round_robin`: tenants with claimable work take turns, one job per turn,
//! in the rotation order (configurable, default declaration order). A tenant
//! at its cap is skipped with reason `at_cap`; a tenant joins the back of the
//! rotation when it gets work, so a newcomer waits at most one rotation.

use std::collections::VecDeque;

use super::Policy;
use crate::engine::{Gate, Job, JobTable, Slot};
use crate::scenario::{PolicySpec, Scenario, TenantId};
use crate::time::Time;

pub struct RoundRobin {
    /// Per-tenant FIFO of queued jobs.
    queues: Vec<VecDeque<Slot>>,
    /// Position of each tenant in the configured order (ties among tenants
    /// that join at the same instant are broken by it).
    rank: Vec<u32>,
    /// Tenants in the rotation, front = next turn.
    rotation: VecDeque<TenantId>,
    /// Tenants that got work since the last pick, not yet in the rotation.
    joining: Vec<TenantId>,
    in_rotation: Vec<bool>,
    parked: Vec<bool>,
}

pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, String> {
    let n = sc.tenants.len();
    let mut rank = vec![u32::MAX; n];
    let mut next = 0u32;
    if let Some(order) = &spec.params.order {
        for &t in order {
            if rank[t as usize] == u32::MAX {
                rank[t as usize] = next;
                next += 1;
            }
        }
    }
    for r in rank.iter_mut() {
        if *r == u32::MAX {
            *r = next;
            next += 1;
        }
    }
    Ok(Box::new(RoundRobin {
        queues: vec![VecDeque::new(); n],
        rank,
        rotation: VecDeque::new(),
        joining: Vec::new(),
        in_rotation: vec![false; n],
        parked: vec![false; n],
    }))
}

impl RoundRobin {
    fn join(&mut self, tenant: TenantId) {
        let t = tenant as usize;
        if !self.in_rotation[t] && !self.parked[t] && !self.queues[t].is_empty() {
            self.in_rotation[t] = true;
            self.joining.push(tenant);
        }
    }
}

impl Policy for RoundRobin {
    fn push(&mut self, job: &Job, slot: Slot, _now: Time) {
        self.queues[job.tenant as usize].push_back(slot);
        self.join(job.tenant);
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, _now: Time) -> Option<Slot> {
        if !self.joining.is_empty() {
            let rank = &self.rank;
            self.joining.sort_unstable_by_key(|&t| rank[t as usize]);
            self.rotation.extend(self.joining.drain(..));
        }
        while let Some(tenant) = self.rotation.pop_front() {
            let t = tenant as usize;
            let Some(&slot) = self.queues[t].front() else {
                self.in_rotation[t] = false;
                continue;
            };
            if gate.admit(jobs.get(slot)) {
                self.queues[t].pop_front();
                if self.queues[t].is_empty() {
                    self.in_rotation[t] = false;
                } else {
                    self.rotation.push_back(tenant);
                }
                return Some(slot);
            }
            self.in_rotation[t] = false;
            self.parked[t] = true;
        }
        None
    }

    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, _now: Time) {
        self.parked[tenant as usize] = false;
        self.join(tenant);
    }
}

//! `round_robin`: tenants with claimable work take turns, one job per turn,
//! in the rotation order (configurable, default declaration order). A tenant
//! at its cap is skipped with reason `at_cap`; a tenant joins the back of the
//! rotation when it gets work, so a newcomer waits at most one rotation.

use std::collections::VecDeque;

use super::Policy;
use crate::engine::{Gate, Job, JobTable, Slot};
use crate::prefetch::{prefetch, prefetch_item};
use crate::scenario::{PolicySpec, Scenario, TenantId};
use crate::time::Time;

/// One tenant's place in the rotation and its jobs in arrival order, in one
/// cache line: the first job inline (most tenants hold zero or one at a
/// time) and the rest in a deque. One struct instead of parallel arrays, as
/// with 100,000 tenants every array touched per job is a cache miss.
#[derive(Debug, Clone, Default)]
#[repr(align(64))]
struct Member {
    first: Option<Slot>,
    more: VecDeque<Slot>,
    /// Position in the configured rotation order.
    rank: u32,
    in_rotation: bool,
    parked: bool,
}

impl Member {
    fn front(&self) -> Option<Slot> {
        self.first
    }

    fn push(&mut self, slot: Slot) {
        if self.first.is_none() {
            self.first = Some(slot);
        } else {
            self.more.push_back(slot);
        }
    }

    fn pop(&mut self) {
        self.first = self.more.pop_front();
    }

    fn is_empty(&self) -> bool {
        self.first.is_none()
    }
}

pub struct RoundRobin {
    members: Vec<Member>,
    rotation: VecDeque<TenantId>,
    joining: Vec<TenantId>,
}

pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, String> {
    let n = sc.tenants.len();
    let mut members = vec![Member { rank: u32::MAX, ..Default::default() }; n];
    let mut next = 0u32;
    if let Some(order) = &spec.params.order {
        for &t in order {
            if members[t as usize].rank == u32::MAX {
                members[t as usize].rank = next;
                next += 1;
            }
        }
    }
    for m in members.iter_mut() {
        if m.rank == u32::MAX {
            m.rank = next;
            next += 1;
        }
    }
    Ok(Box::new(RoundRobin { members, rotation: VecDeque::new(), joining: Vec::new() }))
}

impl RoundRobin {
    fn join(&mut self, tenant: TenantId) {
        let m = &mut self.members[tenant as usize];
        if !m.in_rotation && !m.parked && !m.is_empty() {
            m.in_rotation = true;
            self.joining.push(tenant);
        }
    }
}

impl Policy for RoundRobin {
    fn next_hint(&self) -> Option<(Slot, TenantId)> {
        // the member after next is read by the next hint: start loading it
        if let Some(&t) = self.rotation.get(1) {
            prefetch_item(&self.members, t as usize);
        }
        let &t = self.rotation.front()?;
        let m = &self.members[t as usize];
        // picking it moves its next job out of `more` into `first`
        if let Some(next) = m.more.front() {
            prefetch(next);
        }
        m.front().map(|slot| (slot, t))
    }

    fn warm_tenant(&self, tenant: TenantId) {
        prefetch_item(&self.members, tenant as usize);
    }

    fn push(&mut self, job: &Job, slot: Slot, _now: Time) {
        self.members[job.tenant as usize].push(slot);
        self.join(job.tenant);
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, _now: Time) -> Option<Slot> {
        if !self.joining.is_empty() {
            let members = &self.members;
            self.joining.sort_unstable_by_key(|&t| members[t as usize].rank);
            self.rotation.extend(self.joining.drain(..));
        }
        while let Some(tenant) = self.rotation.pop_front() {
            let m = &mut self.members[tenant as usize];
            let Some(slot) = m.front() else {
                m.in_rotation = false;
                continue;
            };
            if gate.admit(jobs.get(slot)) {
                m.pop();
                if m.is_empty() {
                    m.in_rotation = false;
                } else {
                    self.rotation.push_back(tenant);
                }
                return Some(slot);
            }
            m.in_rotation = false;
            m.parked = true;
        }
        None
    }

    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, _now: Time) {
        self.members[tenant as usize].parked = false;
        self.join(tenant);
    }
}

//! `round_robin`: tenants with claimable work take turns, one job per turn,
//! in the rotation order (configurable, default declaration order). A tenant
//! at its cap is skipped with reason `at_cap`; a tenant joins the back of the
//! rotation when it gets work, so a newcomer waits at most one rotation.

use std::collections::VecDeque;

use super::ranking::{Ask, Candidate, KeyKind};
use super::slot_list::{SlotLinks, SlotList};
use super::PolicyInfo;
use super::{Explain, Hints, Policy};
use crate::core::{Gate, Job, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{Param, ParamDefault, ParamKind, PolicySpec, Scenario, TenantId};
use crate::prefetch::prefetch_item;
use crate::time::Time;

/// One tenant's place in the rotation and the ends of its job list, in 16
/// bytes. One struct instead of parallel arrays, as with 100,000 tenants
/// every array touched per job is a cache miss.
#[derive(Debug, Clone, Default)]
struct Member {
    jobs: SlotList,
    /// Position in the configured rotation order.
    rank: u32,
    in_rotation: bool,
    parked: bool,
}

pub struct RoundRobin {
    members: Vec<Member>,
    /// Each member's jobs in arrival order.
    links: SlotLinks,
    rotation: VecDeque<TenantId>,
    /// Tenants that got claimable work since the last pick, with when.
    joining: Vec<(Time, TenantId)>,
}

const ORDER: Param = Param {
    name: "order",
    kind: ParamKind::Tenants,
    default: ParamDefault::Derived("declaration order"),
    doc: "rotation order; tenants not listed follow in declaration order",
};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "round_robin",
    summary: "one job per tenant per turn, rotating over tenants with claimable work",
    params: &[ORDER],
    build,
};

pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    let n = sc.tenants.len();
    let mut members = vec![Member { rank: u32::MAX, ..Default::default() }; n];
    let mut next = 0u32;
    if let Some(order) = spec.params.opt::<&[TenantId]>(&ORDER) {
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
    Ok(Box::new(RoundRobin {
        members,
        links: SlotLinks::new(),
        rotation: VecDeque::new(),
        joining: Vec::new(),
    }))
}

impl RoundRobin {
    /// `tenant` has claimable work again at `now`: it joins the back of the
    /// rotation at the next pick.
    fn join(&mut self, tenant: TenantId, now: Time) {
        let m = &mut self.members[tenant as usize];
        if !m.in_rotation && !m.parked && !m.jobs.is_empty() {
            m.in_rotation = true;
            self.joining.push((now, tenant));
        }
    }
}

impl Policy for RoundRobin {
    fn promises_rotation(&self) -> bool {
        true
    }

    fn push(&mut self, job: &Job, slot: Slot, now: Time) {
        self.links.push_back(&mut self.members[job.tenant as usize].jobs, slot);
        self.join(job.tenant, now);
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, _now: Time) -> Option<Slot> {
        if let [(_, t)] = self.joining[..] {
            // one newcomer (the usual case): no order to settle, and a push
            // instead of an out-of-line extend
            self.rotation.push_back(t);
            self.joining.clear();
        } else if !self.joining.is_empty() {
            // newcomers join the back in the order they got work; those that
            // got it at the same instant, in the configured order
            let members = &self.members;
            self.joining.sort_unstable_by_key(|&(at, t)| (at, members[t as usize].rank));
            self.rotation.extend(self.joining.drain(..).map(|(_, t)| t));
        }
        while let Some(tenant) = self.rotation.pop_front() {
            let m = &mut self.members[tenant as usize];
            let Some(slot) = m.jobs.front() else {
                m.in_rotation = false;
                continue;
            };
            if gate.admit(jobs.get(slot)) {
                self.links.pop_front(&mut m.jobs);
                if m.jobs.is_empty() {
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

    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, now: Time) {
        self.members[tenant as usize].parked = false;
        self.join(tenant, now);
    }
}

impl Hints for RoundRobin {
    fn next_hint(&self) -> Option<(Slot, TenantId)> {
        // the member after next is read by the next hint: start loading it
        if let Some(&t) = self.rotation.get(1) {
            prefetch_item(&self.members, t as usize);
        }
        let &t = self.rotation.front()?;
        let slot = self.members[t as usize].jobs.front()?;
        // taking the job reads its link
        self.links.warm(slot);
        Some((slot, t))
    }

    fn warm_tenant(&self, tenant: TenantId) {
        prefetch_item(&self.members, tenant as usize);
    }

    fn warm_queue_back(&self, tenant: TenantId) {
        if let Some(m) = self.members.get(tenant as usize) {
            self.links.warm_back(&m.jobs);
        }
    }
}

impl Explain for RoundRobin {
    fn key_kind(&self) -> KeyKind {
        KeyKind::Turn
    }

    /// The rotation as the pick will walk it (newcomers at the back, in the
    /// order they join), numbered from 1, skipping what it would skip.
    fn explain(&self, jobs: &JobTable, _now: Time, ask: &Ask, out: &mut Vec<Candidate>) {
        let mut joining = self.joining.clone();
        joining.sort_unstable_by_key(|&(at, t)| (at, self.members[t as usize].rank));
        let walk = self.rotation.iter().copied().chain(joining.into_iter().map(|(_, t)| t));
        let mut turn: u32 = 0;
        for t in walk {
            let Some(slot) = self.members[t as usize].jobs.front() else { continue };
            if !(ask.claimable)(jobs.get(slot)) {
                continue;
            }
            turn += 1;
            out.push(Candidate { tenant: t, slot, key: Some(f64::from(turn)) });
            if turn as usize >= ask.limit {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::policy::testkit::Kit;
    use crate::scenario::load_str;
    use std::path::Path;

    #[test]
    fn a_parked_tenant_rejoins_when_unparked_not_when_it_gets_work() {
        // A (cap 1) queues 2 jobs and B 3 at t = 0; rotation A, B.
        // A starts (A to the back: B, A), B starts (A, B), A is refused at its
        // cap (A:at_cap) and leaves the rotation, B, B: "ABBB", then nothing.
        // A third job of A arrives while A is parked: A stays out, so the
        // next pick asks nobody (one skip in the log, not two). A's job ends:
        // the engine unparks A, A rejoins and its second job starts.
        let sc = load_str(
            "workers: 99\ntenants: {A: {cap: 1}, B: {}}\nworkload:\n  - {tenant: A, count: 2, service: 1s}\n  - {tenant: B, count: 3, service: 1s}\n  - {tenant: A, count: 1, at: 1s, service: 1s}\npolicies: [round_robin]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        // the audit checks turn-taking for the policies that promise it, and
        // one job per tenant per turn is round robin's promise (README)
        assert!(kit.policy.promises_rotation());
        kit.push_n(5);
        let a = kit.pick().expect("A starts");
        assert_eq!(kit.pick_n(9), "BBB");
        assert_eq!(kit.skips, ["A:at_cap"]);
        kit.push_n(1);
        assert_eq!(kit.pick_n(9), "");
        assert_eq!(kit.skips, ["A:at_cap"]);
        kit.finish(a);
        assert_eq!(kit.pick_n(1), "A");
    }
}

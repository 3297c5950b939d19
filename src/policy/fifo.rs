//! `fifo`: the oldest claimable job runs next (global arrival order). A job
//! whose tenant is at its cap is passed over, and the next-oldest runs.
//!
//! Ties between jobs claimable since the same instant go by push order: the
//! job id for arrivals, retries and slices (the engine pushes them in id
//! order), and the promotion order for a planner's main queue.
//!
//! Layout: one queue of every job in (claimable since, push order), which
//! is the order jobs are pushed in (arrivals and retries come in time order),
//! so it is a `VecDeque` in practice ([`RunQueue`]) and a dispatch touches no
//! per-tenant state of the policy at all. Only parking needs per-tenant
//! state: a parked tenant's jobs that reach the front are set aside, in
//! order, in the tenant's own queue; when the engine unparks it, its first
//! set-aside job competes through a small heap of such tenants. Each job is
//! set aside at most once; per dispatch: O(1) without parking, O(log p) for
//! p unparked tenants with jobs set aside.

use super::keyed::RunQueue;
use super::ranking::{keep_best, secs, Ask, Candidate, KeyKind};
use super::PolicyInfo;
use super::{Explain, Hints, Policy};
use crate::core::{Gate, Job, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{PolicySpec, Scenario, TenantId};
use crate::quad_heap::QuadHeap;
use crate::sparse_queues::SparseQueues;
use crate::time::Time;

/// One bit per tenant: set while the tenant is parked. A bit set rather than
/// a flag beside the set-aside queue, because every dispatch reads it for
/// the front job's tenant: 100,000 tenants take 12.5 KB, which stays in
/// cache, while the queues (32 bytes each) are touched only when parking.
#[derive(Debug)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Self {
        Bits(vec![0; n.div_ceil(64)])
    }

    fn get(&self, t: TenantId) -> bool {
        self.0[t as usize / 64] >> (t % 64) & 1 == 1
    }

    fn set(&mut self, t: TenantId, on: bool) {
        let (w, b) = (t as usize / 64, t % 64);
        self.0[w] = self.0[w] & !(1 << b) | (on as u64) << b;
    }
}

pub struct Fifo {
    /// Jobs pushed so far: the tie-break between equal claimable times.
    pushed: u64,
    /// Every queued job not set aside, by (claimable since, push order).
    order: RunQueue<(Time, u64, TenantId, Slot)>,
    parked: Bits,
    /// Jobs of each tenant set aside while it was parked, oldest first.
    aside: SparseQueues<(Time, u64, Slot)>,
    /// (first set-aside job's key, tenant) of unparked tenants with jobs set
    /// aside; entries whose tenant was parked or served since are stale.
    sides: QuadHeap<(Time, u64, TenantId)>,
}

pub const INFO: PolicyInfo = PolicyInfo {
    name: "fifo",
    summary: "one global queue in arrival order (the oldest claimable job runs next)",
    params: &[],
    build,
};

pub fn build(_spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    Ok(Box::new(Fifo {
        pushed: 0,
        order: RunQueue::new(),
        parked: Bits::new(sc.tenants.len()),
        aside: SparseQueues::new(sc.tenants.len()),
        sides: QuadHeap::new(),
    }))
}

impl Fifo {
    /// The live top of `sides`, dropping stale entries on the way.
    fn side_top(&mut self) -> Option<(Time, u64, TenantId)> {
        while let Some(&(k, s, t)) = self.sides.peek() {
            if !self.parked.get(t)
                && self.aside.front(t as usize).is_some_and(|&(k2, s2, _)| (k2, s2) == (k, s))
            {
                return Some((k, s, t));
            }
            self.sides.pop();
        }
        None
    }
}

impl Policy for Fifo {
    fn push(&mut self, job: &Job, slot: Slot, _now: Time) {
        // Keyed by when the job became claimable, so a retried job queues behind
        // jobs that were already waiting.
        self.pushed += 1;
        self.order.push((job.ready, self.pushed, job.tenant, slot));
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, _now: Time) -> Option<Slot> {
        loop {
            let side = self.side_top();
            let main = self.order.peek().copied();
            let from_side = match (side, main) {
                (Some((k, s, _)), Some((k2, s2, _, _))) => (k, s) < (k2, s2),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => return None,
            };
            if from_side {
                let (_, _, t) = side.expect("checked above");
                self.sides.pop();
                let a = self.aside.get_mut(t as usize);
                let &(_, _, slot) = a.front().expect("a live entry has a job");
                if !gate.admit(jobs.get(slot)) {
                    self.parked.set(t, true);
                    continue;
                }
                a.pop_front();
                if let Some(&(k, s, _)) = a.front() {
                    self.sides.push((k, s, t));
                }
                return Some(slot);
            }
            let (k, s, t, slot) = self.order.pop().expect("checked above");
            // An unparked tenant with jobs aside is listed in `sides` with an
            // older job than this one, which would have come first; so this
            // tenant has none aside unless it is parked, and order is kept.
            if self.parked.get(t) {
                self.aside.push_back(t as usize, (k, s, slot));
                continue;
            }
            if gate.admit(jobs.get(slot)) {
                return Some(slot);
            }
            let a = self.aside.get_mut(t as usize);
            debug_assert!(a.is_empty(), "an unparked tenant had jobs aside behind the front");
            self.parked.set(t, true);
            a.push_back((k, s, slot));
        }
    }

    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, _now: Time) {
        if self.parked.get(tenant) {
            self.parked.set(tenant, false);
            if let Some(&(k, s, _)) = self.aside.front(tenant as usize) {
                self.sides.push((k, s, tenant));
            }
        }
    }
}

impl Hints for Fifo {
    fn next_hint(&self) -> Option<(Slot, TenantId)> {
        self.order.peek().map(|&(_, _, tenant, slot)| (slot, tenant))
    }
}

impl Explain for Fifo {
    fn key_kind(&self) -> KeyKind {
        KeyKind::Arrival
    }

    /// Each unparked tenant's oldest job: from the set-aside fronts, the
    /// unordered rest, and the ordered run read only until `ask.limit`
    /// claimable tenants have been met (a tenant met later there has older
    /// jobs ahead of it from all of those).
    fn explain(&self, jobs: &JobTable, _now: Time, ask: &Ask, out: &mut Vec<Candidate>) {
        let mut oldest: std::collections::HashMap<TenantId, (Time, u64, Slot)> = Default::default();
        let mut meet = |(k, s, t, slot): (Time, u64, TenantId, Slot)| {
            let e = oldest.entry(t).or_insert((k, s, slot));
            if (k, s) < (e.0, e.1) {
                *e = (k, s, slot);
            }
        };
        for &(k, s, t) in self.sides.iter() {
            if let Some(&(k2, s2, slot)) = self.aside.front(t as usize).filter(|_| !self.parked.get(t)) {
                if (k2, s2) == (k, s) {
                    meet((k, s, t, slot));
                }
            }
        }
        let (ordered, rest) = self.order.parts();
        for &(k, s, t, slot) in rest.filter(|i| !self.parked.get(i.2)) {
            meet((k, s, t, slot));
        }
        let (mut seen, mut claimable) = (std::collections::HashSet::new(), 0);
        for &(k, s, t, slot) in ordered.filter(|i| !self.parked.get(i.2)) {
            if claimable >= ask.limit {
                break;
            }
            // the first job of a tenant in the run is its oldest there
            if seen.insert(t) {
                meet((k, s, t, slot));
                claimable += usize::from((ask.claimable)(jobs.get(slot)));
            }
        }
        let items = oldest
            .into_iter()
            .filter(|(_, (_, _, slot))| (ask.claimable)(jobs.get(*slot)))
            .map(|(t, (k, s, slot))| ((k, s), Candidate { tenant: t, slot, key: Some(secs(k as i128)) }))
            .collect();
        keep_best(items, ask.limit, out);
    }
}

#[cfg(test)]
mod tests {
    use crate::policy::testkit::Kit;
    use crate::scenario::load_str;
    use std::path::Path;

    #[test]
    fn a_capped_tenant_is_passed_over_and_keeps_its_order_when_unparked() {
        // A (cap 1) queues jobs 0, 1, 2 and B jobs 3, 4, 5, all at t = 0.
        // Job 0 starts; A is then at its cap, so 1 and 2 are set aside and 3
        // runs. When 0 ends A is unparked, and its set-aside job 1 is older
        // than B's 4, so 1 runs; 2 is refused (A at its cap again) and 4
        // runs; when 1 ends, 2 (older than 5) runs, then 5. That is the global
        // arrival order among the tenants allowed to run at each pick.
        let sc = load_str(
            "workers: 99\ntenants:\n  A: {cap: 1}\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n  - {tenant: B, count: 3, service: 1s}\npolicies: [fifo]\n",
            Path::new("t.yaml"),
        )
        .expect("valid scenario");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        let seq = |kit: &mut Kit| kit.pick().map(|s| kit.jobs.get(s).seq);
        let first = kit.pick().expect("job 0 starts");
        assert_eq!(kit.jobs.get(first).seq, 0);
        assert_eq!(seq(&mut kit), Some(3));
        kit.finish(first);
        let second = kit.pick().expect("job 1 starts");
        assert_eq!(kit.jobs.get(second).seq, 1);
        assert_eq!(seq(&mut kit), Some(4));
        kit.finish(second);
        assert_eq!(seq(&mut kit), Some(2));
        assert_eq!(seq(&mut kit), Some(5));
        assert_eq!(seq(&mut kit), None);
        // A was refused at its cap twice: at the second pick and after job 1 started
        assert_eq!(kit.skips, ["A:at_cap", "A:at_cap"]);
    }

    #[test]
    fn a_capped_tenant_other_than_the_first_is_set_aside_too() {
        // The same as above with the capped tenant second in the tenant list
        // (B, id 1, its parked bit is bit 1 of the set): B (cap 1) queues jobs
        // 0, 1, 2 and A jobs 3, 4, 5, all at t = 0. 0 starts; 1 is refused (B
        // at its cap) and set aside, B parked; 2 reaches the front while B is
        // parked and is set aside without asking the gate; 3 runs. When 0 ends,
        // B's 1 (older than 4) runs, 2 is refused, 4 runs; when 1 ends, 2, then 5.
        // Exactly two at_cap skips: a parked bit read from the wrong position
        // would ask the gate for job 2 as well.
        let sc = load_str(
            "workers: 99\ntenants:\n  A: {}\n  B: {cap: 1}\nworkload:\n  - {tenant: B, count: 3, service: 1s}\n  - {tenant: A, count: 3, service: 1s}\npolicies: [fifo]\n",
            Path::new("t.yaml"),
        )
        .expect("valid scenario");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        let seq = |kit: &mut Kit| kit.pick().map(|s| kit.jobs.get(s).seq);
        let first = kit.pick().expect("job 0 starts");
        assert_eq!(kit.jobs.get(first).seq, 0);
        assert_eq!(seq(&mut kit), Some(3));
        kit.finish(first);
        let second = kit.pick().expect("job 1 starts");
        assert_eq!(kit.jobs.get(second).seq, 1);
        assert_eq!(seq(&mut kit), Some(4));
        kit.finish(second);
        assert_eq!(seq(&mut kit), Some(2));
        assert_eq!(seq(&mut kit), Some(5));
        assert_eq!(seq(&mut kit), None);
        assert_eq!(kit.skips, ["B:at_cap", "B:at_cap"]);
    }
}

//! `wfq`: weighted fair queueing with a system virtual time (the backpressure article).
//!
//! Job k of flow i (a tenant, or a class with `over: class`) gets the virtual
//! finish tag
//!
//! ```text
//! F_i^k = max(F_i^{k-1}, V(a_i^k)) + L_i^k / w_i
//! ```
//!
//! where L is 1 (`cost: jobs`) or the job's service time in seconds
//! (`cost: work`), w the flow's weight and V(a) the system virtual time when
//! the job became claimable. The claimable job with the smallest tag runs next
//! (ties: lower job id). Tags are computed once, when a job is queued, and
//! kept in a [`KeyedQueue`] keyed by tag, so a dispatch is O(log n).
//!
//! V is self-clocked, as in SCFQ (Golestani, 1994): V is the finish tag of the
//! job most recently put in service, kept monotone (the largest tag
//! dispatched so far, since with parking and several workers a later dispatch
//! may carry a smaller tag). Why not the textbook WFQ V(t): that one emulates
//! the fluid GPS system, which costs O(flows) per event and needs the service
//! rate; SCFQ's V costs O(1) and its fairness bound is within one maximum job
//! cost of WFQ's. Why V at all, rather than the per-tenant counter of article
//! 001: a flow that was idle (or new) starts at the current V instead of at
//! its old, small tag, so it cannot claim a burst of "saved" service, while a
//! backlogged flow's tags keep their place.
//!
//! A tenant parked by the gate (at its cap, or its job does not fit) keeps
//! its tags: when unparked, its jobs still carry the tags they had, so it is
//! served ahead of flows that were tagged later — it is owed service — but
//! never beyond what its cap allows.

use super::charge::{self, Charger};
use super::flows::{self, FlowId, OrdF64};
use super::ranking::{keep_best, Ask, Candidate, KeyKind};
use super::PolicyInfo;
use super::{Explain, Hints, KeyedQueue, Policy};
use crate::core::{Gate, Job, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{PolicySpec, Scenario, TenantId};
use crate::prefetch::prefetch_item;
use crate::time::Time;

pub struct Wfq {
    queue: KeyedQueue<OrdF64>,
    over: flows::Over,
    charger: Charger,
    /// Per flow, side by side: a push reads both.
    flows: Vec<FlowTags>,
    /// System virtual time (see the module comment).
    vtime: f64,
}

#[derive(Debug, Clone, Copy)]
struct FlowTags {
    weight: f64,
    /// Finish tag of the flow's most recently queued job.
    last_tag: f64,
}

pub const INFO: PolicyInfo = PolicyInfo {
    name: "wfq",
    summary:
        "weighted fair queueing: smallest virtual finish tag max(F_prev, V) + L/weight first (self-clocked V)",
    params: &[flows::OVER, flows::COST, charge::CHARGE, charge::QUANTILE],
    build,
};

pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    let over = flows::parse_over(&spec.params)?;
    let charger = Charger::new(&spec.params, sc)?;
    let weight = flows::weights(sc, over);
    Ok(Box::new(Wfq {
        queue: KeyedQueue::new(sc.tenants.len()),
        over,
        charger,
        flows: weight.iter().map(|&weight| FlowTags { weight, last_tag: 0.0 }).collect(),
        vtime: 0.0,
    }))
}

impl Wfq {
    fn flow_of(&self, job: &Job) -> FlowId {
        match self.over {
            flows::Over::Tenant => job.tenant,
            flows::Over::Class => job.class as FlowId,
        }
    }
}

impl Policy for Wfq {
    fn push(&mut self, job: &Job, slot: Slot, _now: Time) {
        let f = self.flow_of(job) as usize;
        // L in jobs or seconds: units / 1e6 either way
        let len = self.charger.units(job) as f64 / flows::UNITS_PER_JOB as f64;
        let flow = &mut self.flows[f];
        let tag = flow.last_tag.max(self.vtime) + len / flow.weight;
        flow.last_tag = tag;
        self.queue.push(job.tenant, OrdF64(tag), job.seq, slot);
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, _now: Time) -> Option<Slot> {
        let (OrdF64(tag), slot) = self.queue.pick_keyed(jobs, gate)?;
        self.vtime = self.vtime.max(tag);
        Some(slot)
    }

    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, _now: Time) {
        self.queue.unpark(tenant);
    }

    fn on_finish(&mut self, job: &Job, _now: Time) {
        if !self.charger.settles() {
            return;
        }
        // the debt moves the tags of the flow's jobs queued from now on;
        // jobs already queued keep the tags they were given (see the docs)
        let owed = self.charger.settle(job) as f64 / flows::UNITS_PER_JOB as f64;
        let f = self.flow_of(job) as usize;
        let flow = &mut self.flows[f];
        flow.last_tag += owed / flow.weight;
    }
}

impl Hints for Wfq {
    fn warm_tenant(&self, tenant: TenantId) {
        // flows of classes are few and stay in the cache
        if self.over == flows::Over::Tenant {
            prefetch_item(&self.flows, tenant as usize);
        }
        self.queue.warm(tenant);
    }

    fn warm_queue_back(&self, tenant: TenantId) {
        self.queue.warm_back(tenant);
    }

    fn next_hint(&self) -> Option<(Slot, TenantId)> {
        self.queue.hint()
    }
}

impl Explain for Wfq {
    fn key_kind(&self) -> KeyKind {
        KeyKind::VirtualFinish
    }

    fn explain(&self, jobs: &JobTable, _now: Time, ask: &Ask, out: &mut Vec<Candidate>) {
        let items = (self.queue.heads())
            .filter(|h| (ask.claimable)(jobs.get(h.3)))
            .map(|(OrdF64(tag), seq, tenant, slot)| ((tag, seq), Candidate { tenant, slot, key: Some(tag) }))
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
    fn batch_backlog_interleaves_by_finish_tag() {
        // V = 0 at t=0. Tags: A (w 3) 1/3, 2/3, 1, 4/3, ...; B (w 2) 1/2, 1, 3/2, ...;
        // C (w 1) 1, 2, .... Sorted (ties to the lower job id: A's ids < B's < C's):
        // A 1/3, B 1/2, A 2/3, A 1, B 1, C 1, A 4/3, B 3/2, A 5/3, A 2, B 2, C 2.
        let sc = load_str(
            "workers: 99\ntenants:\n  A: {weight: 3}\n  B: {weight: 2}\n  C: {weight: 1}\nworkload:\n  - {tenant: A, count: 9, service: 1s}\n  - {tenant: B, count: 9, service: 1s}\n  - {tenant: C, count: 9, service: 1s}\npolicies: [wfq]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        assert_eq!(kit.pick_n(12), "ABAABCABAABC");
    }

    #[test]
    fn a_late_flow_starts_at_the_system_virtual_time_not_at_zero() {
        // A (w 1) has 10 unit jobs; 4 are dispatched, so V = 4 (tag of A's 4th).
        // B then arrives with 3 jobs: tags max(0, 4) + 1 = 5, 6, 7, while A's
        // remaining tags are 5..10. A per-tenant counter from 0 (Naeem's article)
        // would give B tags 1, 2, 3 and let it run three jobs in a row.
        let sc = load_str(
            "workers: 99\nworkload:\n  - {tenant: A, count: 10, service: 1s}\n  - {tenant: B, count: 3, at: 1s, service: 1s}\npolicies: [wfq]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_n(10);
        assert_eq!(kit.pick_n(4), "AAAA");
        kit.push_n(3);
        // tags: A 5, B 5 (A's job id is lower), A 6, B 6, A 7, B 7, A 8 ...
        assert_eq!(kit.pick_n(7), "ABABABA");
    }

    #[test]
    fn a_capped_tenant_comes_back_when_unparked() {
        // Equal weights, A (cap 1) and B 3 jobs each at t = 0: tags A 1, 2, 3
        // and B 1, 2, 3, ties to the lower job id. A1 (id 0) -> B1 -> A2 (tag 2,
        // id 1, before B2's id 4) is refused at A's cap: A parked -> B2 -> B3;
        // then nothing. A's job ends: A is unparked and A2 runs.
        let sc = load_str(
            "workers: 99\ntenants: {A: {cap: 1}}\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n  - {tenant: B, count: 3, service: 1s}\npolicies: [wfq]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        let a = kit.pick().expect("A1");
        assert_eq!(kit.pick_n(9), "BBB");
        assert_eq!(kit.skips, ["A:at_cap"]);
        kit.finish(a);
        assert_eq!(kit.pick_n(1), "A");
    }
}

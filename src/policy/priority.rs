//! `priority`: strict priority by class; a lower number runs first (1 before
//! 5), arrival order within a class. Starves lower classes under sustained
//! higher-class demand: that is the point of showing it.

use super::compose::THEN;
use super::ranking::{keep_best, Ask, Candidate, KeyKind};
use super::PolicyInfo;
use super::{Explain, Hints, KeyedQueue, Policy};
use crate::core::{Gate, Job, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{PolicySpec, Scenario, TenantId};
use crate::time::Time;

pub struct Priority {
    class_priority: Vec<i32>,
    queue: KeyedQueue<(i32, Time)>,
}

pub const INFO: PolicyInfo = PolicyInfo {
    name: "priority",
    summary: "strict priority by class (lower number first), arrival order within a class",
    params: &[THEN],
    build,
};

/// With `then`, the classes keep strict priority and a separate instance of
/// the `then` policy orders the jobs inside each class (see `hierarchical.rs`).
pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    if let Some(then) = spec.params.opt::<&PolicySpec>(&THEN) {
        return super::hierarchical::build_priority_then(then, sc);
    }
    Ok(Box::new(Priority {
        class_priority: sc.classes.iter().map(|c| c.priority).collect(),
        queue: KeyedQueue::new(sc.tenants.len()),
    }))
}

impl Policy for Priority {
    fn push(&mut self, job: &Job, slot: Slot, _now: Time) {
        let prio = self.class_priority[job.class as usize];
        self.queue.push(job.tenant, (prio, job.ready), job.seq, slot);
    }
    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, _now: Time) -> Option<Slot> {
        self.queue.pick(jobs, gate)
    }
    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, _now: Time) {
        self.queue.unpark(tenant);
    }
}

impl Hints for Priority {}

impl Explain for Priority {
    fn key_kind(&self) -> KeyKind {
        KeyKind::Priority
    }

    fn explain(&self, jobs: &JobTable, _now: Time, ask: &Ask, out: &mut Vec<Candidate>) {
        let items = (self.queue.heads())
            .filter(|h| (ask.claimable)(jobs.get(h.3)))
            .map(|(k, seq, tenant, slot)| ((k, seq), Candidate { tenant, slot, key: Some(f64::from(k.0)) }))
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
    fn a_capped_tenant_is_passed_over_and_comes_back_when_unparked() {
        // Classes hi (priority 1) and lo (5). A (cap 1) queues 2 hi jobs, B
        // 1 lo job, at t = 0. A's first starts; A's second (hi, before B's
        // lo) is refused at A's cap: A is set aside and B runs; then nothing.
        // A's job ends: A is unparked and its second job runs.
        let sc = load_str(
            "workers: 99\ntenants: {A: {cap: 1}, B: {}}\nclasses: {hi: {priority: 1}, lo: {priority: 5}}\nworkload:\n  - {tenant: A, class: hi, count: 2, service: 1s}\n  - {tenant: B, class: lo, count: 1, service: 1s}\npolicies: [priority]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        let a = kit.pick().expect("A starts");
        assert_eq!(kit.pick_n(9), "B");
        assert_eq!(kit.skips, ["A:at_cap"]);
        kit.finish(a);
        assert_eq!(kit.pick_n(1), "A");
    }
}

//! Hierarchical composition: a class-level policy chooses a class, and a
//! separate instance of the tenant-level (`then`) policy orders the jobs
//! inside each class (the backpressure article's `class priority -> job ordering`).
//!
//! Parking: the gate refuses a *tenant* (at its cap, or its job does not
//! fit), but each class's inner policy only learns it when it proposes that
//! tenant itself. A tenant parked in one class is therefore parked lazily in
//! the others: the first time another class's inner policy proposes it, the
//! gate refuses again with the same reason (the observation log lists each
//! tenant:reason once per tick) and that inner policy parks it too. This
//! costs at most one extra refusal per class per parking episode. `unpark`
//! goes to every class's inner policy, so none keeps a tenant aside longer
//! than the engine does.

use super::Policy;
use crate::core::{Gate, Job, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{ClassId, Param, ParamDefault, ParamKind, PolicySpec, Scenario, TenantId};
use crate::time::Time;

/// `then` of `priority` and `bands`: the policy ordering the tenants inside
/// each class.
pub const THEN: Param = Param {
    name: "then",
    kind: ParamKind::Policy,
    default: ParamDefault::Derived("arrival order (fifo)"),
    doc: "policy ordering the tenants inside each class, e.g. round_robin",
};

/// One inner policy per class, plus the number of jobs each holds.
pub struct ClassLanes {
    lanes: Vec<Box<dyn Policy>>,
    /// Jobs pushed minus jobs picked or expired, per class (parked tenants'
    /// jobs included): a class with 0 is skipped without asking its policy.
    queued: Vec<u64>,
}

impl ClassLanes {
    /// One instance of `then` per class; arrival order (`fifo`) without it.
    pub fn new(then: Option<&PolicySpec>, sc: &Scenario) -> Result<Self, ParamError> {
        let fifo = PolicySpec::named("fifo");
        let inner = then.unwrap_or(&fifo);
        let mut lanes = Vec::with_capacity(sc.classes.len());
        for _ in &sc.classes {
            lanes.push(super::build(inner, sc).map_err(|e| ParamError {
                param: Some("then"),
                message: format!("`then: {}`: {}", inner.kind, e.message),
            })?);
        }
        Ok(ClassLanes { lanes, queued: vec![0; sc.classes.len()] })
    }

    pub fn push(&mut self, job: &Job, slot: Slot, now: Time) {
        self.queued[job.class as usize] += 1;
        self.lanes[job.class as usize].push(job, slot, now);
    }

    /// Whether class `c` holds queued jobs (claimable or parked).
    pub fn has_work(&self, c: ClassId) -> bool {
        self.queued[c as usize] > 0
    }

    /// The next job of class `c` by its inner policy, or `None` when none of
    /// its jobs may start now.
    pub fn pick(&mut self, c: ClassId, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot> {
        let c = c as usize;
        if self.queued[c] == 0 {
            return None;
        }
        let expired_before = gate.expired.len();
        let pick = self.lanes[c].pick(jobs, gate, now);
        self.queued[c] -= (gate.expired.len() - expired_before) as u64 + pick.is_some() as u64;
        pick
    }

    pub fn unpark(&mut self, tenant: TenantId, jobs: &JobTable, now: Time) {
        for lane in &mut self.lanes {
            lane.unpark(tenant, jobs, now);
        }
    }

    pub fn on_finish(&mut self, job: &Job, now: Time) {
        self.lanes[job.class as usize].on_finish(job, now);
    }

    pub fn next_wakeup(&self) -> Option<Time> {
        self.lanes.iter().filter_map(|l| l.next_wakeup()).min()
    }

    /// The hint of the first class in `order` holding jobs: the lane a pick
    /// most likely serves (see [`Policy::next_hint`]).
    pub fn next_hint(&self, order: &[ClassId]) -> Option<(Slot, TenantId)> {
        let &c = order.iter().find(|&&c| self.has_work(c))?;
        self.lanes[c as usize].next_hint()
    }

    /// The arriving job's class is not known here: every lane warms.
    pub fn warm_tenant(&self, tenant: TenantId) {
        self.lanes.iter().for_each(|l| l.warm_tenant(tenant));
    }

    pub fn warm_queue_back(&self, tenant: TenantId) {
        self.lanes.iter().for_each(|l| l.warm_queue_back(tenant));
    }
}

/// The methods a policy over [`ClassLanes`] hands to its lanes unchanged
/// (bands and hierarchical), for a struct with the fields `lanes:
/// ClassLanes` and `order: Vec<ClassId>` (its classes in priority order).
/// `lanes_forward!(Policy)` inside its `impl Policy` gives `push`, `unpark`,
/// `on_finish` and the lanes' wake-ups; `lanes_forward!(Hints for T)` its
/// hints: those of the top-priority class with work, the lane a pick most
/// likely serves (a floor may send the pick elsewhere, which costs only
/// the hint).
macro_rules! lanes_forward {
    (Policy) => {
        fn push(&mut self, job: &$crate::core::Job, slot: $crate::core::Slot, now: $crate::time::Time) {
            self.lanes.push(job, slot, now);
        }

        fn unpark(
            &mut self,
            tenant: $crate::model::TenantId,
            jobs: &$crate::core::JobTable,
            now: $crate::time::Time,
        ) {
            self.lanes.unpark(tenant, jobs, now);
        }

        fn on_finish(&mut self, job: &$crate::core::Job, now: $crate::time::Time) {
            self.lanes.on_finish(job, now);
        }

        fn next_wakeup(&self) -> Option<$crate::time::Time> {
            self.lanes.next_wakeup()
        }

        // a lane's policy may wake (a planner inside a class)
        fn may_wake(&self) -> bool {
            true
        }
    };
    (Hints for $ty:ty) => {
        impl $crate::policy::Hints for $ty {
            fn next_hint(&self) -> Option<($crate::core::Slot, $crate::model::TenantId)> {
                self.lanes.next_hint(&self.order)
            }

            fn warm_tenant(&self, tenant: $crate::model::TenantId) {
                self.lanes.warm_tenant(tenant);
            }

            fn warm_queue_back(&self, tenant: $crate::model::TenantId) {
                self.lanes.warm_queue_back(tenant);
            }
        }
    };
}
pub(super) use lanes_forward;

/// Classes in strict priority order: lower number first, then declaration order.
pub fn priority_order(sc: &Scenario) -> Vec<ClassId> {
    let mut order: Vec<ClassId> = (0..sc.classes.len() as ClassId).collect();
    order.sort_by_key(|&c| (sc.classes[c as usize].priority, c));
    order
}

#[cfg(test)]
mod tests {
    use crate::policy::testkit::Kit;
    use crate::scenario::load_str;
    use std::path::Path;

    /// Two workers, A and B with 5 jobs each at t = 0, one class, `policy`
    /// composed over `then: drf`: the tenant of the pick after B's first job
    /// ends.
    fn after_b_finishes(policy: &str) -> String {
        let sc = load_str(
            &format!("workers: 2\nworkload:\n  - {{tenant: A, count: 5, service: 1s}}\n  - {{tenant: B, count: 5, service: 1s}}\npolicies: [{{policy: {policy}, then: drf}}]\n"),
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        assert_eq!(kit.pick_n(1), "A");
        let b = kit.pick().expect("B starts");
        kit.finish(b);
        kit.pick_n(1)
    }

    #[test]
    fn a_finish_reaches_the_inner_policy_of_its_class() {
        // drf inside the class: a running job is 1/2 of the 2 workers.
        // A (tie at 0, listed first) -> 1/2, B -> 1/2; B's job ends and drf
        // gives its share back: B 0 < A 1/2 -> B. A composition that did not
        // pass the finish on would leave B at 1/2, tied with A, whose share
        // changed first: A.
        assert_eq!(after_b_finishes("bands"), "B");
        assert_eq!(after_b_finishes("hierarchical"), "B");
        assert_eq!(after_b_finishes("priority"), "B");
    }

    #[test]
    fn jobs_dropped_in_one_class_are_not_counted_against_another() {
        // hierarchical over classes hi (priority 1) and lo (5), edf with
        // `late: drop` inside each; one worker's worth of picks at t = 0.
        // hi holds one job of 10 s due at 5 s: it cannot make it, so hi's edf
        // drops it and offers nothing; lo then starts L's first job. lo still
        // holds 2 jobs, and the next two picks start them: "LLL". Counting
        // hi's dropped job against lo as well would leave lo's count at 0
        // with 2 jobs queued, and lo would be skipped: "L".
        let sc = load_str(
            "workers: 99\nclasses: {hi: {priority: 1}, lo: {priority: 5}}\nworkload:\n  - {tenant: H, class: hi, count: 1, service: 10s, deadline: 5s}\n  - {tenant: L, class: lo, count: 3, service: 1s}\npolicies: [{policy: hierarchical, then: {policy: edf, late: drop}}]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        assert_eq!(kit.pick_n(9), "LLL");
    }
}

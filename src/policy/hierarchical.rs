//! `hierarchical` (and `priority` with `then`): strict class priority at the
//! top, a tenant-level policy inside each class, e.g. `{policy: priority,
//! then: round_robin}`: interactive jobs always go before bulk ones, and
//! within a class the tenants take turns instead of the heaviest one
//! owning the class.
//!
//! `hierarchical` is the same policy under the name the scenario format
//! documents: `{policy: hierarchical, over: classes, then: drr}`; `over`
//! may only be `classes` and `then` defaults to `round_robin`.
//!
//! Classes of equal priority go in declaration order (not interleaved).
//! Cost per dispatch: O(classes) asks of the inner policies in the worst
//! case, each at the inner policy's own cost (O(log n) for the shipped ones).

use super::compose::{priority_order, ClassLanes};
use super::Policy;
use super::PolicyInfo;
use crate::core::{Gate, Job, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{ClassId, Param, ParamDefault, ParamKind, PolicySpec, Scenario, TenantId};
use crate::time::Time;

pub struct PriorityThen {
    order: Vec<ClassId>,
    lanes: ClassLanes,
}

const OVER: Param = Param {
    name: "over",
    kind: ParamKind::Word(&["classes"]),
    default: ParamDefault::Word("classes"),
    doc: "grouping of the top level (only classes)",
};

const THEN: Param = Param {
    name: "then",
    kind: ParamKind::Policy,
    default: ParamDefault::Derived("round_robin"),
    doc: "policy ordering the tenants inside each class",
};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "hierarchical",
    summary:
        "strict class priority, then a tenant-level policy inside each class (same as priority with `then`)",
    params: &[OVER, THEN],
    build,
};

/// `priority` with `then` set.
pub fn build_priority_then(then: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    Ok(Box::new(PriorityThen { order: priority_order(sc), lanes: ClassLanes::new(Some(then), sc)? }))
}

/// `hierarchical`.
pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    let round_robin = PolicySpec::named("round_robin");
    build_priority_then(spec.params.opt(&THEN).unwrap_or(&round_robin), sc)
}

impl Policy for PriorityThen {
    fn push(&mut self, job: &Job, slot: Slot, now: Time) {
        self.lanes.push(job, slot, now);
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot> {
        for i in 0..self.order.len() {
            if let Some(slot) = self.lanes.pick(self.order[i], jobs, gate, now) {
                return Some(slot);
            }
        }
        None
    }

    fn unpark(&mut self, tenant: TenantId, jobs: &JobTable, now: Time) {
        self.lanes.unpark(tenant, jobs, now);
    }

    fn on_finish(&mut self, job: &Job, now: Time) {
        self.lanes.on_finish(job, now);
    }

    fn next_wakeup(&self) -> Option<Time> {
        self.lanes.next_wakeup()
    }

    fn may_wake(&self) -> bool {
        true
    }

    fn next_hint(&self) -> Option<(Slot, TenantId)> {
        self.lanes.next_hint(&self.order)
    }

    fn warm_tenant(&self, tenant: TenantId) {
        self.lanes.warm_tenant(tenant);
    }

    fn warm_queue_back(&self, tenant: TenantId) {
        self.lanes.warm_queue_back(tenant);
    }
}

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
use crate::engine::{Gate, Job, JobTable, Slot};
use crate::scenario::{ClassId, PolicySpec, Scenario, TenantId};
use crate::time::Time;

pub struct PriorityThen {
    order: Vec<ClassId>,
    lanes: ClassLanes,
}

/// `priority` with `then` set.
pub fn build_priority_then(then: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, String> {
    Ok(Box::new(PriorityThen { order: priority_order(sc), lanes: ClassLanes::new(Some(then), sc)? }))
}

/// `hierarchical`.
pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, String> {
    if let Some(over) = spec.params.over.as_deref() {
        if over != "classes" {
            return Err(format!(
                "`over: {over}` is not supported by hierarchical; it groups by class: use `over: classes` (or drop the key)"
            ));
        }
    }
    let round_robin =
        PolicySpec { kind: "round_robin".into(), label: "round_robin".into(), ..Default::default() };
    build_priority_then(spec.params.then.as_deref().unwrap_or(&round_robin), sc)
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
}

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

use super::compose::{lanes_forward, priority_order, ClassLanes};
use super::PolicyInfo;
use super::{Explain, Policy};
use crate::core::{Gate, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{ClassId, Param, ParamDefault, ParamKind, PolicySpec, Scenario};
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
    lanes_forward!(Policy);

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot> {
        for i in 0..self.order.len() {
            if let Some(slot) = self.lanes.pick(self.order[i], jobs, gate, now) {
                return Some(slot);
            }
        }
        None
    }
}

lanes_forward!(Hints for PriorityThen);

impl Explain for PriorityThen {}

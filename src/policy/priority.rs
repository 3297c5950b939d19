//! `priority`: strict priority by class; a lower number runs first (1 before
//! 5), arrival order within a class. Starves lower classes under sustained
//! higher-class demand: that is the point of showing it.

use super::compose::THEN;
use super::PolicyInfo;
use super::{KeyedQueue, Policy};
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

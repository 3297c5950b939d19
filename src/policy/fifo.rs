//! `fifo`: the oldest claimable job runs next (global arrival order). A job
//! whose tenant is at its cap is passed over, and the next-oldest runs.

use super::{KeyedQueue, Policy};
use crate::engine::{Gate, Job, JobTable, Slot};
use crate::scenario::{PolicySpec, Scenario, TenantId};
use crate::time::Time;

pub struct Fifo {
    queue: KeyedQueue<Time>,
}

pub fn build(_spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, String> {
    Ok(Box::new(Fifo { queue: KeyedQueue::new(sc.tenants.len()) }))
}

impl Policy for Fifo {
    fn push(&mut self, job: &Job, slot: Slot, _now: Time) {
        // Keyed by when the job became claimable, so a retried job queues behind
        // jobs that were already waiting.
        self.queue.push(job.tenant, job.ready, job.seq, slot);
    }
    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, _now: Time) -> Option<Slot> {
        self.queue.pick(jobs, gate)
    }
    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, _now: Time) {
        self.queue.unpark(tenant);
    }
}

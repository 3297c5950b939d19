//! `edf`: earliest deadline first, or least slack first (the backpressure article's
//! "deadlines and slack").
//!
//! - `order: deadline` (default): the job due soonest runs next.
//! - `order: slack`: the job with the least slack runs next, where
//!   `slack = deadline - now - service` (the simulator knows each job's
//!   service time; a real scheduler would use its estimate). At any instant
//!   every queued job sees the same `now`, so ordering by slack is ordering
//!   by the static key `deadline - service`: a [`KeyedQueue`] keeps it, no
//!   re-sorting as time passes. Service is non-preemptive, so a job's
//!   remaining service is its whole service time (a retry starts over).
//!
//! Jobs without a deadline sort after every job that has one, in arrival
//! order among themselves: deadlines are promises, the rest is best effort.
//! Ties go to the earlier ready time, then the lower job id.
//!
//! `late: run` (default) runs a job even when it can no longer meet its
//! deadline. `late: drop` expires it instead (`Outcome::Expired`, counted as
//! a deadline miss): when the job is at the head of the order and
//! `now + service > deadline` (negative slack), it is removed and the next
//! one is considered. A late job whose tenant is parked is only checked once
//! the tenant is back in the running.
//!
//! Cost: O(log n) per dispatch, plus O(log n) per expired job.

use super::ranking::{keep_best, secs, Ask, Candidate, KeyKind};
use super::PolicyInfo;
use super::{Explain, Hints, KeyedQueue, Policy};
use crate::core::{Gate, Job, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{Param, ParamDefault, ParamKind, PolicySpec, Scenario, TenantId};
use crate::time::Time;

/// (no deadline, deadline or deadline - service, ready): lower runs first.
type EdfKey = (bool, i128, Time);

pub struct Edf {
    by_slack: bool,
    drop_late: bool,
    queue: KeyedQueue<EdfKey>,
}

const ORDER: Param = Param {
    name: "order",
    kind: ParamKind::Word(&["deadline", "slack"]),
    default: ParamDefault::Word("deadline"),
    doc: "deadline: earliest deadline first; slack: least slack (deadline - now - service) first",
};

const LATE: Param = Param {
    name: "late",
    kind: ParamKind::Word(&["run", "drop"]),
    default: ParamDefault::Word("run"),
    doc: "run: run late jobs anyway; drop: expire a job whose slack is negative when it would start",
};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "edf",
    summary: "earliest deadline first (or least slack first); jobs without a deadline last; optionally drops jobs that can no longer make it",
    params: &[ORDER, LATE],
    build,
};

pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    let by_slack = spec.params.get::<&str>(&ORDER)? == "slack";
    let drop_late = spec.params.get::<&str>(&LATE)? == "drop";
    Ok(Box::new(Edf { by_slack, drop_late, queue: KeyedQueue::new(sc.tenants.len()) }))
}

impl Edf {
    fn key(&self, job: &Job) -> EdfKey {
        match job.deadline {
            None => (true, 0, job.ready),
            Some(d) => {
                let k = if self.by_slack { d as i128 - job.service as i128 } else { d as i128 };
                (false, k, job.ready)
            }
        }
    }
}

/// Whether `job` can no longer finish by its deadline if it starts at `now`.
fn is_late(job: &Job, now: Time) -> bool {
    job.deadline.is_some_and(|d| now.saturating_add(job.service) > d)
}

impl Policy for Edf {
    fn push(&mut self, job: &Job, slot: Slot, _now: Time) {
        let key = self.key(job);
        self.queue.push(job.tenant, key, job.seq, slot);
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot> {
        loop {
            let (_, _, tenant, slot) = self.queue.peek()?;
            let job = jobs.get(slot);
            if self.drop_late && is_late(job, now) {
                self.queue.pop_tenant(tenant);
                gate.expire(slot);
                continue;
            }
            if gate.admit(job) {
                self.queue.pop_tenant(tenant);
                return Some(slot);
            }
            self.queue.park(tenant);
        }
    }

    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, _now: Time) {
        self.queue.unpark(tenant);
    }
}

impl Hints for Edf {}

impl Explain for Edf {
    fn key_kind(&self) -> KeyKind {
        match self.by_slack {
            true => KeyKind::Slack,
            false => KeyKind::Deadline,
        }
    }

    /// Keys in seconds: the deadline, or the slack at `now` (deadline minus
    /// now minus service, ordered as the queue's deadline minus service);
    /// none without a deadline.
    fn explain(&self, jobs: &JobTable, now: Time, ask: &Ask, out: &mut Vec<Candidate>) {
        let items = (self.queue.heads())
            .filter(|h| (ask.claimable)(jobs.get(h.3)))
            .map(|((none, k, ready), seq, tenant, slot)| {
                let key = match (none, self.by_slack) {
                    (true, _) => None,
                    (false, true) => Some(secs(k - now as i128)),
                    (false, false) => Some(secs(k)),
                };
                ((none, k, ready, seq), Candidate { tenant, slot, key })
            })
            .collect();
        keep_best(items, ask.limit, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::JobState;
    use crate::time::SECOND;

    fn job(seq: u64, ready: Time, service: Time, deadline: Option<Time>) -> Job {
        Job {
            seq,
            tenant: 0,
            class: 0,
            arrival: ready,
            ready,
            service,
            deadline,
            cost: [0; 4],
            failures: 0,
            max_attempts: 1,
            attempts: 0,
            slices: 0,
            admission: 0,
            first_start: None,
            state: JobState::Queued,
            queue: 0,
            pool: 0,
            declared_entry: 0,
        }
    }

    #[test]
    fn slack_key_is_deadline_minus_service_and_no_deadline_sorts_last() {
        let edf = Edf { by_slack: true, drop_late: false, queue: KeyedQueue::new(1) };
        // due at 10 s needing 8 s has slack 2 s at t = 0; due at 5 s needing 1 s has 4 s
        let a = edf.key(&job(0, 0, 8 * SECOND, Some(10 * SECOND)));
        let b = edf.key(&job(1, 0, SECOND, Some(5 * SECOND)));
        let none = edf.key(&job(2, 0, SECOND, None));
        assert_eq!(a.1, 2 * SECOND as i128);
        assert!(a < b && b < none);
        let by_deadline = Edf { by_slack: false, ..edf };
        assert!(
            by_deadline.key(&job(1, 0, SECOND, Some(5 * SECOND)))
                < by_deadline.key(&job(0, 0, 8 * SECOND, Some(10 * SECOND)))
        );
    }

    #[test]
    fn late_means_negative_slack() {
        let j = job(0, 0, 3 * SECOND, Some(10 * SECOND));
        assert!(!is_late(&j, 7 * SECOND), "slack 0 still meets the deadline");
        assert!(is_late(&j, 7 * SECOND + 1));
        assert!(!is_late(&job(1, 0, SECOND, None), u64::MAX / 2));
    }
}

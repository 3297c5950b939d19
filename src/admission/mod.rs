//! Admission: the stage between the workload and ordering that decides, for
//! each arrival, whether the system takes it on. Rules that reject or defer
//! (depth limits, rate limits, predicted delay) implement [`Admission`]; a
//! rejected job ends at once with outcome `rejected` and never reaches a
//! policy. A scenario without `admission:` runs with [`AcceptAll`]; its
//! rules run as [`rules::Rules`].

pub mod backlog;
pub mod limit;
pub mod rules;

use crate::core::{Job, TenantLoad};
use crate::time::Time;

/// What admission decides for one arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The job is queued for the policy.
    Accept,
    /// The job is refused for good (outcome `rejected`) by rule `rule`.
    Reject { rule: u16 },
    /// Refused; the producer sends it again `after` later, at most `max`
    /// times in all.
    Retry { rule: u16, after: Time, max: u8 },
    /// Taken, claimable only at `until`.
    Defer { rule: u16, until: Time },
}

/// An admission rule set, consulted once per arrival in arrival order.
pub trait Admission {
    /// Decides for `job`, arriving at `now`, given the tenants' current
    /// queued and running counts.
    fn decide(&mut self, job: &Job, now: Time, loads: &[TenantLoad]) -> Decision;

    /// A deferred job became claimable.
    fn on_claimable(&mut self, _job: &Job) {}

    /// An admitted job left the queue for the first time at `now` (started,
    /// its state then `Running`, or expired before it ever started).
    fn on_left_queue(&mut self, _job: &Job, _now: Time) {}

    /// The pool now has `workers` workers (a `capacity:` change): what
    /// predicts a job's wait drains at the new rate.
    fn on_capacity(&mut self, _workers: u64) {}

    /// Whether the engine must report [`Admission::on_claimable`] and
    /// [`Admission::on_left_queue`].
    fn counts_queue(&self) -> bool {
        false
    }

    /// The name of rule `rule`, for messages.
    fn rule_name(&self, _rule: u16) -> &str {
        ""
    }
}

/// Takes every job: the behaviour of a queue without admission control.
pub struct AcceptAll;

impl Admission for AcceptAll {
    fn decide(&mut self, _job: &Job, _now: Time, _loads: &[TenantLoad]) -> Decision {
        Decision::Accept
    }
}

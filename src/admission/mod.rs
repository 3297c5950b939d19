//! Admission: the stage between the workload and ordering that decides, for
//! each arrival, whether the system takes it on. Rules that reject or defer
//! (depth limits, rate limits, predicted delay) implement [`Admission`]; a
//! rejected job ends at once with outcome `rejected` and never reaches a
//! policy. Today every scenario runs with [`AcceptAll`].

use crate::core::{Job, TenantLoad};
use crate::time::Time;

/// What admission decides for one arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The job is queued for the policy.
    Accept,
    /// The job is refused for good (outcome `rejected`).
    Reject,
}

/// An admission rule set, consulted once per arrival in arrival order.
pub trait Admission {
    /// Decides for `job`, arriving at `now`, given the tenants' current
    /// queued and running counts.
    fn decide(&mut self, job: &Job, now: Time, loads: &[TenantLoad]) -> Decision;
}

/// Takes every job: the behaviour of a queue without admission control.
pub struct AcceptAll;

impl Admission for AcceptAll {
    fn decide(&mut self, _job: &Job, _now: Time, _loads: &[TenantLoad]) -> Decision {
        Decision::Accept
    }
}

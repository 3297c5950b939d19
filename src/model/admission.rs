//! Admission rules: which arrivals the system takes on, refuses, or puts off.

use super::{ClassId, TenantId, Throttle};
use crate::time::Time;

/// Which jobs a rule counts together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope<T> {
    /// Every job, in one count (the key is absent).
    All,
    /// `*`: each tenant (or class) counted separately.
    Each,
    /// Only this tenant's (class's) jobs.
    One(T),
}

/// What a rule limits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Limit {
    /// At most this many admitted jobs waiting to start for the first time
    /// (`max_queued`).
    Queued(u64),
    /// At most this much service (µs) in admitted jobs waiting to start for
    /// the first time (`max_queued_work`); a job fits when the work queued
    /// plus its own stays within it.
    QueuedWork(Time),
    /// An enqueue rate: a leaky bucket, a sliding or a fixed window over
    /// admissions.
    Rate(Throttle),
    /// A job is refused when its predicted start (or, against a deadline,
    /// finish) lies past `bound` (`predict`, `max_wait`).
    Delay { predict: Predictor, bound: Bound },
}

/// How a delay rule predicts when an arriving job would start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Predictor {
    /// `backlog`: the scope's outstanding work (queued service plus the
    /// remaining service of its running jobs) over the drain rate, every
    /// worker of the run (the backpressure article's B/μ).
    Backlog,
    /// `oldest`: the age of the scope's oldest claimable job, as measured.
    Oldest,
}

/// What a predicted delay is held against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// `max_wait: 30s`: the wait from arrival to start.
    Wait(Time),
    /// `max_wait: sla`: the job's class `sla`; jobs of a class without one
    /// pass.
    Sla,
    /// `max_wait: deadline`: the predicted finish (start plus the job's
    /// service) against the job's own deadline; jobs without one pass.
    Deadline,
}

/// What happens to a job the rule refuses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// Refused for good: outcome `rejected`.
    Reject,
    /// Refused; the producer sends the same job again `after` later, at
    /// most `max` times, then gives up (outcome `rejected`).
    Retry { after: Time, max: u8 },
    /// Taken, but claimable only `by` later (a `not_before`).
    Defer { by: Time },
}

/// One admission rule, checked in order at each arrival; the first rule that
/// refuses decides.
#[derive(Debug, Clone, PartialEq)]
pub struct AdmissionRule {
    pub tenant: Scope<TenantId>,
    pub class: Scope<ClassId>,
    pub limit: Limit,
    pub action: Action,
    /// A short name for messages and the `reason` counts: `rule 1`, ...
    pub name: String,
}

impl AdmissionRule {
    /// Whether the rule applies to a job of `tenant` in `class`.
    pub fn matches(&self, tenant: TenantId, class: ClassId) -> bool {
        !matches!(self.tenant, Scope::One(t) if t != tenant)
            && !matches!(self.class, Scope::One(c) if c != class)
    }

    /// The count the job falls in: (tenant key, class key), `u32::MAX` for a
    /// scope counted as one.
    pub fn key(&self, tenant: TenantId, class: ClassId) -> (u32, u32) {
        let t = if self.tenant == Scope::Each { tenant } else { u32::MAX };
        let c = if self.class == Scope::Each { u32::from(class) } else { u32::MAX };
        (t, c)
    }
}

/// A named rule set (`admission_sets: {NAME: [rules]}`), for policy entries
/// that run under rules of their own.
#[derive(Debug, Clone, PartialEq)]
pub struct AdmissionSet {
    pub name: String,
    pub rules: Vec<AdmissionRule>,
}

/// The rules a policy entry's run is admitted under (`admission:` on the
/// entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AdmissionChoice {
    /// The scenario's top-level `admission:` list (none: every job taken).
    #[default]
    Shared,
    /// `admission: none`: every job taken, whatever the top-level rules.
    Off,
    /// `admission: NAME`: the set at this index of
    /// [`super::Scenario::admission_sets`].
    Set(usize),
}

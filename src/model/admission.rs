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
    /// An enqueue rate: a leaky bucket or a sliding window over admissions.
    Rate(Throttle),
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

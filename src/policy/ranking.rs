//! What a policy tells `fairsim run --decisions` about a choice: the kind of
//! key it orders claimable work by, and the head job of each claimable
//! tenant with its key, best first ([`Explain`]).
//!
//! Asked only when decisions are recorded, before each pick, so a run
//! without `--decisions` never builds a ranking. A policy that does not
//! explain itself reports [`KeyKind::None`] and no candidates.

use crate::core::{Job, JobTable, Slot};
use crate::model::TenantId;
use crate::time::Time;

/// How a [`super::Policy`] explains its choices; the defaults explain
/// nothing (`KeyKind::None`, no candidates), which decisions.csv then says.
pub trait Explain {
    /// What [`Explain::explain`]'s keys mean (decisions.csv's `key_kind`).
    fn key_kind(&self) -> KeyKind {
        KeyKind::None
    }
    /// Appends to `out` the head job of each claimable tenant with its key,
    /// best first (at least `ask.limit` of them when there are that many).
    /// Called only by `fairsim run --decisions`, before each pick, so it
    /// may scan; must not change state.
    fn explain(&self, _jobs: &JobTable, _now: Time, _ask: &Ask, _out: &mut Vec<Candidate>) {}
}

/// What the `key` column of decisions.csv means for a policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// The policy does not explain its choices.
    None,
    /// fifo: when the job became claimable, in seconds (smaller first).
    Arrival,
    /// wfq: the job's virtual finish tag (smaller first).
    VirtualFinish,
    /// drr: the credit the flow has for its visit, in cost units (visit order).
    Deficit,
    /// drf: the tenant's dominant share / weight (smaller first).
    DominantShare,
    /// share: the flow's service in the window / weight (smaller first).
    RecentShare,
    /// edf: the job's deadline, in seconds (earlier first).
    Deadline,
    /// edf with `order: slack`: deadline - now - service, in seconds.
    Slack,
    /// priority: the class priority (lower first).
    Priority,
    /// aging: class priority minus the levels earned by waiting.
    EffectivePriority,
    /// round_robin: the tenant's turn in the rotation (1 = next).
    Turn,
    /// lottery: the flow's tickets (weight x 10^6; drawn at random, in
    /// proportion).
    Tickets,
}

impl KeyKind {
    pub fn as_str(self) -> &'static str {
        match self {
            KeyKind::None => "none",
            KeyKind::Arrival => "arrival",
            KeyKind::VirtualFinish => "virtual_finish",
            KeyKind::Deficit => "deficit",
            KeyKind::DominantShare => "dominant_share",
            KeyKind::RecentShare => "recent_share",
            KeyKind::Deadline => "deadline",
            KeyKind::Slack => "slack",
            KeyKind::Priority => "priority",
            KeyKind::EffectivePriority => "effective_priority",
            KeyKind::Turn => "turn",
            KeyKind::Tickets => "tickets",
        }
    }
}

/// A claimable tenant's head job and its key (`None`: the job has no key,
/// e.g. no deadline under edf).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub tenant: TenantId,
    pub slot: Slot,
    pub key: Option<f64>,
}

/// What the engine asks for: at least the `limit` best candidates (a
/// policy may list more), among jobs for which `claimable` holds (the
/// gate's cap and fit checks as they stand before the pick).
pub struct Ask<'a> {
    pub limit: usize,
    pub claimable: &'a dyn Fn(&Job) -> bool,
}

/// Sorts `(order, candidate)` pairs by `order` and appends the `limit`
/// best candidates to `out`.
pub fn keep_best<O: PartialOrd>(mut items: Vec<(O, Candidate)>, limit: usize, out: &mut Vec<Candidate>) {
    items.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
    out.extend(items.into_iter().take(limit).map(|(_, c)| c));
}

/// Microseconds as seconds, for keys that are times.
pub fn secs(t: i128) -> f64 {
    t as f64 / crate::time::SECOND as f64
}

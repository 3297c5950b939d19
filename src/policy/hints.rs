//! Hints: what a policy may tell the engine ahead of time so that the
//! memory its next step touches is already in the cache (see
//! [`crate::prefetch`]). They never change what runs: a wrong, stale or
//! missing hint costs the prefetch and nothing else, so having none (the
//! defaults) is always correct, only slower on wide runs.

use crate::core::Slot;
use crate::model::TenantId;

/// Cache hints of a [`super::Policy`]; every method is optional.
pub trait Hints {
    /// A cheap guess, from what the policy has at hand, of the job (and its
    /// tenant) that its next `pick` will propose; `None` when it has no
    /// guess. The engine only prefetches their memory, so a policy may also
    /// prefetch its own state for that pick here.
    fn next_hint(&self) -> Option<(Slot, TenantId)> {
        None
    }
    /// A job of `tenant` arrives soon: prefetch what `push` will touch for
    /// it. Must not change state.
    fn warm_tenant(&self, _tenant: TenantId) {}
    /// Second stage of [`Hints::warm_tenant`], a few arrivals later, when
    /// what the first stage loaded is in the cache: prefetch what `push`
    /// reaches through it (the back of the tenant's queue, which a push
    /// links the new job behind). Must not change state.
    fn warm_queue_back(&self, _tenant: TenantId) {}
}

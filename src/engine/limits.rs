//! Start limits outside a topology's pools: the default pool's limiter
//! (top-level `limiter:`) and the limiters of groups of tenants
//! (`start_limits:`, under any topology). The rate arithmetic is
//! admission's, through [`Limiter`]; a job held back waits claimable and
//! its tenant is passed over `rate_limited`.
//!
//! The default pool's limiter stops the dispatch while it allows no start
//! and wakes it at the instant it does. A group's is asked by the gate for
//! the job a policy proposes ([`StartCounter`]): refused, the tenant is
//! set aside (parked) until the group's limiter allows a start again, so
//! no dispatch asks for it in between.

use super::Engine;
use crate::core::{Skip, StartCounter};
use crate::model::{Scenario, TenantId};
use crate::time::Time;
use crate::topology::limiter::Limiter;

/// One group's limiter and the tenants it set aside.
pub(super) struct Group {
    limiter: Limiter,
    parked: Vec<TenantId>,
}

/// The groups, as the gate counts their starts.
#[derive(Default)]
pub(super) struct Groups(Vec<Group>);

impl StartCounter for Groups {
    fn try_start(&mut self, group: u32, now: Time) -> bool {
        let g = &mut self.0[group as usize];
        let allowed = g.limiter.allows(now);
        if allowed {
            g.limiter.count(now);
        }
        allowed
    }

    fn set_aside(&mut self, group: u32, tenant: TenantId) {
        self.0[group as usize].parked.push(tenant);
    }
}

/// What the engine keeps for a run with start limits.
pub(super) struct StartLimits {
    /// The default pool's (none under a topology).
    pool: Option<Limiter>,
    pub(super) groups: Groups,
    /// The log tick whose waiting tenants were last passed over for the
    /// default pool's limiter (once per tick, as a topology's pools are).
    listed: u64,
}

impl StartLimits {
    /// `None` when the run limits no start outside its topology's pools.
    pub(super) fn new(sc: &Scenario) -> Option<Box<Self>> {
        let pool = sc.limiter.filter(|_| sc.run_topology().is_none()).map(Limiter::new);
        if pool.is_none() && sc.start_limits.is_empty() {
            return None;
        }
        let groups =
            sc.start_limits.iter().map(|g| Group { limiter: Limiter::new(g.limit), parked: Vec::new() });
        Some(Box::new(StartLimits { pool, groups: Groups(groups.collect()), listed: 0 }))
    }

    /// The next instant a limiter that holds work back allows a start.
    pub(super) fn next(&self, queued: bool) -> Time {
        if !queued {
            return Time::MAX;
        }
        let pool = self.pool.as_ref().and_then(|l| l.held_until).unwrap_or(Time::MAX);
        let groups =
            self.groups.0.iter().filter(|g| !g.parked.is_empty()).filter_map(|g| g.limiter.held_until);
        groups.fold(pool, Time::min)
    }

    /// The tenants set aside by a group, still set aside (for lending and the log).
    pub(super) fn parked(&self) -> impl Iterator<Item = TenantId> + '_ {
        self.groups.0.iter().flat_map(|g| g.parked.iter().copied())
    }
}

/// Which group counts each tenant's starts, for [`crate::core::TenantLoad::limited`].
pub(super) fn mark_groups(sc: &Scenario, loads: &mut [crate::core::TenantLoad]) {
    for (i, g) in sc.start_limits.iter().enumerate() {
        for &t in &g.tenants {
            loads[t as usize].limited = i as u32 + 1;
        }
    }
}

impl Engine<'_> {
    /// Whether the default pool's limiter allows a start now; when not, the
    /// waiting tenants are passed over `rate_limited` (once per tick).
    pub(super) fn pool_allows(&mut self) -> bool {
        let now = self.now;
        let Some(l) = self.limits.as_mut() else { return true };
        let Some(p) = l.pool.as_mut() else { return true };
        if p.allows(now) {
            return true;
        }
        let tick = crate::topology::tick_of(now, self.sc.tick);
        if l.listed != tick && self.rec.logs_skips() {
            l.listed = tick;
            self.rec.skip_waiting(Skip::RateLimited);
        }
        false
    }

    /// A job was claimed: the default pool's limiter counts the start.
    pub(super) fn count_pool_start(&mut self) {
        let now = self.now;
        if let Some(p) = self.limits.as_mut().and_then(|l| l.pool.as_mut()) {
            p.count(now);
        }
    }

    /// At `now` the limiters whose wait ends allow a start again: the
    /// default pool dispatches, and the tenants a group set aside are
    /// claimable again.
    pub(super) fn end_limits(&mut self) {
        let now = self.now;
        let Some(mut l) = self.limits.take() else { return };
        if let Some(p) = l.pool.as_mut() {
            if p.held_until.is_some_and(|t| t <= now) {
                p.held_until = None;
            }
        }
        for g in &mut l.groups.0 {
            if g.parked.is_empty() || g.limiter.held_until.is_some_and(|t| t > now) {
                continue;
            }
            g.limiter.held_until = None;
            for t in g.parked.drain(..) {
                if self.loads[t as usize].parked == Some(Skip::RateLimited) {
                    self.loads[t as usize].parked = None;
                    self.policy.unpark(t, &self.jobs, now);
                }
            }
        }
        self.limits = Some(l);
    }
}

//! Eligibility at claim time: the engine's per-tenant caps and resource fit,
//! checked for the job a policy proposes. Policies never enforce caps.

use crate::model::{Res, TenantId, MAX_RESOURCES};

use super::job::{Job, Slot};

/// Why a tenant with waiting work was passed over. Written to the
/// observation log as `tenant:reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Skip {
    /// The tenant already runs `cap` jobs.
    AtCap,
    /// Its next job's resource vector does not fit the free capacity.
    NoFit,
    /// DRR: the tenant's deficit does not cover its next job yet.
    Deficit,
    /// Its jobs wait in a queue its throttle sent them to, which the
    /// worker that fetched did not reach (or no idle worker polls).
    Throttled,
    /// Its jobs wait in a queue that no idle worker's pool polls.
    NotSubscribed,
    /// Held back for a time: an `on_cap` delay, or a planner's ledger
    /// between promotions.
    Delayed,
    /// Its next job is not claimable before a later time.
    NotBefore,
    /// A reserve or band holds the capacity for another class.
    Reserved,
    /// Its jobs wait in a queue whose pool's start limiter (`limiter:`)
    /// allows no start now.
    RateLimited,
    /// Its jobs are reserved by a worker node whose workers are busy (or
    /// wait in a queue whose nodes are full of reserved jobs), while a
    /// worker idles elsewhere (`prefetch:`).
    Prefetched,
}

impl Skip {
    pub fn as_str(self) -> &'static str {
        match self {
            Skip::AtCap => "at_cap",
            Skip::NoFit => "no_fit",
            Skip::Deficit => "deficit",
            Skip::Throttled => "throttled",
            Skip::NotSubscribed => "not_subscribed",
            Skip::Delayed => "delayed",
            Skip::NotBefore => "not_before",
            Skip::Reserved => "reserved",
            Skip::RateLimited => "rate_limited",
            Skip::Prefetched => "prefetched",
        }
    }
}

/// Per-tenant counters the engine keeps.
#[derive(Debug, Clone, Default)]
pub struct TenantLoad {
    /// Jobs claimable now.
    pub queued: u64,
    /// Jobs running now.
    pub running: u32,
    /// `u32::MAX` when the tenant has no cap.
    pub cap: u32,
    /// Set while the policy has set the tenant aside after a failed check.
    pub parked: Option<Skip>,
    /// `on_cap: {delay}`: the next job refused at the cap is handed to the
    /// engine to wait out its delay, instead of the tenant being parked (one
    /// per stretch at the cap: its later jobs wait in place, as under `hold`,
    /// so that only the refused job is delayed). Reset when the cap frees.
    pub delay_refusal: bool,
    /// Jobs completed so far. Counted here, beside the counters a finish
    /// updates anyway, rather than in a recorder array: with 100,000 tenants
    /// that would be one more cache miss per job.
    pub completed: u64,
}

/// The engine's answer to "may this job start now?", handed to a policy's `pick`.
pub struct Gate<'a> {
    pub(crate) tenants: &'a mut [TenantLoad],
    pub(crate) free: Res,
    pub(crate) borrow: bool,
    pub(crate) parked: &'a mut Vec<TenantId>,
    pub(crate) skips: &'a mut Vec<(TenantId, Skip)>,
    /// Idle workers at this pick (at least 1: the engine asks only then).
    pub(crate) free_workers: u32,
    /// Queued jobs the policy dropped during this pick; the engine ends them
    /// with `Outcome::Expired` once `pick` returns.
    pub(crate) expired: &'a mut Vec<Slot>,
    /// Whether skips are logged (`--logs full`): a policy may skip the work
    /// of listing whom it passed over when nobody reads it.
    pub(crate) logged: bool,
}

impl Gate<'_> {
    /// True when `job` may start now. When it may not, the tenant is parked:
    /// the skip is logged, and the policy must set the tenant aside until the
    /// engine calls `unpark` for it. A policy must not ask again for a parked tenant.
    // inline for the common answer (yes), out of line for a refusal: the
    // policies that call this are in other codegen units
    #[inline]
    pub fn admit(&mut self, job: &Job) -> bool {
        let t = &self.tenants[job.tenant as usize];
        if (self.borrow || t.running < t.cap) && fits(&job.cost, &self.free) {
            return true;
        }
        self.refuse(job)
    }

    /// [`Gate::admit`] for a job that is at its tenant's cap or does not fit.
    #[cold]
    #[inline(never)]
    fn refuse(&mut self, job: &Job) -> bool {
        let t = &mut self.tenants[job.tenant as usize];
        let reason = if !self.borrow && t.running >= t.cap {
            if t.delay_refusal {
                // the engine takes the job out for its delay instead of starting it
                t.delay_refusal = false;
                self.skips.push((job.tenant, Skip::AtCap));
                return true;
            }
            Some(Skip::AtCap)
        } else if !fits(&job.cost, &self.free) {
            Some(Skip::NoFit)
        } else {
            None
        };
        match reason {
            None => true,
            Some(r) => {
                t.parked = Some(r);
                self.parked.push(job.tenant);
                self.skips.push((job.tenant, r));
                false
            }
        }
    }

    /// Records a policy's own reason for passing over a tenant (deficit,
    /// throttled, ...). Does not park the tenant.
    pub fn note_skip(&mut self, tenant: TenantId, reason: Skip) {
        self.skips.push((tenant, reason));
    }

    /// Whether the skips noted are written anywhere.
    pub fn logs_skips(&self) -> bool {
        self.logged
    }

    /// Free capacity per resource dimension.
    pub fn free(&self) -> &Res {
        &self.free
    }

    /// Idle workers now, including the one this pick would fill.
    pub fn free_workers(&self) -> u32 {
        self.free_workers
    }

    /// Ends a queued job without running it (`Outcome::Expired`), e.g. `edf`
    /// with `late: drop`. The policy must already have removed `slot` from its
    /// own index and must not return it from `pick`; the engine updates the
    /// queue counters and records the end after `pick` returns.
    pub fn expire(&mut self, slot: Slot) {
        self.expired.push(slot);
    }
}

/// Whether `cost` fits in `free` in every dimension.
#[inline]
pub fn fits(cost: &Res, free: &Res) -> bool {
    (0..MAX_RESOURCES).all(|i| cost[i] <= free[i])
}

//! Optional self-check of the engine's promises, evaluated at every dispatch
//! from the engine's counters alone (not from the policy's state). Tests turn
//! it on; it costs O(tenants) per dispatch, so runs leave it off.
//!
//! Checked:
//! - caps: under `hold` a tenant never runs more than its cap; under `lend` a
//!   tenant goes over its cap only while no other tenant is claimable
//!   (has queued work and is below its cap);
//! - monopoly (round_robin with caps): no dispatch round ends with a capped
//!   tenant holding every worker, having just been given one, while another
//!   tenant is claimable. A tenant may still hold every worker it borrowed
//!   while it was alone; a newcomer then takes the next worker that frees.
//!   Without a cap, round robin may legitimately let one tenant hold every
//!   worker (its turns come round as the others' short jobs finish: round
//!   robin counts jobs, not service), so uncapped tenants are not checked;
//! - work conservation (policies that promise it): after a dispatch round a
//!   worker is idle only if no queued job could start (under `hold`, every
//!   tenant with queued work is at its cap; with resource vectors, nothing
//!   queued fits);
//! - rotation (round_robin only): while tenant T stays claimable, no other
//!   tenant gets two turns before T gets one, unless T was skipped with a
//!   logged reason in between (the first stop condition of the fairness-log
//!   article, docs/background.md).

use std::collections::HashSet;

use crate::model::{Spare, TenantId};

use crate::core::{Skip, TenantLoad};

/// Audit state and findings.
#[derive(Debug, Default, Clone)]
pub struct Audit {
    rotation: bool,
    /// For each tenant: others served while it was claimable since its last turn or skip.
    passed_by: Vec<HashSet<TenantId>>,
    /// Tenants dispatched in the current round.
    round: Vec<TenantId>,
    /// Dispatch decisions checked.
    pub checks: u64,
    /// Human-readable violations (empty when every promise held).
    pub violations: Vec<String>,
}

/// Queued work, below its cap, and not set aside because its next job does
/// not fit the free resources or its start-limit group allows no start now
/// (lending to a capped tenant then idles no claimable work).
fn claimable(l: &TenantLoad) -> bool {
    l.queued > 0 && l.running < l.cap && !matches!(l.parked, Some(Skip::NoFit | Skip::RateLimited))
}

impl Audit {
    pub fn new(tenants: usize, rotation: bool) -> Self {
        Audit { rotation, passed_by: vec![HashSet::new(); tenants], ..Default::default() }
    }

    /// Called just before `tenant` starts a job (loads not yet updated).
    pub fn on_dispatch(&mut self, now: u64, tenant: TenantId, loads: &[TenantLoad], spare: Spare) {
        self.checks += 1;
        self.round.push(tenant);
        let l = &loads[tenant as usize];
        if l.running >= l.cap {
            match spare {
                Spare::Hold => self.violations.push(format!(
                    "t={now}us: tenant {tenant} started a job at its cap {} under spare: hold",
                    l.cap
                )),
                Spare::Lend => {
                    if let Some(o) = (0..loads.len()).find(|&o| o != tenant as usize && claimable(&loads[o]))
                    {
                        self.violations.push(format!(
                            "t={now}us: tenant {tenant} went over its cap while tenant {o} was claimable"
                        ));
                    }
                }
            }
        }
        if self.rotation {
            for (t, other) in loads.iter().enumerate() {
                if t == tenant as usize || !claimable(other) {
                    continue;
                }
                if !self.passed_by[t].insert(tenant) {
                    self.violations.push(format!(
                        "t={now}us: tenant {tenant} got a second turn while tenant {t} waited below its cap with no skip reason"
                    ));
                }
            }
            self.passed_by[tenant as usize].clear();
        }
    }

    /// A tenant was skipped with a reason: its rotation wait starts over.
    pub fn on_skip(&mut self, tenant: TenantId, _reason: Skip) {
        if let Some(s) = self.passed_by.get_mut(tenant as usize) {
            s.clear();
        }
    }

    /// A tenant stopped being claimable (drained, or reached its cap): its wait is over.
    pub fn on_idle(&mut self, tenant: TenantId) {
        if let Some(s) = self.passed_by.get_mut(tenant as usize) {
            s.clear();
        }
    }

    /// Called at the end of a dispatch round. `blocked_by_fit` is true when
    /// some queued job was refused for lack of resources in this round.
    #[allow(clippy::too_many_arguments)]
    pub fn after_round(
        &mut self,
        now: u64,
        free_workers: u32,
        workers: u32,
        loads: &[TenantLoad],
        spare: Spare,
        work_conserving: bool,
        blocked_by_fit: bool,
    ) {
        if work_conserving && free_workers > 0 && !blocked_by_fit {
            let idle_with_work = match spare {
                Spare::Lend => loads.iter().position(|l| l.queued > 0 && l.parked != Some(Skip::NoFit)),
                Spare::Hold => loads.iter().position(claimable),
            };
            if let Some(t) = idle_with_work {
                self.violations.push(format!(
                    "t={now}us: {free_workers} workers idle while tenant {t} has claimable work"
                ));
            }
        }
        let round = std::mem::take(&mut self.round);
        if !self.rotation || free_workers != 0 || workers < 2 {
            return;
        }
        let hog = loads
            .iter()
            .enumerate()
            .position(|(i, l)| l.cap < workers && l.running == workers && round.contains(&(i as TenantId)));
        if let Some(hog) = hog {
            if let Some(o) = (0..loads.len()).find(|&o| o != hog && claimable(&loads[o])) {
                self.violations.push(format!(
                    "t={now}us: tenant {hog} holds every worker while tenant {o} is claimable"
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(queued: u64, running: u32, cap: u32) -> TenantLoad {
        TenantLoad { queued, running, cap, parked: None, completed: 0, delay_refusal: false, limited: 0 }
    }

    #[test]
    fn a_second_turn_while_another_waits_is_a_violation() {
        let mut a = Audit::new(2, true);
        // tenant 1 waits below its cap; tenant 0 is served twice
        let loads = [load(5, 0, u32::MAX), load(1, 0, u32::MAX)];
        a.on_dispatch(0, 0, &loads, Spare::Lend);
        assert!(a.violations.is_empty());
        a.on_dispatch(1, 0, &loads, Spare::Lend);
        assert_eq!(a.violations.len(), 1);
        // a logged skip of tenant 1 resets its wait
        let mut b = Audit::new(2, true);
        b.on_dispatch(0, 0, &loads, Spare::Lend);
        b.on_skip(1, Skip::NoFit);
        b.on_dispatch(1, 0, &loads, Spare::Lend);
        assert!(b.violations.is_empty());
    }

    #[test]
    fn caps_and_idle_workers_are_checked() {
        let mut a = Audit::new(2, false);
        // hold: starting a job at the cap is a violation
        a.on_dispatch(0, 0, &[load(1, 1, 1), load(0, 0, 1)], Spare::Hold);
        assert_eq!(a.violations.len(), 1);
        // lend: over the cap while tenant 1 is claimable is a violation; alone it is not
        a.on_dispatch(0, 0, &[load(1, 1, 1), load(1, 0, 1)], Spare::Lend);
        assert_eq!(a.violations.len(), 2);
        a.on_dispatch(0, 0, &[load(1, 1, 1), load(0, 0, 1)], Spare::Lend);
        assert_eq!(a.violations.len(), 2);
        // an idle worker while a job is queued breaks work conservation
        a.after_round(0, 1, 2, &[load(1, 0, 1), load(0, 0, 1)], Spare::Lend, true, false);
        assert_eq!(a.violations.len(), 3);
        // ... unless the job did not fit
        a.after_round(0, 1, 2, &[load(1, 0, 1), load(0, 0, 1)], Spare::Lend, true, true);
        assert_eq!(a.violations.len(), 3);
    }
}

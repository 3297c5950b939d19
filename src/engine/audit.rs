//! Optional self-check of the engine's promises, evaluated at every dispatch
//! from the engine's counters alone (not from the policy's state). Tests turn
//! it on; it costs O(tenants) per dispatch, so runs leave it off.
//!
//! Checked:
//! - caps: under `hold` a tenant never runs more than its cap; under `lend` a
//!   tenant goes over its cap only while no other tenant is claimable
//!   (has queued work and is below its cap);
//! - monopoly (hold mode): after a dispatch round, no single tenant holds
//!   every worker while another claimable tenant waits;
//! - rotation (round_robin only): while tenant T stays claimable, no other
//!   tenant gets two turns before T gets one, unless T was skipped with a
//!   logged reason in between (article 002's first stop condition).

use std::collections::HashSet;

use crate::scenario::{Spare, TenantId};

use super::gate::{Skip, TenantLoad};

/// Audit state and findings.
#[derive(Debug, Default, Clone)]
pub struct Audit {
    rotation: bool,
    /// For each tenant: others served while it was claimable since its last turn or skip.
    passed_by: Vec<HashSet<TenantId>>,
    /// Dispatch decisions checked.
    pub checks: u64,
    /// Human-readable violations (empty when every promise held).
    pub violations: Vec<String>,
}

fn claimable(l: &TenantLoad) -> bool {
    l.queued > 0 && l.running < l.cap
}

impl Audit {
    pub fn new(tenants: usize, rotation: bool) -> Self {
        Audit { rotation, passed_by: vec![HashSet::new(); tenants], ..Default::default() }
    }

    /// Called just before `tenant` starts a job (loads not yet updated).
    pub fn on_dispatch(&mut self, now: u64, tenant: TenantId, loads: &[TenantLoad], spare: Spare) {
        self.checks += 1;
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

    /// Called at the end of a dispatch round.
    pub fn after_round(
        &mut self,
        now: u64,
        free_workers: u32,
        workers: u32,
        loads: &[TenantLoad],
        spare: Spare,
    ) {
        if spare != Spare::Hold || free_workers != 0 || workers < 2 {
            return;
        }
        if let Some(hog) = loads.iter().position(|l| l.running == workers) {
            if let Some(o) = (0..loads.len()).find(|&o| o != hog && claimable(&loads[o])) {
                self.violations.push(format!(
                    "t={now}us: tenant {hog} holds every worker while tenant {o} is claimable"
                ));
            }
        }
    }
}

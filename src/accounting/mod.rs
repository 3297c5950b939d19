//! Accounting: what each tenant and class received, and the run's logs.
//!
//! The [`Recorder`] is what the engine reports events to. It keeps the
//! statistics ([`tally`]: counts, outcomes, wait and slowdown samples,
//! fairness windows) and, with `--logs full`, streams the log files
//! ([`logs`]). It also owns the two clocks of the observation: the log tick
//! (one `ticks.csv` row each) and the fairness window (one Jain's index
//! each; `log: {window}`, by default the tick).

pub mod fairness;
pub mod groups;
pub mod logs;
mod tally;

use std::path::Path;

use crate::core::{Job, JobTable, Outcome, Skip, Slot, TenantLoad};
use crate::error::Result;
use crate::model::{Scenario, TenantId};
use crate::time::Time;

pub use groups::{nearest_rank, GroupStats};
pub use tally::RunStats;

use logs::Logs;
use tally::Tally;

/// What the engine holds at a boundary, for the rows written there.
pub struct Snapshot<'a> {
    pub loads: &'a [TenantLoad],
    pub jobs: &'a JobTable,
    pub free_workers: u32,
}

/// A clock of fixed-length periods: period k covers ((k-1) len, k len].
struct Periods {
    len: Time,
    /// 1-based index of the open period.
    index: u64,
}

impl Periods {
    fn end(&self) -> Time {
        self.len.saturating_mul(self.index)
    }

    /// Whether the open period has seen time: `now` is past its start, or no
    /// period was closed yet.
    fn holds(&self, now: Time) -> bool {
        now > self.end() - self.len || self.index == 1
    }
}

/// Live accounting for one run.
pub struct Recorder {
    tally: Tally,
    logs: Option<Logs>,
    tick: Periods,
    window: Periods,
    /// `min(tick end, window end)`, kept because the engine asks for it
    /// twice per event.
    next: Time,
}

impl Recorder {
    /// A recorder writing its logs into `dir`, or none at all when `dir` is `None`.
    pub fn new(sc: &Scenario, dir: Option<&Path>) -> Result<Self> {
        Ok(Recorder {
            tally: Tally::new(sc),
            logs: dir.map(|d| Logs::new(sc, d)).transpose()?,
            tick: Periods { len: sc.tick, index: 1 },
            window: Periods { len: sc.window, index: 1 },
            next: sc.tick.min(sc.window),
        })
    }

    /// The next instant a tick or a fairness window ends.
    #[inline]
    pub fn next_boundary(&self) -> Time {
        self.next
    }

    /// Closes whatever ends at [`Recorder::next_boundary`]: the fairness
    /// window first, then the tick.
    pub fn close_boundary(&mut self, sc: &Scenario, now: &Snapshot) -> Result<()> {
        let end = self.next;
        if self.window.end() == end {
            self.close_window()?;
        }
        if self.tick.end() == end {
            self.close_tick(sc, now)?;
        }
        Ok(())
    }

    /// After the last event at `now`: closes the tick and the fairness window
    /// that hold it (or the first ones, for a run without events).
    pub fn close_last(&mut self, sc: &Scenario, now: Time, snap: &Snapshot) -> Result<()> {
        if self.window.holds(now) {
            self.close_window()?;
        }
        if self.tick.holds(now) {
            self.close_tick(sc, snap)?;
        }
        Ok(())
    }

    fn close_window(&mut self) -> Result<()> {
        let end = self.window.end();
        let w = self.tally.close_window(end, self.window.len);
        self.window.index += 1;
        self.next = self.tick.end().min(self.window.end());
        match self.logs.as_mut() {
            Some(l) => l.on_window(end, &w),
            None => Ok(()),
        }
    }

    fn close_tick(&mut self, sc: &Scenario, snap: &Snapshot) -> Result<()> {
        let end = self.tick.end();
        if let Some(l) = self.logs.as_mut() {
            l.close_tick(sc, snap, self.tally.classes(), self.tick.index, end)?;
        }
        self.tick.index += 1;
        self.next = self.tick.end().min(self.window.end());
        Ok(())
    }

    /// A job arrived. Its groups' `jobs` counts are not touched here but
    /// derived at the end from the outcomes (every job ends with exactly one,
    /// `unfinished` included): with 100,000 tenants each touch of a tenant's
    /// figures is a cache miss.
    pub fn on_arrival(&mut self, job: &Job) {
        if let Some(l) = self.logs.as_mut() {
            l.on_arrival(job);
        }
    }

    /// Prefetches the tenant's fairness record (see [`crate::prefetch`]).
    pub fn warm_tenant(&self, tenant: TenantId) {
        self.tally.warm_tenant(tenant as usize);
    }

    /// A job became claimable. `queued` is its tenant's queue length after.
    pub fn on_queued(&mut self, job: &Job, slot: Slot, queued: u64) {
        self.tally.on_queued(job);
        if let Some(l) = self.logs.as_mut() {
            l.on_queued(job, slot, queued);
        }
    }

    /// A job started an attempt at `now`. `queued` is its tenant's queue length after.
    pub fn on_start(&mut self, job: &Job, now: Time, queued: u64) {
        self.tally.on_start(job, now);
        if let Some(l) = self.logs.as_mut() {
            l.on_start(job, queued);
        }
    }

    /// Skips logged by the gate or the policy during a dispatch round.
    pub fn on_skips(&mut self, skips: &mut Vec<(TenantId, Skip)>) {
        match self.logs.as_mut() {
            Some(l) => skips.drain(..).for_each(|s| l.on_skip(s)),
            None => skips.clear(),
        }
    }

    /// Whether the log still wants this tick's list of tenants parked since
    /// an earlier tick (see [`Recorder::on_still_parked`]).
    pub fn lists_parked(&self) -> bool {
        self.logs.as_ref().is_some_and(|l| !l.parked_listed())
    }

    /// Tenants refused before this tick and still parked with work waiting,
    /// at the first dispatch decision of the tick: they are passed over in
    /// it too, so the observation log lists them.
    pub fn on_still_parked(&mut self, parked: impl Iterator<Item = (TenantId, Skip)>) {
        if let Some(l) = self.logs.as_mut() {
            l.on_still_parked(parked);
        }
    }

    /// An attempt finished (whatever comes next for the job).
    pub fn on_attempt_end(&mut self, job: &Job, now: Time) {
        self.tally.on_attempt_end(job, now);
        if let Some(l) = self.logs.as_mut() {
            l.on_attempt_end(job);
        }
    }

    /// A queued job was dropped by the policy; `queued` is its tenant's queue length after.
    pub fn on_expired(&mut self, sc: &Scenario, job: &Job, now: Time, queued: u64) -> Result<()> {
        if let Some(l) = self.logs.as_mut() {
            l.on_expired(job, queued);
        }
        self.on_end(sc, job, now, Outcome::Expired)
    }

    /// A job's life ended.
    pub fn on_end(&mut self, sc: &Scenario, job: &Job, now: Time, outcome: Outcome) -> Result<()> {
        self.tally.on_end(sc, job, now, outcome);
        match self.logs.as_mut() {
            Some(l) => l.on_end(sc, job, now, outcome),
            None => Ok(()),
        }
    }

    /// Flushes the logs and computes the wait and slowdown figures.
    pub fn finish(mut self, loads: &[TenantLoad]) -> Result<RunStats> {
        if let Some(l) = self.logs.as_mut() {
            l.flush()?;
        }
        Ok(self.tally.finish(loads))
    }
}

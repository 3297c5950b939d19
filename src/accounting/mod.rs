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
pub mod pairs;
mod tally;

use std::path::Path;

use crate::core::{Job, JobTable, Outcome, Skip, Slot, TenantLoad};
use crate::error::Result;
use crate::model::{Scenario, TenantId};
use crate::time::Time;

pub use groups::{nearest_rank, GroupStats};
pub use tally::{Overhead, RunStats};

use logs::Logs;
use tally::Tally;

// The engine calls the small `on_*` hooks of the recorder once or twice per
// job from another codegen unit: without `#[inline]` each is a call.

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
    /// The recorder's event count when the last period closed: equal to it
    /// now when nothing happened in the open period.
    events_at_close: u64,
    /// The period closed last had no events.
    quiet: bool,
}

impl Periods {
    fn new(len: Time) -> Self {
        Periods { len, index: 1, events_at_close: 0, quiet: false }
    }

    fn end(&self) -> Time {
        self.len.saturating_mul(self.index)
    }

    /// Whether the open period has seen time: `now` is past its start, or no
    /// period was closed yet.
    fn holds(&self, now: Time) -> bool {
        now > self.end() - self.len || self.index == 1
    }

    /// Index of the last period ending before `t` (or at `t`, `inclusive`).
    fn last_before(&self, t: Time, inclusive: bool) -> u64 {
        let t = if inclusive { t } else { t.saturating_sub(1) };
        t / self.len
    }
}

/// How the open period is closed.
enum Close {
    /// Compute it: something happened in it, or it is the first period
    /// without events after one with.
    Full,
    /// It and the next `n - 1` periods repeat the quiet period closed last.
    Repeat(u64),
}

/// Live accounting for one run.
///
/// Quiet stretches (no arrival, start or end for many ticks, e.g. one job of
/// a day at 1 s ticks) cost O(1), not O(ticks): after the first period
/// without events, the following ones up to the next event are identical,
/// so the fairness windows among them are closed in one step and the
/// observation log writes only the first and the last of them (the `tick`
/// column shows the gap; documented in docs/metrics.md).
pub struct Recorder {
    tally: Tally,
    logs: Option<Logs>,
    tick: Periods,
    window: Periods,
    /// Calls that recorded something, for telling quiet periods.
    events: u64,
    /// `min(tick end, window end)`, kept because the engine asks for it
    /// twice per event.
    next: Time,
}

impl Recorder {
    /// Where the arrival stream leaves trace ids for `jobs.csv` (with logs and a trace only).
    pub fn trace_ids(&self) -> Option<crate::workload::trace::TraceIds> {
        self.logs.as_ref()?.trace_ids.clone()
    }

    /// A recorder writing its logs into `dir`, or none at all when `dir` is `None`.
    pub fn new(sc: &Scenario, dir: Option<&Path>) -> Result<Self> {
        Ok(Recorder {
            tally: Tally::new(sc),
            logs: dir.map(|d| Logs::new(sc, d)).transpose()?,
            tick: Periods::new(sc.tick),
            window: Periods::new(sc.window),
            events: 0,
            next: sc.tick.min(sc.window),
        })
    }

    /// The next instant a tick or a fairness window ends.
    #[inline]
    pub fn next_boundary(&self) -> Time {
        self.next
    }

    /// Closes the fairness windows and ticks that end before `t` (and at
    /// `t` when `inclusive`). The two clocks are independent, so each is
    /// closed in turn.
    pub fn close_until(&mut self, sc: &Scenario, snap: &Snapshot, t: Time, inclusive: bool) -> Result<()> {
        while self.window.end() < t || (inclusive && self.window.end() == t) {
            match Self::how(&mut self.window, self.events, t, inclusive) {
                Close::Full => self.close_window()?,
                Close::Repeat(n) => self.repeat_window(n)?,
            }
        }
        while self.tick.end() < t || (inclusive && self.tick.end() == t) {
            if let Close::Repeat(n) = Self::how(&mut self.tick, self.events, t, inclusive) {
                // the rows of the first n - 1 repeats are not written
                self.tick.index += n - 1;
            }
            self.close_tick(sc, snap)?;
        }
        self.next = self.tick.end().min(self.window.end());
        Ok(())
    }

    /// Whether the open period of `p` can be repeated, and how many times.
    fn how(p: &mut Periods, events: u64, t: Time, inclusive: bool) -> Close {
        let quiet = events == p.events_at_close;
        let close = if quiet && p.quiet {
            Close::Repeat(p.last_before(t, inclusive).saturating_sub(p.index) + 1)
        } else {
            Close::Full
        };
        p.quiet = quiet;
        p.events_at_close = events;
        close
    }

    /// After the last event at `now`: closes the tick and the fairness window
    /// that hold it (or the first ones, for a run without events).
    pub fn close_last(&mut self, sc: &Scenario, now: Time, snap: &Snapshot) -> Result<()> {
        if self.window.holds(now) {
            self.close_window()?;
        }
        // a tick opened at `now` holds what happened after its predecessor
        // closed at that instant (a job of no service arriving at a tick's
        // end): its row is written though no time passed in it, or the log
        // would name a tick it lacks. The fairness window is left alone: a
        // span of no time adds no service to it.
        if self.tick.holds(now) || self.events != self.tick.events_at_close {
            self.close_tick(sc, snap)?;
        }
        Ok(())
    }

    fn close_window(&mut self) -> Result<()> {
        let end = self.window.end();
        let w = self.tally.close_window(end, self.window.len);
        self.window.index += 1;
        match self.logs.as_mut() {
            Some(l) => l.on_window(end, &w),
            None => Ok(()),
        }
    }

    /// Closes `n` windows like the quiet one closed last; the log gets a row
    /// for the last of them only.
    fn repeat_window(&mut self, n: u64) -> Result<()> {
        self.window.index += n - 1;
        let end = self.window.end();
        let w = self.tally.repeat_window(n, end);
        self.window.index += 1;
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
        Ok(())
    }

    /// A job arrived. Its groups' `jobs` counts are not touched here but
    /// derived at the end from the outcomes (every job ends with exactly one,
    /// `unfinished` included): with 100,000 tenants each touch of a tenant's
    /// figures is a cache miss.
    #[inline]
    pub fn on_arrival(&mut self, job: &Job) {
        self.events += 1;
        if let Some(l) = self.logs.as_mut() {
            l.on_arrival(job);
        }
    }

    /// Prefetches the tenant's fairness record (see [`crate::prefetch`]).
    #[inline]
    pub fn warm_tenant(&self, tenant: TenantId) {
        self.tally.warm_tenant(tenant as usize);
    }

    /// A job became claimable. `queued` is its tenant's queue length after.
    #[inline]
    pub fn on_queued(&mut self, job: &Job, slot: Slot, queued: u64) {
        self.events += 1;
        self.tally.on_queued(job);
        if let Some(l) = self.logs.as_mut() {
            l.on_queued(job, slot, queued);
        }
    }

    /// A job started an attempt at `now`. `queued` is its tenant's queue length after.
    /// Admission rule `rule` refused (or, `deferred`, deferred) `job` (its
    /// last such rule is written in `jobs.csv`, the count in `ticks.csv`).
    pub fn on_refused(&mut self, job: &Job, rule: &str, deferred: bool) {
        self.events += 1;
        if let Some(l) = self.logs.as_mut() {
            l.on_refused(job, rule, deferred);
        }
    }

    /// The job just queued (and routed) comes back with an earlier
    /// claimable time than jobs queued before it: the oldest-age queues of
    /// the logs take it in its place.
    pub fn put_in_place(&mut self, job: &Job) {
        if let Some(l) = self.logs.as_mut() {
            l.put_in_place(job);
        }
    }

    /// A topology placed the job in `job.queue` (after `on_queued`).
    pub fn on_routed(&mut self, job: &Job, slot: Slot) {
        if let Some(l) = self.logs.as_mut() {
            l.on_routed(job, slot);
        }
    }

    #[inline]
    pub fn on_start(&mut self, job: &Job, now: Time, queued: u64) {
        self.events += 1;
        self.tally.on_start(job, now);
        if let Some(l) = self.logs.as_mut() {
            l.on_start(job, now, queued);
        }
    }

    /// Under a claim cost: `job` left its queue for a worker now, and
    /// starts its service a claim later ([`Recorder::on_claimed_start`]);
    /// `queued` is its tenant's queue length after.
    pub fn on_claim(&mut self, job: &Job, queued: u64) {
        if let Some(l) = self.logs.as_mut() {
            l.on_claim(job, queued);
        }
    }

    /// The service of `job`, claimed earlier, starts at `now`.
    pub fn on_claimed_start(&mut self, job: &Job, now: Time) {
        self.events += 1;
        self.tally.on_start(job, now);
        if let Some(l) = self.logs.as_mut() {
            l.on_chosen(job, now);
        }
    }

    /// Skips logged by the gate or the policy during a dispatch round.
    #[inline]
    pub fn on_skips(&mut self, skips: &mut Vec<(TenantId, Skip)>) {
        // most rounds skip nobody: leave before touching the logs
        if skips.is_empty() {
            return;
        }
        self.events += 1;
        match self.logs.as_mut() {
            Some(l) => skips.drain(..).for_each(|s| l.on_skip(s)),
            None => skips.clear(),
        }
    }

    /// Every tenant with jobs waiting is passed over for `reason` (a start
    /// limit that holds the whole pool back).
    pub fn skip_waiting(&mut self, reason: Skip) {
        if let Some(l) = self.logs.as_mut() {
            l.skip_waiting(reason);
        }
    }

    /// Whether skips are written (full logs).
    #[inline]
    pub fn logs_skips(&self) -> bool {
        self.logs.is_some()
    }

    /// Whether the log still wants this tick's list of tenants parked since
    /// an earlier tick (see [`Recorder::on_still_parked`]).
    #[inline]
    pub fn lists_parked(&self) -> bool {
        self.logs.as_ref().is_some_and(|l| !l.parked_listed())
    }

    /// Tenants refused before this tick and still parked with work waiting,
    /// at the first dispatch decision of the tick: they are passed over in
    /// it too, so the observation log lists them.
    pub fn on_still_parked(&mut self, parked: impl Iterator<Item = (TenantId, Skip)>) {
        self.events += 1;
        if let Some(l) = self.logs.as_mut() {
            l.on_still_parked(parked);
        }
    }

    /// An attempt finished (whatever comes next for the job).
    /// `ran` is the worker time it held (its service, unless a slowdown
    /// stretched it or a capacity loss cut it short).
    #[inline]
    pub fn on_attempt_end(&mut self, job: &Job, now: Time, ran: Time) {
        self.events += 1;
        self.tally.on_attempt_end(job, now, ran);
        if let Some(l) = self.logs.as_mut() {
            l.on_attempt_end(job);
        }
    }

    /// Worker time `job` held that did no useful work: a failed attempt, a
    /// slowdown's extra, or (`killed`) an attempt a capacity loss stopped.
    #[inline]
    pub fn on_lost(&mut self, job: &Job, wasted: Time, killed: bool) {
        self.tally.on_lost(job, wasted, killed);
    }

    /// A queued job was dropped by the policy; `queued` is its tenant's queue length after.
    /// `whole` is the job's whole service, for `jobs.csv` (a sliced job's
    /// `service` holds its pending slice, which the fairness ledger counted
    /// as queued and now drops).
    pub fn on_expired(
        &mut self,
        sc: &Scenario,
        job: &Job,
        now: Time,
        queued: u64,
        whole: Time,
    ) -> Result<()> {
        self.events += 1;
        self.tally.on_end(sc, job, now, Outcome::Expired);
        match self.logs.as_mut() {
            Some(l) => {
                l.on_expired(job, queued);
                l.on_end(sc, &Job { service: whole, ..job.clone() }, now, Outcome::Expired)
            }
            None => Ok(()),
        }
    }

    /// Jobs may first become claimable after their arrival (an `on_cap`
    /// delay); to be said before the run starts.
    pub fn set_ages_apart(&mut self) {
        self.tally.set_ages_apart();
    }

    /// A queued job left the queue without starting and will come back
    /// (an `on_cap` delay); `queued` is its tenant's queue length after.
    pub fn on_withdrawn(&mut self, job: &Job, queued: u64) {
        self.events += 1;
        self.tally.on_withdrawn(job);
        if let Some(l) = self.logs.as_mut() {
            l.on_withdrawn(job, queued);
        }
    }

    /// A job's life ended.
    #[inline]
    pub fn on_end(&mut self, sc: &Scenario, job: &Job, now: Time, outcome: Outcome) -> Result<()> {
        self.events += 1;
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

//! The per-run log files, streamed as events happen: the observation log
//! (`ticks.csv`, [`ticks`], with its long forms `dispatches.csv` and
//! `skips.csv`), the per-job records (`jobs.csv`), the tenant and
//! class time series (`tenants.csv`, `classes.csv`, [`series`]) and the
//! fairness windows (`fairness.csv`). Only written with `--logs full`; the
//! statistics behind `summary.csv` are [`super::tally`].

pub mod columns;
pub(crate) mod csv_rows;
mod queues;
mod series;
mod ticks;

use std::collections::HashMap;
use std::path::Path;

use crate::core::{Job, JobState, Outcome, Skip, Slot};
use crate::error::{Error, Result};
use crate::model::{Features, Scenario, TenantId};
use crate::time::Time;
use crate::workload::trace::TraceIds;

use super::fairness::Window;
use super::groups::GroupStats;
use super::Snapshot;
use csv_rows::{open_csv, Csv};
use queues::QueueSeries;
use series::Series;
use ticks::TickLog;

pub struct Logs {
    jobs: Csv,
    ticks: TickLog,
    series: Series,
    fairness: Csv,
    /// Under a topology with queues (not a planner's).
    queues: Option<QueueSeries>,
    /// The admission rule that last refused or deferred each live job.
    refused: HashMap<u64, String>,
    /// A write that failed where no error could be returned.
    failed: Option<Error>,
    /// Trace rows' own ids of the live jobs (scenarios with a trace only).
    pub(super) trace_ids: Option<TraceIds>,
    /// Which of the optional columns the run's files carry ([`columns`]).
    features: Features,
}

impl Logs {
    /// Creates the log files in `dir`.
    pub fn new(sc: &Scenario, dir: &Path) -> Result<Self> {
        // creation order is the order the files were always created in
        let series = Series::new(sc, dir)?;
        let fairness = open_csv(dir, "fairness.csv", &["time", "jain", "backlogged", "gini"])?;
        let features = sc.features();
        let jobs = open_csv(dir, "jobs.csv", &columns::header(&columns::JOBS, &features))?;
        let queues = match sc.run_topology() {
            Some(t) if t.planner.is_none() => Some(QueueSeries::new(&t.queues, dir)?),
            _ => None,
        };
        let trace_ids = (!sc.traces.is_empty()).then(TraceIds::default);
        Ok(Logs {
            jobs,
            ticks: TickLog::new(sc, dir, &features)?,
            series,
            fairness,
            queues,
            refused: HashMap::new(),
            failed: None,
            trace_ids,
            features,
        })
    }

    pub fn on_arrival(&mut self, job: &Job) {
        self.ticks.on_arrival(job.tenant);
        self.series.on_arrival(job);
    }

    /// `queued` is the tenant's queue length after.
    pub fn on_queued(&mut self, job: &Job, slot: Slot, queued: u64) {
        if queued == 1 {
            self.ticks.set_waiting(job.tenant, true);
        }
        self.series.on_queued(job, slot);
    }

    /// See [`crate::accounting::Recorder::put_in_place`].
    pub fn put_in_place(&mut self, job: &Job) {
        self.series.put_in_place(job);
        if let Some(q) = self.queues.as_mut() {
            q.put_in_place(job);
        }
    }

    pub fn on_refused(&mut self, job: &Job, rule: &str, deferred: bool) {
        self.refused.insert(job.seq, rule.to_string());
        self.ticks.on_refused(job.tenant, deferred);
    }

    /// The topology placed the job in `job.queue`.
    pub fn on_routed(&mut self, job: &Job, slot: Slot) {
        if let Some(q) = self.queues.as_mut() {
            q.on_queued(job, slot);
        }
    }

    /// `job` started at `now`; `queued` is the tenant's queue length after.
    /// A failed write of a dispatch row is reported at the next call that
    /// can return it (the engine reports a start without expecting an error).
    pub fn on_start(&mut self, job: &Job, now: Time, queued: u64) {
        self.on_claim(job, queued);
        self.on_chosen(job, now);
    }

    /// `job` left its queue for a worker; `queued` is the tenant's queue
    /// length after. Under a claim cost this comes a claim before its start.
    pub fn on_claim(&mut self, job: &Job, queued: u64) {
        self.series.on_start(job);
        if let Some(q) = self.queues.as_mut() {
            q.on_start(job);
        }
        if queued == 0 {
            self.ticks.set_waiting(job.tenant, false);
        }
    }

    /// The service of `job`, claimed earlier, starts at `now`: its dispatch row.
    pub fn on_chosen(&mut self, job: &Job, now: Time) {
        if let Err(e) = self.ticks.on_chosen(job, now) {
            self.failed.get_or_insert(e);
        }
    }

    pub fn on_skip(&mut self, s: (TenantId, Skip)) {
        self.ticks.on_skip(s);
    }

    pub fn skip_waiting(&mut self, reason: Skip) {
        self.ticks.skip_waiting(reason);
    }

    pub fn parked_listed(&self) -> bool {
        self.ticks.parked_listed
    }

    pub fn on_still_parked(&mut self, parked: impl Iterator<Item = (TenantId, Skip)>) {
        parked.for_each(|s| self.ticks.on_skip(s));
        self.ticks.parked_listed = true;
    }

    pub fn on_attempt_end(&mut self, job: &Job) {
        self.series.on_attempt_end(job);
        if let Some(q) = self.queues.as_mut() {
            q.on_attempt_end(job);
        }
    }

    /// A queued job left the queue without starting and will come back;
    /// `queued` is its tenant's queue length after.
    pub fn on_withdrawn(&mut self, job: &Job, queued: u64) {
        self.on_expired(job, queued);
        self.series.on_dropped(job);
        if let Some(q) = self.queues.as_mut() {
            q.on_dropped(job);
        }
    }

    /// A queued job was dropped; `queued` is its tenant's queue length after.
    pub fn on_expired(&mut self, job: &Job, queued: u64) {
        if queued == 0 {
            self.ticks.set_waiting(job.tenant, false);
        }
    }

    /// Writes the job's row of `jobs.csv`: start, finish and wait are empty
    /// for a job that never ran (finish also for one still running).
    pub fn on_end(&mut self, sc: &Scenario, job: &Job, now: Time, outcome: Outcome) -> Result<()> {
        if job.state == JobState::Queued && outcome == Outcome::Expired {
            self.series.on_dropped(job);
            if let Some(q) = self.queues.as_mut() {
                q.on_dropped(job);
            }
        }
        if let (Some(q), Outcome::Completed) = (self.queues.as_mut(), outcome) {
            q.on_completed(job);
        }
        self.series.touch(job.tenant);
        let w = &mut self.jobs;
        w.int(job.seq);
        w.tenant(&sc.tenants, job.tenant);
        w.text(&sc.classes[job.class as usize].name);
        w.secs(job.arrival);
        match job.first_start {
            Some(s) if outcome != Outcome::Unfinished || job.state == JobState::Running => {
                w.secs(s);
                if outcome == Outcome::Unfinished {
                    w.empty();
                } else {
                    w.secs(now);
                }
                w.secs(s - job.arrival);
            }
            _ => {
                w.empty();
                w.empty();
                w.empty();
            }
        }
        w.secs(job.service);
        w.int(job.attempts as u64);
        w.text(outcome.as_str());
        match sc.run_topology() {
            // a job that never started has a queue but no pool
            Some(t) => {
                w.text(&t.queues[job.queue as usize]);
                match job.first_start {
                    Some(_) => w.text(&t.pools[job.pool as usize].name),
                    None => w.empty(),
                }
            }
            // blank where another entry of the run has a topology
            None if self.features.topology => {
                w.empty();
                w.empty();
            }
            None => {}
        }
        w.int(u64::from(job.slices));
        match (job.deferred(), job.resends()) {
            (false, 0) => w.text("accepted"),
            (true, 0) => w.text("deferred"),
            (false, n) => w.text(&format!("retried {n}")),
            (true, n) => w.text(&format!("deferred, retried {n}")),
        }
        match self.refused.remove(&job.seq) {
            Some(rule) => w.text(&rule),
            None if self.features.admission => w.empty(),
            None => {}
        }
        if let Some(ids) = self.trace_ids.as_ref() {
            match ids.take(job.seq) {
                Some(id) => w.text(&id),
                None => w.empty(),
            }
        }
        w.end()
    }

    /// Writes the fairness window that ended at `end`.
    pub fn on_window(&mut self, end: Time, w: &Window) -> Result<()> {
        let f = &mut self.fairness;
        f.secs(end);
        match w.jain {
            Some(j) => f.text(&format!("{j:.6}")),
            None => f.empty(),
        }
        f.int(w.backlogged as u64);
        match w.gini {
            Some(g) => f.text(&format!("{g:.6}")),
            None => f.empty(),
        }
        f.end()
    }

    /// Writes the rows of tick `index` (ending at `end`) and opens the next
    /// tick with the snapshot's idle workers.
    pub fn close_tick(
        &mut self,
        sc: &Scenario,
        now: &Snapshot,
        classes: &[GroupStats],
        index: u64,
        end: Time,
    ) -> Result<()> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.ticks.close(sc, now.loads, index, end, now.free_workers)?;
        if let Some(q) = self.queues.as_mut() {
            q.close(now.jobs, end)?;
        }
        self.series.close(sc, now.loads, now.jobs, classes, end)
    }

    pub fn flush(&mut self) -> Result<()> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let err = |e| Error::io("flushing CSV", e);
        self.jobs.flush().map_err(err)?;
        self.ticks.flush().map_err(err)?;
        self.series.flush().map_err(err)?;
        if let Some(q) = self.queues.as_mut() {
            q.flush().map_err(err)?;
        }
        self.fairness.flush().map_err(err)
    }
}

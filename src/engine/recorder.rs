//! Accounting and the per-run logs: the observation log (`ticks.csv`), the
//! per-job records (`jobs.csv`), the tenant and class time series
//! (`tenants.csv`, `classes.csv`), the fairness windows (`fairness.csv`), and
//! the statistics behind `summary.csv`. Rows stream to disk as they happen.

use std::collections::{BTreeSet, VecDeque};

use std::path::Path;

use crate::error::{Error, Result};
use crate::metrics::fairness::ServiceWindows;
use crate::metrics::{slowdown, GroupStats, SampleLog};
use crate::output::csv_rows::{open_csv, push_u64, Csv};
use crate::scenario::{Scenario, TenantId};
use crate::time::Time;

use super::gate::{Skip, TenantLoad};
use super::job::{Job, JobState, JobTable, Outcome, Slot};

/// Everything measured in one run of one policy.
#[derive(Debug, Clone, Default)]
pub struct RunStats {
    pub all: GroupStats,
    pub tenants: Vec<GroupStats>,
    pub classes: Vec<GroupStats>,
    /// Sum over attempts of service time (worker-microseconds of busy time).
    pub busy: u128,
    /// Time of the last event (finish of the last job).
    pub makespan: Time,
    /// Jain's index of each fairness window (the log tick) with two or more
    /// backlogged tenants, on service received (see [`crate::metrics::fairness`]).
    pub jain_windows: Vec<f64>,
    /// The engine's self-check, when it was turned on.
    pub audit: Option<super::audit::Audit>,
}

/// Live accounting for one run.
pub struct Recorder {
    pub stats: RunStats,
    /// Waits and slowdowns in the order they happen, grouped at `finish`.
    samples: SampleLog,
    tick: Time,
    tick_index: u64,
    /// Workers idle at the start of the current tick.
    free_at_start: u32,
    chosen: Vec<TenantId>,
    skipped: Vec<(TenantId, Skip)>,
    /// Tenants with at least one arrival so far, in id order.
    seen: BTreeSet<TenantId>,
    /// Tenants with queued jobs.
    waiting: DenseSet,
    touched: Vec<TenantId>,
    is_touched: Vec<bool>,
    /// Per tenant, queued jobs in claimable order, deleted lazily (for the oldest claimable age).
    oldest: Vec<VecDeque<(u64, Slot, Time)>>,
    /// Service received per tenant and per class in the current fairness window.
    fair_tenants: ServiceWindows,
    fair_classes: ServiceWindows,
    /// Per class: queued and running jobs, arrivals seen, and the queued jobs
    /// in claimable order, deleted lazily (for the class series).
    class_queued: Vec<u64>,
    class_running: Vec<u32>,
    class_seen: Vec<bool>,
    class_oldest: Vec<VecDeque<(u64, Slot, Time)>>,
    jobs: Option<Csv>,
    /// Scratch buffers for the list cells of ticks.csv.
    cell: Vec<u8>,
    waiting_sorted: Vec<TenantId>,
    ticks: Option<Csv>,
    series: Option<Csv>,
    class_series: Option<Csv>,
    fairness: Option<Csv>,
}

impl Recorder {
    /// A recorder writing its logs into `dir`, or none at all when `dir` is `None`.
    pub fn new(sc: &Scenario, dir: Option<&Path>) -> Result<Self> {
        let n = sc.tenants.len();
        let (class_series, fairness) = match dir {
            Some(d) => (
                Some(open_csv(
                    d,
                    "classes.csv",
                    &["time", "class", "queued", "running", "completed", "oldest_age"],
                )?),
                Some(open_csv(d, "fairness.csv", &["time", "jain", "backlogged"])?),
            ),
            None => (None, None),
        };
        let pool = if sc.workers == u32::MAX { u64::MAX / 4 } else { sc.workers as u64 };
        let (jobs, ticks, series) = match dir {
            Some(d) => (
                Some(open_csv(
                    d,
                    "jobs.csv",
                    &[
                        "job", "tenant", "class", "arrival", "start", "finish", "wait", "service",
                        "attempts", "outcome",
                    ],
                )?),
                Some(open_csv(
                    d,
                    "ticks.csv",
                    &["tick", "time", "workers_free", "waiting", "chosen", "skipped", "completed"],
                )?),
                Some(open_csv(
                    d,
                    "tenants.csv",
                    &["time", "tenant", "queued", "running", "completed", "oldest_age"],
                )?),
            ),
            None => (None, None, None),
        };
        let logging = dir.is_some();
        Ok(Recorder {
            stats: RunStats {
                tenants: vec![GroupStats::default(); n],
                classes: vec![GroupStats::default(); sc.classes.len()],
                ..Default::default()
            },
            samples: SampleLog::default(),
            tick: sc.tick,
            tick_index: 1,
            free_at_start: sc.workers,
            chosen: Vec::new(),
            skipped: Vec::new(),
            seen: BTreeSet::new(),
            waiting: DenseSet::new(if logging { n } else { 0 }),
            touched: Vec::new(),
            is_touched: vec![false; if logging { n } else { 0 }],
            oldest: if logging { vec![VecDeque::new(); n] } else { Vec::new() },
            fair_tenants: ServiceWindows::new(
                sc.tenants.iter().map(|t| t.weight).collect(),
                sc.tenants.iter().map(|t| t.cap.map_or(pool, |c| (c as u64).min(pool))).collect(),
            ),
            fair_classes: ServiceWindows::new(
                sc.classes.iter().map(|c| c.weight).collect(),
                vec![pool; sc.classes.len()],
            ),
            class_queued: vec![0; sc.classes.len()],
            class_running: vec![0; sc.classes.len()],
            class_seen: vec![false; sc.classes.len()],
            class_oldest: if logging { vec![VecDeque::new(); sc.classes.len()] } else { Vec::new() },
            jobs,
            cell: Vec::new(),
            waiting_sorted: Vec::new(),
            ticks,
            series,
            class_series,
            fairness,
        })
    }

    fn logging(&self) -> bool {
        self.ticks.is_some()
    }

    /// End of the current tick.
    pub fn tick_end(&self) -> Time {
        self.tick.saturating_mul(self.tick_index)
    }

    /// Number of ticks closed so far.
    pub fn ticks_closed(&self) -> u64 {
        self.tick_index - 1
    }

    fn touch(&mut self, t: TenantId) {
        if self.logging() && !self.is_touched[t as usize] {
            self.is_touched[t as usize] = true;
            self.touched.push(t);
        }
    }

    /// A job arrived. Its groups' `jobs` counts are not touched here but
    /// derived at the end from the outcomes (every job ends with exactly one,
    /// `unfinished` included): with 100,000 tenants each touch of a tenant's
    /// figures is a cache miss.
    pub fn on_arrival(&mut self, job: &Job) {
        if self.logging() {
            self.seen.insert(job.tenant);
            self.class_seen[job.class as usize] = true;
        }
    }

    /// Prefetches the tenant's fairness record (see [`crate::prefetch`]).
    pub fn warm_tenant(&self, tenant: TenantId) {
        self.fair_tenants.warm(tenant as usize);
    }

    /// A job became claimable. `queued` is its tenant's queue length after.
    pub fn on_queued(&mut self, job: &Job, slot: Slot, queued: u64) {
        if queued == 1 {
            self.set_waiting(job.tenant, true);
        }
        self.fair_tenants.on_queued(job.tenant as usize, job.service);
        self.fair_classes.on_queued(job.class as usize, job.service);
        self.class_queued[job.class as usize] += 1;
        if self.logging() {
            self.oldest[job.tenant as usize].push_back((job.seq, slot, job.ready));
            self.class_oldest[job.class as usize].push_back((job.seq, slot, job.ready));
            self.touch(job.tenant);
        }
    }

    /// A job started an attempt at `now`. `queued` is its tenant's queue length after.
    pub fn on_start(&mut self, job: &Job, now: Time, queued: u64) {
        let age = now - job.ready;
        if job.attempts == 1 {
            // its age is its wait; the groups' oldest_age_max take the largest
            // wait at the end (see `finish`), so the tenant's figures are not touched now
            self.samples.wait(age, job.tenant, job.class);
        } else {
            for g in [
                &mut self.stats.all,
                &mut self.stats.tenants[job.tenant as usize],
                &mut self.stats.classes[job.class as usize],
            ] {
                g.oldest_age_max = g.oldest_age_max.max(age);
            }
        }
        self.fair_tenants.on_start(job.tenant as usize, job.service, now);
        self.fair_classes.on_start(job.class as usize, job.service, now);
        self.class_queued[job.class as usize] -= 1;
        self.class_running[job.class as usize] += 1;
        if queued == 0 {
            self.set_waiting(job.tenant, false);
        }
        if self.logging() {
            self.chosen.push(job.tenant);
            self.touch(job.tenant);
        }
    }

    /// Skips logged by the gate or the policy during a dispatch round.
    pub fn on_skips(&mut self, skips: &mut Vec<(TenantId, Skip)>) {
        if self.logging() {
            for s in skips.drain(..) {
                if !self.skipped.contains(&s) {
                    self.skipped.push(s);
                }
            }
        } else {
            skips.clear();
        }
    }

    /// An attempt finished (whatever comes next for the job).
    pub fn on_attempt_end(&mut self, job: &Job, now: Time) {
        self.fair_tenants.on_end(job.tenant as usize, now);
        self.fair_classes.on_end(job.class as usize, now);
        self.class_running[job.class as usize] -= 1;
        self.stats.busy += job.service as u128;
        self.stats.all.service += job.service;
        self.stats.classes[job.class as usize].service += job.service;
    }

    /// A queued job was dropped by the policy; `queued` is its tenant's queue length after.
    pub fn on_expired(&mut self, sc: &Scenario, job: &Job, now: Time, queued: u64) -> Result<()> {
        if queued == 0 {
            self.set_waiting(job.tenant, false);
        }
        self.on_end(sc, job, now, Outcome::Expired)
    }

    /// A job's life ended. `start`/`finish` are absent for jobs that never ran.
    pub fn on_end(&mut self, sc: &Scenario, job: &Job, now: Time, outcome: Outcome) -> Result<()> {
        let sla_miss = match (sc.classes[job.class as usize].sla, job.first_start) {
            (Some(sla), Some(s)) => s - job.arrival > sla,
            (Some(sla), None) => now - job.arrival > sla,
            _ => false,
        };
        let deadline_miss = outcome == Outcome::Expired
            || job.deadline.is_some_and(|d| outcome == Outcome::Completed && now > d);
        if job.first_start.is_none() || job.state == JobState::Queued {
            // never started, or left waiting: its age still counts as claimable time
            let age = now.saturating_sub(job.ready);
            for g in [
                &mut self.stats.all,
                &mut self.stats.tenants[job.tenant as usize],
                &mut self.stats.classes[job.class as usize],
            ] {
                g.oldest_age_max = g.oldest_age_max.max(age);
            }
        }
        for g in [&mut self.stats.all, &mut self.stats.classes[job.class as usize]] {
            g.count_outcome(outcome);
            g.sla_misses += sla_miss as u64;
            g.deadline_misses += deadline_miss as u64;
        }
        // the engine counts each tenant's completions (`TenantLoad::completed`)
        if outcome != Outcome::Completed {
            self.stats.tenants[job.tenant as usize].count_outcome(outcome);
        }
        if sla_miss || deadline_miss {
            let g = &mut self.stats.tenants[job.tenant as usize];
            g.sla_misses += sla_miss as u64;
            g.deadline_misses += deadline_miss as u64;
        }
        if job.state == JobState::Queued && outcome == Outcome::Expired {
            // dropped from the queue without starting: no longer claimable demand
            // (a rejected job was never queued, so it is not counted here)
            self.fair_tenants.on_dropped(job.tenant as usize, job.service);
            self.fair_classes.on_dropped(job.class as usize, job.service);
            self.class_queued[job.class as usize] = self.class_queued[job.class as usize].saturating_sub(1);
        }
        if outcome == Outcome::Completed {
            if let Some(x) = slowdown(job.arrival, now, job.service) {
                self.samples.slowdown(x as f32, job.tenant, job.class);
            }
        }
        if outcome != Outcome::Unfinished {
            self.stats.makespan = self.stats.makespan.max(now);
        }
        if self.logging() {
            self.touch(job.tenant);
        }
        if let Some(w) = self.jobs.as_mut() {
            w.int(job.seq);
            w.text(&sc.tenants[job.tenant as usize].name);
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
            w.end()?;
        }
        Ok(())
    }

    /// Closes the current tick at its end time: writes its observation-log row
    /// and the tenant series, then opens the next tick with `free_now` idle workers.
    pub fn close_tick(
        &mut self,
        sc: &Scenario,
        loads: &[super::gate::TenantLoad],
        jobs: &JobTable,
        free_now: u32,
    ) -> Result<()> {
        let end = self.tick_end();
        self.close_window(end)?;
        if let Some(w) = self.ticks.as_mut() {
            let name = |t: TenantId| sc.tenants[t as usize].name.as_bytes();
            let cell = &mut self.cell;
            w.int(self.tick_index);
            w.secs(end);
            w.int(self.free_at_start as u64);
            self.waiting_sorted.clear();
            self.waiting_sorted.extend_from_slice(&self.waiting.items);
            self.waiting_sorted.sort_unstable();
            cell.clear();
            for &t in &self.waiting_sorted {
                list_sep(cell);
                cell.extend_from_slice(name(t));
                cell.push(b':');
                push_u64(cell, loads[t as usize].queued);
            }
            w.bytes(cell);
            cell.clear();
            for &t in &self.chosen {
                list_sep(cell);
                cell.extend_from_slice(name(t));
            }
            w.bytes(cell);
            cell.clear();
            for &(t, r) in &self.skipped {
                list_sep(cell);
                cell.extend_from_slice(name(t));
                cell.push(b':');
                cell.extend_from_slice(r.as_str().as_bytes());
            }
            w.bytes(cell);
            cell.clear();
            for &t in &self.seen {
                list_sep(cell);
                cell.extend_from_slice(name(t));
                cell.push(b':');
                push_u64(cell, loads[t as usize].completed);
            }
            w.bytes(cell);
            w.end()?;
        }
        if let Some(w) = self.class_series.as_mut() {
            for c in 0..self.class_seen.len() {
                if !self.class_seen[c] {
                    continue;
                }
                let age = oldest_claimable(&mut self.class_oldest[c], jobs, end);
                w.secs(end);
                w.text(&sc.classes[c].name);
                w.int(self.class_queued[c]);
                w.int(self.class_running[c] as u64);
                w.int(self.stats.classes[c].completed);
                match age {
                    Some(a) => w.secs(a),
                    None => w.empty(),
                }
                w.end()?;
            }
        }
        if let Some(w) = self.series.as_mut() {
            self.touched.sort_unstable();
            for &t in &self.touched {
                let age = oldest_claimable(&mut self.oldest[t as usize], jobs, end);
                let l = &loads[t as usize];
                w.secs(end);
                w.text(&sc.tenants[t as usize].name);
                w.int(l.queued);
                w.int(l.running as u64);
                w.int(l.completed);
                match age {
                    Some(a) => w.secs(a),
                    None => w.empty(),
                }
                w.end()?;
            }
            // a tenant stays in the series while it has work
            let mut keep = Vec::new();
            for &t in &self.touched {
                let l = &loads[t as usize];
                if l.queued > 0 || l.running > 0 {
                    keep.push(t);
                } else {
                    self.is_touched[t as usize] = false;
                }
            }
            self.touched = keep;
        }
        self.chosen.clear();
        self.skipped.clear();
        self.tick_index += 1;
        self.free_at_start = free_now;
        Ok(())
    }

    /// Closes the fairness window that ends at `end` (one tick): Jain's index
    /// on service received against max-min entitlement (see
    /// [`crate::metrics::fairness`]); windows with fewer than two backlogged
    /// tenants are written with an empty `jain` and not counted.
    fn close_window(&mut self, end: Time) -> Result<()> {
        let w = self.fair_tenants.close(end, self.tick);
        self.fair_classes.close(end, self.tick);
        if let Some(j) = w.jain {
            self.stats.jain_windows.push(j);
        }
        if let Some(f) = self.fairness.as_mut() {
            f.secs(end);
            match w.jain {
                Some(j) => f.text(&format!("{j:.6}")),
                None => f.empty(),
            }
            f.int(w.backlogged as u64);
            f.end()?;
        }
        Ok(())
    }

    /// Keeps the set of waiting tenants for the `waiting` cell of ticks.csv
    /// (not kept without logs: one more random access per event with 100,000 tenants).
    fn set_waiting(&mut self, t: TenantId, waiting: bool) {
        match (self.logging(), waiting) {
            (false, _) => {}
            (true, true) => self.waiting.insert(t),
            (true, false) => self.waiting.remove(t),
        }
    }

    /// Flushes the logs and computes the wait and slowdown figures.
    pub fn finish(mut self, loads: &[TenantLoad]) -> Result<RunStats> {
        for w in [
            self.jobs.as_mut(),
            self.ticks.as_mut(),
            self.series.as_mut(),
            self.class_series.as_mut(),
            self.fairness.as_mut(),
        ]
        .into_iter()
        .flatten()
        {
            w.flush().map_err(|e| Error::io("flushing CSV", e))?;
        }
        // idle claimants' entitlement is settled lazily (see ServiceWindows)
        self.fair_tenants.settle();
        self.fair_classes.settle();
        for (g, (r, e)) in self
            .stats
            .tenants
            .iter_mut()
            .zip(self.fair_tenants.received_totals().into_iter().zip(self.fair_tenants.entitled_totals()))
        {
            g.received = r;
            g.entitled = e;
        }
        for (g, (r, e)) in self
            .stats
            .classes
            .iter_mut()
            .zip(self.fair_classes.received_totals().into_iter().zip(self.fair_classes.entitled_totals()))
        {
            g.received = r;
            g.entitled = e;
        }
        self.stats.all.received = self.fair_tenants.received_totals().iter().sum();
        self.stats.all.entitled = self.fair_tenants.entitled_totals().iter().sum();
        self.samples.finish(&mut self.stats.all, &mut self.stats.tenants, &mut self.stats.classes);
        for (g, l) in self.stats.tenants.iter_mut().zip(loads) {
            // Every attempt ran inside closed windows (the last window closes
            // after the last event), so the service a tenant received there is
            // the sum of its attempts' service: whole microseconds, summed
            // exactly. Read from there so no per-tenant array is touched per job.
            g.service = g.received as Time;
            g.completed += l.completed;
        }
        debug_assert_eq!(
            self.stats.tenants.iter().map(|g| g.service).sum::<Time>(),
            self.stats.all.service,
            "tenant service from the fairness windows differs from the attempts' service"
        );
        for g in
            std::iter::once(&mut self.stats.all).chain(&mut self.stats.tenants).chain(&mut self.stats.classes)
        {
            g.jobs = g.completed + g.failed + g.rejected + g.expired + g.unfinished;
            g.oldest_age_max = g.oldest_age_max.max(g.wait_max().unwrap_or(0));
        }
        Ok(self.stats)
    }
}

/// Age at `end` of the oldest job still claimable in `q` (a queue in
/// claimable order whose started or re-queued entries are dropped lazily
/// here), or `None` when none is.
fn oldest_claimable(q: &mut VecDeque<(u64, Slot, Time)>, jobs: &JobTable, end: Time) -> Option<Time> {
    while let Some(&(seq, slot, ready)) = q.front() {
        let j = jobs.get(slot);
        if j.seq == seq && j.state == JobState::Queued && j.ready == ready {
            break;
        }
        q.pop_front();
    }
    q.front().map(|&(_, _, ready)| end - ready)
}

/// A set of tenant ids with O(1) insert and remove (unordered).
struct DenseSet {
    items: Vec<TenantId>,
    pos: Vec<u32>,
}

impl DenseSet {
    fn new(n: usize) -> Self {
        DenseSet { items: Vec::new(), pos: vec![u32::MAX; n] }
    }
    fn insert(&mut self, t: TenantId) {
        if self.pos[t as usize] == u32::MAX {
            self.pos[t as usize] = self.items.len() as u32;
            self.items.push(t);
        }
    }
    fn remove(&mut self, t: TenantId) {
        let p = self.pos[t as usize];
        if p != u32::MAX {
            self.items.swap_remove(p as usize);
            if let Some(&moved) = self.items.get(p as usize) {
                self.pos[moved as usize] = p;
            }
            self.pos[t as usize] = u32::MAX;
        }
    }
}

/// Space between the items of a list cell.
fn list_sep(cell: &mut Vec<u8>) {
    if !cell.is_empty() {
        cell.push(b' ');
    }
}

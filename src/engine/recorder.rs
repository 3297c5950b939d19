//! Accounting and the per-run logs: the observation log (`ticks.csv`), the
//! per-job records (`jobs.csv`), the tenant time series (`tenants.csv`), and
//! the statistics behind `summary.csv`. Rows stream to disk as they happen.

use std::collections::{BTreeSet, VecDeque};

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use crate::error::{Error, Result};
use crate::metrics::GroupStats;
use crate::scenario::{Scenario, TenantId};
use crate::time::{fmt_secs, Time};

use super::gate::Skip;
use super::job::{Job, JobState, JobTable, Outcome, Slot};

type Csv = csv::Writer<BufWriter<File>>;

fn open_csv(dir: &Path, name: &str, header: &[&str]) -> Result<Csv> {
    let path = dir.join(name);
    let file = File::create(&path).map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
    let mut w = csv::Writer::from_writer(BufWriter::with_capacity(1 << 16, file));
    w.write_record(header).map_err(csv_err)?;
    Ok(w)
}

fn csv_err(e: csv::Error) -> Error {
    Error::Other(format!("writing CSV: {e}"))
}

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
    /// Dispatches per tenant in each fairness window (the log tick), for Jain's index.
    pub jain_windows: Vec<f64>,
    /// The engine's self-check, when it was turned on.
    pub audit: Option<super::audit::Audit>,
}

/// Live accounting for one run.
pub struct Recorder {
    pub stats: RunStats,
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
    /// Dispatches per tenant in the current tick (for the Jain window), and
    /// the tenants backlogged at some point in it.
    window_dispatch: Vec<u64>,
    window_in: Vec<bool>,
    window_touched: Vec<TenantId>,
    weights: Vec<f64>,
    jobs: Option<Csv>,
    ticks: Option<Csv>,
    series: Option<Csv>,
}

impl Recorder {
    /// A recorder writing its logs into `dir`, or none at all when `dir` is `None`.
    pub fn new(sc: &Scenario, dir: Option<&Path>) -> Result<Self> {
        let n = sc.tenants.len();
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
            tick: sc.tick,
            tick_index: 1,
            free_at_start: sc.workers,
            chosen: Vec::new(),
            skipped: Vec::new(),
            seen: BTreeSet::new(),
            waiting: DenseSet::new(n),
            touched: Vec::new(),
            is_touched: vec![false; if logging { n } else { 0 }],
            oldest: if logging { vec![VecDeque::new(); n] } else { Vec::new() },
            window_dispatch: vec![0; n],
            window_in: vec![false; n],
            window_touched: Vec::new(),
            weights: sc.tenants.iter().map(|t| t.weight).collect(),
            jobs,
            ticks,
            series,
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

    pub fn on_arrival(&mut self, job: &Job) {
        self.stats.all.jobs += 1;
        self.stats.tenants[job.tenant as usize].jobs += 1;
        self.stats.classes[job.class as usize].jobs += 1;
        if self.logging() {
            self.seen.insert(job.tenant);
        }
    }

    /// A job became claimable. `queued` is its tenant's queue length after.
    pub fn on_queued(&mut self, job: &Job, slot: Slot, queued: u64) {
        if queued == 1 {
            self.waiting.insert(job.tenant);
        }
        self.window_join(job.tenant);
        if self.logging() {
            self.oldest[job.tenant as usize].push_back((job.seq, slot, job.ready));
            self.touch(job.tenant);
        }
    }

    /// A job started an attempt at `now`. `queued` is its tenant's queue length after.
    pub fn on_start(&mut self, job: &Job, now: Time, queued: u64) {
        let age = now - job.ready;
        for g in [
            &mut self.stats.all,
            &mut self.stats.tenants[job.tenant as usize],
            &mut self.stats.classes[job.class as usize],
        ] {
            g.oldest_age_max = g.oldest_age_max.max(age);
            if job.attempts == 1 {
                g.waits.push(age);
            }
        }
        self.window_join(job.tenant);
        self.window_dispatch[job.tenant as usize] += 1;
        if queued == 0 {
            self.waiting.remove(job.tenant);
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
        let _ = now;
        self.stats.busy += job.service as u128;
        self.stats.all.service += job.service;
        self.stats.tenants[job.tenant as usize].service += job.service;
        self.stats.classes[job.class as usize].service += job.service;
    }

    /// A queued job was dropped by the policy; `queued` is its tenant's queue length after.
    pub fn on_expired(&mut self, sc: &Scenario, job: &Job, now: Time, queued: u64) -> Result<()> {
        if queued == 0 {
            self.waiting.remove(job.tenant);
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
        for g in [
            &mut self.stats.all,
            &mut self.stats.tenants[job.tenant as usize],
            &mut self.stats.classes[job.class as usize],
        ] {
            g.count_outcome(outcome);
            g.sla_misses += sla_miss as u64;
            g.deadline_misses += deadline_miss as u64;
        }
        if outcome != Outcome::Unfinished {
            self.stats.makespan = self.stats.makespan.max(now);
        }
        if self.logging() {
            self.touch(job.tenant);
        }
        if let Some(w) = self.jobs.as_mut() {
            let (start, finish, wait) = match job.first_start {
                Some(s) if outcome != Outcome::Unfinished || job.state == JobState::Running => {
                    let fin = if outcome == Outcome::Unfinished { String::new() } else { fmt_secs(now) };
                    (fmt_secs(s), fin, fmt_secs(s - job.arrival))
                }
                _ => (String::new(), String::new(), String::new()),
            };
            w.write_record([
                job.seq.to_string().as_str(),
                sc.tenants[job.tenant as usize].name.as_str(),
                sc.classes[job.class as usize].name.as_str(),
                fmt_secs(job.arrival).as_str(),
                start.as_str(),
                finish.as_str(),
                wait.as_str(),
                fmt_secs(job.service).as_str(),
                job.attempts.to_string().as_str(),
                outcome.as_str(),
            ])
            .map_err(csv_err)?;
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
        self.close_window(loads);
        if let Some(w) = self.ticks.as_mut() {
            let name = |t: TenantId| sc.tenants[t as usize].name.as_str();
            let mut waiting_ids = self.waiting.items.clone();
            waiting_ids.sort_unstable();
            let waiting =
                join(waiting_ids.iter().map(|&t| format!("{}:{}", name(t), loads[t as usize].queued)));
            let chosen = join(self.chosen.iter().map(|&t| name(t).to_string()));
            let skipped = join(self.skipped.iter().map(|&(t, r)| format!("{}:{}", name(t), r.as_str())));
            let completed = join(
                self.seen
                    .iter()
                    .map(|&t| format!("{}:{}", name(t), self.stats.tenants[t as usize].completed)),
            );
            w.write_record([
                self.tick_index.to_string(),
                fmt_secs(end),
                self.free_at_start.to_string(),
                waiting,
                chosen,
                skipped,
                completed,
            ])
            .map_err(csv_err)?;
        }
        if let Some(w) = self.series.as_mut() {
            self.touched.sort_unstable();
            for &t in &self.touched {
                let q = &mut self.oldest[t as usize];
                while let Some(&(seq, slot, ready)) = q.front() {
                    let j = jobs.get(slot);
                    if j.seq == seq && j.state == JobState::Queued && j.ready == ready {
                        break;
                    }
                    q.pop_front();
                }
                let age = q.front().map(|&(_, _, ready)| fmt_secs(end - ready)).unwrap_or_default();
                let l = &loads[t as usize];
                w.write_record([
                    fmt_secs(end),
                    sc.tenants[t as usize].name.clone(),
                    l.queued.to_string(),
                    l.running.to_string(),
                    self.stats.tenants[t as usize].completed.to_string(),
                    age,
                ])
                .map_err(csv_err)?;
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

    fn window_join(&mut self, t: TenantId) {
        if !self.window_in[t as usize] {
            self.window_in[t as usize] = true;
            self.window_touched.push(t);
        }
    }

    /// Fairness window (one tick). Over the tenants that had claimable work
    /// during it: demand = jobs dispatched + jobs still queued at its end;
    /// entitlement = weighted max-min share (water-filling) of the dispatches
    /// actually made; x = dispatched / entitlement; Jain's index of x.
    /// Windows with fewer than two entitled tenants are not counted.
    fn close_window(&mut self, loads: &[super::gate::TenantLoad]) {
        if self.window_touched.len() >= 2 {
            let got: Vec<f64> =
                self.window_touched.iter().map(|&t| self.window_dispatch[t as usize] as f64).collect();
            let demand: Vec<f64> = self
                .window_touched
                .iter()
                .zip(&got)
                .map(|(&t, g)| g + loads[t as usize].queued as f64)
                .collect();
            let weights: Vec<f64> = self.window_touched.iter().map(|&t| self.weights[t as usize]).collect();
            let capacity: f64 = got.iter().sum();
            let ent = crate::metrics::fairness::water_fill(&demand, &weights, capacity);
            let x: Vec<f64> = got.iter().zip(&ent).filter(|(_, e)| **e > 1e-9).map(|(g, e)| g / e).collect();
            if x.len() >= 2 {
                if let Some(j) = crate::metrics::fairness::jain(&x) {
                    self.stats.jain_windows.push(j);
                }
            }
        }
        for &t in &self.window_touched {
            self.window_dispatch[t as usize] = 0;
            self.window_in[t as usize] = false;
        }
        self.window_touched.clear();
        // tenants still waiting are backlogged in the next window too
        for i in 0..self.waiting.items.len() {
            let t = self.waiting.items[i];
            self.window_join(t);
        }
    }

    /// Flushes the logs and sorts the statistics.
    pub fn finish(mut self) -> Result<RunStats> {
        for w in [self.jobs.as_mut(), self.ticks.as_mut(), self.series.as_mut()].into_iter().flatten() {
            w.flush().map_err(|e| Error::io("flushing CSV", e))?;
        }
        self.stats.all.finish();
        self.stats.tenants.iter_mut().for_each(|g| g.finish());
        self.stats.classes.iter_mut().for_each(|g| g.finish());
        Ok(self.stats)
    }
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

fn join(it: impl Iterator<Item = String>) -> String {
    let mut s = String::new();
    for (i, x) in it.enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&x);
    }
    s
}

//! The per-tick time series for plotting: `tenants.csv` (a row for each
//! tenant with work in the tick) and `classes.csv` (a row for each class
//! seen so far), each with queued, running and completed jobs and the age
//! of the oldest claimable job (the early-warning counter of the
//! priority-classes article, docs/background.md).

use std::collections::VecDeque;
use std::path::Path;

use crate::core::{Job, JobState, JobTable, Slot, TenantLoad};
use crate::error::Result;
use crate::model::{Scenario, TenantId};
use crate::time::Time;

use super::csv_rows::{open_csv, Csv};
use crate::accounting::groups::GroupStats;
use crate::sparse_queues::SparseQueues;

/// Queued jobs of one group in claimable order: (job id, slot, claimable
/// since). Entries of jobs that started or were re-queued since are dropped
/// lazily when the front is read.
type ClaimQueue = VecDeque<(u64, Slot, Time)>;

const HEADER: [&str; 6] = ["time", "", "queued", "running", "completed", "oldest_age"];

pub struct Series {
    tenants: Csv,
    classes: Csv,
    /// Tenants with work in the current tick, in first-touch order.
    touched: Vec<TenantId>,
    is_touched: Vec<bool>,
    oldest: SparseQueues<(u64, Slot, Time)>,
    class_queued: Vec<u64>,
    class_running: Vec<u32>,
    class_seen: Vec<bool>,
    class_oldest: Vec<ClaimQueue>,
}

fn header(group: &'static str) -> [&'static str; 6] {
    let mut h = HEADER;
    h[1] = group;
    h
}

impl Series {
    pub fn new(sc: &Scenario, dir: &Path) -> Result<Self> {
        let (n, c) = (sc.tenants.len(), sc.classes.len());
        Ok(Series {
            classes: open_csv(dir, "classes.csv", &header("class"))?,
            tenants: open_csv(dir, "tenants.csv", &header("tenant"))?,
            touched: Vec::new(),
            is_touched: vec![false; n],
            oldest: SparseQueues::new(n),
            class_queued: vec![0; c],
            class_running: vec![0; c],
            class_seen: vec![false; c],
            class_oldest: vec![VecDeque::new(); c],
        })
    }

    /// Lists the tenant in this tick's rows.
    pub fn touch(&mut self, t: TenantId) {
        if !self.is_touched[t as usize] {
            self.is_touched[t as usize] = true;
            self.touched.push(t);
        }
    }

    /// A tenant arriving is listed even when admission defers its job
    /// (not queued), so every tenant ticks.csv has seen has a row.
    pub fn on_arrival(&mut self, job: &Job) {
        self.class_seen[job.class as usize] = true;
        self.touch(job.tenant);
    }

    pub fn on_queued(&mut self, job: &Job, slot: Slot) {
        self.class_queued[job.class as usize] += 1;
        self.oldest.push_back(job.tenant as usize, (job.seq, slot, job.ready));
        self.class_oldest[job.class as usize].push_back((job.seq, slot, job.ready));
        self.touch(job.tenant);
    }

    /// The job just queued goes to its place by claimable time.
    pub fn put_in_place(&mut self, job: &Job) {
        in_place(self.oldest.get_mut(job.tenant as usize));
        in_place(&mut self.class_oldest[job.class as usize]);
    }

    pub fn on_start(&mut self, job: &Job) {
        self.class_queued[job.class as usize] -= 1;
        self.class_running[job.class as usize] += 1;
        self.touch(job.tenant);
    }

    pub fn on_attempt_end(&mut self, job: &Job) {
        self.class_running[job.class as usize] -= 1;
    }

    /// A queued job left without starting (expired).
    pub fn on_dropped(&mut self, job: &Job) {
        let q = &mut self.class_queued[job.class as usize];
        *q = q.saturating_sub(1);
    }

    /// Writes the rows of the tick ending at `end`.
    pub fn close(
        &mut self,
        sc: &Scenario,
        loads: &[TenantLoad],
        jobs: &JobTable,
        classes: &[GroupStats],
        end: Time,
    ) -> Result<()> {
        for (c, seen) in self.class_seen.iter().enumerate() {
            if !seen {
                continue;
            }
            let age = oldest_claimable(&mut self.class_oldest[c], jobs, end);
            let w = &mut self.classes;
            w.secs(end);
            w.text(&sc.classes[c].name);
            w.int(self.class_queued[c]);
            w.int(self.class_running[c] as u64);
            w.int(classes[c].completed);
            match age {
                Some(a) => w.secs(a),
                None => w.empty(),
            }
            w.end()?;
        }
        self.touched.sort_unstable();
        for &t in &self.touched {
            let age = oldest_claimable(self.oldest.get_mut(t as usize), jobs, end);
            let l = &loads[t as usize];
            let w = &mut self.tenants;
            w.secs(end);
            w.tenant(&sc.tenants, t);
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
        let is_touched = &mut self.is_touched;
        self.touched.retain(|&t| {
            let l = &loads[t as usize];
            let keep = l.queued > 0 || l.running > 0;
            is_touched[t as usize] = keep;
            keep
        });
        Ok(())
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.tenants.flush()?;
        self.classes.flush()
    }
}

/// Moves the entry at the back of `q` to its place by claimable time
/// (after the entries of equal time; entries are pushed in claimable order
/// otherwise, so `q` stays sorted).
pub(super) fn in_place(q: &mut ClaimQueue) {
    if let Some(e) = q.pop_back() {
        let i = q.partition_point(|x| x.2 <= e.2);
        q.insert(i, e);
    }
}

/// Age at `end` of the oldest job still claimable in `q`, or `None` when none is.
pub(super) fn oldest_claimable(q: &mut ClaimQueue, jobs: &JobTable, end: Time) -> Option<Time> {
    while let Some(&(seq, slot, ready)) = q.front() {
        if jobs.try_get(slot).is_some_and(|j| j.seq == seq && j.state == JobState::Queued && j.ready == ready)
        {
            break;
        }
        q.pop_front();
    }
    q.front().map(|&(_, _, ready)| end - ready)
}

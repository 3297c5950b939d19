//! `queues.csv`: per tick, a row for each queue of the run's topology with
//! work in the tick: jobs queued and running, jobs completed so far, and the
//! age of its oldest claimable job, the counter that shows one queue
//! starving while the others drain. Queues are sparse like `tenants.csv`:
//! a queue without work in a tick has no row (its depth and age are 0).

use std::collections::VecDeque;
use std::path::Path;

use crate::core::{Job, JobTable, Slot};
use crate::error::Result;
use crate::model::QueueId;
use crate::time::Time;

use super::csv_rows::{open_csv, Csv};
use super::series::oldest_claimable;

pub struct QueueSeries {
    csv: Csv,
    names: Vec<String>,
    queued: Vec<u64>,
    running: Vec<u32>,
    completed: Vec<u64>,
    /// Queued jobs in claimable order: (job id, slot, claimable since);
    /// started ones are dropped lazily when the front is read.
    oldest: Vec<VecDeque<(u64, Slot, Time)>>,
    touched: Vec<QueueId>,
    is_touched: Vec<bool>,
}

impl QueueSeries {
    pub fn new(names: &[String], dir: &Path) -> Result<Self> {
        let n = names.len();
        Ok(QueueSeries {
            csv: open_csv(
                dir,
                "queues.csv",
                &["time", "queue", "queued", "running", "completed", "oldest_age"],
            )?,
            names: names.to_vec(),
            queued: vec![0; n],
            running: vec![0; n],
            completed: vec![0; n],
            oldest: vec![VecDeque::new(); n],
            touched: Vec::new(),
            is_touched: vec![false; n],
        })
    }

    fn touch(&mut self, q: QueueId) {
        if !self.is_touched[q as usize] {
            self.is_touched[q as usize] = true;
            self.touched.push(q);
        }
    }

    /// The job was placed in its queue (`job.queue`).
    pub fn on_queued(&mut self, job: &Job, slot: Slot) {
        let q = job.queue;
        self.queued[q as usize] += 1;
        self.oldest[q as usize].push_back((job.seq, slot, job.ready));
        self.touch(q);
    }

    /// The job just queued goes to its place by claimable time.
    pub fn put_in_place(&mut self, job: &Job) {
        super::series::in_place(&mut self.oldest[job.queue as usize]);
    }

    pub fn on_start(&mut self, job: &Job) {
        let q = job.queue as usize;
        self.queued[q] -= 1;
        self.running[q] += 1;
        self.touch(job.queue);
    }

    pub fn on_attempt_end(&mut self, job: &Job) {
        self.running[job.queue as usize] -= 1;
    }

    pub fn on_completed(&mut self, job: &Job) {
        self.completed[job.queue as usize] += 1;
    }

    /// A queued job left without starting (expired).
    pub fn on_dropped(&mut self, job: &Job) {
        let q = &mut self.queued[job.queue as usize];
        *q = q.saturating_sub(1);
    }

    /// Writes the rows of the tick ending at `end`.
    pub fn close(&mut self, jobs: &JobTable, end: Time) -> Result<()> {
        self.touched.sort_unstable();
        for &q in &self.touched {
            let i = q as usize;
            let age = oldest_claimable(&mut self.oldest[i], jobs, end);
            let w = &mut self.csv;
            w.secs(end);
            w.text(&self.names[i]);
            w.int(self.queued[i]);
            w.int(u64::from(self.running[i]));
            w.int(self.completed[i]);
            match age {
                Some(a) => w.secs(a),
                None => w.empty(),
            }
            w.end()?;
        }
        let (queued, running, is_touched) = (&self.queued, &self.running, &mut self.is_touched);
        self.touched.retain(|&q| {
            let keep = queued[q as usize] > 0 || running[q as usize] > 0;
            is_touched[q as usize] = keep;
            keep
        });
        Ok(())
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.csv.flush()
    }
}

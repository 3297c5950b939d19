//! Runs every (point, seed, policy) of a sweep on a pool of threads.
//!
//! Each run has a fixed index, `(point x seeds + seed) x policies + policy`;
//! [`crate::pool`] puts the results back in index order, so what is written
//! does not depend on which thread ran what (nor, later, on which machine: a
//! shard is a set of indices).

use crate::error::Result;
use crate::model::Scenario;
use crate::results::{Comparison, PolicyResult};
use crate::run::simulate;

/// The figures of one run: its `comparison.csv` row and the mean wait of all jobs.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub comparison: Comparison,
    pub wait_mean: Option<crate::results::MeanSecs>,
}

/// Where a run sits in the sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunIndex {
    pub point: usize,
    /// k in 0..seeds: the run's seed is the scenario's seed + k.
    pub seed: usize,
    pub policy: usize,
}

/// The shape of a sweep: how many points, seeds and policies.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub points: usize,
    pub seeds: usize,
    pub policies: usize,
}

impl Shape {
    pub fn runs(&self) -> usize {
        self.points * self.seeds * self.policies
    }

    pub fn index(&self, i: usize) -> RunIndex {
        RunIndex {
            point: i / (self.seeds * self.policies),
            seed: (i / self.policies) % self.seeds,
            policy: i % self.policies,
        }
    }
}

impl RunResult {
    /// What a sweep keeps of a run's figures.
    pub fn of(result: PolicyResult) -> RunResult {
        let wait_mean = result.groups.first().and_then(|g| g.wait_mean);
        RunResult { comparison: result.comparison, wait_mean }
    }
}

/// Simulates run `i` (point's scenario, seed + k, the policy) and keeps
/// what `keep` takes of its figures.
fn run_one<T>(
    points: &[Scenario],
    shape: Shape,
    i: usize,
    keep: &(dyn Fn(PolicyResult) -> T + Sync),
) -> Result<T> {
    let at = shape.index(i);
    let mut sc = points[at.point].clone();
    sc.seed = sc.seed.wrapping_add(at.seed as u64);
    let spec = &sc.policies[at.policy];
    let stats = simulate(&sc, spec, None, None, false)?;
    Ok(keep(PolicyResult::new(spec, &sc.for_run(spec), &stats)))
}

/// Runs all of `shape`'s runs on `threads` threads; `done` is called after
/// each run with the number finished so far. On a failure the remaining
/// runs are skipped and the failure of the lowest index is returned.
pub fn run_all(
    points: &[Scenario],
    shape: Shape,
    threads: usize,
    done: &(dyn Fn(usize) + Sync),
) -> Result<Vec<RunResult>> {
    run_all_with(points, shape, threads, done, &RunResult::of)
}

/// Runs the runs numbered `indices` (a shard's), as [`run_all`] does;
/// the results in the order of `indices`.
pub fn run_some(
    points: &[Scenario],
    shape: Shape,
    indices: &[usize],
    threads: usize,
    done: &(dyn Fn(usize) + Sync),
) -> Result<Vec<RunResult>> {
    run_some_with(points, shape, indices, threads, done, &RunResult::of)
}

/// [`run_all`], keeping of each run what `keep` takes (`tune` keeps the
/// figures of the groups its requirements name; a sweep keeps only the
/// comparison row, so its memory does not grow with the tenants).
pub fn run_all_with<T: Send>(
    points: &[Scenario],
    shape: Shape,
    threads: usize,
    done: &(dyn Fn(usize) + Sync),
    keep: &(dyn Fn(PolicyResult) -> T + Sync),
) -> Result<Vec<T>> {
    let all: Vec<usize> = (0..shape.runs()).collect();
    run_some_with(points, shape, &all, threads, done, keep)
}

/// [`run_some`] with what is kept of each run chosen by `keep`.
fn run_some_with<T: Send>(
    points: &[Scenario],
    shape: Shape,
    indices: &[usize],
    threads: usize,
    done: &(dyn Fn(usize) + Sync),
    keep: &(dyn Fn(PolicyResult) -> T + Sync),
) -> Result<Vec<T>> {
    crate::pool::map(indices.len(), threads, &|i| run_one(points, shape, indices[i], keep), done)
}

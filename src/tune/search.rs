//! Which points are evaluated, and their evaluation: a batch of points is
//! one sweep (every seed of every point through the sweep's runner, on all
//! threads), each point's figures become Student t intervals, and the
//! intervals are judged against the requirements.
//!
//! Two searches: the grid evaluates every combination of the values in one
//! batch; bisection, for one parameter whose pass/fail is monotone, tries
//! both ends, then halves the stretch between a failing and a passing value
//! until they are neighbours: at most 2 + ceil(log2(n - 1)) of n values.

use std::path::Path;

use super::metric::Metric;
use super::param::{Param, Values};
use super::require::Requirement;
use crate::error::{Error, Result};
use crate::model::Scenario;
use crate::results::PolicyResult;
use crate::scenario;
use crate::sweep::grid::{Grid, Node};
use crate::sweep::runner::{self, RunResult, Shape};
use crate::sweep::stats::Estimate;

/// One evaluated point.
#[derive(Debug, Clone)]
pub struct Evaluated {
    /// The value index of each parameter.
    pub coords: Vec<usize>,
    /// The batch it was run in, from 1: the order of the search.
    pub step: usize,
    /// Its runs, seed by seed (what `runs.csv` writes).
    pub runs: Vec<RunResult>,
    /// Per metric: mean and interval over the seeds that measured it.
    pub estimates: Vec<Option<Estimate>>,
    /// Per requirement: the end of the interval judged, if any.
    pub judged: Vec<Option<f64>>,
    pub pass: Vec<bool>,
}

impl Evaluated {
    pub fn accepted(&self) -> bool {
        self.pass.iter().all(|&p| p)
    }

    /// The requirement nearest to failing (or failing by most), relative to
    /// its bound; an unmeasured one counts as failing.
    pub fn tightest(&self, reqs: &[Requirement]) -> Option<usize> {
        let slack = |i: usize| self.judged[i].map_or(f64::NEG_INFINITY, |j| reqs[i].relative_slack(j));
        (0..reqs.len()).min_by(|&a, &b| slack(a).total_cmp(&slack(b)))
    }
}

/// What an evaluation needs.
pub struct Context<'a> {
    pub path: &'a Path,
    pub tree: &'a Node,
    pub params: &'a [Param],
    pub select: &'a dyn Fn(&mut Scenario) -> Result<()>,
    pub seeds: usize,
    pub threads: usize,
    pub metrics: &'a [Metric],
    pub requirements: &'a [Requirement],
    /// Requirement i reads metric `metric_of[i]`.
    pub metric_of: &'a [usize],
}

impl Context<'_> {
    /// `k1=v1, k2=v2` for a point.
    pub fn name(&self, coords: &[usize]) -> String {
        let pairs: Vec<String> =
            self.params.iter().zip(coords).map(|(p, &i)| format!("{}={}", p.key, p.value(i))).collect();
        pairs.join(", ")
    }

    /// The scenario with the given (parameter, value index) assignments, its
    /// policy selected and built, so a value the loader or the policy
    /// refuses fails before the batch runs.
    fn scenario(&self, assign: &[(usize, usize)]) -> Result<Scenario> {
        let grid = Grid { axes: assign.iter().map(|&(p, i)| self.params[p].axis(&[i])).collect() };
        let at: Vec<(usize, usize)> = (0..assign.len()).map(|a| (a, 0)).collect();
        let refused = |why: String| match assign {
            [(p, i)] => {
                let p = &self.params[*p];
                Error::Usage(format!("{}: {} = {} is refused: {why}", p.option(), p.key, p.value(*i)))
            }
            _ => {
                let coords: Vec<usize> = assign.iter().map(|a| a.1).collect();
                Error::Usage(format!("the point {} is refused: {why}", self.name(&coords)))
            }
        };
        let text = grid.text_with(self.tree, &at).map_err(refused)?;
        let mut sc = scenario::load_str(&text, self.path).map_err(|e| refused(message(e)))?;
        // the loader and the selection build every policy once (the gate)
        (self.select)(&mut sc).map_err(|e| match e {
            // a policy named with default parameters that the gate refused
            Error::Input { .. } => refused(message(e)),
            other => other,
        })?;
        Ok(sc)
    }

    /// Tries each value alone before any run: every value of a list, the
    /// ends of a range (a range is not spelt out: it may be long, and its
    /// middle values are checked when evaluated).
    pub fn check_values(&self) -> Result<()> {
        for (p, param) in self.params.iter().enumerate() {
            let n = param.count();
            let indices: Vec<usize> = match param.values {
                Values::List(_) => (0..n).collect(),
                Values::Range(..) => vec![0, n - 1],
            };
            for i in indices {
                self.scenario(&[(p, i)])?;
            }
        }
        Ok(())
    }

    /// Runs the points of `batch` (each point every seed) and judges them.
    pub fn evaluate(&self, batch: &[Vec<usize>], step: usize) -> Result<Vec<Evaluated>> {
        let scenarios = batch
            .iter()
            .map(|c| self.scenario(&c.iter().copied().enumerate().collect::<Vec<_>>()))
            .collect::<Result<Vec<_>>>()?;
        let shape = Shape { points: batch.len(), seeds: self.seeds, policies: 1 };
        let metrics = self.metrics;
        // the figures of the named groups are read here, so a run with a
        // thousand tenants keeps a handful of numbers
        let keep = |r: PolicyResult| {
            let values: Vec<Option<f64>> = metrics.iter().map(|m| m.value(&r)).collect();
            (RunResult::of(r), values)
        };
        let mut results = runner::run_all_with(&scenarios, shape, self.threads, &|_| {}, &keep)?.into_iter();
        Ok(batch
            .iter()
            .map(|coords| {
                let (runs, values): (Vec<RunResult>, Vec<Vec<Option<f64>>>) =
                    results.by_ref().take(self.seeds).unzip();
                let estimates: Vec<Option<Estimate>> = (0..metrics.len())
                    .map(|m| Estimate::of(&values.iter().filter_map(|v| v[m]).collect::<Vec<f64>>()))
                    .collect();
                let judged: Vec<Option<f64>> = self
                    .requirements
                    .iter()
                    .zip(self.metric_of)
                    .map(|(r, &m)| r.judged(estimates[m].as_ref()))
                    .collect();
                let pass = self
                    .requirements
                    .iter()
                    .zip(&judged)
                    .map(|(r, j)| j.is_some_and(|j| r.passes(j)))
                    .collect();
                Evaluated { coords: coords.clone(), step, runs, estimates, judged, pass }
            })
            .collect())
    }
}

/// What a refused scenario says, without the place in the generated text
/// (which is not the user's file).
fn message(e: Error) -> String {
    match e {
        Error::Input { message, .. } => message,
        other => other.to_string(),
    }
}

/// Every combination of the parameters' values, the last varying fastest.
pub fn grid_points(params: &[Param]) -> Vec<Vec<usize>> {
    let mut points = vec![Vec::new()];
    for p in params {
        points = points
            .into_iter()
            .flat_map(|c| (0..p.count()).map(move |i| [c.clone(), vec![i]].concat()))
            .collect();
    }
    points
}

/// Which end of the values the objective prefers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefer {
    Low,
    High,
}

/// Bisection over value indices `0..n` of a pass/fail that is monotone
/// (the passing values are a prefix or a suffix); `eval` judges a batch of
/// indices. The passing index nearest the preferred end, `None` when
/// neither end passes.
pub fn bisect(
    n: usize,
    prefer: Prefer,
    eval: &mut dyn FnMut(&[usize]) -> Result<Vec<bool>>,
) -> Result<Option<usize>> {
    if n == 1 {
        return Ok(eval(&[0])?[0].then_some(0));
    }
    let ends = eval(&[0, n - 1])?;
    let (mut fail, mut pass) = match (ends[0], ends[1], prefer) {
        (false, false, _) => return Ok(None),
        (true, true, Prefer::Low) | (true, false, Prefer::Low) => return Ok(Some(0)),
        (true, true, Prefer::High) | (false, true, Prefer::High) => return Ok(Some(n - 1)),
        (false, true, Prefer::Low) => (0, n - 1),
        (true, false, Prefer::High) => (n - 1, 0),
    };
    // `fail` fails and `pass` passes; the boundary lies between them
    while fail.abs_diff(pass) > 1 {
        let mid = fail.min(pass) + fail.abs_diff(pass) / 2;
        if eval(&[mid])?[0] {
            pass = mid;
        } else {
            fail = mid;
        }
    }
    Ok(Some(pass))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bisection on a threshold, counting the values it evaluates.
    fn run(n: usize, prefer: Prefer, passes: impl Fn(usize) -> bool) -> (Option<usize>, usize) {
        let mut count = 0;
        let found = bisect(n, prefer, &mut |b: &[usize]| {
            count += b.len();
            Ok(b.iter().map(|&i| passes(i)).collect())
        })
        .unwrap();
        (found, count)
    }

    #[test]
    fn bisection_finds_the_boundary_in_logarithmic_evaluations() {
        // 16 values, passing from index 4: the ends, then mids 7, 3, 5, 4
        // (ceil(log2 15) = 4 halvings): 6 evaluations
        assert_eq!(run(16, Prefer::Low, |i| i >= 4), (Some(4), 6));
        // every boundary of 1000 values within 2 + ceil(log2 999) = 12
        for b in 1..1000 {
            let (found, count) = run(1000, Prefer::Low, |i| i >= b);
            assert_eq!(found, Some(b));
            assert!(count <= 12, "boundary {b}: {count}");
            // the mirror image: passing up to b - 1, the largest wanted
            assert_eq!(run(1000, Prefer::High, |i| i < b).0, Some(b - 1));
        }
        // the preferred end passing needs no halving; nothing passing is None
        assert_eq!(run(16, Prefer::High, |i| i >= 4), (Some(15), 2));
        assert_eq!(run(16, Prefer::Low, |_| false), (None, 2));
        assert_eq!(run(1, Prefer::Low, |_| true), (Some(0), 1));
    }

    #[test]
    fn grid_varies_the_last_parameter_fastest() {
        let p = |s: &str| Param::parse(s, false).unwrap();
        let pts = grid_points(&[p("a=1..2"), p("b=x,y,z")]);
        assert_eq!(pts, [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
    }
}

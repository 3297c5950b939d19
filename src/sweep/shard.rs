//! `--shard I/N`: which runs of a sweep one machine makes, and the folder it
//! leaves for `fairsim merge`.
//!
//! The unit of work is a (point, seed) pair, numbered `point x seeds + k`;
//! shard I takes the pairs whose number is I modulo N, each with all its
//! policies, so the policies compared at a seed run on one machine from the
//! same arrivals, and the points (which may differ a lot in cost, e.g.
//! `workers=8,32`) are spread evenly over the shards.
//!
//! A shard folder holds `runs.csv` (its rows, in run-index order),
//! `manifest.json` (the sweep's manifest plus `shard`) and `scenario.yaml`;
//! no `sweep.csv` or `paired.csv`: intervals over a shard's few seeds per
//! point would be results no one should read, and `merge` computes them
//! from all the runs.

use std::path::Path;

use super::output::{self, RunsTable};
use super::runner::Shape;
use crate::error::{Error, Result};

/// The environment variable that gives the shard count to `--shard auto`
/// in a Kubernetes Indexed Job (whose pods see only their index).
pub const COUNT_VAR: &str = "FAIRSIM_SHARD_COUNT";

/// Shard `index` of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

const FORMS: &str = "write --shard I/N (whole numbers, 0 <= I < N), --shard auto or --shard auto/N";

fn usage<T>(spec: &str, why: &str) -> Result<T> {
    Err(Error::Usage(format!("--shard {spec}: {why}")))
}

fn whole(text: &str) -> Option<usize> {
    let t = text.trim();
    (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())).then(|| t.parse().ok()).flatten()
}

impl Shard {
    /// Reads `--shard`'s value; `env` looks up an environment variable
    /// (for `auto`: Slurm's array variables or Kubernetes' completion index).
    pub fn resolve(spec: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Shard> {
        let (first, count) = match spec.split_once('/') {
            Some((i, n)) => match whole(n) {
                Some(n) => (i.trim(), Some(n)),
                None => return usage(spec, &format!("the count `{n}` is not a whole number; {FORMS}")),
            },
            None => (spec.trim(), None),
        };
        if count == Some(0) {
            return usage(spec, "the count must be at least 1");
        }
        let shard = if first == "auto" {
            Shard::from_env(spec, count, env)?
        } else {
            let Some(index) = whole(first) else {
                return usage(spec, &format!("the index `{first}` is not a whole number; {FORMS}"));
            };
            let Some(count) = count else {
                return usage(spec, &format!("no count; {FORMS}"));
            };
            Shard { index, count }
        };
        if shard.index >= shard.count {
            return usage(
                spec,
                &format!(
                    "index {} is not below the count {} (indices are 0-based: 0/{n} ... {m}/{n})",
                    shard.index,
                    shard.count,
                    n = shard.count,
                    m = shard.count - 1
                ),
            );
        }
        Ok(shard)
    }

    /// `--shard auto[/N]`: a Slurm array task, else a Kubernetes Indexed Job's pod.
    fn from_env(spec: &str, count: Option<usize>, env: &dyn Fn(&str) -> Option<String>) -> Result<Shard> {
        let number = |var: &str| -> Result<Option<usize>> {
            match env(var) {
                None => Ok(None),
                Some(v) => match whole(&v) {
                    Some(n) => Ok(Some(n)),
                    None => usage(spec, &format!("{var}={v:?} is not a whole number")),
                },
            }
        };
        if let Some(index) = number("SLURM_ARRAY_TASK_ID")? {
            let Some(tasks) = number("SLURM_ARRAY_TASK_COUNT")? else {
                return usage(spec, "SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT (Slurm 17.11 or later sets both)");
            };
            // the array must be 0..N-1 with step 1, or the indices are not the shards
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let max = number("SLURM_ARRAY_TASK_MAX")?.unwrap_or(tasks.saturating_sub(1));
            if min != 0 || max + 1 != tasks {
                return usage(spec, &format!(
                    "the job array runs indices {min}..{max} as {tasks} tasks; submit it as --array=0-{} so that task I is shard I",
                    tasks.saturating_sub(1)
                ));
            }
            if let Some(n) = count.filter(|&n| n != tasks) {
                return usage(
                    spec,
                    &format!("the job array has {tasks} tasks (SLURM_ARRAY_TASK_COUNT), not {n}"),
                );
            }
            return Ok(Shard { index, count: tasks });
        }
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let count = match count {
                Some(n) => n,
                None => number(COUNT_VAR)?.ok_or_else(|| {
                    Error::Usage(format!(
                        "--shard {spec}: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but not the count: give --shard auto/N with N the Job's completions, or set {COUNT_VAR}"
                    ))
                })?,
            };
            if count == 0 {
                return usage(spec, &format!("{COUNT_VAR} must be at least 1"));
            }
            return Ok(Shard { index, count });
        }
        usage(
            spec,
            "neither SLURM_ARRAY_TASK_ID (a Slurm job array task) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job pod) is set; give --shard I/N",
        )
    }

    /// Checks that every shard gets work: more shards than (point, seed)
    /// pairs would leave some empty, a sign of a wrong count.
    pub fn check(&self, shape: Shape) -> Result<()> {
        let pairs = shape.points * shape.seeds;
        if self.count > pairs {
            return Err(Error::Usage(format!(
                "--shard {}/{}: the sweep has only {pairs} (point, seed) pairs ({} points x {} seeds), the unit a shard runs; use at most {pairs} shards",
                self.index, self.count, shape.points, shape.seeds
            )));
        }
        Ok(())
    }

    /// The run indices of this shard, increasing: every policy of the
    /// (point, seed) pairs numbered `index` modulo `count`.
    pub fn runs(&self, shape: Shape) -> Vec<usize> {
        (self.index..shape.points * shape.seeds)
            .step_by(self.count)
            .flat_map(|pair| pair * shape.policies..(pair + 1) * shape.policies)
            .collect()
    }
}

/// Writes a shard's folder: its runs, the sweep's manifest with `shard`
/// added (which `merge` checks and removes), and the scenario.
pub fn write_folder(
    dir: &Path,
    shard: Shard,
    table: &RunsTable,
    manifest: &serde_json::Value,
    scenario: &str,
) -> Result<()> {
    output::write_runs(&dir.join("runs.csv"), table)?;
    let mut manifest = manifest.clone();
    manifest["shard"] = serde_json::json!({
        "index": shard.index,
        "count": shard.count,
        "runs": table.rows.len(),
        "assignment": "the (point, seed) pairs whose number point x seeds + seed - first is index modulo count, every policy",
        "text_columns": table.text_columns(),
    });
    output::write_file(dir, "manifest.json", &format!("{manifest:#}\n"))?;
    output::write_file(dir, "scenario.yaml", scenario)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn explicit_and_auto_forms() {
        let none = env(&[]);
        assert_eq!(Shard::resolve("2/5", &none).unwrap(), Shard { index: 2, count: 5 });
        let slurm = env(&[("SLURM_ARRAY_TASK_ID", "3"), ("SLURM_ARRAY_TASK_COUNT", "4")]);
        assert_eq!(Shard::resolve("auto", &slurm).unwrap(), Shard { index: 3, count: 4 });
        assert!(Shard::resolve("auto/5", &slurm).is_err());
        let k8s = env(&[("JOB_COMPLETION_INDEX", "1")]);
        assert_eq!(Shard::resolve("auto/3", &k8s).unwrap(), Shard { index: 1, count: 3 });
        assert!(Shard::resolve("auto", &k8s).is_err());
        // --array=1-4: task ids 1..4, count 4; task 4 would be out of range
        let shifted = env(&[
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "4"),
        ]);
        assert!(Shard::resolve("auto", &shifted).is_err());
        for bad in ["3/3", "0/0", "x/2", "1/x", "1", "", "-1/2", "auto/0"] {
            assert!(Shard::resolve(bad, &none).is_err(), "{bad}");
        }
    }

    #[test]
    fn shards_partition_the_runs_pair_by_pair() {
        // 2 points x 3 seeds = 6 pairs over 4 shards: 0 -> pairs 0, 4;
        // 1 -> 1, 5; 2 -> 2; 3 -> 3. With 2 policies pair p is runs 2p, 2p+1.
        let shape = Shape { points: 2, seeds: 3, policies: 2 };
        let runs = |i| Shard { index: i, count: 4 }.runs(shape);
        assert_eq!(runs(0), [0, 1, 8, 9]);
        assert_eq!(runs(1), [2, 3, 10, 11]);
        assert_eq!(runs(2), [4, 5]);
        assert_eq!(runs(3), [6, 7]);
        assert!(Shard { index: 0, count: 7 }.check(shape).is_err());
        assert!(Shard { index: 0, count: 6 }.check(shape).is_ok());
    }
}

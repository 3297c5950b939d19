//! Runs every selected policy over the same workload and writes the results.

use std::path::{Path, PathBuf};

use crate::engine::{Engine, RunStats};
use crate::error::{Error, Result};
use crate::output::tables::{self, Headline};
use crate::output::StagedDir;
use crate::policy;
use crate::scenario::{PolicySpec, Scenario};
use crate::time::Time;
use crate::workload::ArrivalStream;

/// How much to write per policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Logs {
    /// Every CSV: ticks, jobs, tenants, summary.
    #[default]
    Full,
    /// Only `summary.csv` per policy and `comparison.csv`.
    Summary,
}

/// Options of one `fairsim run`.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub out: Option<PathBuf>,
    pub logs: Logs,
    /// Self-check caps and rotation at every dispatch; a violation fails the run.
    pub audit: bool,
    /// Skip the charts and `report.html`.
    pub no_plots: bool,
}

/// The outcome of one policy.
pub struct PolicyRun {
    pub spec: PolicySpec,
    pub stats: RunStats,
    pub headline: Headline,
}

/// Simulates one policy over the scenario's workload (no files unless `log_dir`).
pub fn simulate(
    sc: &Scenario,
    spec: &PolicySpec,
    log_dir: Option<&Path>,
    progress: Option<&dyn Fn(Time, u64)>,
    audit: bool,
) -> Result<RunStats> {
    let policy = policy::build(spec, sc).map_err(|m| Error::input(&sc.source, spec.line, 0, m))?;
    let mut engine = Engine::new(sc, policy, spec.spare, log_dir)?;
    if audit {
        engine = engine.with_audit(spec.kind == "round_robin");
    }
    if let Some(p) = progress {
        engine = engine.with_progress(p);
    }
    let mut stream = ArrivalStream::new(sc);
    let stats = engine.run(&mut stream)?;
    match stream.take_error() {
        Some(e) => Err(e),
        None => Ok(stats),
    }
}

/// Runs every policy of `sc` and writes the results folder; returns the
/// runs and the folder.
pub fn run_all(
    sc: &Scenario,
    opts: &RunOptions,
    progress: &dyn Fn(&str, Time, u64),
) -> Result<(Vec<PolicyRun>, PathBuf)> {
    let target = opts.out.clone().unwrap_or_else(|| PathBuf::from("output").join(&sc.name));
    let staged = StagedDir::new(&target)?;
    // the report echoes the scenario as given
    let copy = staged.path().join("scenario.yaml");
    std::fs::copy(&sc.source, &copy)
        .map_err(|e| Error::io(format!("cannot copy {} into the results", sc.source.display()), e))?;
    let mut runs = Vec::new();
    for spec in &sc.policies {
        let dir = staged.path().join(&spec.label);
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
        let log_dir = (opts.logs == Logs::Full).then_some(dir.as_path());
        let label = spec.label.clone();
        let cb = |t: Time, n: u64| progress(&label, t, n);
        let stats = simulate(sc, spec, log_dir, Some(&cb), opts.audit)?;
        if let Some(a) = &stats.audit {
            if !a.violations.is_empty() {
                return Err(Error::Other(format!(
                    "audit of `{}` found {} violations; first: {}",
                    spec.label,
                    a.violations.len(),
                    a.violations[0]
                )));
            }
        }
        tables::write_summary(&dir.join("summary.csv"), sc, &stats)?;
        let headline = Headline::new(&spec.label, sc, &stats);
        runs.push(PolicyRun { spec: spec.clone(), stats, headline });
    }
    let rows: Vec<(String, Headline)> =
        runs.iter().map(|r| (r.spec.kind.clone(), r.headline.clone())).collect();
    tables::write_comparison(&staged.path().join("comparison.csv"), &rows)?;
    if !opts.no_plots {
        // drawn from the CSV files just written, exactly as `fairsim report` would
        crate::output::report::build(staged.path())?;
    }
    let dir = staged.commit()?;
    Ok((runs, dir))
}

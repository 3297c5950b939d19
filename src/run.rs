//! Runs every selected policy over the same workload and writes the results.

use std::path::{Path, PathBuf};

use crate::accounting::RunStats;
use crate::engine::{Audit, Engine};
use crate::error::{Error, Result};
use std::cell::RefCell;
use std::rc::Rc;

use crate::model::{PolicySpec, Scenario, TopologySpec};
use crate::output::tables;
use crate::output::StagedDir;
use crate::policy;
use crate::policy::Policy;
use crate::results::confidence::{Judgement, SeedFigures};
use crate::results::document::{self, Provenance};
use crate::results::PolicyResult;
use crate::time::Time;
use crate::topology::planner::Planner;
use crate::topology::{Dispatcher, TopologyStats};
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
    /// Replace `out` even when fairsim did not write it.
    pub force: bool,
    /// Command-line options that changed the scenario (`--seed`, `--policy`,
    /// `--trace`), as they were typed; noted at the end of the results'
    /// `scenario.yaml` so the folder says how to reproduce it.
    pub overrides: Vec<String>,
    /// The command line, shell-quoted, and the start date (UTC, ISO 8601),
    /// for `fairsim-results.json` and the report.
    pub command: String,
    pub started: String,
    /// `--decisions`: write decisions.csv and candidates.csv per policy.
    pub decisions: bool,
    /// `--combine`: also gather the event logs (jobs, dispatches, skips,
    /// ticks) into top-level long tables.
    pub combine: bool,
    /// Entries simulated at once (0 and 1: one after another). Every file
    /// is the same whatever it is: each entry writes only its own folder,
    /// and what gathers them runs after the last.
    pub jobs: usize,
}

/// The outcome of one policy.
pub struct PolicyRun {
    pub spec: PolicySpec,
    pub stats: RunStats,
    pub result: PolicyResult,
}

/// Simulates one policy over the scenario's workload (no files unless
/// `log_dir`). With `audit`, a broken promise of the engine (caps, work
/// conservation, rotation) is an error naming the first violations.
pub fn simulate(
    sc: &Scenario,
    spec: &PolicySpec,
    log_dir: Option<&Path>,
    progress: Option<&dyn Fn(Time, u64)>,
    audit: bool,
) -> Result<RunStats> {
    simulate_placed(sc, spec, log_dir, progress, audit).map(|(stats, _)| stats)
}

/// [`simulate`], with what a topology run counted per queue and pool
/// (`None` for the default topology).
pub fn simulate_placed(
    sc: &Scenario,
    spec: &PolicySpec,
    log_dir: Option<&Path>,
    progress: Option<&dyn Fn(Time, u64)>,
    audit: bool,
) -> Result<(RunStats, Option<TopologyStats>)> {
    simulate_recorded(sc, spec, log_dir, progress, audit, None)
}

/// [`simulate_placed`], writing the policy's decisions into `decisions`
/// (a folder) when given.
fn simulate_recorded(
    sc: &Scenario,
    spec: &PolicySpec,
    log_dir: Option<&Path>,
    progress: Option<&dyn Fn(Time, u64)>,
    audit: bool,
    decisions: Option<&Path>,
) -> Result<(RunStats, Option<TopologyStats>)> {
    let (stats, findings, placed) = run_engine(sc, spec, log_dir, progress, audit, decisions)?;
    if let Some(a) = findings.filter(|a| !a.violations.is_empty()) {
        let first: Vec<&str> = a.violations.iter().take(3).map(String::as_str).collect();
        return Err(Error::Other(format!(
            "audit of `{}` found {} violations; first: {}",
            spec.label,
            a.violations.len(),
            first.join("; ")
        )));
    }
    Ok((stats, placed))
}

/// Simulates one policy under the audit and returns its findings with the
/// statistics, whatever they are (for tests that inspect the audit).
pub fn simulate_audited(
    sc: &Scenario,
    spec: &PolicySpec,
    log_dir: Option<&Path>,
) -> Result<(RunStats, Audit)> {
    let (stats, audit, _) = run_engine(sc, spec, log_dir, None, true, None)?;
    Ok((stats, audit.unwrap_or_default()))
}

/// A builder's refusal, at the parameter's place. The loader's gate has
/// built every entry it loaded (so `validate` refuses the same); what meets
/// this is a scenario changed after loading: `check --workers`, or a policy
/// `calibrate` and `check` name with default parameters.
fn policy_error(sc: &Scenario, spec: &PolicySpec, e: crate::model::policy::ParamError) -> Error {
    let (line, col) = e.param.and_then(|p| spec.params.place(p)).unwrap_or((spec.line, spec.column));
    Error::input(&sc.source, line, col, format!("policy `{}`: {}", spec.kind, e.message))
}

fn run_engine(
    sc: &Scenario,
    spec: &PolicySpec,
    log_dir: Option<&Path>,
    progress: Option<&dyn Fn(Time, u64)>,
    audit: bool,
    decisions: Option<&Path>,
) -> Result<(RunStats, Option<Audit>, Option<TopologyStats>)> {
    let run_sc = sc.for_run(spec);
    let sc: &Scenario = &run_sc;
    let counted = Rc::new(RefCell::new(TopologyStats::default()));
    let policy: Box<dyn Policy + '_> = match sc.run_topology() {
        None => policy::build(spec, sc).map_err(|e| policy_error(sc, spec, e))?,
        Some(TopologySpec { planner: Some(p), .. }) => {
            let log = Rc::new(RefCell::new(Vec::new()));
            counted.borrow_mut().planner = Some(Rc::clone(&log));
            Box::new(Planner::build(sc, spec, p, log).map_err(|e| policy_error(sc, spec, e))?)
        }
        Some(t) => Box::new(
            Dispatcher::build(sc, spec, t, Rc::clone(&counted)).map_err(|e| policy_error(sc, spec, e))?,
        ),
    };
    let mut engine = Engine::new(sc, policy, spec.spare, log_dir)?
        .with_slicing(spec.slice)
        .with_cap_delay(spec.cap_delay, spec.cap_refuse_each);
    if audit {
        engine = engine.with_audit();
    }
    if let Some(dir) = decisions {
        engine = engine.with_decisions(Box::new(crate::output::decisions::DecisionWriter::new(sc, dir)?));
    }
    if let Some(p) = progress {
        engine = engine.with_progress(p);
    }
    let mut stream = ArrivalStream::new(sc).with_trace_ids(engine.trace_ids());
    let (stats, audit) = engine.run(&mut stream)?;
    if let Some(e) = stream.take_error() {
        return Err(e);
    }
    let placed = sc.topology.map(|_| counted.take());
    Ok((stats, audit, placed))
}

/// Runs every policy of `sc` and writes the results folder; returns the
/// runs and the folder.
pub fn run_all(
    sc: &Scenario,
    opts: &RunOptions,
    progress: &(dyn Fn(&str, Time, u64) + Sync),
) -> Result<(Vec<PolicyRun>, PathBuf)> {
    run_seeds(sc, opts, &Callback(progress), &|| Ok(Vec::new())).map(|(runs, dir, _)| (runs, dir))
}

/// What [`run_seeds`] says of each entry as it runs, from the thread that
/// runs it (several at once with [`RunOptions::jobs`]).
pub trait Watch: Sync {
    /// Entry `label` has received `jobs` jobs and reached simulated time `t`.
    fn progress(&self, label: &str, t: Time, jobs: u64);
    /// Entry `label` is over (its files are written, or it failed).
    fn done(&self, label: &str);
}

/// A progress callback as a [`Watch`] that ignores the ends.
struct Callback<'a>(&'a (dyn Fn(&str, Time, u64) + Sync));

impl Watch for Callback<'_> {
    fn progress(&self, label: &str, t: Time, jobs: u64) {
        (self.0)(label, t, jobs)
    }
    fn done(&self, _: &str) {}
}

/// [`run_all`], the scorecard judged over more seeds: `more_seeds` gives,
/// per entry in the scenario's order, its figures at the seeds after the
/// scenario's (the caller runs them, in parallel, from a later stage). It
/// is called once the first seed's runs are done, so a bad `--out` fails
/// before any run. The per-label files stay the first seed's.
pub fn run_seeds(
    sc: &Scenario,
    opts: &RunOptions,
    watch: &dyn Watch,
    more_seeds: &dyn Fn() -> Result<Vec<Vec<SeedFigures>>>,
) -> Result<(Vec<PolicyRun>, PathBuf, Judgement)> {
    let target = opts.out.clone().unwrap_or_else(|| PathBuf::from("output").join(&sc.name));
    let provenance = Provenance {
        fairsim: env!("CARGO_PKG_VERSION").to_string(),
        scenario: sc.name.clone(),
        scenario_path: sc.source.display().to_string(),
        seed: sc.seed,
        command: opts.command.clone(),
        started: opts.started.clone(),
        out: target.display().to_string(),
        logs: match opts.logs {
            Logs::Full => "full",
            Logs::Summary => "summary",
        }
        .to_string(),
    };
    // the provenance first, so a partial folder says what made it; the
    // figures are added when every policy has run
    let staged = StagedDir::new(&target, opts.force, &document::to_json(&provenance, &[]))?;
    // the report echoes the scenario as given
    let copy = staged.path().join("scenario.yaml");
    std::fs::copy(&sc.source, &copy)
        .map_err(|e| Error::io(format!("cannot copy {} into the results", sc.source.display()), e))?;
    if !opts.overrides.is_empty() {
        append_overrides(&copy, &opts.overrides)?;
    }
    copy_config_files(sc, staged.path())?;
    let root = staged.path();
    let entry = |k: usize| -> Result<PolicyRun> {
        let spec = &sc.policies[k];
        let run = run_entry(sc, spec, opts, root, watch);
        watch.done(&spec.label);
        run
    };
    // in the scenario's order whichever finishes first, so every file
    // below is the same at any --jobs
    let mut runs = crate::pool::map(sc.policies.len(), opts.jobs, &entry, &|_| {})?;
    let mut more = more_seeds()?.into_iter();
    let seeds = runs
        .iter()
        .map(|r| {
            let at: Vec<SeedFigures> =
                std::iter::once(SeedFigures::of(&r.result)).chain(more.next().unwrap_or_default()).collect();
            (r.spec.label.clone(), at)
        })
        .collect();
    let judged = Judgement::of(sc.seed, seeds);
    // the scorecard is over the seeds; every other figure is the first seed's
    for (r, rows) in runs.iter_mut().zip(&judged.rows) {
        r.result.objectives = rows.clone();
    }
    crate::output::seeds::write_seeds(&staged.path().join("seeds.csv"), &judged)?;
    crate::output::seeds::write_paired(&staged.path().join("seeds_paired.csv"), &judged.verdict.paired)?;
    let rows: Vec<_> = runs.iter().map(|r| &r.result).collect();
    tables::write_comparison(&staged.path().join("comparison.csv"), &rows)?;
    let results: Vec<_> = runs.iter().map(|r| (r.spec.label.as_str(), &r.result)).collect();
    tables::write_policy_tables(staged.path(), &results)?;
    tables::write_scorecard(staged.path(), &results)?;
    if opts.logs == Logs::Full {
        let labels: Vec<&str> = results.iter().map(|r| r.0).collect();
        crate::output::combined::write(staged.path(), &labels, opts.combine)?;
    }
    let policies: Vec<_> = runs.iter().map(|r| &r.result).collect();
    let marker = staged.path().join(crate::output::folder::MARKER);
    std::fs::write(&marker, document::with_verdict(&provenance, &policies, &judged.verdict))
        .map_err(|e| Error::io(format!("cannot write {}", marker.display()), e))?;
    if !opts.no_plots {
        // drawn from the CSV files just written, exactly as `fairsim report` would
        crate::output::report::build(staged.path())?;
    }
    let dir = staged.commit()?;
    Ok((runs, dir, judged))
}

/// Simulates entry `spec` into its folder under `root` and writes its
/// per-label files; called from the thread that runs the entry.
fn run_entry(
    sc: &Scenario,
    spec: &PolicySpec,
    opts: &RunOptions,
    root: &Path,
    watch: &dyn Watch,
) -> Result<PolicyRun> {
    let dir = root.join(&spec.label);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
    let log_dir = (opts.logs == Logs::Full).then_some(dir.as_path());
    let cb = |t: Time, n: u64| watch.progress(&spec.label, t, n);
    let decisions = opts.decisions.then_some(dir.as_path());
    let (stats, placed) = simulate_recorded(sc, spec, log_dir, Some(&cb), opts.audit, decisions)?;
    let result = PolicyResult::new(spec, &sc.for_run(spec), &stats);
    tables::write_summary(&dir.join("summary.csv"), &result)?;
    tables::write_resources(&dir.join("resources.csv"), &result.resources)?;
    let overhead = sc.declares_costs().then(|| stats.overhead.clone().unwrap_or_default());
    let per_pool = overhead.as_ref().map(|o| o.per_pool.as_slice());
    if let (Some(counted), Some(t)) = (&placed, spec.topology) {
        crate::output::topology::write(&dir, &sc.topologies[t], counted, stats.makespan, per_pool)?;
    } else if let Some(o) = &overhead {
        let (workers, spent) = (sc.for_run(spec).workers, o.per_pool.first().copied().unwrap_or(0));
        crate::output::topology::write_default_pool(
            &dir,
            workers,
            o.started,
            stats.busy,
            spent,
            stats.makespan,
        )?;
    }
    Ok(PolicyRun { spec: spec.clone(), stats, result })
}

/// Copies the config files processor presets read (`sidekiq.yml`, Solid
/// Queue's `queue.yml`) beside the echoed scenario, at the path it names
/// them by, so that `check` and `report` of the folder load the same
/// topologies. A path that is absolute or climbs out (`..`) is read where
/// it is, and not copied.
fn copy_config_files(sc: &Scenario, root: &Path) -> Result<()> {
    use std::path::Component;
    for (named, from) in sc.presets.iter().flat_map(|p| &p.files) {
        let rel = Path::new(named);
        if !rel.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir)) {
            continue;
        }
        // nor over a file or folder of the results' own
        let first = rel.components().find_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().to_lowercase()),
            _ => None,
        });
        let taken = |n: &str| {
            crate::scenario::RESERVED_LABELS.contains(&n)
                || sc.policies.iter().any(|p| p.label.to_lowercase() == n)
        };
        if first.as_deref().is_none_or(taken) {
            continue;
        }
        let to = root.join(rel);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
        }
        std::fs::copy(from, &to)
            .map_err(|e| Error::io(format!("cannot copy {} into the results", from.display()), e))?;
    }
    Ok(())
}

/// Notes the command-line overrides at the end of the echoed scenario, as
/// YAML comments (the file stays the user's, byte for byte, above them).
fn append_overrides(copy: &Path, overrides: &[String]) -> Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(copy)
        .map_err(|e| Error::io(format!("cannot write {}", copy.display()), e))?;
    let note = format!(
        "\n# These results were made with command-line options that override this file:\n\
         #   {}\n\
         # To reproduce them: fairsim run scenario.yaml {}\n",
        overrides.join(" "),
        overrides.join(" ")
    );
    f.write_all(note.as_bytes()).map_err(|e| Error::io(format!("cannot write {}", copy.display()), e))
}

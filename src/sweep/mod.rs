//! `fairsim sweep`: one scenario over a grid of parameter values, each point
//! over many seeds, every policy on the same arrivals at each (point, seed)
//! (common random numbers), with confidence intervals over the seeds.
//!
//! - [`grid`]: the `--set` options, their cartesian product, each point's scenario text.
//! - [`runner`]: the runs, numbered and spread over threads.
//! - [`stats`]: Student t intervals, paired and unpaired (the crate's [`crate::stats`]).
//! - [`output`]: `runs.csv`, `sweep.csv`, `paired.csv`, and the folder's other files.
//! - [`shard`]: `--shard I/N`, a deterministic part of the runs for one machine.
//! - [`merge`]: `fairsim merge`, shard folders into the folder one sweep writes.
//! - [`bootstrap`]: the paired ratio's percentile bootstrap.
//! - [`charts`], [`svg`], [`report`]: `charts/*.svg` and `report.html`, drawn from the CSV files.
//! - [`block`]: the scenario's `sweep:` block as options.
//!
//! A run is identified by (point, seed index, policy index) alone, and the
//! statistics are a function of `runs.csv`: a folder can be assembled from
//! runs made anywhere.

pub mod block;
pub mod bootstrap;
pub mod charts;
pub mod grid;
pub mod merge;
pub mod output;
pub mod report;
pub mod runner;
pub mod shard;
/// The intervals live below every stage (`run --seeds` judges with them too).
pub use crate::stats;
pub mod svg;

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::model::Scenario;
use crate::output::{OutputArgs, StagedDir};
use crate::scenario;
use grid::{Axis, Grid, Node};
use runner::Shape;

/// Options of `fairsim sweep`.
#[derive(Debug, clap::Args)]
#[command(mut_arg("out", |a| a.required(true)))]
pub struct SweepArgs {
    /// The scenario file (YAML).
    pub scenario: PathBuf,
    /// Seeds per point: the scenario's seed, seed + 1, ..., seed + N - 1
    /// (default: the scenario's `sweep: {seeds}`, else 30).
    #[arg(long, value_name = "N")]
    pub seeds: Option<u64>,
    /// Sweep a key of the scenario over values, e.g. --set workers=8,16,32
    /// or --set tenants.A.cap=1,2 (map keys by name, list items by index:
    /// workload.0.arrivals.poisson=1/s,2/s). Repeat for a grid: every
    /// combination is a point.
    #[arg(long = "set", value_name = "KEY=V1,V2,...")]
    pub sets: Vec<String>,
    /// The grid of the scenario's `sweep: {set}` block, used when no `--set` is given.
    #[arg(skip)]
    pub axes: Vec<Axis>,
    /// Run only this policy: a label from the scenario's `policies` or a
    /// policy name with default parameters. Repeat for several.
    #[arg(long = "policy", value_name = "NAME")]
    pub policies: Vec<String>,
    /// Runs at once (default: the number of CPUs).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// The policy the others are compared with in paired.csv (default: fifo
    /// when it is among the policies, else the first).
    #[arg(long, value_name = "LABEL")]
    pub baseline: Option<String>,
    /// Run only shard I of N (0-based) of the (point, seed) pairs and write a
    /// shard folder for `fairsim merge`; `auto` reads a Slurm array task's
    /// SLURM_ARRAY_TASK_ID/COUNT or a Kubernetes Indexed Job's
    /// JOB_COMPLETION_INDEX (count: auto/N or FAIRSIM_SHARD_COUNT).
    #[arg(long, value_name = "I/N|auto|auto/N")]
    pub shard: Option<String>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// What a refused scenario says, without the place in the generated text
/// (which is not the user's file).
fn message(e: Error) -> String {
    match e {
        Error::Input { message, .. } => message,
        other => other.to_string(),
    }
}

/// Runs the sweep; `select` keeps the policies `--policy` names (the
/// command line's own rules, shared with `run`).
pub fn execute(args: SweepArgs, select: &dyn Fn(&mut Scenario) -> Result<()>) -> Result<()> {
    let seed_count = args.seeds.unwrap_or(block::DEFAULT_SEEDS);
    if seed_count == 0 {
        return Err(Error::Usage("--seeds 0: a sweep needs at least one seed per point".into()));
    }
    if args.jobs == Some(0) {
        return Err(Error::Usage("--jobs 0: give at least 1 (default: the number of CPUs)".into()));
    }
    if let Some(p) = args.policies.iter().find(|p| p.trim_start().starts_with('{')) {
        return Err(Error::Usage(format!(
            "--policy {p}: a sweep takes policy labels or names; add the entry to the scenario's `policies` with a `label:` and name that"
        )));
    }
    let env = |k: &str| std::env::var(k).ok();
    let shard = args.shard.as_deref().map(|s| shard::Shard::resolve(s, &env)).transpose()?;
    let mut base = scenario::load(&args.scenario)?;
    select(&mut base)?;
    let text = std::fs::read_to_string(&args.scenario)
        .map_err(|e| Error::io(format!("cannot read {}", args.scenario.display()), e))?;
    let axes = match args.sets.is_empty() {
        true => args.axes.clone(),
        false => args.sets.iter().map(|s| Axis::parse(s)).collect::<Result<Vec<_>>>()?,
    };
    let grid = Grid::new(axes)?;
    let points = point_scenarios(&args, base, &text, &grid, select)?;
    let labels: Vec<String> = points[0].policies.iter().map(|p| p.label.clone()).collect();
    let baseline = match &args.baseline {
        Some(b) => labels.iter().position(|l| l == b).ok_or_else(|| {
            Error::Usage(format!("--baseline {b}: not among the sweep's policies ({})", labels.join(", ")))
        })?,
        None => labels.iter().position(|l| l == "fifo").unwrap_or(0),
    };
    let seeds = usize::try_from(seed_count).unwrap_or(usize::MAX);
    let shape = Shape { points: points.len(), seeds, policies: labels.len() };
    if shape.points.checked_mul(seeds).and_then(|r| r.checked_mul(shape.policies)).is_none() {
        return Err(Error::Usage(format!("--seeds {seed_count}: too many runs to number")));
    }
    let indices = match shard {
        Some(s) => {
            s.check(shape)?;
            s.runs(shape)
        }
        None => (0..shape.runs()).collect(),
    };
    let threads = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let manifest = manifest(&points[0], &text, &grid, seed_count, &labels, &labels[baseline]);
    // before any run: a bad --out fails at once
    let staged = StagedDir::new(args.output.required_out()?, args.output.force, &output::marker())?;

    let bar = (!args.output.quiet && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(indices.len() as u64);
        if let Ok(s) = indicatif::ProgressStyle::with_template("sweep [{bar:30}] {pos}/{len} runs, ETA {eta}")
        {
            b.set_style(s.progress_chars("=> "));
        }
        b
    });
    let done = |n: usize| {
        if let Some(b) = &bar {
            b.set_position(n as u64);
        }
    };
    let started = std::time::Instant::now();
    let results = runner::run_some(&points, shape, &indices, threads, &done)?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }

    let dir = staged.path();
    let first_seeds: Vec<u64> = points.iter().map(|p| p.seed).collect();
    let table = output::RunsTable::of_runs(&grid, shape, &first_seeds, indices.iter().copied().zip(&results));
    match shard {
        Some(s) => shard::write_folder(dir, s, &table, &manifest, &text)?,
        None => {
            let all = output::Results {
                grid: &grid,
                shape,
                labels: &labels,
                baseline,
                table: &table,
                manifest: &manifest,
                scenario: &text,
            };
            output::write_results(dir, &all)?;
        }
    }
    let out = staged.commit()?;
    if !args.output.quiet {
        let part =
            shard.map_or(String::new(), |s| format!("shard {}/{}: {} of ", s.index, s.count, indices.len()));
        eprintln!(
            "{part}{} runs ({} points x {} seeds x {} policies) on {threads} threads in {:.2}s; results in {}",
            shape.runs(),
            shape.points,
            shape.seeds,
            shape.policies,
            started.elapsed().as_secs_f64(),
            out.display()
        );
    }
    Ok(())
}

/// The scenario of each point, its policies selected and built once, so a
/// value the scenario or a policy refuses fails before any run. Each value
/// is first tried alone, so the error names the `--set` that brought it.
fn point_scenarios(
    args: &SweepArgs,
    base: Scenario,
    text: &str,
    grid: &Grid,
    select: &dyn Fn(&mut Scenario) -> Result<()>,
) -> Result<Vec<Scenario>> {
    if grid.axes.is_empty() {
        return Ok(vec![base]);
    }
    let tree = Node::parse(text).map_err(|e| Error::Usage(format!("{}: {e}", args.scenario.display())))?;
    let prepare = |text: &str| -> Result<Scenario> {
        let mut sc = scenario::load_str(text, &args.scenario)?;
        // the loader and the selection build every policy once (the gate)
        select(&mut sc)?;
        Ok(sc)
    };
    for (a, axis) in grid.axes.iter().enumerate() {
        for (v, value) in axis.values.iter().enumerate() {
            let text = grid
                .text_with(&tree, &[(a, v)])
                .map_err(|e| Error::Usage(format!("{}: {e}", axis.option())))?;
            prepare(&text).map_err(|e| {
                Error::Usage(format!("{}: {} = {value} is refused: {}", axis.option(), axis.key, message(e)))
            })?;
        }
    }
    let labels: Vec<&str> = base.policies.iter().map(|p| p.label.as_str()).collect();
    (0..grid.points())
        .map(|p| {
            let named = || {
                let values = grid.values(p);
                let pairs: Vec<String> = grid.axes.iter().zip(values).map(|(a, v)| format!("{}={v}", a.key)).collect();
                pairs.join(", ")
            };
            let text = grid.text(&tree, p).map_err(|e| Error::Usage(format!("point {}: {e}", named())))?;
            let sc = prepare(&text)
                .map_err(|e| Error::Usage(format!("the point {} is refused: {}", named(), message(e))))?;
            if sc.policies.iter().map(|p| p.label.as_str()).ne(labels.iter().copied()) {
                return Err(Error::Usage(format!(
                    "the point {} changes the policies' labels; a sweep compares the same policies at every point",
                    named()
                )));
            }
            Ok(sc)
        })
        .collect()
}

/// What a later `merge` checks: the same fairsim, scenario, grid, seeds and policies.
fn manifest(
    sc: &Scenario,
    text: &str,
    grid: &Grid,
    seeds: u64,
    labels: &[String],
    baseline: &str,
) -> serde_json::Value {
    let axes: Vec<_> =
        grid.axes.iter().map(|a| serde_json::json!({"key": a.key, "values": a.values})).collect();
    serde_json::json!({
        "fairsim": env!("CARGO_PKG_VERSION"),
        "scenario": {
            "name": sc.name,
            "file": sc.source.file_name().map(|n| n.to_string_lossy().into_owned()),
            "fnv1a64": format!("{:016x}", output::fnv1a64(text.as_bytes())),
        },
        "grid": axes,
        "points": grid.points(),
        "seeds": {"first": sc.seed, "count": seeds},
        "policies": labels,
        "baseline": baseline,
        "runs": grid.points() as u64 * seeds * labels.len() as u64,
        "run_index": "(point x seeds + seed - first) x policies + policy; point: last --set varies fastest",
        "statistics": {"sweep.csv": output::METHOD, "paired.csv": output::PAIRED_METHOD},
    })
}

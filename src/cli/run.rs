//! `fairsim run`: simulate a scenario under each of its policies and write
//! the results folder.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::ValueEnum;

use super::style;
use crate::error::{Error, Result};
use crate::model::{PolicySpec, Scenario};
use crate::output::console;
use crate::output::load::OfferedLoad;
use crate::results::confidence::SeedFigures;
use crate::results::document::{shell_word, utc_iso};
use crate::results::PolicyResult;
use crate::run::{self, Logs, RunOptions};
use crate::scenario;
use crate::sweep::runner::{self, Shape};
use crate::time::Time;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogsArg {
    /// Every CSV file (ticks, jobs, tenants, summary, comparison).
    Full,
    /// Only summary.csv per policy and comparison.csv (fastest).
    Summary,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// A human-readable table.
    Table,
    /// The run's record as JSON (the folder's fairsim-results.json; docs/json.md).
    Json,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The scenario file (YAML).
    pub scenario: PathBuf,
    /// Run only this policy: a label from the scenario's `policies`, any
    /// policy name with default parameters, or an inline entry such as
    /// '{policy: wfq, cost: work}'. Repeat for several.
    #[arg(long = "policy", value_name = "NAME|ENTRY")]
    pub policies: Vec<String>,
    #[command(flatten)]
    pub output: crate::output::OutputArgs,
    /// Override the scenario's seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Judge the scorecard over N seeds: every entry replayed at seed,
    /// seed + 1, ..., seed + N - 1 on the same arrivals per seed (common
    /// random numbers); each figure becomes its mean with a 95% interval, an
    /// objective whose interval straddles its bound is `uncertain`, and
    /// seeds.csv and seeds_paired.csv hold the figures per seed and the
    /// paired differences. The per-label files stay the first seed's.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seeds: u64,
    /// Simulations at once: the entries, then the runs at the later seeds
    /// (default: the number of CPUs; 1 runs them one after another). The
    /// results are the same at any N; fewer run at once, with a notice,
    /// when N of them would not fit in the free memory.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Which files to write (default: full, or summary with a notice when
    /// the logs would take more than 1 GB; give `--logs full` to insist).
    #[arg(long, value_enum)]
    pub logs: Option<LogsArg>,
    /// Check caps and rotation at every dispatch and fail on a violation (slow; for tests).
    #[arg(long, hide = true)]
    pub audit: bool,
    /// How to print the comparison on stdout.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,
    /// Do not draw charts or write report.html.
    #[arg(long)]
    pub no_plots: bool,
    /// Replay this trace instead of the scenario's workload (CSV or SWF; see
    /// docs/scenario.md, "Trace replay").
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Format of --trace when its extension does not say: csv or swf; or a
    /// job table's (good_jobs, bullmq, postgres, celery_events, sidekiq_log).
    #[arg(long, value_name = "FORMAT", requires = "trace")]
    pub trace_format: Option<String>,
    /// Skip and count broken trace rows instead of failing (like `on_error: skip`).
    #[arg(long)]
    pub skip_bad_rows: bool,
    /// Also write decisions.csv and candidates.csv per policy: each
    /// dispatch with the policy's key and the best other tenants' heads
    /// (docs/explain.md; read by `fairsim explain`).
    #[arg(long)]
    pub decisions: bool,
    /// Also gather every policy's jobs.csv, dispatches.csv, skips.csv and
    /// ticks.csv into one file of that name at the top
    /// of the folder, with a `policy` column (as large again as the logs;
    /// the smaller files are always gathered; docs/outputs.md).
    #[arg(long)]
    pub combine: bool,
}

/// Every entry's scorecard figures at the seeds after the first (seed + 1
/// up to seed + seeds - 1), per entry in the scenario's order; run on
/// `threads` threads by the sweep's runner, which puts the results back in
/// the runs' order, so the output does not depend on the threads.
fn later_seeds(
    sc: &Scenario,
    seeds: usize,
    threads: usize,
    done: &(dyn Fn(usize) + Sync),
) -> Result<Vec<Vec<SeedFigures>>> {
    if seeds <= 1 {
        return Ok(Vec::new());
    }
    let mut at = sc.clone();
    at.seed = sc.seed.wrapping_add(1);
    let shape = Shape { points: 1, seeds: seeds - 1, policies: sc.policies.len() };
    let figures = runner::run_all_with(&[at], shape, threads, done, &|r| SeedFigures::of(&r))?;
    let mut per_entry: Vec<Vec<SeedFigures>> = vec![Vec::with_capacity(seeds - 1); shape.policies];
    // run i is (seed i / policies, entry i % policies)
    for (i, f) in figures.into_iter().enumerate() {
        per_entry[i % shape.policies].push(f);
    }
    Ok(per_entry)
}

/// Loads the scenario, replacing its workload with `--trace` when given, and
/// reads every trace once (declaring its tenants and checking its rows).
fn load_for_run(args: &RunArgs) -> Result<(Scenario, Vec<PolicySpec>)> {
    let inline: Vec<String> = args.policies.iter().filter(|p| scenario::is_inline(p)).cloned().collect();
    let (mut sc, specs) = scenario::load_with_inline_policies(&args.scenario, args.trace.is_some(), &inline)?;
    if let Some(path) = &args.trace {
        let spec =
            crate::workload::trace::from_cli(&sc, path, args.trace_format.as_deref(), args.skip_bad_rows)?;
        sc.workload.clear();
        sc.traces = vec![spec];
    } else if args.skip_bad_rows {
        sc.traces.iter_mut().for_each(|t| t.skip_bad_rows = true);
    }
    crate::workload::trace::prepare(&mut sc)?;
    Ok((sc, specs))
}

/// One line per trace: rows replayed and rows skipped.
pub fn trace_report(sc: &Scenario) -> String {
    let mut s = String::new();
    for t in &sc.traces {
        s.push_str(&format!("trace {}: {} rows replayed", t.path.display(), t.scan.rows));
        if t.scan.bad_rows > 0 {
            s.push_str(&format!(", {} broken rows skipped", t.scan.bad_rows));
        }
        if t.scan.missing_rows > 0 {
            s.push_str(&format!(", {} rows without run time or processors skipped", t.scan.missing_rows));
        }
        s.push('\n');
    }
    s
}

/// The options of `run` that change what is simulated, as typed (see
/// [`RunOptions::overrides`]).
fn overrides(args: &RunArgs) -> Vec<String> {
    let mut o = Vec::new();
    if let Some(seed) = args.seed {
        o.push(format!("--seed {seed}"));
    }
    // one seed is the default: the folder is the same without the option
    if args.seeds > 1 {
        o.push(format!("--seeds {}", args.seeds));
    }
    for p in &args.policies {
        o.push(format!("--policy {}", shell_word(p)));
    }
    if let Some(t) = &args.trace {
        o.push(format!("--trace {}", t.display()));
    }
    if let Some(f) = &args.trace_format {
        o.push(format!("--trace-format {f}"));
    }
    if args.skip_bad_rows {
        o.push("--skip-bad-rows".to_string());
    }
    o
}

/// The command line as typed, each word quoted for a POSIX shell.
fn command_line() -> String {
    let mut words = std::env::args_os().map(|a| shell_word(&a.to_string_lossy()));
    // the program as `fairsim`, whatever path started it
    let _ = words.next();
    std::iter::once("fairsim".to_string()).chain(words).collect::<Vec<_>>().join(" ")
}

/// Now (or `SOURCE_DATE_EPOCH`, the reproducible-builds convention, when
/// set), UTC, ISO 8601.
fn started() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0)
        });
    utc_iso(secs)
}

/// Logs above this size are not written unless asked for.
const LOG_BUDGET: f64 = 1e9;

/// `--logs` as given, or full unless the estimate is over [`LOG_BUDGET`].
fn choose_logs(sc: &Scenario, load: &OfferedLoad, asked: Option<LogsArg>, quiet: bool) -> Logs {
    match asked {
        Some(LogsArg::Full) => Logs::Full,
        Some(LogsArg::Summary) => Logs::Summary,
        None => {
            let bytes = crate::output::estimate::log_bytes(sc, load);
            if bytes <= LOG_BUDGET {
                return Logs::Full;
            }
            if !quiet {
                eprintln!("{}", style::paint(&format!(
                    "note: the full logs of this run would take about {} (ticks.csv lists every tenant in every tick); writing summary.csv and comparison.csv only. Add --logs full to write them anyway.",
                    crate::output::estimate::human_bytes(bytes)
                )));
            }
            Logs::Summary
        }
    }
}

/// No progress to show (`-q`, or stderr is not a terminal).
struct Silent;

impl run::Watch for Silent {
    fn progress(&self, _: &str, _: Time, _: u64) {}
    fn done(&self, _: &str) {}
}

/// Simulations to run at once: `--jobs` (default: the CPUs), no more than
/// there are to run at once, and no more than fit in the free memory
/// (with a notice unless `-q`).
fn at_once(sc: &Scenario, load: &OfferedLoad, args: &RunArgs, seeds: usize) -> Result<usize> {
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // the first seed's entries run together, then the later seeds' runs
    let most = sc.policies.len().max(1).saturating_mul((seeds - 1).max(1));
    let wanted = jobs.min(most);
    if wanted <= 1 {
        return Ok(1);
    }
    let each = super::memory::simulation_bytes(sc, load);
    let (n, notice) = super::memory::guard(wanted, each, super::memory::available()?);
    if let (Some(line), false) = (notice, args.output.quiet) {
        eprintln!("{}", style::paint(&line));
    }
    Ok(n)
}

/// Runs `fairsim run`.
pub fn execute(args: RunArgs) -> Result<()> {
    if args.seeds == 0 {
        return Err(Error::Usage(
            "--seeds 0: give at least 1 (the default, one seed; --seeds 10 gives 95% intervals)".into(),
        ));
    }
    let seeds =
        usize::try_from(args.seeds).map_err(|_| Error::Usage(format!("--seeds {}: too many", args.seeds)))?;
    if args.jobs == Some(0) {
        return Err(Error::Usage("--jobs 0: give at least 1 (default: the number of CPUs)".into()));
    }
    let (mut sc, inline) = load_for_run(&args)?;
    if !args.output.quiet || sc.traces.iter().any(|t| t.scan.bad_rows > 0) {
        eprint!("{}", trace_report(&sc));
    }
    // the demand does not depend on the seed or the policies: computed once
    let load = OfferedLoad::of(&sc);
    if !args.output.quiet {
        if let Some(w) = load.warning() {
            eprintln!("{}", style::paint(&w));
        }
    }
    if let Some(seed) = args.seed {
        sc.seed = seed;
    }
    scenario::select_policies(&mut sc, &args.policies, inline)?;
    let threads = at_once(&sc, &load, &args, seeds)?;
    let opts = RunOptions {
        out: args.output.out.clone(),
        logs: choose_logs(&sc, &load, args.logs, args.output.quiet),
        audit: args.audit,
        no_plots: args.no_plots,
        force: args.output.force,
        overrides: overrides(&args),
        command: command_line(),
        started: started(),
        decisions: args.decisions,
        combine: args.combine,
        jobs: threads,
    };
    let show_progress = !args.output.quiet && std::io::stderr().is_terminal();
    let labels: Vec<String> = sc.policies.iter().map(|p| p.label.clone()).collect();
    let bar = show_progress.then(|| super::progress::Progress::new(labels, load.jobs, seeds));
    let more_seeds = || -> Result<Vec<Vec<SeedFigures>>> {
        let runs_done = |n: usize| {
            if let Some(b) = &bar {
                b.seed_runs_done(n, (seeds - 1) * sc.policies.len());
            }
        };
        later_seeds(&sc, seeds, threads, &runs_done)
    };
    let started = std::time::Instant::now();
    let watch: &dyn run::Watch = match &bar {
        Some(b) => b,
        None => &Silent,
    };
    let (runs, dir, judged) = run::run_seeds(&sc, &opts, watch, &more_seeds)?;
    if let Some(b) = bar {
        b.finish();
    }
    let rows: Vec<&PolicyResult> = runs.iter().map(|r| &r.result).collect();
    match args.format {
        FormatArg::Json => {
            // the document the folder keeps, byte for byte
            let path = dir.join(crate::output::folder::MARKER);
            let doc = std::fs::read_to_string(&path)
                .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
            print!("{doc}");
        }
        FormatArg::Table if !args.output.quiet => {
            print!("{}", console::table(&rows));
            print!("{}", console::scorecard(&rows, &judged));
            let over = if seeds > 1 { format!(" x {seeds} seeds") } else { String::new() };
            // stdout holds the results only, for pipes
            eprintln!(
                "\n{} policies{over}, {} jobs each, in {:.2}s; results in {}",
                runs.len(),
                runs.first().map(|r| r.stats.all.jobs).unwrap_or(0),
                started.elapsed().as_secs_f64(),
                dir.display()
            );
        }
        FormatArg::Table => {}
    }
    Ok(())
}

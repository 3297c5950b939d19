//! The command line: parses arguments, runs the command, prints results.
//! `main.rs` only maps the returned error to an exit code.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::error::{Error, Result};
use crate::model::{PolicySpec, Scenario};
use crate::output::console;
use crate::output::load::OfferedLoad;
use crate::policy;
use crate::results::document::{shell_word, utc_iso};
use crate::results::Comparison;
use crate::run::{self, Logs, RunOptions};
use crate::scenario;
use crate::time::{fmt_secs, Time};

mod extras;
mod progress;
pub mod style;

/// fairsim: compare job-scheduling policies on identical multi-tenant workloads.
#[derive(Debug, Parser)]
#[command(name = "fairsim", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Colour in fairsim's messages: auto (on a terminal, unless NO_COLOR
    /// is set), always or never.
    #[arg(long, value_enum, global = true, default_value_t = style::ColorArg::Auto)]
    pub color: style::ColorArg,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate a scenario under each of its policies and write the results.
    Run(RunArgs),
    /// Run a scenario over a grid of parameter values and many seeds, with
    /// confidence intervals (docs/sweep.md).
    Sweep(crate::sweep::SweepArgs),
    /// Combine the shard folders of `fairsim sweep --shard` into the folder
    /// one sweep writes (docs/sweep.md, "Sweeps beyond one machine").
    Merge(crate::sweep::merge::MergeArgs),
    /// Search one or two keys of a scenario for the best value that meets
    /// every requirement with 95% confidence (docs/tune.md).
    Tune(crate::tune::TuneArgs),
    /// Check a scenario file and print what it describes, without simulating.
    Validate {
        /// The scenario file (YAML).
        scenario: PathBuf,
    },
    /// List every policy with its parameters.
    Policies {
        /// Print the parameter tables as Markdown (as docs/policies.md carries them).
        #[arg(long)]
        markdown: bool,
    },
    /// Rebuild the charts and report.html of a results folder from its CSV files.
    Report {
        /// A folder written by `fairsim run`.
        dir: PathBuf,
    },
    /// Re-verify a results folder from its CSV files alone (docs/check.md):
    /// exit 0 when every rule holds, 1 on the first violation.
    Check(crate::check::CheckArgs),
    /// Replay a trace that records production's starts under the policy
    /// production ran, and say how far the simulated starts and waits are
    /// from the recorded ones (docs/calibrate.md).
    Calibrate(crate::calibrate::CalibrateArgs),
    /// Why a job waited, or why a tenant got nothing at a moment, from a
    /// results folder's CSV files (docs/explain.md).
    Explain(crate::explain::ExplainArgs),
    /// Print a shell completion script, e.g. `fairsim completions bash >
    /// ~/.local/share/bash-completion/completions/fairsim`.
    Completions {
        /// bash, zsh, fish, powershell or elvish.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `fairsim man | man -l -`; with
    /// --dir, write fairsim.1 and one page per command there.
    Man {
        /// Folder for the pages (e.g. ~/.local/share/man/man1).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

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
    /// Results folder (default: output/<scenario name>/). Replaced whole on
    /// success, if fairsim wrote it (it holds fairsim-results.json) or it is empty.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace --out even if fairsim did not write it (never the current
    /// folder or one of its parents).
    #[arg(long)]
    pub force: bool,
    /// Override the scenario's seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
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
    /// Format of --trace when its extension does not say: csv or swf.
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
}

/// Runs the parsed command.
pub fn execute(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Run(args) => cmd_run(args),
        Command::Sweep(args) => {
            let args = crate::sweep::block::apply(args, &|sc, names| select_policies(sc, names, Vec::new()))?;
            let names = args.policies.clone();
            crate::sweep::execute(args, &|sc| select_policies(sc, &names, Vec::new()))
        }
        Command::Merge(args) => crate::sweep::merge::execute(args),
        Command::Tune(args) => {
            let names: Vec<String> = args.policy.iter().cloned().collect();
            crate::tune::execute(args, &|sc| select_policies(sc, &names, Vec::new()))
        }
        Command::Validate { scenario } => cmd_validate(&scenario),
        Command::Report { dir } => {
            if !dir.is_dir() {
                return Err(Error::Usage(format!(
                    "{}: not a folder; give the results folder written by `fairsim run`",
                    dir.display()
                )));
            }
            let out = crate::output::report::build(&dir)?;
            println!("wrote {}", out.display());
            Ok(())
        }
        Command::Check(args) => match crate::check::execute(&args, &mut std::io::stdout().lock())? {
            true => Ok(()),
            false => {
                let what = args
                    .jobs
                    .as_ref()
                    .or(args.dir.as_ref())
                    .map_or(String::new(), |p| p.display().to_string());
                Err(Error::Other(format!("{what}: a rule does not hold (above)")))
            }
        },
        Command::Calibrate(args) => crate::calibrate::execute(&args),
        Command::Explain(args) => crate::explain::execute(&args),
        Command::Completions { shell } => extras::completions(shell),
        Command::Man { dir } => extras::man(dir.as_deref()),
        Command::Policies { markdown } => {
            print!("{}", if markdown { policy::policies_markdown() } else { policy::policies_text() });
            Ok(())
        }
    }
}

/// Whether a `--policy` value is an inline entry rather than a name.
fn is_inline(value: &str) -> bool {
    value.trim_start().starts_with('{')
}

/// Keeps the policies `--policy` names, in the order given: labels of the
/// scenario, policy names with default parameters, and the inline entries
/// (`inline`, already built, in their order among the values). An inline
/// entry without `label:` is labelled by its policy, numbered when taken.
fn select_policies(sc: &mut Scenario, names: &[String], inline: Vec<PolicySpec>) -> Result<()> {
    if names.is_empty() {
        return Ok(());
    }
    let mut inline = inline.into_iter();
    let mut chosen: Vec<PolicySpec> = Vec::new();
    for name in names {
        let spec = if is_inline(name) {
            let Some(mut spec) = inline.next() else {
                return Err(Error::Usage(format!(
                    "--policy {name}: inline entries are not taken here; name a label of the scenario or a policy"
                )));
            };
            if spec.label.is_empty() {
                let taken = |l: &str| chosen.iter().any(|c| c.label.eq_ignore_ascii_case(l));
                let mut label = spec.kind.clone();
                let mut n = 2;
                while taken(&label) || names.iter().any(|other| !is_inline(other) && other == &label) {
                    label = format!("{}-{n}", spec.kind);
                    n += 1;
                }
                spec.label = label;
            }
            // parameters that depend on each other are checked when the
            // policy is built: here, so the error names the option
            policy::build(&spec, sc).map_err(|e| scenario::inline_policy_error(name, &spec, e))?;
            spec
        } else {
            match sc.policies.iter().find(|p| &p.label == name) {
                Some(p) => p.clone(),
                None if policy::find(name).is_some() => PolicySpec::named(name),
                None => {
                    let labels: Vec<&str> = sc.policies.iter().map(|p| p.label.as_str()).collect();
                    return Err(Error::Usage(format!(
                        "--policy {name}: not a label in {} ({}) and {}; or give an entry inline, e.g. --policy '{{policy: wfq, cost: work}}'",
                        sc.source.display(),
                        labels.join(", "),
                        policy::unknown_policy(name)
                    )));
                }
            }
        };
        if chosen.iter().any(|c| c.label.eq_ignore_ascii_case(&spec.label)) {
            return Err(Error::Usage(format!(
                "--policy {name}: the label `{}` is given twice; add a `label:` to tell them apart",
                spec.label
            )));
        }
        chosen.push(spec);
    }
    sc.policies = chosen;
    Ok(())
}

/// Loads the scenario, replacing its workload with `--trace` when given, and
/// reads every trace once (declaring its tenants and checking its rows).
fn load_for_run(args: &RunArgs) -> Result<(Scenario, Vec<PolicySpec>)> {
    let inline: Vec<String> = args.policies.iter().filter(|p| is_inline(p)).cloned().collect();
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

fn cmd_run(args: RunArgs) -> Result<()> {
    let (mut sc, inline) = load_for_run(&args)?;
    if !args.quiet || sc.traces.iter().any(|t| t.scan.bad_rows > 0) {
        eprint!("{}", trace_report(&sc));
    }
    // the demand does not depend on the seed or the policies: computed once
    let load = OfferedLoad::of(&sc);
    if !args.quiet {
        if let Some(w) = load.warning() {
            eprintln!("{}", style::paint(&w));
        }
    }
    if let Some(seed) = args.seed {
        sc.seed = seed;
    }
    select_policies(&mut sc, &args.policies, inline)?;
    let opts = RunOptions {
        out: args.out.clone(),
        logs: choose_logs(&sc, &load, args.logs, args.quiet),
        audit: args.audit,
        no_plots: args.no_plots,
        force: args.force,
        overrides: overrides(&args),
        command: command_line(),
        started: started(),
        decisions: args.decisions,
    };
    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    let labels: Vec<String> = sc.policies.iter().map(|p| p.label.clone()).collect();
    let bar = show_progress.then(|| progress::Progress::new(labels, load.jobs));
    let progress = |label: &str, t: Time, jobs: u64| {
        if let Some(b) = &bar {
            b.update(label, t, jobs);
        }
    };
    let started = std::time::Instant::now();
    let (runs, dir) = run::run_all(&sc, &opts, &progress)?;
    if let Some(b) = bar {
        b.finish();
    }
    let rows: Vec<&Comparison> = runs.iter().map(|r| &r.result.comparison).collect();
    match args.format {
        FormatArg::Json => {
            // the document the folder keeps, byte for byte
            let path = dir.join(crate::output::folder::MARKER);
            let doc = std::fs::read_to_string(&path)
                .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
            print!("{doc}");
        }
        FormatArg::Table if !args.quiet => {
            print!("{}", console::table(&rows));
            // stdout holds the table only, for pipes
            eprintln!(
                "\n{} policies, {} jobs each, in {:.2}s; results in {}",
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

fn cmd_validate(path: &std::path::Path) -> Result<()> {
    let sc = scenario::load(path)?;
    // parameters that depend on each other (e.g. reserve's class and workers)
    // are checked when the policy is built: build each once so `validate`
    // catches what `run` would refuse
    for spec in &sc.policies {
        policy::build(spec, &sc).map_err(|e| scenario::policy_error(&sc, spec, e))?;
    }
    println!("{}: ok", path.display());
    println!("  name: {}, seed: {}, tick: {}s", sc.name, sc.seed, fmt_secs(sc.tick));
    if sc.workers == u32::MAX {
        println!("  workers: unlimited");
    } else {
        println!("  workers: {}", sc.workers);
    }
    for (n, c) in &sc.resources {
        println!("  resource {n}: {c}");
    }
    println!(
        "  tenants: {}, classes: {}, workload entries: {}",
        sc.tenants.len(),
        sc.classes.len(),
        sc.workload.len() + sc.traces.len()
    );
    for line in trace_report(&sc).lines() {
        println!("  {line}");
    }
    let labels: Vec<String> = sc.policies.iter().map(|p| format!("{} ({})", p.label, p.kind)).collect();
    println!("  policies: {}", labels.join(", "));
    let n = |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
    for t in &sc.topologies {
        let shape = match &t.planner {
            Some(_) => "a planner in front of `main`".to_string(),
            None => format!(
                "{}, {}",
                n(t.queues.len(), "queue", "queues"),
                n(t.route.len(), "routing rule", "routing rules")
            ),
        };
        let workers = match t.workers() {
            u32::MAX => "unlimited workers (resources only)".to_string(),
            w => n(w as usize, "worker", "workers"),
        };
        println!("  topology {}: {shape}, {} with {workers}", t.name, n(t.pools.len(), "pool", "pools"));
    }
    let load = OfferedLoad::of(&sc);
    for line in load.lines() {
        println!("  {line}");
    }
    let bytes = crate::output::estimate::log_bytes(&sc, &load);
    println!("  full logs: about {} for all policies", crate::output::estimate::human_bytes(bytes));
    if let Some(w) = load.warning() {
        eprintln!("{}", style::paint(&w));
    }
    Ok(())
}

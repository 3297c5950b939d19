//! `fairsim check DIR`: re-verifies a results folder from its CSV files
//! alone, independent of the engine and the policies. The echoed
//! scenario.yaml says what the run promised (workers, caps, `spare`, the
//! policy kind, admission rules); jobs.csv and the observation log say what
//! happened. Each rule reports how much it checked or why it could not;
//! the first violation stops the check with the rows that show it.
//! docs/check.md lists the rules, what each reads and what it cannot check.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::{PolicySpec, Scenario};

mod capacity;
mod cells;
mod conserving;
mod external;
pub mod jobs;
mod log;
mod observed;
mod sweep;
mod timing;
// the reader moved to results/ (one reader for every command); the old
// path stays for the rules and the tests that name it
pub use crate::results::table;

pub(crate) use external::policy_by_name;
use jobs::JobRow;
use table::Table;

/// `fairsim check`'s arguments: a results folder, or a jobs table from
/// outside fairsim with what it is checked against.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// A folder written by `fairsim run --logs full`.
    #[arg(required_unless_present = "jobs", conflicts_with = "jobs")]
    pub dir: Option<PathBuf>,
    /// Check a jobs table from outside fairsim instead: a CSV export (mapped
    /// like a replayed trace) or an SWF log (docs/check.md, "Production tables").
    #[arg(long, value_name = "FILE")]
    pub jobs: Option<PathBuf>,
    /// With --jobs: a scenario giving the CSV column mapping (its trace
    /// entry's `columns:`), workers, resources, tenant caps and policies.
    #[arg(long, value_name = "FILE", requires = "jobs")]
    pub scenario: Option<PathBuf>,
    /// With --jobs: the policy production ran, a label of --scenario or a
    /// policy name (its `spare:` decides the caps rule).
    #[arg(long, value_name = "LABEL|NAME", requires = "jobs")]
    pub policy: Option<String>,
    /// With --jobs: the number of workers (overrides the scenario's).
    #[arg(long, value_name = "N", requires = "jobs")]
    pub workers: Option<u32>,
    /// With --jobs: csv or swf, when the file's extension does not say; or a
    /// job table's (good_jobs, bullmq, postgres, celery_events, sidekiq_log).
    #[arg(long, value_name = "FORMAT", requires = "jobs")]
    pub trace_format: Option<String>,
    /// With --jobs: also check that no worker idled while a job waited.
    #[arg(long, requires = "jobs")]
    pub work_conserving: bool,
}

/// Runs `fairsim check`: `Ok(true)` when every rule holds.
pub fn execute(args: &CheckArgs, out: &mut dyn std::io::Write) -> Result<bool> {
    match (&args.jobs, &args.dir) {
        (Some(jobs), _) => external::check_table(jobs, args, out),
        (None, Some(dir)) => check_folder(dir, out),
        (None, None) => Err(Error::Usage("give a results folder, or --jobs FILE".into())),
    }
}

/// What a rule did on one policy's run.
pub enum Verdict {
    /// Held; what was checked ("45 jobs").
    Checked(String),
    /// Not applicable or not decidable from the files, and why.
    Skipped(String),
}

/// The first broken rule: when, which job, and the rows that show it.
#[derive(Debug)]
pub struct Violation {
    pub rule: &'static str,
    /// µs
    pub time: Option<i64>,
    pub job: Option<u64>,
    pub what: String,
    /// `file:line: text` of each row that shows it.
    pub rows: Vec<String>,
}

type RuleResult = std::result::Result<Verdict, Violation>;

/// One policy's run as its files tell it.
pub struct Run {
    pub label: String,
    /// The scenario as this run saw it (its topology's workers, its admission).
    pub sc: Scenario,
    /// The policy entry, when the label is one of scenario.yaml's.
    pub spec: Option<PolicySpec>,
    pub jobs_table: Table,
    pub jobs: Vec<JobRow>,
    pub ticks: Table,
    pub dispatches: Option<Table>,
    pub skips: Option<Table>,
    /// The long forms of ticks.csv's `waiting` and `completed` cells
    /// (tenants.csv) and of its `refused` and `deferred` (refusals.csv,
    /// absent in folders written before it).
    pub tenants: Option<Table>,
    pub refusals: Option<Table>,
}

impl Run {
    /// A violation at `time` about `job`, showing jobs.csv rows `rows`.
    fn violation(
        &self,
        rule: &'static str,
        time: i64,
        job: Option<&JobRow>,
        what: String,
        rows: &[&JobRow],
    ) -> Violation {
        Violation {
            rule,
            time: Some(time),
            job: job.map(|j| j.id),
            what,
            rows: rows.iter().map(|j| self.jobs_table.show(j.row)).collect(),
        }
    }
}

/// A rule: checks one run.
type Rule = fn(&Run) -> RuleResult;

/// The rules in the order they run: each later one may rely on the
/// earlier ones (one row per job, consistent times).
const RULES: &[(&str, Rule)] = &[
    ("ends-once", timing::ends_once),
    ("start-after-arrival", timing::start_after_arrival),
    ("finish", timing::finish),
    ("workers", capacity::workers),
    ("resources", capacity::resources),
    ("caps", capacity::caps),
    ("work-conserving", conserving::work_conserving),
    ("log-agrees", log::log_agrees),
    ("stop-unexplained-skip", log::unexplained_skip),
    ("stop-one-tenant-holds-all", capacity::one_tenant_holds_all),
    ("stop-tenant-identity", timing::tenant_identity),
];

/// Checks every policy folder of `dir`, writing a line per rule and run to
/// `out`. `Ok(true)` when all hold; at the first violation it is written
/// and `Ok(false)` returned. A folder that is not a full fairsim results
/// folder is a usage error (exit code 2) naming what is missing.
pub fn check_folder(dir: &Path, out: &mut dyn std::io::Write) -> Result<bool> {
    let runs = load(dir)?;
    let io = |e| Error::io("writing the check's report", e);
    for run in &runs {
        for (name, rule) in RULES {
            match rule(run) {
                Ok(Verdict::Checked(what)) => {
                    writeln!(out, "{}: {name}: ok, checked {what}", run.label).map_err(io)?
                }
                Ok(Verdict::Skipped(why)) => {
                    writeln!(out, "{}: {name}: skipped: {why}", run.label).map_err(io)?
                }
                Err(v) => {
                    write!(out, "{}", render(&run.label, &v)).map_err(io)?;
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}

/// The violation as printed: one line with rule, run, time and job, then
/// the rows.
pub fn render(label: &str, v: &Violation) -> String {
    let mut s = format!("{label}: {}: VIOLATED", v.rule);
    if let Some(t) = v.time {
        s.push_str(&format!(" at {}", table::secs(t)));
    }
    if let Some(j) = v.job {
        s.push_str(&format!(", job {j}"));
    }
    s.push_str(&format!(": {}\n", v.what));
    for r in &v.rows {
        s.push_str(&format!("  {r}\n"));
    }
    s
}

fn missing(dir: &Path, what: &str) -> Error {
    Error::Usage(format!(
        "{}: not a fairsim results folder with full logs: {what}; give a folder written by `fairsim run --logs full`",
        dir.display()
    ))
}

/// Reads scenario.yaml and every policy folder's files.
fn load(dir: &Path) -> Result<Vec<Run>> {
    if !dir.is_dir() {
        return Err(Error::Usage(format!(
            "{}: not a folder; give the results folder written by `fairsim run`",
            dir.display()
        )));
    }
    let yaml = dir.join("scenario.yaml");
    if !dir.join(crate::output::folder::MARKER).is_file() {
        return Err(missing(dir, &format!("no {}", crate::output::folder::MARKER)));
    }
    let raw = match std::fs::read(&yaml) {
        Ok(raw) => raw,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(missing(dir, "no scenario.yaml")),
        Err(e) => return Err(Error::input(&yaml, 0, 0, format!("cannot read it: {e}"))),
    };
    // a damaged echo is reported as such, not as a missing one
    let text = crate::results::table::utf8(&yaml, raw)?;
    // traces are named relative to the original scenario file, which the
    // folder does not hold: the tenants they declare come from jobs.csv
    let sc = crate::scenario::load_unscanned_str(&text, &yaml)?;
    let mut labels: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(format!("cannot read {}", dir.display()), e))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir() && e.path().join("summary.csv").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    labels.sort();
    if labels.is_empty() {
        return Err(missing(dir, "no policy folder (a folder with summary.csv)"));
    }
    let mut runs = Vec::new();
    for label in labels {
        let sub = dir.join(&label);
        let need = |name: &str| -> Result<Table> {
            Table::read(&sub, name)?.ok_or_else(|| missing(dir, &format!("no {label}/{name}")))
        };
        // jobs.csv streams into typed rows: its cells are not kept
        let (jobs_table, jobs) = jobs::read_file(&sub, "jobs.csv", &format!("{label}/jobs.csv"))?
            .ok_or_else(|| missing(dir, &format!("no {label}/jobs.csv")))?;
        let mut ticks = need("ticks.csv")?;
        ticks.name = format!("{label}/ticks.csv");
        let named = |name: &str| -> Result<Option<Table>> {
            Ok(Table::read(&sub, name)?.map(|mut t| {
                t.name = format!("{label}/{name}");
                t
            }))
        };
        let (dispatches, skips) = (named("dispatches.csv")?, named("skips.csv")?);
        let (tenants, refusals) = (named("tenants.csv")?, named("refusals.csv")?);
        // malformed cells are the file's fault (exit code 2), not a rule's
        let long = cells::LongForms {
            dispatches: dispatches.as_ref(),
            tenants: tenants.as_ref(),
            refusals: refusals.as_ref(),
        };
        cells::observation_log(&ticks, &long, sc.tick as i64)?;
        let spec = sc.policies.iter().find(|p| p.label == label).cloned();
        let run_sc = match &spec {
            Some(s) => sc.for_run(s).into_owned(),
            None => sc.clone(),
        };
        runs.push(Run {
            label,
            sc: run_sc,
            spec,
            jobs_table,
            jobs,
            ticks,
            dispatches,
            skips,
            tenants,
            refusals,
        });
    }
    Ok(runs)
}

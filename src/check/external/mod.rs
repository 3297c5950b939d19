//! `fairsim check --jobs FILE`: the rules of `fairsim check` that a jobs
//! table alone can decide, run on production's own records (a CSV export
//! mapped like a replayed trace, or an SWF log). What the scenario adds:
//! the column mapping (its first trace entry of the table's format),
//! workers, resource capacities, tenant caps, and with `--policy` the
//! policy production ran (its `spare:` for the caps, its promise for
//! work conservation). Each rule says what it checked or why it could not.

use std::path::Path;

use crate::error::{Error, Result};
use crate::model::{PolicySpec, Scenario};

use super::table::Table;
use super::{capacity, conserving, render, timing, CheckArgs, RuleResult, Run, Verdict};

mod read;
mod rules;

/// The scenario the table is checked against: `--scenario`, or a pool of
/// `--workers` (none: the worker rules are skipped).
fn scenario(args: &CheckArgs) -> Result<Scenario> {
    let mut sc = match &args.scenario {
        Some(path) => crate::scenario::load_for_trace(path)?,
        None => {
            let mut sc = crate::scenario::load_for_trace_str("workers: 1\n", Path::new("(check --jobs)"))?;
            sc.workers = u32::MAX;
            sc
        }
    };
    if let Some(w) = args.workers {
        if w == 0 {
            return Err(Error::Usage("--workers 0: give the number of workers, 1 or more".into()));
        }
        sc.workers = w;
    }
    Ok(sc)
}

/// The policy named by `--policy`: a label of the scenario or a policy name.
pub fn policy_by_name(sc: &Scenario, name: &str) -> Result<PolicySpec> {
    if let Some(p) = sc.policies.iter().find(|p| p.label == name) {
        return Ok(p.clone());
    }
    if crate::policy::find(name).is_some() {
        return Ok(PolicySpec::named(name));
    }
    let labels: Vec<&str> = sc.policies.iter().map(|p| p.label.as_str()).collect();
    Err(Error::Usage(format!(
        "--policy {name}: not a label of the scenario ({}) and {}",
        labels.join(", "),
        crate::policy::unknown_policy(name)
    )))
}

/// Checks the table `jobs`, writing a line per rule to `out`; `Ok(true)`
/// when every rule that ran holds.
pub fn check_table(jobs: &Path, args: &CheckArgs, out: &mut dyn std::io::Write) -> Result<bool> {
    let mut sc = scenario(args)?;
    let spec = match &args.policy {
        Some(p) => Some(policy_by_name(&sc, p)?),
        None => None,
    };
    if let Some(s) = &spec {
        sc = sc.for_run(s).into_owned();
    }
    let trace = crate::workload::trace::from_cli(&sc, jobs, args.trace_format.as_deref(), false)?;
    let mut ext = read::read(&trace, &sc)?;
    let label = jobs.file_name().map_or_else(|| jobs.display().to_string(), |n| n.to_string_lossy().into());
    let workers_known = sc.workers != u32::MAX;
    let caps = sc.tenants.any_cap();
    let run = Run {
        label: label.clone(),
        sc,
        // work conservation asked of a table with no policy named: a
        // fifo that lends spare capacity, the plainest promise
        spec: spec.clone().or_else(|| args.work_conserving.then(|| PolicySpec::named("fifo"))),
        jobs_table: std::mem::replace(&mut ext.table, Table::of_lines(String::new(), Vec::new(), Vec::new())),
        jobs: std::mem::take(&mut ext.jobs),
        ticks: Table::of_lines(String::new(), Vec::new(), Vec::new()),
        dispatches: None,
        skips: None,
        tenants: None,
        refusals: None,
    };
    let skip = |why: &str| -> RuleResult { Ok(Verdict::Skipped(why.into())) };
    let no_log = "no observation log: a jobs table has no ticks, dispatches or skips";
    let rules: [(&str, &dyn Fn() -> RuleResult); 11] = [
        ("ends-once", &|| rules::ends_once(&run, &ext)),
        ("start-after-arrival", &|| timing::start_after_arrival(&run)),
        ("finish", &|| rules::finish(&run)),
        ("workers", &|| match workers_known {
            true => capacity::workers(&run),
            false => skip("no worker count: give --workers N or a --scenario with `workers:`"),
        }),
        ("resources", &|| rules::resources(&run, &ext)),
        ("caps", &|| match (caps, &spec) {
            (false, _) => skip("no tenant has a cap (tenants' `cap:` in --scenario)"),
            (true, None) => {
                skip("give --policy LABEL: whether production held or lent spare capacity (`spare:`)")
            }
            (true, Some(_)) => capacity::caps(&run),
        }),
        ("work-conserving", &|| match args.work_conserving {
            false => {
                skip("not asked: give --work-conserving if production never idles a worker while a job waits")
            }
            true if !workers_known => skip("no worker count: give --workers N"),
            true => conserving::work_conserving(&run),
        }),
        ("log-agrees", &|| skip(no_log)),
        ("stop-unexplained-skip", &|| skip(no_log)),
        ("stop-one-tenant-holds-all", &|| match &spec {
            None => skip("round_robin with caps only: give --policy LABEL when production ran one"),
            Some(_) => capacity::one_tenant_holds_all(&run),
        }),
        ("stop-tenant-identity", &|| rules::tenant_identity(&run)),
    ];
    let io = |e| Error::io("writing the check's report", e);
    if ext.left_out > 0 {
        writeln!(
            out,
            "{label}: {} rows left out: without a run time or processor count (cancelled), or an event log's jobs without a logged arrival",
            ext.left_out
        )
        .map_err(io)?;
    }
    for (name, rule) in rules {
        match rule() {
            Ok(Verdict::Checked(what)) => writeln!(out, "{label}: {name}: ok, checked {what}").map_err(io)?,
            Ok(Verdict::Skipped(why)) => writeln!(out, "{label}: {name}: skipped: {why}").map_err(io)?,
            Err(mut v) => {
                // jobs are numbered by row here: name them by their own id
                if let Some(k) = v.job.take() {
                    v.what = format!("job {}: {}", ext.name(&run.jobs_table, k as usize), v.what);
                }
                write!(out, "{}", render(&label, &v)).map_err(io)?;
                return Ok(false);
            }
        }
    }
    Ok(true)
}

//! `fairsim explain`: answers "why did this job wait?" and "why did this
//! tenant get nothing then?" from a results folder's CSV files alone
//! (docs/explain.md). The observation log gives who was dispatched and who
//! was passed over with which reason; decisions.csv and candidates.csv
//! (`fairsim run --decisions`) add the policy's keys.

mod files;
mod job;
mod tenant;

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use files::Files;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExplainFormat {
    /// Facts, then a plain-language paragraph.
    Text,
    /// The same facts as JSON (docs/explain.md).
    Json,
}

#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// A folder written by `fairsim run --logs full` (with `--decisions` for keys).
    pub dir: PathBuf,
    /// The policy's label (a subfolder); may be left out when there is one.
    #[arg(long = "policy", value_name = "LABEL")]
    pub policy: Option<String>,
    /// Explain this job's wait (the `job` column of jobs.csv).
    #[arg(long, value_name = "ID", conflicts_with = "tenant", required_unless_present = "tenant")]
    pub job: Option<u64>,
    /// Explain what this tenant got in the log tick around --at.
    #[arg(long, value_name = "TENANT", requires = "at")]
    pub tenant: Option<String>,
    /// The moment, e.g. 90, 90s or 1.5m.
    #[arg(long, value_name = "TIME", requires = "tenant")]
    pub at: Option<String>,
    #[arg(long, value_enum, default_value_t = ExplainFormat::Text)]
    pub format: ExplainFormat,
}

/// Runs `fairsim explain` and prints its answer.
pub fn execute(args: &ExplainArgs) -> Result<()> {
    let dir = policy_dir(&args.dir, args.policy.as_deref())?;
    let label = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let f = Files::read(&dir)?;
    let (text, json) = match (args.job, &args.tenant) {
        (Some(id), _) => {
            let Some(row) = f.jobs.iter().find(|j| j.id == id) else {
                let lo = f.jobs.iter().map(|j| j.id).min();
                let hi = f.jobs.iter().map(|j| j.id).max();
                let range = match lo.zip(hi) {
                    Some((lo, hi)) => format!("its jobs are numbered {lo} to {hi}"),
                    None => "it has no jobs".to_string(),
                };
                return Err(Error::Usage(format!(
                    "--job {id}: no such job in {}; {range}",
                    dir.join("jobs.csv").display()
                )));
            };
            let s = job::story(&f, row);
            (s.text(&label), s.json(&label))
        }
        (None, Some(t)) => {
            let at = crate::time::parse_duration(args.at.as_deref().unwrap_or(""))
                .map_err(|e| Error::Usage(format!("--at: {e}")))?;
            let tenant = known_tenant(&f, t, &dir)?;
            if f.ticks.is_empty() {
                return Err(Error::Usage(format!("{}: ticks.csv has no rows", dir.display())));
            }
            let end = f.end();
            if at as i64 > end {
                return Err(Error::Usage(format!(
                    "--at {}: outside the run, which spans 0s to {} ({}); give a moment within it",
                    args.at.as_deref().unwrap_or(""),
                    secs(end),
                    dir.display()
                )));
            }
            let s = tenant::story(&f, &tenant, at as i64);
            (s.text(&label), s.json(&label))
        }
        (None, None) => return Err(Error::Usage("give --job ID, or --tenant T --at TIME".into())),
    };
    match args.format {
        ExplainFormat::Text => print!("{text}"),
        ExplainFormat::Json => println!("{}", serde_json::to_string_pretty(&json).unwrap_or_default()),
    }
    Ok(())
}

/// The folder of the policy `label` in `dir`, or a usage error naming
/// what exists.
fn policy_dir(dir: &Path, label: Option<&str>) -> Result<PathBuf> {
    if !dir.is_dir() {
        return Err(Error::Usage(format!(
            "{}: not a folder; give the results folder written by `fairsim run --logs full`",
            dir.display()
        )));
    }
    let mut labels: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(format!("cannot read {}", dir.display()), e))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("summary.csv").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    labels.sort();
    if labels.is_empty() {
        return Err(Error::Usage(format!(
            "{}: no policy results in it (no subfolder with summary.csv); give a folder written by `fairsim run`",
            dir.display()
        )));
    }
    let label = match label {
        Some(l) => l.to_string(),
        None if labels.len() == 1 => labels[0].clone(),
        None => {
            return Err(Error::Usage(format!(
                "{} holds several policies; choose one with --policy: {}",
                dir.display(),
                labels.join(", ")
            )))
        }
    };
    if !labels.contains(&label) {
        let names: Vec<&str> = labels.iter().map(String::as_str).collect();
        let hint = match crate::policy::closest(&label, &names) {
            Some(c) => format!(" (did you mean `{c}`?)"),
            None => String::new(),
        };
        return Err(Error::Usage(format!(
            "--policy {label}: no such policy in {}{hint}; it has: {}",
            dir.display(),
            labels.join(", ")
        )));
    }
    Ok(dir.join(label))
}

/// `tenant` as the files name it, or a usage error listing the tenants.
fn known_tenant(f: &Files, tenant: &str, dir: &Path) -> Result<String> {
    let mut names: Vec<&str> = f.jobs.iter().map(|j| j.tenant.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    if names.contains(&tenant) {
        return Ok(tenant.to_string());
    }
    let hint = match crate::policy::closest(tenant, &names) {
        Some(c) => format!(" (did you mean `{c}`?)"),
        None => String::new(),
    };
    Err(Error::Usage(format!(
        "--tenant {tenant}: no job of that tenant in {}{hint}; tenants: {}",
        dir.join("jobs.csv").display(),
        names.join(", ")
    )))
}

/// Counts of each name, most first (ties by name).
fn counted<'a>(names: impl Iterator<Item = &'a str>) -> Vec<(String, u64)> {
    let mut m: std::collections::BTreeMap<&str, u64> = Default::default();
    for n in names {
        *m.entry(n).or_default() += 1;
    }
    let mut v: Vec<(String, u64)> = m.into_iter().map(|(k, n)| (k.to_string(), n)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// A skip reason in plain words.
fn reason_text(reason: &str) -> &'static str {
    match reason {
        "at_cap" => "it already ran as many jobs as its cap allows",
        "no_fit" => "its next job did not fit the free resources",
        "deficit" => "its deficit counter was used up for the round",
        "throttled" => "a rate limit held it back",
        "not_before" => "its job was not allowed to start yet",
        "rate_limited" => "its pool's start limiter allowed no start yet",
        "prefetched" => "a worker node had reserved its job (or its queue's nodes were full) while that node's workers were busy",
        "reserved" => "the free workers were reserved for another class",
        _ => "of a reason this explain does not know",
    }
}

/// Microseconds as `1.5s`.
fn secs(us: i64) -> String {
    crate::results::table::secs(us)
}

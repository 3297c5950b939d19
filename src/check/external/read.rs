//! A jobs table from outside fairsim read into job lives: a CSV export
//! mapped by the trace column mapping (`columns:` of a scenario's trace
//! entry, docs/scenario.md), or an SWF log. Unlike trace replay, a row
//! that never started or finished is data, not a broken row: production's
//! table holds queued and running jobs, and a finish before its start is
//! for the `finish` rule to report, not for the reader to refuse.

use std::path::Path;

use crate::error::{Error, Result};
use crate::model::{CsvColumns, Scenario, TimeFormat, TraceFormat, TraceSpec};
use crate::time::SECOND;
use crate::workload::trace::csv::parse_time;
use crate::workload::trace::rfc3339::parse_scaled;

use super::super::jobs::JobRow;
use super::super::table::Table;

/// The table, its jobs, and what the rules need beyond [`JobRow`].
pub struct External {
    pub table: Table,
    /// Taken by the [`super::super::Run`] the rules read.
    pub jobs: Vec<JobRow>,
    /// Each job's own id (empty when the table has none).
    pub ids: Vec<String>,
    /// Per resource dimension with amounts in the table: each job's amount.
    pub costs: Vec<(usize, Vec<u64>)>,
    /// SWF rows without a run time or processor count (cancelled), left out.
    pub left_out: usize,
    /// Rows never started, and started but not finished, by the table's
    /// last instant `horizon` (see [`lives`]).
    pub queued: usize,
    pub running: usize,
    pub horizon: i64,
}

impl External {
    /// How a violation names job `k` (row `k` of `table`): its own id, else its line.
    pub fn name(&self, table: &Table, k: usize) -> String {
        match self.ids[k].as_str() {
            "" => format!("on line {}", table.lines[k]),
            id => format!("`{id}` (line {})", table.lines[k]),
        }
    }
}

/// A row as the table gives it: tenant, class, arrival, start, finish.
type Raw = (String, String, i64, Option<i64>, Option<i64>);

/// The rows as job lives. A row with neither start nor finish was still
/// queued when the table was written, one with a start only was running:
/// both are taken to last until the table's last instant (`horizon`, the
/// latest time it holds), a queued one as a job that left unstarted then
/// (`expired`, so the rules count its wait), a running one as finished
/// then. A finish without a start stays as it is, for `ends-once`.
fn lives(raw: Vec<Raw>) -> (Vec<JobRow>, usize, usize, i64) {
    let horizon = raw.iter().flat_map(|r| [Some(r.2), r.3, r.4]).flatten().max().unwrap_or(0);
    let (mut queued, mut running) = (0, 0);
    let jobs = raw
        .into_iter()
        .enumerate()
        .map(|(k, (tenant, class, arrival, start, finish))| {
            let (outcome, finish) = match (start, finish) {
                (None, None) => {
                    queued += 1;
                    ("expired", Some(horizon))
                }
                (Some(_), None) => {
                    running += 1;
                    ("completed", Some(horizon))
                }
                _ => ("completed", finish),
            };
            JobRow {
                row: k,
                id: k as u64,
                tenant: tenant.into(),
                class: if class.is_empty() { "default".into() } else { class.into() },
                arrival,
                start,
                finish,
                service: match (start, finish) {
                    (Some(s), Some(f)) => f.saturating_sub(s),
                    _ => 0,
                },
                attempts: i64::from(start.is_some()),
                outcome: outcome.into(),
                pool: Default::default(),
                slices: i64::from(start.is_some()),
                deferred: false,
                resends: 0,
                rule: None,
            }
        })
        .collect();
    (jobs, queued, running, horizon)
}

/// Reads the table `spec` names (its format and mapping from the scenario).
pub fn read(spec: &TraceSpec, sc: &Scenario) -> Result<External> {
    match &spec.format {
        TraceFormat::Csv(cols) => read_csv(&spec.path, cols, spec.time_format, sc),
        TraceFormat::Swf { slots } => read_swf(&spec.path, *slots),
        TraceFormat::Events(log) => read_events(&spec.path, log),
    }
}

/// An event log (Celery's task events, Sidekiq's JSON log), its events
/// joined per job; a job without an arrival (its first events were not
/// logged) is left out, counted as `left_out`.
fn read_events(path: &Path, log: &crate::model::EventLog) -> Result<External> {
    let file = std::fs::File::open(path)
        .map_err(|e| Error::Usage(format!("--jobs {}: cannot read it: {e}", path.display())))?;
    let (jobs, bad) = crate::workload::trace::events::read_log(path, std::io::BufReader::new(file), log)?;
    if let Some(e) = bad.first() {
        return Err(Error::input(path, e.line as usize, e.column, e.message.clone()));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Usage(format!("--jobs {}: cannot read it: {e}", path.display())))?;
    let text: Vec<String> = text.lines().map(str::to_string).collect();
    let (mut raw, mut ids, mut lines, mut left_out) = (Vec::new(), Vec::new(), Vec::new(), 0);
    for j in jobs {
        let Some(arrival) = j.arrival else {
            left_out += 1;
            continue;
        };
        raw.push((j.tenant, j.class, arrival, j.start, j.end));
        ids.push(j.id);
        lines.push(j.line as usize);
    }
    let table = Table::of_lines(path.display().to_string(), text, lines);
    let (jobs, queued, running, horizon) = lives(raw);
    Ok(External { table, jobs, ids, costs: Vec::new(), left_out, queued, running, horizon })
}

fn read_csv(path: &Path, cols: &CsvColumns, format: TimeFormat, sc: &Scenario) -> Result<External> {
    let mut table = Table::read(Path::new(""), &path.to_string_lossy())?
        .ok_or_else(|| Error::Usage(format!("--jobs {}: no such file; check the path", path.display())))?;
    table.name = path.display().to_string();
    let header = table.header().to_vec();
    let find = |name: &str| header.iter().position(|h| h.trim() == name);
    let need = |name: &str, key: &str| {
        find(name).ok_or_else(|| {
            Error::input(
                path,
                1,
                0,
                format!(
                    "the header has no column `{name}` (mapped by `columns.{key}`); columns are: {}; set `columns: {{{key}: NAME}}` in the scenario's trace entry (--scenario)",
                    header.join(", ")
                ),
            )
        })
    };
    let mapped = |name: &Option<String>, key: &str, default: &str| match name {
        Some(n) => need(n, key).map(Some),
        None => Ok(find(default)),
    };
    let (arrival, tenant) = (need(&cols.arrival, "arrival")?, need(&cols.tenant, "tenant")?);
    let class = mapped(&cols.class, "class", "queue")?;
    let id = mapped(&cols.id, "id", "id")?;
    let started = mapped(&cols.started, "started", "started_at")?;
    let finished = mapped(&cols.finished, "finished", "finished_at")?;
    let service = mapped(&cols.service, "service", "service")?;
    if started.is_none() {
        return Err(Error::input(
            path,
            1,
            0,
            format!(
                "no start column: map it with `columns: {{started: NAME}}` (default `started_at`); columns are: {}",
                header.join(", ")
            ),
        ));
    }
    let mut costs = Vec::new();
    for (d, name) in cols.cost.iter().filter(|(d, _)| *d < sc.resources.len()) {
        costs.push((*d, need(name, "cost")?, Vec::new()));
    }
    let mut raw = Vec::with_capacity(table.rows.len());
    let mut ids = Vec::with_capacity(table.rows.len());
    for (k, r) in table.rows.iter().enumerate() {
        let line = table.lines[k];
        let cell = |i: usize| r.get(i).map_or("", |c| c.trim());
        let bad = |i: usize, what: &str, m: String| {
            Error::input(path, line, i + 1, format!("{what} `{}`: {m}", cell(i)))
        };
        let time = |i: usize, what: &str| parse_time(cell(i), format).map_err(|m| bad(i, what, m));
        let opt_time = |i: Option<usize>, what: &str| match i {
            Some(i) if !cell(i).is_empty() => time(i, what).map(Some),
            _ => Ok(None),
        };
        let at = time(arrival, "arrival")?;
        let start = opt_time(started, "start")?;
        let finish = match (opt_time(finished, "finish")?, service, start) {
            (Some(f), _, _) => Some(f),
            (None, Some(i), Some(s)) if finished.is_none() && !cell(i).is_empty() => {
                let d = parse_scaled(cell(i), cols.service_unit as i64).map_err(|m| bad(i, "service", m))?;
                Some(s.checked_add(d).ok_or_else(|| bad(i, "service", "too large".into()))?)
            }
            _ => None,
        };
        for (_, i, amounts) in costs.iter_mut() {
            let i = *i;
            amounts
                .push(cell(i).parse::<u64>().map_err(|_| bad(i, "cost", "not a whole number ≥ 0".into()))?);
        }
        let class = class.map_or(String::new(), |i| cell(i).to_string());
        raw.push((cell(tenant).to_string(), class, at, start, finish));
        ids.push(id.map_or(String::new(), |i| cell(i).to_string()));
    }
    let costs = costs.into_iter().map(|(d, _, v)| (d, v)).collect();
    let (jobs, queued, running, horizon) = lives(raw);
    Ok(External { table, jobs, ids, costs, left_out: 0, queued, running, horizon })
}

/// An SWF log: start = submit + wait (field 3), finish = start + run time
/// (field 4), tenant `u<user>` and class `q<queue>` as trace replay names
/// them, processors (field 5, else 8) as the amount of `slots`.
fn read_swf(path: &Path, slots: Option<usize>) -> Result<External> {
    let raw = std::fs::read_to_string(path)
        .map_err(|e| Error::Usage(format!("--jobs {}: cannot read it: {e}", path.display())))?;
    let text: Vec<String> = raw.lines().map(str::to_string).collect();
    let (mut raw, mut ids, mut lines, mut procs) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut left_out = 0;
    for (i, l) in text.iter().enumerate() {
        let line = i + 1;
        let l = l.trim();
        if l.is_empty() || l.starts_with(';') {
            continue;
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() != 18 {
            return Err(Error::input(
                path,
                line,
                f.len().min(18) + 1,
                format!("an SWF job line has 18 fields, this one has {}", f.len()),
            ));
        }
        let num = |n: usize| {
            parse_scaled(f[n - 1], SECOND as i64)
                .map_err(|m| Error::input(path, line, n, format!("field {n}: {m}")))
        };
        let (submit, wait, run) = (num(2)?, num(3)?, num(4)?);
        let p = [num(5)?, num(8)?].into_iter().find(|&p| p > 0).unwrap_or(0) / SECOND as i64;
        if run < 0 || p <= 0 {
            left_out += 1;
            continue;
        }
        let late = |n: usize| Error::input(path, line, n, format!("field {n}: too large a time"));
        let start = match wait >= 0 {
            true => Some(submit.checked_add(wait).ok_or_else(|| late(3))?),
            false => None,
        };
        let finish = start.map(|s| s.checked_add(run).ok_or_else(|| late(4))).transpose()?;
        let class = if f[14].starts_with('-') { String::new() } else { format!("q{}", f[14]) };
        raw.push((format!("u{}", f[11]), class, submit, start, finish));
        ids.push(f[0].to_string());
        lines.push(line);
        procs.push(p as u64);
    }
    let table = Table::of_lines(path.display().to_string(), text, lines);
    let costs = slots.map(|d| (d, procs)).into_iter().collect();
    let (jobs, queued, running, horizon) = lives(raw);
    Ok(External { table, jobs, ids, costs, left_out, queued, running, horizon })
}

//! Job tables that processors write as event logs, one JSON object per
//! line and several lines per job, joined here into one row per job:
//!
//! - Celery's task events (`format: celery_events`), as an event receiver
//!   dumps them (`app.events.Receiver(..., handlers={"*": ...})` writing
//!   each event as JSON): arrival at `task-sent` (with
//!   `task_send_sent_event`), else at `task-received`; start at the first
//!   `task-started`; service the `runtime` of `task-succeeded`, else the
//!   last `task-succeeded` or `task-failed` minus the start. Class from the
//!   `queue` field of `task-sent`; tenant from a field of the event, or the
//!   same key of its `kwargs` (Celery sends `kwargs` as Python's repr of
//!   the dict: `{'tenant': 'acme'}`).
//! - Sidekiq's JSON log (`format: sidekiq_log`, `Sidekiq::Logger::Formatters
//!   ::JSON`): a job's `start` line and its `done` (or `fail`) line, its
//!   attributes under `ctx`: arrival `ctx.enqueued_at` (epoch seconds,
//!   or milliseconds from Sidekiq 8: a value above 10^11 is read as
//!   milliseconds), start the `start` line's `ts`, service `ctx.elapsed`;
//!   class `ctx.queue`, tenant `ctx.tenant`. Sidekiq logs only `jid`,
//!   `class` and `logged_job_attributes` (default `bid`, `tags`), so add
//!   `enqueued_at`, `queue` and the tenant's attribute to that list.
//!
//! A job's lines come in the order things happened to it, not in arrival
//! order (a job waiting in a low queue starts long after later arrivals),
//! so the whole log is joined before the first row is given: memory grows
//! with the jobs in the log (about 100 bytes each plus their ids), at most
//! [`MAX_JOBS`] of them. Jobs that never started or never ended are rows
//! with missing data (counted, as SWF's cancelled jobs).

use std::collections::HashMap;
use std::io::{BufRead, Read as _};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::rfc3339::parse_rfc3339;
use super::{Read, Row, RowError, RowReader};
use crate::error::{Error, Result};
use crate::model::{EventKind, EventLog, MAX_RESOURCES};
use crate::time::{Time, SECOND};

/// Most jobs an event log may hold (its rows are kept in memory).
pub const MAX_JOBS: usize = 5_000_000;
/// Longest line read; a longer one is a broken row.
const MAX_LINE: usize = 1 << 20;

/// One job as its events describe it.
#[derive(Default)]
struct Job {
    /// The line of its first event.
    line: u64,
    id: String,
    tenant: Option<String>,
    class: String,
    arrival: Option<i64>,
    /// Whether the arrival is a `task-sent` (which a `task-received` does not replace).
    sent: bool,
    start: Option<i64>,
    finish: Option<i64>,
    /// The processor's own measure of the run (Celery's `runtime`, Sidekiq's `elapsed`).
    runtime: Option<i64>,
}

enum Item {
    Bad(RowError),
    Missing,
    Row(Row),
}

/// The rows of an event log, joined and in arrival order.
pub struct EventRows {
    items: std::vec::IntoIter<Item>,
}

impl EventRows {
    pub fn new(path: &Path, input: impl BufRead, log: &EventLog) -> Result<Self> {
        let mut reader = Reader {
            path: path.to_path_buf(),
            log: log.clone(),
            jobs: Vec::new(),
            index: HashMap::new(),
            bad: Vec::new(),
        };
        reader.read(input)?;
        Ok(EventRows { items: reader.finish().into_iter() })
    }
}

/// A job as the log tells it, whether or not it started or ended (for
/// `fairsim check --jobs`, which judges queued and running jobs too).
pub struct Logged {
    pub line: u64,
    pub id: String,
    pub tenant: String,
    pub class: String,
    pub arrival: Option<i64>,
    pub start: Option<i64>,
    pub end: Option<i64>,
}

/// Every job of the log in the order first met, and the broken lines.
pub fn read_log(path: &Path, input: impl BufRead, log: &EventLog) -> Result<(Vec<Logged>, Vec<RowError>)> {
    let mut reader = Reader {
        path: path.to_path_buf(),
        log: log.clone(),
        jobs: Vec::new(),
        index: HashMap::new(),
        bad: Vec::new(),
    };
    reader.read(input)?;
    let jobs = reader
        .jobs
        .into_iter()
        .map(|j| Logged {
            line: j.line,
            end: match (j.runtime, j.start) {
                (Some(r), Some(s)) => Some(s + r),
                _ => j.finish,
            },
            id: j.id,
            tenant: j.tenant.unwrap_or_default(),
            class: if j.class == "default" { String::new() } else { j.class },
            arrival: j.arrival,
            start: j.start,
        })
        .collect();
    Ok((jobs, reader.bad))
}

impl RowReader for EventRows {
    fn next_row(&mut self, row: &mut Row) -> Result<Option<Read>> {
        Ok(self.items.next().map(|item| match item {
            Item::Bad(e) => Read::Bad(e),
            Item::Missing => Read::Missing,
            Item::Row(r) => {
                *row = r;
                Read::Row
            }
        }))
    }
}

struct Reader {
    path: PathBuf,
    log: EventLog,
    jobs: Vec<Job>,
    index: HashMap<String, usize>,
    bad: Vec<RowError>,
}

impl Reader {
    fn read(&mut self, mut input: impl BufRead) -> Result<()> {
        let mut buf = Vec::new();
        let mut line = 0u64;
        loop {
            buf.clear();
            line += 1;
            let n = std::io::Read::by_ref(&mut input)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut buf)
                .map_err(|e| self.io(line, e))?;
            if n == 0 {
                return Ok(());
            }
            if buf.len() > MAX_LINE && buf.last() != Some(&b'\n') {
                // the rest of the overlong line, without keeping it
                loop {
                    let skip = input.fill_buf().map_err(|e| self.io(line, e))?;
                    if skip.is_empty() {
                        break;
                    }
                    match skip.iter().position(|&b| b == b'\n') {
                        Some(i) => {
                            input.consume(i + 1);
                            break;
                        }
                        None => {
                            let k = skip.len();
                            input.consume(k);
                        }
                    }
                }
                self.bad.push(RowError {
                    line,
                    column: 0,
                    message: format!("this line is over {} KB; not an event", MAX_LINE >> 10),
                });
                continue;
            }
            let Ok(text) = std::str::from_utf8(&buf) else {
                self.bad.push(RowError { line, column: 0, message: "this line is not UTF-8 text".into() });
                continue;
            };
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            let event: Map<String, Value> = match serde_json::from_str(text) {
                Ok(Value::Object(m)) => m,
                Ok(_) => {
                    self.bad.push(RowError {
                        line,
                        column: 1,
                        message: "an event is a JSON object `{...}`".into(),
                    });
                    continue;
                }
                Err(e) => {
                    self.bad.push(RowError { line, column: e.column(), message: format!("not JSON: {e}") });
                    continue;
                }
            };
            let got = match self.log.kind {
                EventKind::Celery => self.celery(line, &event),
                EventKind::SidekiqLog => self.sidekiq(line, &event),
            };
            if let Err(m) = got {
                self.bad.push(RowError { line, column: 0, message: m });
            }
            if self.jobs.len() > MAX_JOBS {
                return Err(Error::input(&self.path, line as usize, 0, format!("more than {MAX_JOBS} jobs in one event log; fairsim joins a log in memory, so export a CSV table (one row per job) instead")));
            }
        }
    }

    fn io(&self, line: u64, e: std::io::Error) -> Error {
        Error::input(&self.path, line as usize, 0, format!("cannot read the event log: {e}"))
    }

    /// The job `id`, made at `line` if it is new.
    fn job(&mut self, id: &str, line: u64) -> &mut Job {
        let i = match self.index.get(id) {
            Some(&i) => i,
            None => {
                self.jobs.push(Job { line, id: id.to_string(), ..Job::default() });
                self.index.insert(id.to_string(), self.jobs.len() - 1);
                self.jobs.len() - 1
            }
        };
        &mut self.jobs[i]
    }

    fn celery(&mut self, line: u64, e: &Map<String, Value>) -> std::result::Result<(), String> {
        let Some(kind) = e.get("type").and_then(Value::as_str) else { return Ok(()) };
        if !matches!(kind, "task-sent" | "task-received" | "task-started" | "task-succeeded" | "task-failed")
        {
            return Ok(());
        }
        let id = text(e.get("uuid")).ok_or("a task event without `uuid`")?;
        let at = seconds(e.get("timestamp"))
            .ok_or("a task event without a numeric `timestamp` (epoch seconds)")?;
        let tenant = text(e.get(&self.log.tenant)).or_else(|| repr_key(e.get("kwargs"), &self.log.tenant));
        let class = text(e.get(&self.log.class));
        let runtime = seconds(e.get("runtime"));
        let job = self.job(&id, line);
        if job.tenant.is_none() {
            job.tenant = tenant;
        }
        match kind {
            "task-sent" => {
                job.arrival = Some(at);
                job.sent = true;
                if let Some(c) = class {
                    job.class = c;
                }
            }
            "task-received" if !job.sent => {
                job.arrival = Some(job.arrival.map_or(at, |a| a.min(at)));
            }
            "task-received" => {}
            "task-started" => job.start = Some(job.start.map_or(at, |s| s.min(at))),
            _ => {
                job.finish = Some(job.finish.map_or(at, |f| f.max(at)));
                if kind == "task-succeeded" {
                    job.runtime = runtime;
                }
            }
        }
        Ok(())
    }

    fn sidekiq(&mut self, line: u64, e: &Map<String, Value>) -> std::result::Result<(), String> {
        let Some(msg) = e.get("msg").and_then(Value::as_str) else { return Ok(()) };
        let Some(ctx) = e.get("ctx").and_then(Value::as_object) else { return Ok(()) };
        let Some(id) = text(ctx.get("jid")) else { return Ok(()) };
        if !matches!(msg, "start" | "done" | "fail") {
            return Ok(());
        }
        let ts = e.get("ts").and_then(Value::as_str).ok_or("a job's log line without `ts`")?;
        let at = parse_rfc3339(ts).map_err(|m| format!("`ts`: {m}"))?;
        let tenant = text(ctx.get(&self.log.tenant));
        let class = text(ctx.get(&self.log.class));
        let enqueued = ctx.get("enqueued_at").and_then(Value::as_f64);
        let elapsed = seconds(ctx.get("elapsed"));
        let job = self.job(&id, line);
        if job.tenant.is_none() {
            job.tenant = tenant;
        }
        if let Some(c) = class {
            job.class = c;
        }
        if let Some(x) = enqueued.filter(|x| x.is_finite() && *x >= 0.0) {
            // Sidekiq 8 writes epoch milliseconds, earlier releases seconds
            let us = if x >= 1e11 { x * 1e3 } else { x * SECOND as f64 };
            job.arrival.get_or_insert(us.round() as i64);
        }
        if msg == "start" {
            job.start = Some(job.start.map_or(at, |s| s.min(at)));
            if job.arrival.is_none() {
                return Err("the job's `start` line has no `ctx.enqueued_at`: add `enqueued_at` to Sidekiq's `logged_job_attributes`".into());
            }
        } else {
            job.finish = Some(job.finish.map_or(at, |f| f.max(at)));
            job.runtime = elapsed;
        }
        Ok(())
    }

    /// The rows, broken ones first, then the jobs by arrival (then line).
    fn finish(self) -> Vec<Item> {
        let mut out: Vec<Item> = self.bad.into_iter().map(Item::Bad).collect();
        let mut rows: Vec<(i64, u64, Item)> = Vec::with_capacity(self.jobs.len());
        for j in self.jobs {
            let (Some(arrival), Some(start)) = (j.arrival, j.start) else {
                rows.push((i64::MIN, j.line, Item::Missing));
                continue;
            };
            let service = match (j.runtime, j.finish) {
                (Some(r), _) => r,
                (None, Some(f)) => f - start,
                (None, None) => {
                    rows.push((i64::MIN, j.line, Item::Missing));
                    continue;
                }
            };
            let bad = |m: String| Item::Bad(RowError { line: j.line, column: 0, message: m });
            let item = match j.tenant {
                None => bad(format!("job `{}` names no tenant: give it a `{}` field (for Celery, or a `{}` key in its kwargs), or map another with `columns: {{tenant: FIELD}}`", j.id, self.log.tenant, self.log.tenant)),
                Some(_) if service < 0 => bad(format!("job `{}` ended before it started", j.id)),
                Some(tenant) => Item::Row(Row {
                    line: j.line,
                    time: arrival,
                    tenant,
                    class: if j.class == "default" { String::new() } else { j.class },
                    priority: None,
                    service: service as Time,
                    deadline: None,
                    cost: [0; MAX_RESOURCES],
                    arrival_col: 0,
                    cost_cols: [0; MAX_RESOURCES],
                    id: j.id,
                    started: Some(start),
                }),
            };
            rows.push((arrival, j.line, item));
        }
        rows.sort_by_key(|r| (r.0, r.1));
        out.extend(rows.into_iter().map(|r| r.2));
        out
    }
}

/// A string or number field as text.
fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Epoch (or elapsed) seconds as microseconds.
fn seconds(v: Option<&Value>) -> Option<i64> {
    let x = v?.as_f64()?;
    (x.is_finite() && x.abs() < 9e12).then(|| (x * SECOND as f64).round() as i64)
}

/// `key`'s string value in Celery's repr of a dict (`{'tenant': 'acme',
/// 'n': 3}`), or in a dict the dump kept as JSON.
fn repr_key(v: Option<&Value>, key: &str) -> Option<String> {
    match v? {
        Value::Object(m) => text(m.get(key)),
        Value::String(s) => {
            for q in ['\'', '"'] {
                let pat = format!("{q}{key}{q}:");
                if let Some(i) = s.find(&pat) {
                    let rest = s[i + pat.len()..].trim_start();
                    let open = rest.chars().next()?;
                    if open == '\'' || open == '"' {
                        let body = &rest[1..];
                        return body.find(open).map(|end| body[..end].to_string()).filter(|t| !t.is_empty());
                    }
                    let end = rest.find([',', '}']).unwrap_or(rest.len());
                    return Some(rest[..end].trim().to_string()).filter(|t| !t.is_empty());
                }
            }
            None
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tenant_is_read_from_pythons_repr_of_kwargs() {
        let v = Value::String("{'tenant': 'acme', 'ms': 200}".into());
        assert_eq!(repr_key(Some(&v), "tenant").as_deref(), Some("acme"));
        assert_eq!(repr_key(Some(&v), "ms").as_deref(), Some("200"));
        assert_eq!(repr_key(Some(&v), "user"), None);
        let v = Value::String("{\"tenant\": \"b\"}".into());
        assert_eq!(repr_key(Some(&v), "tenant").as_deref(), Some("b"));
    }
}

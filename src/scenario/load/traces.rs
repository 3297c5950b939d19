//! Trace entries: `- trace: {path, format, columns, ...}` (docs/scenario.md, "Trace replay").

use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;

use super::{pos, Builder};
use crate::error::Result;
use crate::model::*;
use crate::scenario::raw::*;
use crate::time::SECOND;
use crate::workload::trace::{csv, tables};

impl Builder<'_> {
    /// A `- trace: {...}` entry (see docs/scenario.md, "Trace replay").
    pub(super) fn build_trace(
        &self,
        e: &Spanned<Box<RawEntry>>,
        t: &Spanned<Box<RawTrace>>,
    ) -> Result<TraceSpec> {
        self.trace_alone(e)?;
        self.trace_spec(e, &t.value)
    }

    /// The trace `t` describes; errors that have no key of their own point
    /// at `e` (the entry, or a service's `empirical:`).
    pub(super) fn trace_spec<T>(&self, e: &Spanned<T>, t: &RawTrace) -> Result<TraceSpec> {
        let (path, format) = self.trace_path(t)?;
        let table = tables::find(&format);
        let fmt = match (format.as_str(), table) {
            ("csv", _) => TraceFormat::Csv(Box::new(self.csv_columns(t, csv::default_columns())?)),
            ("swf", _) => self.swf(e, t)?,
            (_, Some(table)) => match table.format() {
                TraceFormat::Csv(cols) => TraceFormat::Csv(Box::new(self.csv_columns(t, *cols)?)),
                TraceFormat::Events(log) => self.event_log(e, t, *log)?,
                swf => swf,
            },
            (other, None) => {
                let at = t.format.as_ref().map(pos).unwrap_or_else(|| pos(&t.path));
                let from = if other.is_empty() { String::new() } else { format!(" from `{other}`") };
                let mut known = vec!["csv", "swf"];
                known.extend(tables::NAMES);
                let hint = match crate::policy::closest(other, &known) {
                    Some(k) if t.format.is_some() => format!("; did you mean `{k}`?"),
                    _ => String::new(),
                };
                return Err(self.err_line(
                    at.0,
                    at.1,
                    format!("cannot tell the trace format{from}{hint}; add `format:` with csv, swf or a job table's name ({})", tables::NAMES.join(", ")),
                ));
            }
        };
        if t.slots.is_some() && matches!(fmt, TraceFormat::Csv(_)) {
            return Err(self.err_at(
                e,
                "`slots` is for SWF traces; for CSV map resource columns with `columns: {cost: {procs: COLUMN}}`",
            ));
        }
        Ok(TraceSpec {
            line: pos(e).0,
            path,
            format: fmt,
            time_format: match (&t.time_format, table) {
                (None, Some(table)) => table.time_format,
                _ => self.time_format(t)?,
            },
            keep_time: t.keep_time.as_ref().is_some_and(|k| k.value),
            skip_bad_rows: self.on_error(t)?,
            scan: TraceScan::default(),
        })
    }

    /// A trace entry holds nothing but `trace:`: the trace gives every job's
    /// tenant, class and service.
    fn trace_alone(&self, e: &Spanned<Box<RawEntry>>) -> Result<()> {
        let r = &e.value;
        let others = [
            ("tenant", r.tenant.is_some()),
            ("tenants", r.tenants.is_some()),
            ("class", r.class.is_some()),
            ("count", r.count.is_some()),
            ("at", r.at.is_some()),
            ("arrivals", r.arrivals.is_some()),
            ("service", r.service.is_some()),
            ("deadline", r.deadline.is_some()),
            ("cost", r.cost.is_some()),
            ("failure", r.failure.is_some()),
            ("declared", r.declared.is_some()),
        ];
        match others.iter().find(|(_, set)| *set) {
            Some((k, _)) => Err(self.err_at(
                e,
                format!("a `trace` entry takes no `{k}`: the trace gives every job's tenant, class and service; put trace options inside `trace: {{...}}`"),
            )),
            None => Ok(()),
        }
    }

    /// The trace file (relative to the scenario) and its format, from
    /// `format:` or the file's extension ("" when neither says).
    fn trace_path(&self, t: &RawTrace) -> Result<(PathBuf, String)> {
        if t.path.value.trim().is_empty() {
            return Err(
                self.err_at(&t.path, "`trace.path` is empty; give the trace file, relative to this scenario")
            );
        }
        let rel = Path::new(&t.path.value);
        let path = match self.path.parent() {
            Some(dir) if rel.is_relative() => dir.join(rel),
            _ => rel.to_path_buf(),
        };
        let ext = rel.extension().and_then(|x| x.to_str()).map(|x| x.to_ascii_lowercase());
        let format = match (&t.format, ext) {
            (Some(f), _) => f.value.to_ascii_lowercase(),
            (None, Some(x)) => x,
            (None, None) => String::new(),
        };
        Ok((path, format))
    }

    fn time_format(&self, t: &RawTrace) -> Result<TimeFormat> {
        Ok(match t.time_format.as_ref().map(|f| (f, f.value.as_str())) {
            None | Some((_, "auto")) => TimeFormat::Auto,
            Some((_, "rfc3339")) => TimeFormat::Rfc3339,
            Some((_, "epoch_s")) => TimeFormat::EpochSeconds,
            Some((_, "epoch_ms")) => TimeFormat::EpochMillis,
            Some((_, "epoch_us")) => TimeFormat::EpochMicros,
            Some((f, other)) => {
                return Err(self.err_at(
                    f,
                    format!(
                    "`time_format: {other}` is not known; use auto, rfc3339, epoch_s, epoch_ms or epoch_us"
                ),
                ))
            }
        })
    }

    /// `on_error: error|skip`: whether broken rows are skipped and counted.
    fn on_error(&self, t: &RawTrace) -> Result<bool> {
        match t.on_error.as_ref().map(|f| (f, f.value.as_str())) {
            None | Some((_, "error")) => Ok(false),
            Some((_, "skip")) => Ok(true),
            Some((f, other)) => {
                Err(self.err_at(f, format!("`on_error: {other}` is not known; use error or skip")))
            }
        }
    }

    /// An event log's fields: the table's, then `columns: {tenant, class}`.
    fn event_log<T>(&self, e: &Spanned<T>, t: &RawTrace, mut log: EventLog) -> Result<TraceFormat> {
        if t.service_unit.is_some() || t.slots.is_some() {
            return Err(self.err_at(
                e,
                "an event log has its own times and no slots; remove `service_unit` and `slots`",
            ));
        }
        if let Some(c) = &t.columns {
            let c = &c.value;
            let others = [
                ("arrival", c.arrival.is_some()),
                ("service", c.service.is_some()),
                ("started", c.started.is_some()),
                ("finished", c.finished.is_some()),
                ("priority", c.priority.is_some()),
                ("deadline", c.deadline.is_some()),
                ("cost", c.cost.is_some()),
                ("id", c.id.is_some()),
            ];
            if let Some((k, _)) = others.iter().find(|(_, set)| *set) {
                return Err(self.err_at(e, format!("an event log's times come from its events; `columns` may name only the `tenant` and `class` fields, not `{k}`")));
            }
            if let Some(x) = &c.tenant {
                log.tenant = x.value.clone();
            }
            if let Some(x) = &c.class {
                log.class = x.value.clone();
            }
        }
        Ok(TraceFormat::Events(Box::new(log)))
    }

    /// The column mapping of a CSV trace: `base` (the defaults or a job
    /// table's), then `service_unit` and each column `columns` names.
    fn csv_columns(&self, t: &RawTrace, base: CsvColumns) -> Result<CsvColumns> {
        let mut cols = base;
        if let Some(u) = &t.service_unit {
            cols.service_unit = match u.value.as_str() {
                "us" => 1,
                "ms" => 1000,
                "s" => SECOND,
                other => {
                    return Err(
                        self.err_at(u, format!("`service_unit: {other}` is not known; use us, ms or s"))
                    )
                }
            };
        }
        let Some(c) = &t.columns else { return Ok(cols) };
        let c = &c.value;
        let word = |s: &Option<Spanned<String>>| s.as_ref().map(|v| v.value.clone());
        if let Some(a) = &c.arrival {
            cols.arrival = a.value.clone();
        }
        if let Some(a) = &c.tenant {
            cols.tenant = a.value.clone();
        }
        for (field, raw) in [
            (&mut cols.class, &c.class),
            (&mut cols.service, &c.service),
            (&mut cols.started, &c.started),
            (&mut cols.finished, &c.finished),
            (&mut cols.priority, &c.priority),
            (&mut cols.deadline, &c.deadline),
            (&mut cols.id, &c.id),
        ] {
            if let Some(x) = word(raw) {
                *field = Some(x);
            }
        }
        // a service column replaces the table's start and finish
        if c.service.is_some() && c.started.is_none() && c.finished.is_none() {
            (cols.started, cols.finished) = (None, None);
        }
        for (rname, col) in c.cost.iter().flat_map(|cost| &cost.value.0) {
            let Some(i) = self.resources.iter().position(|(n, _)| n == rname) else {
                return Err(self.err_at(
                    col,
                    format!(
                        "`columns.cost` names resource `{rname}`, which is not declared under `resources:`"
                    ),
                ));
            };
            cols.cost.push((i, col.value.clone()));
        }
        Ok(cols)
    }

    /// An SWF trace: fixed fields, and the resource receiving each job's
    /// processor count (`slots`; by default one named procs or slots).
    fn swf<T>(&self, e: &Spanned<T>, t: &RawTrace) -> Result<TraceFormat> {
        if t.columns.is_some() || t.service_unit.is_some() || t.time_format.is_some() {
            return Err(self.err_at(
                e,
                "an SWF trace has fixed fields; remove `columns`, `service_unit` and `time_format`",
            ));
        }
        let slots = match &t.slots {
            Some(s) if s.value == "none" => None,
            Some(s) => match self.resources.iter().position(|(n, _)| *n == s.value) {
                Some(i) => Some(i),
                None => {
                    return Err(self.err_at(
                        s,
                        format!("`slots: {}` is not a resource declared under `resources:`; declare it (e.g. `resources: {{{}: 64}}`) or write `slots: none`", s.value, s.value),
                    ))
                }
            },
            None => self.resources.iter().position(|(n, _)| n == "procs" || n == "slots"),
        };
        Ok(TraceFormat::Swf { slots })
    }
}

//! CSV traces: a job-table export (Rails / Postgres `jobs` table and the
//! like), one job per row, columns named by a header line and mapped by the
//! scenario's `columns:`.

use std::io::Read as IoRead;
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::{CsvColumns, TimeFormat, MAX_RESOURCES};
use crate::time::{Time, SECOND};

use super::rfc3339::{parse_rfc3339, parse_scaled, plain_scaled};
use super::split::{Split, Splitter};
use super::{Read, Row, RowError, RowReader};

/// The mapping used when the scenario gives none (see docs/scenario.md):
/// arrival `created_at`, tenant `tenant`, class `queue` when the header has
/// it, service from `service` (seconds) when the header has it, else
/// `finished_at - started_at`.
pub fn default_columns() -> CsvColumns {
    CsvColumns {
        arrival: "created_at".into(),
        tenant: "tenant".into(),
        class: None,
        service: None,
        service_unit: SECOND,
        started: None,
        finished: None,
        priority: None,
        deadline: None,
        cost: Vec::new(),
        id: None,
    }
}

/// Field positions resolved against the header.
struct Index {
    arrival: usize,
    tenant: usize,
    class: Option<usize>,
    service: Option<usize>,
    started: Option<usize>,
    finished: Option<usize>,
    priority: Option<usize>,
    deadline: Option<usize>,
    cost: Vec<(usize, usize)>,
    id: Option<usize>,
    /// The recorded start, read only when recording (calibrate).
    recorded: Option<usize>,
}

/// Streaming reader of a CSV trace.
pub struct CsvRows<R: IoRead> {
    path: PathBuf,
    split: Splitter<R>,
    /// The header as bytes, as the csv crate trims them.
    header: ::csv::ByteRecord,
    fields: Fields,
}

/// How a record's fields become a row.
struct Fields {
    idx: Index,
    time_format: TimeFormat,
    service_unit: Time,
    /// The header's field count.
    expected: usize,
}
impl<R: IoRead> CsvRows<R> {
    /// Also reads each row's recorded start ([`Row::started`]) from the
    /// `started` column (default `started_at`), which the header must have.
    pub fn recording(
        path: &Path,
        input: R,
        cols: &CsvColumns,
        time_format: TimeFormat,
        dims: usize,
    ) -> Result<Self> {
        let mut rows = Self::new(path, input, cols, time_format, dims)?;
        let name = cols.started.as_deref().unwrap_or("started_at");
        let names: Vec<&str> = rows.header.iter().map(|f| std::str::from_utf8(f).unwrap_or("")).collect();
        rows.fields.idx.recorded = Some(names.iter().position(|h| *h == name).ok_or_else(|| {
            Error::input(
                path,
                1,
                0,
                format!(
                    "the header has no column `{name}` with each job's recorded start; columns are: {}; set `columns: {{started: NAME}}` in the scenario's trace entry",
                    names.join(", ")
                ),
            )
        })?);
        Ok(rows)
    }

    /// Reads the header and resolves the columns; a mapped column missing
    /// from the header is an error at line 1.
    pub fn new(
        path: &Path,
        input: R,
        cols: &CsvColumns,
        time_format: TimeFormat,
        dims: usize,
    ) -> Result<Self> {
        let (split, (header, byte_header)) = Splitter::new(input)
            .map_err(|e| Error::input(path, 1, 0, format!("cannot read the CSV header: {e}")))?;
        let names: Vec<&str> = header.iter().collect();
        let find = |name: &str| names.iter().position(|h| *h == name);
        let need = |name: &str, key: &str| {
            find(name).ok_or_else(|| {
                Error::input(
                    path,
                    1,
                    0,
                    format!(
                        "the header has no column `{name}` (mapped by `columns.{key}`); columns are: {}; set `columns: {{{key}: NAME}}` in the trace entry",
                        names.join(", ")
                    ),
                )
            })
        };
        let opt = |name: &Option<String>, key: &str| name.as_deref().map(|n| need(n, key)).transpose();
        // With the default mapping, optional columns are used when present.
        let class = match &cols.class {
            Some(c) => Some(need(c, "class")?),
            None => find("queue"),
        };
        let service = match &cols.service {
            Some(c) => Some(need(c, "service")?),
            None if cols.started.is_none() && cols.finished.is_none() => find("service"),
            None => None,
        };
        let (started, finished) = if service.is_some() {
            (None, None)
        } else {
            let s = cols.started.clone().unwrap_or_else(|| "started_at".into());
            let f = cols.finished.clone().unwrap_or_else(|| "finished_at".into());
            if find(&s).is_none() && find(&f).is_none() && cols.started.is_none() && cols.finished.is_none() {
                return Err(Error::input(
                    path,
                    1,
                    0,
                    format!(
                        "no service column: set `columns: {{service: NAME}}` (with `service_unit`) or `columns: {{started: NAME, finished: NAME}}`; columns are: {}",
                        names.join(", ")
                    ),
                ));
            }
            (Some(need(&s, "started")?), Some(need(&f, "finished")?))
        };
        let mut cost = Vec::new();
        for (d, name) in &cols.cost {
            if *d < dims.min(MAX_RESOURCES) {
                cost.push((*d, need(name, "cost")?));
            }
        }
        let idx = Index {
            arrival: need(&cols.arrival, "arrival")?,
            tenant: need(&cols.tenant, "tenant")?,
            class,
            service,
            started,
            finished,
            priority: opt(&cols.priority, "priority")?,
            deadline: opt(&cols.deadline, "deadline")?,
            cost,
            // like `queue`, an `id` column is used when present
            id: match &cols.id {
                Some(c) => Some(need(c, "id")?),
                None => find("id"),
            },
            recorded: None,
        };
        Ok(CsvRows {
            path: path.to_path_buf(),
            split,
            fields: Fields { idx, time_format, service_unit: cols.service_unit, expected: header.len() },
            header: byte_header,
        })
    }
}

impl Fields {
    /// Parses a record whose fields are `bounds` in `text` (checked UTF-8).
    fn parse(&self, text: &str, bounds: &[Range<usize>], row: &mut Row) -> std::result::Result<(), RowError> {
        let line = row.line;
        let idx = &self.idx;
        let field = |i: usize| bounds.get(i).and_then(|r| text.get(r.clone())).map(trim).unwrap_or("");
        let bad = |i: usize, m: String| RowError { line, column: i + 1, message: m };
        let time = |i: usize| parse_time(field(i), self.time_format).map_err(|m| bad(i, m));
        row.arrival_col = idx.arrival + 1;
        row.time = time(idx.arrival)?;
        row.id.clear();
        if let Some(i) = idx.id {
            row.id.push_str(field(i));
        }
        row.tenant.clear();
        row.tenant.push_str(field(idx.tenant));
        if row.tenant.is_empty() {
            return Err(bad(idx.tenant, "the tenant is empty".into()));
        }
        row.class.clear();
        if let Some(i) = idx.class {
            row.class.push_str(field(i));
            if row.class == "default" {
                row.class.clear();
            }
        }
        row.priority = match idx.priority.map(|i| (i, field(i))) {
            Some((_, "")) | None => None,
            Some((i, p)) => {
                Some(p.parse::<i32>().map_err(|_| bad(i, format!("priority `{p}` is not a whole number")))?)
            }
        };
        let service = match (idx.service, idx.started, idx.finished) {
            (Some(i), _, _) => parse_scaled(field(i), self.service_unit as i64).map_err(|m| bad(i, m))?,
            (None, Some(s), Some(f)) => {
                let (ts, tf) = (time(s)?, time(f)?);
                if tf < ts {
                    return Err(bad(f, "finished before it started".into()));
                }
                tf - ts
            }
            _ => 0,
        };
        if service < 0 {
            return Err(bad(idx.service.unwrap_or(0), "the service time is negative".into()));
        }
        row.service = service as Time;
        row.deadline = match idx.deadline.map(|i| (i, field(i))) {
            Some((_, "")) | None => None,
            Some((i, _)) => Some(time(i)?),
        };
        row.started = match idx.recorded.map(|i| (i, field(i))) {
            Some((_, "")) | None => None,
            Some((i, _)) => Some(time(i)?),
        };
        row.cost = [0; MAX_RESOURCES];
        for &(d, i) in &idx.cost {
            let v = field(i);
            row.cost[d] =
                v.parse::<u64>().map_err(|_| bad(i, format!("cost `{v}` is not a whole number ≥ 0")))?;
            row.cost_cols[d] = i + 1;
        }
        Ok(())
    }
}

/// `s` without leading and trailing white space, as `StringRecord::trim`
/// (Unicode white space), with a fast path for ASCII edges.
fn trim(s: &str) -> &str {
    let t = s.trim_ascii();
    match (t.as_bytes().first(), t.as_bytes().last()) {
        (Some(a), Some(b)) if !a.is_ascii() || !b.is_ascii() => t.trim(),
        _ => t,
    }
}

/// The record's bytes as text when every field is UTF-8; else the index of
/// the first field that is not.
fn record_text<'a>(text: &'a [u8], fields: &[Range<usize>]) -> std::result::Result<&'a str, usize> {
    // the whole may be UTF-8 while a character straddles two fields (the
    // csv crate's records hold the fields without their commas)
    match std::str::from_utf8(text) {
        Ok(t) if fields.iter().all(|r| t.is_char_boundary(r.start) && t.is_char_boundary(r.end)) => Ok(t),
        _ => Err(fields.iter().position(|r| std::str::from_utf8(&text[r.clone()]).is_err()).unwrap_or(0)),
    }
}

/// A timestamp in the given format, in microseconds.
pub fn parse_time(text: &str, format: TimeFormat) -> std::result::Result<i64, String> {
    if text.is_empty() {
        return Err("the timestamp is empty".into());
    }
    match format {
        TimeFormat::Rfc3339 => parse_rfc3339(text),
        TimeFormat::EpochSeconds => parse_scaled(text, SECOND as i64),
        TimeFormat::EpochMillis => parse_scaled(text, 1000),
        TimeFormat::EpochMicros => parse_scaled(text, 1),
        TimeFormat::Auto => {
            // a date has a `-` after its first character (a bare epoch number may only start with one);
            // a plain decimal has none, nor `:` or `T`: epoch seconds, read in one pass
            if let Some(us) = plain_scaled(text.as_bytes(), SECOND as i64) {
                Ok(us)
            } else if text.bytes().skip(1).any(|c| matches!(c, b'-' | b':' | b'T')) {
                parse_rfc3339(text)
            } else {
                parse_scaled(text, SECOND as i64)
            }
        }
    }
}

impl<R: IoRead> RowReader for CsvRows<R> {
    fn next_row(&mut self, row: &mut Row) -> Result<Option<Read>> {
        let split = match self.split.next() {
            Ok(s) => s,
            Err(e) => {
                let line = e.position().map(|p| p.line()).unwrap_or(0);
                return Err(Error::input(
                    &self.path,
                    line as usize,
                    0,
                    format!("cannot read the trace: {e}"),
                ));
            }
        };
        Ok(match split {
            Split::End => None,
            Split::Ragged { line, len } => {
                let expected = self.fields.expected;
                Some(Read::Bad(RowError {
                    line,
                    column: (len + 1).min(expected + 1),
                    message: format!("this row has {len} fields, the header has {expected}"),
                }))
            }
            Split::Record { line, text, fields, ascii } => {
                row.line = line;
                let text = if ascii {
                    // SAFETY: every byte is ASCII (the splitter saw no high bit;
                    // its tests check the flag), and ASCII is UTF-8. The check
                    // skipped was as costly as splitting the record.
                    Ok(unsafe { std::str::from_utf8_unchecked(text) })
                } else {
                    record_text(text, fields)
                };
                Some(match text {
                    Err(bad) => Read::Bad(RowError {
                        line,
                        column: bad + 1,
                        message: "this field is not valid UTF-8".into(),
                    }),
                    Ok(text) => match self.fields.parse(text, fields, row) {
                        Ok(()) => Read::Row,
                        Err(e) => Read::Bad(e),
                    },
                })
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_time_format_tells_dates_from_epoch_numbers() {
        // 2026-11-28T10:00:00Z = 1795860000 s (date -u -d ... +%s)
        assert_eq!(parse_time("2026-11-28T10:00:00Z", TimeFormat::Auto), Ok(1_795_860_000_000_000));
        assert_eq!(parse_time("1795860000.5", TimeFormat::Auto), Ok(1_795_860_000_500_000));
        assert_eq!(parse_time("-1", TimeFormat::Auto), Ok(-1_000_000));
        // non-ASCII text is an error, not a panic
        assert!(parse_time("é2026", TimeFormat::Auto).is_err());
        assert!(parse_time("", TimeFormat::Auto).is_err());
    }
}

//! What production recorded for each replayed row: its start (CSV
//! `started` column, SWF submit + wait), for `fairsim calibrate`.
//!
//! The rows are filtered exactly as [`super::prepare`] filters them
//! (missing rows skipped, broken rows skipped or fatal, the same row
//! checks), so the k-th record belongs to the k-th replayed arrival: job k
//! of the simulated run.

use crate::error::{Error, Result};
use crate::model::{Scenario, TraceFormat, TraceSpec};

use super::{capacity, check_row, csv, row_error, swf, Read, Row, RowReader};

/// One replayed row as production recorded it; times in simulation time
/// (µs, shifted like the arrivals).
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// 1-based line in the trace.
    pub line: u64,
    /// The trace's own id; empty when it has none.
    pub id: String,
    pub arrival: i64,
    /// `None`: production never started it.
    pub start: Option<i64>,
}

/// The recorded rows of `spec`, in replay order.
pub fn recorded(spec: &TraceSpec, sc: &Scenario) -> Result<Vec<Recorded>> {
    let file = std::fs::File::open(&spec.path)
        .map_err(|e| Error::Usage(format!("--trace {}: cannot read it: {e}", spec.path.display())))?;
    let input = std::io::BufReader::with_capacity(1 << 16, file);
    let mut rows: Box<dyn RowReader> = match &spec.format {
        TraceFormat::Csv(cols) => {
            Box::new(csv::CsvRows::recording(&spec.path, input, cols, spec.time_format, sc.resources.len())?)
        }
        TraceFormat::Swf { slots } => Box::new(swf::SwfRows::recording(&spec.path, input, *slots)),
        TraceFormat::Events(log) => Box::new(super::events::EventRows::new(&spec.path, input, log)?),
    };
    let cap = capacity(sc);
    let mut row = Row::default();
    let mut last: Option<(i64, u64)> = None;
    let mut origin = 0;
    let mut out = Vec::new();
    while let Some(r) = rows.next_row(&mut row)? {
        match r {
            Read::Missing => continue,
            Read::Bad(_) if spec.skip_bad_rows => continue,
            Read::Bad(e) => return Err(row_error(&spec.path, e)),
            Read::Row => {}
        }
        let first = last.map_or(row.time, |_| origin);
        let (arrival, _) = match check_row(&row, last, first, spec.keep_time, &cap) {
            Ok(x) => x,
            Err(_) if spec.skip_bad_rows => continue,
            Err(e) => return Err(row_error(&spec.path, e)),
        };
        if let Some(start) = row.started.filter(|&s| s < row.time) {
            // fatal even with skip_bad_rows: the replay keeps this row, so
            // skipping it here would pair every later job with the wrong record
            return Err(Error::input(
                &spec.path,
                row.line as usize,
                0,
                format!(
                    "the recorded start is {} s before the job's arrival: no queue starts a job before it arrives; fix this row's start or arrival time",
                    crate::time::fmt_secs((row.time - start) as crate::time::Time)
                ),
            ));
        }
        if last.is_none() {
            origin = row.time;
        }
        last = Some((row.time, row.line));
        let base = if spec.keep_time { 0 } else { origin };
        out.push(Recorded {
            line: row.line,
            id: row.id.clone(),
            arrival: arrival as i64,
            start: row.started.map(|s| s.saturating_sub(base)),
        });
    }
    Ok(out)
}

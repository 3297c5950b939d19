//! SWF traces: the Standard Workload Format of the Parallel Workloads
//! Archive. Lines starting with `;` are header comments; every other
//! non-blank line is one job of 18 whitespace-separated fields, `-1` for a
//! missing value. Used here:
//!
//! | field | meaning | becomes |
//! |---|---|---|
//! | 1 | job number | `trace_id` in `jobs.csv` |
//! | 2 | submit time (s since the log start) | arrival |
//! | 3 | wait time (s) | recorded start = submit + wait (calibrate only) |
//! | 4 | run time (s) | service |
//! | 5 | allocated processors | slots (else field 8) |
//! | 8 | requested processors | slots when field 5 is missing |
//! | 12 | user id | tenant `u<id>` |
//! | 15 | queue number | class `q<n>` (missing: `default`) |
//!
//! A job whose run time is missing (-1) or whose processor count is missing
//! or 0 in both fields (cancelled before it ran, in most logs) is skipped and
//! counted as a missing row, never an error.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::{Scenario, MAX_RESOURCES};
use crate::time::SECOND;

use super::rfc3339::parse_scaled;
use super::{Read, Row, RowError, RowReader};

/// The resource that receives the processor count by default: the one named
/// `procs`, else `slots`, else none (one worker per job).
pub fn default_slots(sc: &Scenario) -> Option<usize> {
    sc.resources.iter().position(|(n, _)| n == "procs" || n == "slots")
}

/// Streaming reader of an SWF file.
pub struct SwfRows<R: BufRead> {
    path: PathBuf,
    input: R,
    buf: Vec<u8>,
    line: u64,
    slots: Option<usize>,
    /// Whether to read the wait (field 3) into [`Row::started`].
    recording: bool,
}

impl<R: BufRead> SwfRows<R> {
    pub fn new(path: &Path, input: R, slots: Option<usize>) -> Self {
        SwfRows { path: path.to_path_buf(), input, buf: Vec::new(), line: 0, slots, recording: false }
    }

    /// Also reads each job's recorded start, submit + wait (field 3; a
    /// missing wait, -1, leaves it `None`).
    pub fn recording(path: &Path, input: R, slots: Option<usize>) -> Self {
        SwfRows { recording: true, ..Self::new(path, input, slots) }
    }
}

/// Parses `self.buf` (one job line) into `row`.
fn parse_line(
    text: &str,
    line: u64,
    slots: Option<usize>,
    recording: bool,
    row: &mut Row,
) -> std::result::Result<bool, RowError> {
    let mut fields = [""; 18];
    let mut n = 0;
    for f in text.split_whitespace() {
        if n < 18 {
            fields[n] = f;
        }
        n += 1;
    }
    if n != 18 {
        return Err(RowError {
            line,
            column: n.min(18) + 1,
            message: format!("an SWF job line has 18 fields, this one has {n}"),
        });
    }
    let num = |i: usize| -> std::result::Result<i64, RowError> {
        parse_scaled(fields[i - 1], SECOND as i64).map_err(|m| RowError {
            line,
            column: i,
            message: format!("field {i}: {m}"),
        })
    };
    let int = |i: usize| -> std::result::Result<i64, RowError> {
        fields[i - 1].parse::<i64>().map_err(|_| RowError {
            line,
            column: i,
            message: format!("field {i}: `{}` is not a whole number", fields[i - 1]),
        })
    };
    let submit = num(2)?;
    if submit < 0 {
        return Err(RowError { line, column: 2, message: "the submit time is missing or negative".into() });
    }
    let run = num(4)?;
    let (alloc, req) = (int(5)?, int(8)?);
    let procs = if alloc > 0 { alloc } else { req };
    if run < 0 || procs <= 0 {
        return Ok(false);
    }
    row.line = line;
    row.id.clear();
    row.id.push_str(fields[0]);
    row.time = submit;
    row.arrival_col = 2;
    row.service = run as u64;
    row.tenant.clear();
    row.tenant.push('u');
    row.tenant.push_str(fields[11]);
    let queue = int(15)?;
    row.class.clear();
    if queue >= 0 {
        row.class.push('q');
        row.class.push_str(fields[14]);
    }
    row.started = match recording {
        true => Some(num(3)?).filter(|&w| w >= 0).map(|w| submit + w),
        false => None,
    };
    row.priority = None;
    row.deadline = None;
    row.cost = [0; MAX_RESOURCES];
    if let Some(d) = slots {
        row.cost[d] = procs as u64;
        row.cost_cols[d] = if alloc > 0 { 5 } else { 8 };
    }
    Ok(true)
}

/// Longest line accepted: an SWF job line is some 100 bytes; a file without
/// line breaks is not read into memory whole.
const MAX_LINE: usize = 1 << 20;

/// Reads one line into `buf` (cleared first), without its terminator: `\n`,
/// `\r\n` or a lone `\r` (old Mac exports) end a line. Returns the bytes
/// consumed, 0 at the end of the input.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    buf.clear();
    let mut consumed = 0;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(consumed);
        }
        match chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(i) => {
                let cr = chunk[i] == b'\r';
                buf.extend_from_slice(&chunk[..i]);
                input.consume(i + 1);
                consumed += i + 1;
                if cr && input.fill_buf()?.first() == Some(&b'\n') {
                    input.consume(1);
                    consumed += 1;
                }
                return Ok(consumed);
            }
            None => {
                let n = chunk.len();
                buf.extend_from_slice(chunk);
                input.consume(n);
                consumed += n;
            }
        }
        if buf.len() > MAX_LINE {
            return Err(std::io::Error::other(format!(
                "a line longer than {} bytes; an SWF job line has 18 short fields",
                MAX_LINE
            )));
        }
    }
}

impl<R: BufRead> RowReader for SwfRows<R> {
    fn next_row(&mut self, row: &mut Row) -> Result<Option<Read>> {
        loop {
            let at = self.line as usize + 1;
            let n = read_line(&mut self.input, &mut self.buf)
                .map_err(|e| Error::input(&self.path, at, 0, format!("cannot read the trace: {e}")))?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            let Ok(text) = std::str::from_utf8(&self.buf) else {
                return Ok(Some(Read::Bad(RowError {
                    line: self.line,
                    column: 0,
                    message: "this line is not UTF-8 text".into(),
                })));
            };
            let text = text.trim();
            if text.is_empty() || text.starts_with(';') {
                continue;
            }
            return Ok(Some(match parse_line(text, self.line, self.slots, self.recording, row) {
                Ok(true) => Read::Row,
                Ok(false) => Read::Missing,
                Err(e) => Read::Bad(e),
            }));
        }
    }
}

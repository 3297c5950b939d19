//! The one reader of a results folder's CSV files (report, check, explain,
//! calibrate and merge all read through it): a file held whole with its raw
//! lines, so a violation can print the rows that show it as they stand in
//! the file. Whatever keeps a file from being read as CSV (not UTF-8, a
//! broken row) is an input error (exit code 2) naming the file and line.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// One CSV file: its header, its rows as cells, and each row's line.
#[derive(Debug, Clone)]
pub struct Table {
    /// The path as printed in messages (relative to the checked folder).
    pub name: String,
    /// The file, for input errors.
    pub path: PathBuf,
    header: Vec<String>,
    pub rows: Vec<Row>,
    /// 1-based line number of each row in the file.
    pub lines: Vec<usize>,
    /// The file's text (shared with the reader while rows stream), and
    /// where each of its lines starts in it.
    text: std::sync::Arc<str>,
    line_starts: Vec<usize>,
}

/// One row's cells in one buffer: a results folder of a million jobs has
/// 16 million cells in jobs.csv alone, and a `String` each (an allocation
/// and 24 bytes beside the text) made `fairsim check` take gigabytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Row {
    text: Box<str>,
    /// The end of each cell in `text`.
    ends: Box<[u32]>,
}

impl Row {
    /// A CSV record's cells, copied in one piece.
    fn of_record(rec: &csv::StringRecord) -> Row {
        let ends = (0..rec.len()).map(|i| rec.range(i).map_or(0, |r| r.end) as u32).collect();
        Row { text: rec.as_slice().into(), ends }
    }

    pub fn new<S: AsRef<str>>(cells: impl IntoIterator<Item = S>) -> Row {
        let mut text = String::new();
        let mut ends = Vec::new();
        for c in cells {
            text.push_str(c.as_ref());
            ends.push(text.len() as u32);
        }
        Row { text: text.into_boxed_str(), ends: ends.into_boxed_slice() }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        Some(&self.text[start..end])
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|i| &self[i])
    }

    /// The cells as strings, for the tables that own theirs.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }
}

impl std::ops::Index<usize> for Row {
    type Output = str;

    fn index(&self, i: usize) -> &str {
        match self.get(i) {
            Some(c) => c,
            None => panic!("cell {i} of a row of {} cells", self.len()),
        }
    }
}

/// Where each line of `text` starts.
fn starts_of_lines(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(k, _)| k + 1)).collect()
}

impl Table {
    /// Reads `dir/rel`; `Ok(None)` when the file does not exist.
    pub fn read(dir: &Path, rel: &str) -> Result<Option<Table>> {
        let mut rows = Vec::new();
        let t = Self::read_each(dir, rel, rel, &mut |_, _, row| {
            rows.push(row);
            Ok(())
        })?;
        Ok(t.map(|t| Table { rows, ..t }))
    }

    /// Reads `dir/rel` handing each row to `each` (the table so far, the
    /// row's index, its cells) instead of keeping it: the table returned
    /// has no rows, only what [`Table::show`] needs. `name` is the path as
    /// messages print it. `Ok(None)` when the file does not exist.
    pub fn read_each(
        dir: &Path,
        rel: &str,
        name: &str,
        each: &mut dyn FnMut(&Table, usize, Row) -> Result<()>,
    ) -> Result<Option<Table>> {
        let path: PathBuf = dir.join(rel);
        if !path.is_file() {
            return Ok(None);
        }
        // a file of the folder that cannot be read is bad input (exit code 2)
        let raw =
            std::fs::read(&path).map_err(|e| Error::input(&path, 0, 0, format!("cannot read it: {e}")))?;
        let raw: std::sync::Arc<str> = utf8(&path, raw)?.into();
        let bad = |line: usize, what: String| Error::input(&path, line, 0, what);
        let header: Vec<String> = {
            let mut r = csv::ReaderBuilder::new().has_headers(true).from_reader(raw.as_bytes());
            r.headers()
                .map_err(|e| bad(1, format!("not a CSV header: {e}")))?
                .iter()
                .map(str::to_string)
                .collect()
        };
        let line_starts = starts_of_lines(&raw);
        let mut t = Table {
            name: name.to_string(),
            path: path.clone(),
            header,
            rows: Vec::new(),
            lines: Vec::new(),
            text: raw.clone(),
            line_starts,
        };
        {
            let mut r = csv::ReaderBuilder::new().has_headers(true).from_reader(raw.as_bytes());
            let mut rec = csv::StringRecord::new();
            let mut i = 0;
            loop {
                match r.read_record(&mut rec) {
                    Ok(false) => break,
                    Ok(true) => {}
                    Err(e) => {
                        let line = e.position().map_or(0, |p| p.line() as usize);
                        return Err(bad(line, format!("not a CSV row: {e}; was the file edited by hand?")));
                    }
                }
                t.lines.push(rec.position().map_or(0, |p| p.line() as usize));
                each(&t, i, Row::of_record(&rec))?;
                i += 1;
            }
        }
        Ok(Some(t))
    }

    /// An input error at cell (`row`, `col`) of this file: its line and
    /// 1-based column, then `what`.
    pub fn cell_error(&self, row: usize, col: usize, what: impl std::fmt::Display) -> Error {
        let column = self.header.get(col).map_or(String::new(), |h| format!(" (`{h}`)"));
        Error::input(
            &self.path,
            self.lines.get(row).copied().unwrap_or(0),
            col + 1,
            format!(
                "column {}{column}: {what}; fairsim never writes this, so the file was edited or damaged: rerun `fairsim run` to write it again",
                col + 1
            ),
        )
    }

    /// A table of a file that is not CSV (an SWF log): no header, no
    /// cells, only the file's `text` and the 1-based line of each row.
    pub fn of_lines(name: String, text: Vec<String>, lines: Vec<usize>) -> Table {
        let text: std::sync::Arc<str> = text.join("\n").into();
        let line_starts = starts_of_lines(&text);
        Table {
            path: PathBuf::from(&name),
            name,
            header: Vec::new(),
            rows: Vec::new(),
            lines,
            text,
            line_starts,
        }
    }

    /// Line `n` (1-based) of the file, without its line break.
    fn line(&self, n: usize) -> &str {
        let Some(&start) = n.checked_sub(1).and_then(|k| self.line_starts.get(k)) else { return "" };
        let end = self.line_starts.get(n).map_or(self.text.len(), |&e| e - 1);
        let l = &self.text[start..end.max(start)];
        l.strip_suffix('\r').unwrap_or(l)
    }

    /// Forgets the rows' cells, keeping what [`Table::show`] needs: for a
    /// file read once into typed columns.
    pub fn drop_cells(&mut self) {
        self.rows = Vec::new();
    }

    /// The column names.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// The index of column `name`, or an input error naming the file.
    pub fn col(&self, name: &str) -> Result<usize> {
        self.header.iter().position(|h| h == name).ok_or_else(|| {
            Error::Usage(format!(
                "{}: no `{name}` column (columns: {}); not a file written by this fairsim",
                self.name,
                self.header.join(",")
            ))
        })
    }

    /// Whether the file has column `name`.
    pub fn has(&self, name: &str) -> bool {
        self.header.iter().any(|h| h == name)
    }

    /// Row `i` as `file:line: text`, for a violation's evidence.
    pub fn show(&self, i: usize) -> String {
        let line = self.lines[i];
        format!("{}:{line}: {}", self.name, self.line(line))
    }

    /// The header as `file:1: text`.
    pub fn show_header(&self) -> String {
        format!("{}:1: {}", self.name, self.line(1))
    }
}

/// Reads `path` whole; a missing file is an input error (exit code 2)
/// saying the folder lacks it. Messages show the path as given.
pub fn read(path: &Path) -> Result<Table> {
    let (dir, rel) = (path.parent().unwrap_or(Path::new("")), path.file_name().unwrap_or_default());
    let found = Table::read(dir, &rel.to_string_lossy())?;
    let mut t = found.ok_or_else(|| {
        Error::input(
            path,
            0,
            0,
            "file is missing: this needs the CSV files written by `fairsim run` (rerun it to regenerate the folder)",
        )
    })?;
    t.name = path.display().to_string();
    Ok(t)
}

/// `raw` as text, or an input error at the line and column of the first
/// byte that is not UTF-8 (every file fairsim writes is UTF-8).
pub fn utf8(path: &Path, raw: Vec<u8>) -> Result<String> {
    String::from_utf8(raw).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&good[start..]).chars().count() + 1;
        let byte = e.as_bytes()[good.len()];
        Error::input(
            path,
            line,
            column,
            format!(
                "not UTF-8 text (byte 0x{byte:02x}); fairsim writes its files as UTF-8, so this one was edited or damaged: rerun the command that wrote it"
            ),
        )
    })
}

/// Microseconds from a seconds cell as fairsim writes it (at most six
/// decimals, so the conversion is exact); `None` for anything else.
pub fn micros(cell: &str) -> Option<i64> {
    let (int, frac) = cell.split_once('.').unwrap_or((cell, ""));
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) || frac.len() > 6 {
        return None;
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: i64 = int.parse().ok()?;
    // the digits padded to six by hand: check reads millions of these
    let part =
        frac.bytes().fold(0i64, |n, b| n * 10 + i64::from(b - b'0')) * 10i64.pow(6 - frac.len() as u32);
    whole.checked_mul(1_000_000)?.checked_add(part)
}

/// Microseconds as seconds, the way the CSV files write them.
pub fn secs(us: i64) -> String {
    let sign = if us < 0 { "-" } else { "" };
    let a = us.unsigned_abs();
    let (whole, frac) = (a / 1_000_000, a % 1_000_000);
    if frac == 0 {
        format!("{sign}{whole}s")
    } else {
        let f = format!("{frac:06}");
        format!("{sign}{whole}.{}s", f.trim_end_matches('0'))
    }
}

/// `A:1 B:2` cells as (name, value) pairs; `None` when malformed.
pub fn pairs(cell: &str) -> Option<Vec<(&str, &str)>> {
    cell.split_whitespace().map(|p| p.rsplit_once(':')).collect()
}

//! A CSV file of a results folder, kept with its raw lines so a violation
//! can print the rows that show it as they stand in the file.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// One CSV file: its header, its rows as cells, and each row's line.
pub struct Table {
    /// The path as printed in messages (relative to the checked folder).
    pub name: String,
    header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// 1-based line number of each row in the file.
    pub lines: Vec<usize>,
    text: Vec<String>,
}

impl Table {
    /// Reads `dir/rel`; `Ok(None)` when the file does not exist.
    pub fn read(dir: &Path, rel: &str) -> Result<Option<Table>> {
        let path: PathBuf = dir.join(rel);
        if !path.is_file() {
            return Ok(None);
        }
        let raw = std::fs::read_to_string(&path)
            .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
        let bad = |line: usize, what: String| Error::input(&path, line, 0, what);
        let mut r = csv::ReaderBuilder::new().has_headers(true).from_reader(raw.as_bytes());
        let header: Vec<String> = r
            .headers()
            .map_err(|e| bad(1, format!("not a CSV header: {e}")))?
            .iter()
            .map(str::to_string)
            .collect();
        let mut rows = Vec::new();
        let mut lines = Vec::new();
        for rec in r.records() {
            let rec = rec.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line() as usize);
                bad(line, format!("not a CSV row: {e}; was the file edited by hand?"))
            })?;
            lines.push(rec.position().map_or(0, |p| p.line() as usize));
            rows.push(rec.iter().map(str::to_string).collect());
        }
        let text = raw.lines().map(str::to_string).collect();
        Ok(Some(Table { name: rel.to_string(), header, rows, lines, text }))
    }

    /// A table of a file that is not CSV (an SWF log): no header, no
    /// cells, only the file's `text` and the 1-based line of each row.
    pub fn of_lines(name: String, text: Vec<String>, lines: Vec<usize>) -> Table {
        Table { name, header: Vec::new(), rows: Vec::new(), lines, text }
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
        let text = self.text.get(line.wrapping_sub(1)).map_or("", String::as_str);
        format!("{}:{line}: {text}", self.name)
    }

    /// The header as `file:1: text`.
    pub fn show_header(&self) -> String {
        format!("{}:1: {}", self.name, self.text.first().map_or("", String::as_str))
    }
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
    let part: i64 = if frac.is_empty() { 0 } else { format!("{frac:0<6}").parse().ok()? };
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

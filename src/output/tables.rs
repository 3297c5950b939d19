//! `summary.csv`, `resources.csv` and `comparison.csv`, written from the
//! results model ([`crate::results`]): one column per field, in field order.
//! Also the top-level tidy files over all policies: the same rows (or a
//! policy's log file) with the policy's label as a leading `policy` column,
//! so one file compares policies.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use serde::Serialize;

use crate::accounting::logs::csv_rows::create_csv;
use crate::error::{Error, Result};
use crate::results::cells::cells;
use crate::results::{PolicyResult, ResourceRow};

/// Writes `parts` as one CSV file: the header from the first row's field
/// names, one line per row; with `lead`, a first column of that name holding
/// each part's label. Without rows (no policy, or no resources) only a
/// header would be known from none, so the file is not written.
fn write_rows<T: Serialize>(path: &Path, lead: Option<&str>, parts: &[(&str, &[T])]) -> Result<()> {
    let Some(first) = parts.iter().find_map(|(_, rows)| rows.first()) else {
        return Ok(());
    };
    // rows go through one reused buffer (accounting's CSV writer, which
    // quotes as the `csv` crate does): a summary of 10,000 tenants is
    // 250,000 cells
    let header: Vec<&str> = lead.into_iter().chain(cells(first).iter().map(|(n, _)| *n)).collect();
    let mut w = create_csv(path, &header)?;
    let mut text = Vec::new();
    for (label, rows) in parts {
        for row in *rows {
            if lead.is_some() {
                w.text(label);
            }
            for (_, c) in cells(row) {
                text.clear();
                c.write_csv(&mut text);
                w.bytes(&text);
            }
            w.end()?;
        }
    }
    // the error names the file
    w.flush().map_err(|e| Error::io("writing", e))
}

/// Writes `summary.csv`: one row for all jobs, one per class, one per tenant.
pub fn write_summary(path: &Path, result: &PolicyResult) -> Result<()> {
    write_rows(path, None, &[("", &result.groups)])
}

/// Writes `resources.csv`, one row per resource (nothing without `resources:`).
pub fn write_resources(path: &Path, rows: &[ResourceRow]) -> Result<()> {
    write_rows(path, None, &[("", rows)])
}

/// Writes `comparison.csv`, one row per policy: the comparison's columns,
/// then per objective (in declaration order) its figure and whether it
/// passes (`objective:<name>`, `objective:<name>:pass`), then
/// `meets_objectives`; no objective columns when nothing is judged.
pub fn write_comparison(path: &Path, results: &[&PolicyResult]) -> Result<()> {
    let Some(first) = results.first() else { return Ok(()) };
    let name = path.display().to_string();
    let cerr = |e: csv::Error| Error::Other(format!("writing {name}: {e}"));
    let mut w = csv::Writer::from_path(path)
        .map_err(|e| Error::Other(format!("cannot create {}: {e}", path.display())))?;
    let mut header: Vec<String> = cells(&first.comparison).iter().map(|(n, _)| n.to_string()).collect();
    for o in &first.objectives {
        header.push(format!("objective:{}", o.objective));
        header.push(format!("objective:{}:pass", o.objective));
    }
    if !first.objectives.is_empty() {
        header.push("meets_objectives".into());
    }
    w.write_record(&header).map_err(cerr)?;
    for r in results {
        let mut row: Vec<String> = cells(&r.comparison).iter().map(|(_, c)| c.csv()).collect();
        for o in &r.objectives {
            row.push(o.figure.map(|f| f.to_string()).unwrap_or_default());
            row.push(o.pass.to_string());
        }
        if !r.objectives.is_empty() {
            row.push(r.objectives.iter().all(|o| o.pass).to_string());
        }
        w.write_record(&row).map_err(cerr)?;
    }
    w.flush().map_err(|e| Error::io(format!("writing {name}"), e))
}

/// Writes the top-level `scorecard.csv` (each objective on each entry) and
/// `tenant_classes.csv` (each tenant x class pair of each entry, with a
/// leading `policy`), when there are rows for them.
pub fn write_scorecard(dir: &Path, results: &[(&str, &PolicyResult)]) -> Result<()> {
    let rows: Vec<_> = results.iter().flat_map(|(_, r)| r.objectives.iter().cloned()).collect();
    write_rows(&dir.join("scorecard.csv"), None, &[("", &rows)])?;
    let pairs: Vec<(&str, &[_])> = results.iter().map(|(l, r)| (*l, r.tenant_classes.as_slice())).collect();
    write_rows(&dir.join("tenant_classes.csv"), Some("policy"), &pairs)
}

/// Writes the top-level `summary.csv` and (with resources) `resources.csv`
/// into `dir`: every policy's rows under a leading `policy` column,
/// gathered from the policy's own files, which its run wrote
/// ([`write_summary`], [`write_resources`]) from the same rows: copying
/// them costs nothing next to formatting 10,000 tenants' rows again.
pub fn write_policy_tables(dir: &Path, results: &[(&str, &PolicyResult)]) -> Result<()> {
    let labels: Vec<&str> = results.iter().map(|(l, _)| *l).collect();
    gather(dir, &labels, "summary.csv")?;
    gather(dir, &labels, "resources.csv")
}

/// Writes `dir/file` from every `dir/<label>/file`: its header once with
/// `policy` first, then each policy's lines with its label first. The lines
/// are copied as bytes (records split at line breaks outside quotes, cells
/// not re-parsed), so the cells are exactly the policy's. Policies without
/// the file (a topology's files under a run without one) add no rows; when
/// none has it, nothing is written.
pub fn gather(dir: &Path, labels: &[&str], file: &str) -> Result<()> {
    let path = dir.join(file);
    let present: Vec<&str> = labels.iter().copied().filter(|l| dir.join(l).join(file).is_file()).collect();
    if present.is_empty() {
        return Ok(());
    }
    let err = |e| Error::io(format!("writing {}", path.display()), e);
    let mut out = BufWriter::with_capacity(1 << 16, std::fs::File::create(&path).map_err(err)?);
    let mut line = Vec::with_capacity(256);
    for (i, label) in present.iter().enumerate() {
        let src = dir.join(label).join(file);
        let rerr = |e| Error::io(format!("reading {}", src.display()), e);
        let mut r = BufReader::with_capacity(1 << 16, std::fs::File::open(&src).map_err(rerr)?);
        let mut cell = Vec::new();
        csv_cell(label, &mut cell);
        cell.push(b',');
        let mut first = true;
        loop {
            line.clear();
            if r.read_until(b'\n', &mut line).map_err(rerr)? == 0 {
                break;
            }
            // a quoted cell may hold a line break: a record ends where its quotes balance
            while line.iter().filter(|&&c| c == b'"').count() % 2 == 1 {
                if r.read_until(b'\n', &mut line).map_err(rerr)? == 0 {
                    break;
                }
            }
            if first {
                first = false;
                if i == 0 {
                    out.write_all(b"policy,").map_err(err)?;
                    out.write_all(&line).map_err(err)?;
                }
                continue;
            }
            out.write_all(&cell).map_err(err)?;
            out.write_all(&line).map_err(err)?;
        }
    }
    out.flush().map_err(err)
}

/// Appends `text` as one CSV cell, quoted as the `csv` crate would.
fn csv_cell(text: &str, out: &mut Vec<u8>) {
    if !text.bytes().any(|c| matches!(c, b',' | b'"' | b'\r' | b'\n')) {
        out.extend_from_slice(text.as_bytes());
        return;
    }
    out.push(b'"');
    for c in text.bytes() {
        if c == b'"' {
            out.push(b'"');
        }
        out.push(c);
    }
    out.push(b'"');
}

//! `summary.csv` and `comparison.csv`, written from the results model
//! ([`crate::results`]): one column per field, in field order.

use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::results::cells::cells;
use crate::results::{Comparison, PolicyResult};

/// Writes `rows` as a CSV file: the header from the first row's field names,
/// one line per row (a run always has a row: `all`, or one policy).
fn write_rows<T: Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let cerr = |e: csv::Error| Error::Other(format!("writing {name}: {e}"));
    let mut w = csv::Writer::from_path(path)
        .map_err(|e| Error::Other(format!("cannot create {}: {e}", path.display())))?;
    if let Some(first) = rows.first() {
        w.write_record(cells(first).iter().map(|(n, _)| *n)).map_err(cerr)?;
    }
    let mut text = String::new();
    for row in rows {
        for (_, c) in cells(row) {
            text.clear();
            c.write_csv(&mut text);
            w.write_field(&text).map_err(cerr)?;
        }
        w.write_record(None::<&[u8]>).map_err(cerr)?;
    }
    w.flush().map_err(|e| Error::io(format!("writing {name}"), e))
}

/// Writes `summary.csv`: one row for all jobs, one per class, one per tenant.
pub fn write_summary(path: &Path, result: &PolicyResult) -> Result<()> {
    write_rows(path, &result.groups)
}

/// Writes `comparison.csv`, one row per policy.
pub fn write_comparison(path: &Path, rows: &[&Comparison]) -> Result<()> {
    write_rows(path, rows)
}

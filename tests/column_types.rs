//! Every CSV column keeps one type, checked without pandas: the shipped
//! scenarios are run with full logs and, in every CSV of the results folder,
//! each column's non-empty cells are classified as integer, float, bool or
//! string. Integers in a float column are fine (a time that happens to be
//! whole); any other mix fails, and so does a column empty in every row
//! unless docs/metrics.md lists it as one that can be (pandas reads such a
//! column as float64).

mod common;

use std::path::{Path, PathBuf};

use common::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Integer,
    Float,
    Bool,
    Text,
}

fn kind(cell: &str) -> Kind {
    let digits = cell.strip_prefix('-').unwrap_or(cell);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        Kind::Integer
    } else if matches!(cell, "true" | "false") {
        Kind::Bool
    } else if cell.parse::<f64>().is_ok_and(f64::is_finite) && cell.bytes().any(|b| b.is_ascii_digit()) {
        Kind::Float
    } else {
        Kind::Text
    }
}

/// Columns that hold names: text by schema, whatever a name looks like (a
/// trace's tenant ids are digits; docs/metrics.md says to read them as text).
const NAME_COLUMNS: [&str; 12] = [
    "policy",
    "tenant",
    "class",
    "name",
    "queue",
    "pool",
    "kind",
    "worst_tenant",
    "worst_class",
    "resource",
    "admission_rule",
    "trace_id",
];

/// The list cells of `ticks.csv` (`A:39 B:2`), kept for reading by eye:
/// text by schema; the long files carry the same facts one a row.
const TICKS_LISTS: [&str; 6] = ["waiting", "chosen", "skipped", "completed", "refused", "deferred"];

/// The one kind of a column's non-empty cells, or what is wrong with it.
fn column_kind(cells: &[&str]) -> Result<Option<Kind>, String> {
    let mut seen: Vec<Kind> = cells.iter().filter(|c| !c.is_empty()).map(|c| kind(c)).collect();
    seen.sort();
    seen.dedup();
    match seen.as_slice() {
        [] => Ok(None),
        [k] => Ok(Some(*k)),
        [Kind::Integer, Kind::Float] => Ok(Some(Kind::Float)),
        mixed => Err(format!("mixes {mixed:?}")),
    }
}

fn csv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read_dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            csv_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "csv") {
            out.push(p);
        }
    }
}

/// `file.csv: column` pairs docs/metrics.md lists as possibly empty throughout.
fn documented_empty() -> Vec<(String, String)> {
    let docs = include_str!("../docs/metrics.md");
    let section = docs.split("## Column types").nth(1).expect("docs/metrics.md has a Column types section");
    section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| {
            let (file, rest) = l.split_once("` | ")?;
            let cols = rest.split(" | ").next()?;
            Some(
                cols.split(", ")
                    .map(|c| (file.to_string(), c.trim_matches('`').to_string()))
                    .collect::<Vec<_>>(),
            )
        })
        .flatten()
        .collect()
}

fn check_folder(out: &Path, problems: &mut Vec<String>) {
    let empty_ok = documented_empty();
    let mut files = Vec::new();
    csv_files(out, &mut files);
    assert!(files.len() > 5, "{}: only {} CSV files", out.display(), files.len());
    for f in files {
        let mut r = csv::Reader::from_path(&f).expect("csv");
        let headers: Vec<String> = r.headers().expect("header").iter().map(String::from).collect();
        let rows: Vec<csv::StringRecord> = r.records().map(|x| x.expect("row")).collect();
        if rows.is_empty() {
            continue; // a header alone loads as an empty frame: no type to keep
        }
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        for (i, h) in headers.iter().enumerate() {
            let cells: Vec<&str> = rows.iter().map(|r| r.get(i).unwrap_or("")).collect();
            let at = format!("{}: `{h}`", f.strip_prefix(out).unwrap().display());
            match column_kind(&cells) {
                Ok(Some(_)) => {}
                Ok(None) if empty_ok.iter().any(|(file, col)| *file == name && col == h) => {}
                Ok(None) => problems.push(format!("{at} is empty in every row and not documented as such")),
                Err(_) if NAME_COLUMNS.contains(&h.as_str()) => {}
                Err(_) if name == "ticks.csv" && TICKS_LISTS.contains(&h.as_str()) => {}
                Err(e) => problems.push(format!("{at} {e}")),
            }
        }
    }
}

#[test]
fn every_csv_column_keeps_one_type() {
    let dir = tempdir();
    let mut problems = Vec::new();
    for name in [
        "noisy-neighbor.yaml",
        "strategies.yaml",
        "overload.yaml",
        "trace-jobs-csv.yaml",
        "abc-rotation.yaml",
    ] {
        let out = dir.path().join(name);
        run(&scenario(name), &out, &["--no-plots", "--logs", "full"]);
        check_folder(&out, &mut problems);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_classifier_tells_the_four_kinds_apart() {
    // what pandas would infer for each cell on its own
    assert_eq!(kind("12"), Kind::Integer);
    assert_eq!(kind("-3"), Kind::Integer);
    assert_eq!(kind("0.9783"), Kind::Float);
    assert_eq!(kind("1e-3"), Kind::Float);
    assert_eq!(kind("true"), Kind::Bool);
    assert_eq!(kind("A:39 B:2"), Kind::Text);
    assert_eq!(kind("inf"), Kind::Text, "a non-finite number is not a float the files may hold");
    assert_eq!(column_kind(&["1", "", "1.5"]), Ok(Some(Kind::Float)));
    assert!(column_kind(&["1", "A:1"]).is_err());
    assert_eq!(column_kind(&["", ""]), Ok(None));
}

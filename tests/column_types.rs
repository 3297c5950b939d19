//! Every CSV column keeps one type, checked without pandas (and every log
//! file loads with a declared schema, the last test): the shipped
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

/// A declared column type, as a notebook would give it to `read_csv` (no
/// log file has a boolean column).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Type {
    Int,
    Float,
    Text,
}

/// A column: name, type, and whether a cell may be blank (a nullable
/// column: pandas' `Int64`, or NaN in a float).
type Column = (&'static str, Type, bool);

use Type::{Float, Int, Text};

const JOBS: &[Column] = &[
    ("job", Int, false),
    ("tenant", Text, false),
    ("class", Text, false),
    ("arrival", Float, false),
    ("start", Float, true),
    ("finish", Float, true),
    ("wait", Float, true),
    ("service", Float, false),
    ("attempts", Int, false),
    ("outcome", Text, false),
    ("queue", Text, true),
    ("pool", Text, true),
    ("slices", Int, false),
    ("admission", Text, false),
    ("admission_rule", Text, true),
    ("trace_id", Text, true),
];
const TICKS: &[Column] = &[
    ("tick", Int, false),
    ("time", Float, false),
    ("workers_free", Int, true),
    ("waiting", Text, true),
    ("chosen", Text, true),
    ("skipped", Text, true),
    ("completed", Text, true),
    ("refused", Text, true),
    ("deferred", Text, true),
];
const DISPATCHES: &[Column] = &[
    ("tick", Int, false),
    ("time", Float, false),
    ("tenant", Text, false),
    ("class", Text, false),
    ("job", Int, false),
    ("queue", Text, true),
    ("pool", Text, true),
];
const SKIPS: &[Column] =
    &[("tick", Int, false), ("time", Float, false), ("tenant", Text, false), ("reason", Text, false)];
const REFUSALS: &[Column] = &[
    ("tick", Int, false),
    ("time", Float, false),
    ("tenant", Text, false),
    ("refused", Int, false),
    ("deferred", Int, false),
];
const SERIES_TENANTS: &[Column] = &[
    ("time", Float, false),
    ("tenant", Text, false),
    ("queued", Int, false),
    ("running", Int, false),
    ("completed", Int, false),
    ("oldest_age", Float, true),
];
const SERIES_CLASSES: &[Column] = &[
    ("time", Float, false),
    ("class", Text, false),
    ("queued", Int, false),
    ("running", Int, false),
    ("completed", Int, false),
    ("oldest_age", Float, true),
];
const SERIES_QUEUES: &[Column] = &[
    ("time", Float, false),
    ("queue", Text, false),
    ("queued", Int, false),
    ("running", Int, false),
    ("completed", Int, false),
    ("oldest_age", Float, true),
];
const FAIRNESS: &[Column] =
    &[("time", Float, false), ("jain", Float, true), ("backlogged", Int, false), ("gini", Float, true)];
const QUEUE_TOTALS: &[Column] = &[
    ("queue", Text, false),
    ("routed", Int, false),
    ("started", Int, false),
    ("max_depth", Int, false),
    ("wait_mean", Float, true),
    ("wait_max", Float, true),
];
const POOLS: &[Column] = &[
    ("pool", Text, false),
    ("workers", Int, false),
    ("queues", Text, false),
    ("started", Int, false),
    ("busy", Float, false),
    ("utilization", Float, true),
];
const POOL_QUEUES: &[Column] = &[("pool", Text, false), ("queue", Text, false), ("poll_order", Int, false)];
const ROUTES: &[Column] = &[("rule", Int, false), ("action", Text, false), ("jobs", Int, false)];
const PLANNER: &[Column] = &[
    ("time", Float, false),
    ("event", Text, false),
    ("active_tenants", Int, false),
    ("main_depth", Int, false),
    ("main_latency", Float, false),
    ("planning_time", Float, true),
    ("promoted", Int, true),
];

/// `seeds.csv` (`run --seeds`) up to its objective columns (see [`seeds_schema`]).
const SEEDS: &[Column] = &[
    ("seed", Int, false),
    ("utilization", Float, false),
    ("rejected", Int, false),
    ("deferred", Int, false),
    ("makespan", Float, false),
];
const SEEDS_PAIRED: &[Column] = &[
    ("policy", Text, false),
    ("versus", Text, false),
    ("compared", Text, false),
    ("figure", Text, false),
    ("measure", Text, false),
    ("unit", Text, false),
    ("seeds", Int, false),
    ("difference", Float, false),
    ("lo", Float, false),
    ("hi", Float, false),
    ("within_noise", Text, false),
];

/// `seeds.csv`'s columns after the policy: [`SEEDS`], then per objective
/// its figure (a float, blank at a seed where none of its jobs started),
/// whether it passed, and for a tenant scope whose figure it is.
fn seeds_schema(header: &[String]) -> Vec<Column> {
    let mut schema = SEEDS.to_vec();
    for h in header.iter().skip(1 + SEEDS.len()) {
        let name: &'static str = Box::leak(h.clone().into_boxed_str());
        schema.push(match name {
            n if n.ends_with(":pass") => (name, Text, false),
            n if n.ends_with(":tenant") => (name, Text, true),
            _ => (name, Float, true),
        });
    }
    schema
}

/// The columns a feature fills, written only when some entry of the run
/// uses it (docs/outputs.md, "Columns that depend on a feature"): file,
/// column, feature.
const FEATURE_COLUMNS: &[(&str, &str, Feature)] = &[
    ("jobs.csv", "queue", Feature::Topology),
    ("jobs.csv", "pool", Feature::Topology),
    ("jobs.csv", "admission_rule", Feature::Admission),
    ("jobs.csv", "trace_id", Feature::Trace),
    ("dispatches.csv", "queue", Feature::Topology),
    ("dispatches.csv", "pool", Feature::Topology),
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Feature {
    Topology,
    Admission,
    Trace,
}

/// Whether `file`'s column `col` is written in a run whose entries use `features`.
fn written(file: &str, col: &str, features: &[Feature]) -> bool {
    FEATURE_COLUMNS.iter().all(|(f, c, needs)| (*f, *c) != (file, col) || features.contains(needs))
}

/// The declared schema of each log file, by name.
const SCHEMA: &[(&str, &[Column])] = &[
    ("seeds_paired.csv", SEEDS_PAIRED),
    ("jobs.csv", JOBS),
    ("ticks.csv", TICKS),
    ("dispatches.csv", DISPATCHES),
    ("skips.csv", SKIPS),
    ("refusals.csv", REFUSALS),
    ("tenants.csv", SERIES_TENANTS),
    ("classes.csv", SERIES_CLASSES),
    ("queues.csv", SERIES_QUEUES),
    ("fairness.csv", FAIRNESS),
    ("queue_totals.csv", QUEUE_TOTALS),
    ("pools.csv", POOLS),
    ("pool_queues.csv", POOL_QUEUES),
    ("routes.csv", ROUTES),
    ("planner.csv", PLANNER),
];

/// Written from the results model, whose fields name the columns
/// (docs/metrics.md, "Every column"); typed by the test above.
const FROM_RESULTS_MODEL: [&str; 5] =
    ["comparison.csv", "summary.csv", "resources.csv", "tenant_classes.csv", "scorecard.csv"];

fn parses(cell: &str, t: Type) -> bool {
    match t {
        Int => cell.parse::<i64>().is_ok(),
        Float => cell.parse::<f64>().is_ok_and(f64::is_finite),
        Text => true,
    }
}

/// Loads `f` with `schema`: the header names its columns in order (an
/// empty file too, so its frame keeps them), every cell reads as its
/// column's type or is a blank where the column allows one, and no column
/// is blank in every row unless docs/metrics.md says when it is.
fn load_with_schema(f: &Path, rel: &str, schema: &[Column], problems: &mut Vec<String>) -> usize {
    let mut r = csv::Reader::from_path(f).expect("csv");
    let header: Vec<String> = r.headers().expect("header").iter().map(String::from).collect();
    let names: Vec<&str> = schema.iter().map(|c| c.0).collect();
    if header != names {
        problems.push(format!("{rel}: header {header:?}, declared {names:?}"));
        return 0;
    }
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.expect("row")).collect();
    let name = f.file_name().unwrap().to_string_lossy().into_owned();
    let empty_ok = documented_empty();
    for (i, &(col, t, nullable)) in schema.iter().enumerate() {
        let mut blanks = 0;
        for (k, row) in rows.iter().enumerate() {
            let cell = row.get(i).unwrap_or("");
            if cell.is_empty() {
                blanks += 1;
                if !nullable {
                    problems.push(format!("{rel}:{}: `{col}` is blank", k + 2));
                }
            } else if !parses(cell, t) {
                problems.push(format!("{rel}:{}: `{col}` = `{cell}` is not {t:?}", k + 2));
            }
        }
        let documented = empty_ok.iter().any(|(file, c)| *file == name && c == col);
        if !rows.is_empty() && blanks == rows.len() && !documented {
            problems.push(format!("{rel}: `{col}` is blank in every row"));
        }
    }
    rows.len()
}

#[test]
fn every_csv_of_a_topology_run_loads_with_its_declared_schema() {
    let dir = tempdir();
    let mut problems = Vec::new();
    let (mut loaded, mut empty) = (0, 0);
    // what each scenario's entries use, read off the files by hand: the
    // first two mix plain entries with topology ones, noisy-neighbor is
    // plain, overload has admission sets
    let runs: [(&str, &[Feature], &[&str]); 4] = [
        ("dedicated-pools.yaml", &[Feature::Topology], &["--seeds", "2"]),
        ("strategies.yaml", &[Feature::Topology], &["--seeds", "2"]),
        ("noisy-neighbor.yaml", &[], &[]),
        ("overload.yaml", &[Feature::Admission], &[]),
    ];
    for (name, features, extra) in runs {
        let out = dir.path().join(name);
        // two seeds: seeds.csv has rows at two seeds and seeds_paired.csv exists
        let mut args = vec!["--no-plots", "--logs", "full", "--combine"];
        args.extend_from_slice(extra);
        run(&scenario(name), &out, &args);
        let mut files = Vec::new();
        csv_files(&out, &mut files);
        for f in files {
            let rel = f.strip_prefix(&out).unwrap().display().to_string();
            let file = f.file_name().unwrap().to_string_lossy().into_owned();
            if FROM_RESULTS_MODEL.contains(&file.as_str()) {
                continue;
            }
            let header: Vec<String> = csv::Reader::from_path(&f)
                .expect("csv")
                .headers()
                .expect("header")
                .iter()
                .map(String::from)
                .collect();
            let cols: Vec<Column> = match SCHEMA.iter().find(|(n, _)| *n == file) {
                Some((_, cols)) => cols.to_vec(),
                None if file == "seeds.csv" => seeds_schema(&header),
                None => {
                    problems.push(format!("{rel}: no declared schema"));
                    continue;
                }
            };
            // a top-level file is every policy's, under a leading `policy`
            // (seeds_paired.csv names two entries itself)
            let top = f.parent() == Some(out.as_path()) && file != "seeds_paired.csv";
            let mut schema: Vec<Column> = if top { vec![("policy", Text, false)] } else { Vec::new() };
            schema.extend_from_slice(&cols);
            // every run generates its jobs: no `trace_id`, which only a
            // replayed trace can fill; `queue`, `pool`, `admission_rule`
            // only where some entry of the run can fill them
            schema.retain(|c| written(&file, c.0, features));
            match load_with_schema(&f, &format!("{name}: {rel}"), &schema, &mut problems) {
                0 => empty += 1,
                _ => loaded += 1,
            }
        }
        let expected: &[&str] = match features.contains(&Feature::Topology) {
            true => &["jobs.csv", "refusals.csv", "pool_queues.csv", "routes.csv", "queues.csv"],
            false => &["jobs.csv", "refusals.csv"],
        };
        let seeded: &[&str] = if extra.is_empty() { &[] } else { &["seeds.csv", "seeds_paired.csv"] };
        for file in expected.iter().chain(seeded) {
            assert!(out.join(file).is_file(), "{name}: no top-level {file}");
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(loaded > 40 && empty > 0, "{loaded} files with rows, {empty} header-only");
}

/// The header of `dir/file`.
fn header_of(path: &Path) -> Vec<String> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    r.headers().expect("header").iter().map(String::from).collect()
}

/// `fairsim check` on `out` passes.
fn checks(out: &Path) {
    let o = fairsim().arg("check").arg(out).output().expect("run check");
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "fairsim check {}: {text}", out.display());
}

/// Two tenants on 2 workers, then `TOPOLOGY` for the cases that use one.
const BASE: &str = "workers: 2
classes: {main: {}, slow: {}}
workload:
  - {tenant: A, class: main, count: 6, service: 1s}
  - {tenant: B, class: slow, count: 3, service: 2s}
";
const TOPOLOGY: &str = "topologies:
  split:
    queues: [main, slow]
    route: [{class: slow, to: slow}, {to: main}]
    pools:
      - {name: fast, workers: 1, queues: [main]}
      - {name: rest, workers: 1, queues: [slow, main]}
";

#[test]
fn the_feature_columns_are_decided_over_the_whole_run() {
    let dir = tempdir();
    let cases = [
        // nothing uses a topology or admission: neither file has their columns
        ("plain", "policies: [fifo, round_robin]\n", false, false),
        ("topology", "policies: [{policy: fifo, topology: split}]\n", true, false),
        // one entry under the topology: the plain entry's files have the
        // columns too, blank, so the two share a header
        ("mixed", "policies: [fifo, {policy: fifo, topology: split, label: split}]\n", true, false),
        // admission on one entry only (`none` on the other)
        (
            "admission",
            "admission: [{max_queued: 2}]\npolicies: [{policy: fifo, admission: none}, round_robin]\n",
            false,
            true,
        ),
    ];
    for (name, tail, topology, admission) in cases {
        let text = format!("{BASE}{}{tail}", if topology { TOPOLOGY } else { "" });
        let sc = write_scenario(dir.path(), &format!("{name}.yaml"), &text);
        let out = dir.path().join(name);
        run(&sc, &out, &["--no-plots", "--logs", "full", "--combine"]);
        let labels: Vec<String> =
            read_csv(&out.join("comparison.csv")).iter().map(|r| r["policy"].clone()).collect();
        assert!(!labels.is_empty(), "{name}: no entry in comparison.csv");
        let top = |f: &str| out.join(f);
        let mut headers = Vec::new();
        for label in &labels {
            for (file, cols) in [
                ("jobs.csv", &["queue", "pool", "admission_rule"][..]),
                ("dispatches.csv", &["queue", "pool"][..]),
            ] {
                let h = header_of(&out.join(label).join(file));
                for col in cols {
                    let want = if *col == "admission_rule" { admission } else { topology };
                    assert_eq!(h.iter().any(|c| c == col), want, "{name}: {label}/{file} {h:?}");
                }
                assert!(!h.iter().any(|c| c == "trace_id"), "{name}: no trace, no trace_id: {h:?}");
                headers.push((file, h));
            }
        }
        // every label's file has one header, and the combined file is it under `policy`
        for file in ["jobs.csv", "dispatches.csv"] {
            let per: Vec<&Vec<String>> = headers.iter().filter(|(f, _)| *f == file).map(|(_, h)| h).collect();
            assert!(per.windows(2).all(|w| w[0] == w[1]), "{name}: {file} headers differ: {per:?}");
            let mut want = vec!["policy".to_string()];
            want.extend(per[0].iter().cloned());
            assert_eq!(header_of(&top(file)), want, "{name}: combined {file}");
        }
        if name == "mixed" {
            // the plain entry's cells are blank, the topology entry's named
            let plain = read_csv(&out.join("fifo").join("jobs.csv"));
            assert!(plain.iter().all(|r| r["queue"].is_empty() && r["pool"].is_empty()));
            let split = read_csv(&out.join("split").join("jobs.csv"));
            assert!(split.iter().all(|r| !r["queue"].is_empty() && !r["pool"].is_empty()), "{split:?}");
        }
        if name == "admission" {
            let refused = read_csv(&out.join("round_robin").join("jobs.csv"));
            assert!(refused.iter().any(|r| r["admission_rule"] == "rule 1"), "{refused:?}");
        }
        checks(&out);
    }
}

//! `fairsim merge`: the shard folders of one sweep into the folder a single
//! `fairsim sweep` writes, byte for byte.
//!
//! Each shard's manifest must equal the first's in every field (fairsim
//! version, scenario name, file and hash, grid, seeds, policies, baseline,
//! shard count), and be made by this fairsim, whose statistics code writes
//! `sweep.csv` and `paired.csv`; every index from 0 to the count must be
//! given once. The runs are put back in run-index order and written by
//! [`output::write_results`], the function `sweep` writes with.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::grid::{Axis, Grid};
use super::output::{self, Results, RunsTable};
use super::runner::Shape;
use super::shard::Shard;
use crate::error::{Error, Result};
use crate::output::{OutputArgs, StagedDir};

/// Options of `fairsim merge`.
#[derive(Debug, clap::Args)]
#[command(mut_arg("out", |a| a.required(true)))]
pub struct MergeArgs {
    /// The shard folders written by `fairsim sweep --shard I/N`, every
    /// index once, in any order.
    #[arg(required = true, value_name = "DIR")]
    pub shards: Vec<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// A shard folder as read.
struct Part {
    dir: PathBuf,
    /// The manifest without `shard`: the sweep's own.
    manifest: Value,
    shard: Shard,
    /// Columns that held text in one of its runs.
    text: Vec<String>,
}

fn refuse<T>(dir: &Path, why: impl std::fmt::Display) -> Result<T> {
    Err(Error::Usage(format!("{}: {why}", dir.display())))
}

const FROM_SHARD: &str = "give folders written by `fairsim sweep --shard`";

fn read_part(dir: &Path) -> Result<Part> {
    let path = dir.join("manifest.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return refuse(dir, format!("no readable manifest.json; {FROM_SHARD}"));
    };
    let Ok(mut manifest) = serde_json::from_str::<Value>(&text) else {
        return refuse(dir, format!("manifest.json is not valid JSON; {FROM_SHARD}"));
    };
    let Some(shard) = manifest.as_object_mut().and_then(|m| m.remove("shard")) else {
        return refuse(dir, format!("not a shard folder (its manifest.json has no `shard`); {FROM_SHARD}"));
    };
    let number = |key: &str| shard[key].as_u64().and_then(|n| usize::try_from(n).ok());
    let text = shard["text_columns"]
        .as_array()
        .map(|a| a.iter().filter_map(|c| c.as_str().map(str::to_string)).collect::<Vec<_>>());
    match (number("index"), number("count"), text) {
        (Some(index), Some(count), Some(text)) if index < count => {
            Ok(Part { dir: dir.to_path_buf(), manifest, shard: Shard { index, count }, text })
        }
        _ => refuse(dir, "manifest.json's `shard` lacks a valid index, count or text_columns"),
    }
}

/// A JSON value for a message, cut short.
fn shown(v: Option<&Value>) -> String {
    let s = v.map_or("(absent)".to_string(), Value::to_string);
    if s.chars().count() > 80 {
        format!("{}...", s.chars().take(77).collect::<String>())
    } else {
        s
    }
}

/// The first field (`seeds.count`, `grid`...) where two manifests differ,
/// with both values.
fn difference(a: &Value, b: &Value, prefix: &str) -> Option<(String, String, String)> {
    let (Some(ma), Some(mb)) = (a.as_object(), b.as_object()) else {
        return (a != b).then(|| (prefix.trim_end_matches('.').to_string(), shown(Some(a)), shown(Some(b))));
    };
    // the fields a user varies first, so a changed seed count is named as
    // such rather than by the run count it implies
    let first = ["fairsim", "scenario", "grid", "seeds", "policies", "baseline"];
    let rest: std::collections::BTreeSet<&str> =
        ma.keys().chain(mb.keys()).map(String::as_str).filter(|k| !first.contains(k)).collect();
    first.into_iter().chain(rest).find_map(|k| match (ma.get(k), mb.get(k)) {
        (Some(x), Some(y)) if x.is_object() && y.is_object() && prefix.is_empty() => {
            difference(x, y, &format!("{k}."))
        }
        (x, y) => (x != y).then(|| (format!("{prefix}{k}"), shown(x), shown(y))),
    })
}

/// Checks the parts are the shards of one sweep, each index once; in index order.
fn check_parts(mut parts: Vec<Part>) -> Result<Vec<Part>> {
    let version = env!("CARGO_PKG_VERSION");
    for p in &parts {
        if p.manifest["fairsim"] != version {
            return refuse(
                &p.dir,
                format!(
                    "made by fairsim {}, this is fairsim {version}: merge with the version that ran the shards",
                    shown(p.manifest.get("fairsim"))
                ),
            );
        }
    }
    let first = &parts[0];
    for p in &parts[1..] {
        let field = if p.shard.count != first.shard.count {
            Some(("shard count".to_string(), first.shard.count.to_string(), p.shard.count.to_string()))
        } else {
            difference(&first.manifest, &p.manifest, "")
        };
        if let Some((field, theirs, ours)) = field {
            return refuse(
                &p.dir,
                format!(
                    "its {field} is {ours}, {}'s is {theirs}: these shards come from different sweeps; merge the folders of one `fairsim sweep --shard` command",
                    first.dir.display()
                ),
            );
        }
    }
    let count = first.shard.count;
    let mut by_index: BTreeMap<usize, &Path> = BTreeMap::new();
    for p in &parts {
        if let Some(other) = by_index.insert(p.shard.index, &p.dir) {
            return refuse(
                &p.dir,
                format!(
                    "is shard {}/{count}, as {} is; give each shard once",
                    p.shard.index,
                    other.display()
                ),
            );
        }
    }
    let missing: Vec<String> =
        (0..count).filter(|i| !by_index.contains_key(i)).map(|i| i.to_string()).collect();
    if !missing.is_empty() {
        return Err(Error::Usage(format!(
            "missing shard{} {} of {count} (indices 0..{}): give every shard's folder; rerun a failed one with --shard I/{count}",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            count - 1
        )));
    }
    parts.sort_by_key(|p| p.shard.index);
    Ok(parts)
}

/// The grid, shape, labels and baseline the (checked) manifest describes.
fn describe(dir: &Path, m: &Value) -> Result<(Grid, Shape, Vec<String>, usize)> {
    let bad = |what: &str| Error::Usage(format!("{}: manifest.json's {what} is malformed", dir.display()));
    let strings = |v: &Value| {
        v.as_array()
            .and_then(|a| a.iter().map(|s| s.as_str().map(str::to_string)).collect::<Option<Vec<_>>>())
    };
    let axes = m["grid"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .map(|x| {
                    Some(Axis {
                        key: x["key"].as_str()?.to_string(),
                        values: strings(&x["values"])?,
                        origin: None,
                    })
                })
                .collect::<Option<Vec<_>>>()
        })
        .ok_or_else(|| bad("grid"))?;
    if axes.iter().any(|a| a.values.is_empty()) {
        return Err(bad("grid"));
    }
    let grid = Grid::new(axes).map_err(|_| bad("grid"))?;
    let labels = strings(&m["policies"]).filter(|l| !l.is_empty()).ok_or_else(|| bad("policies"))?;
    let baseline = m["baseline"]
        .as_str()
        .and_then(|b| labels.iter().position(|l| l == b))
        .ok_or_else(|| bad("baseline"))?;
    let seeds = m["seeds"]["count"].as_u64().and_then(|n| usize::try_from(n).ok()).filter(|&n| n > 0);
    let seeds = seeds.ok_or_else(|| bad("seeds"))?;
    let shape = Shape { points: grid.points(), seeds, policies: labels.len() };
    if m["points"].as_u64() != Some(shape.points as u64)
        || shape.points.checked_mul(seeds).and_then(|r| r.checked_mul(shape.policies)).is_none()
    {
        return Err(bad("points"));
    }
    Ok((grid, shape, labels, baseline))
}

/// Row `n` of a shard's runs.csv: its seed a whole number and each metric
/// cell (after the seed, except the columns the shard recorded as text)
/// empty or a finite number; anything else would enter the means as a
/// wrong figure. An input error naming shard, row and column.
fn number_cells(p: &Part, table: &crate::results::table::Table, n: usize, lead: usize) -> Result<()> {
    let header = table.header();
    let row = &table.rows[n];
    let fix = format!("rerun the shard with --shard {}/{}", p.shard.index, p.shard.count);
    let fault = |c: usize, what: &str| {
        Error::input(
            &table.path,
            table.lines[n],
            c + 1,
            format!(
                "shard {}/{}, row {}, column `{}`: `{}` {what}; the file was edited or damaged: {fix}",
                p.shard.index,
                p.shard.count,
                n + 1,
                header[c],
                &row[c]
            ),
        )
    };
    if row[lead - 1].parse::<u64>().is_err() {
        return Err(fault(lead - 1, "is not a seed (a whole number)"));
    }
    for c in lead..header.len() {
        if p.text.contains(&header[c]) || row[c].is_empty() {
            continue;
        }
        if !row[c].parse::<f64>().is_ok_and(f64::is_finite) {
            return Err(fault(c, "is not a finite number"));
        }
    }
    Ok(())
}

/// The shard's `runs.csv`: its header and rows, checked against the runs
/// its index stands for (point and policy of each row).
fn read_runs(
    p: &Part,
    shape: Shape,
    labels: &[String],
    lead: usize,
) -> Result<(Vec<String>, Vec<Vec<String>>)> {
    let path = p.dir.join("runs.csv");
    let broken = |why: String| {
        refuse(
            &p.dir,
            format!("runs.csv {why}; rerun the shard with --shard {}/{}", p.shard.index, p.shard.count),
        )
    };
    if !path.is_file() {
        return broken("is missing".into());
    }
    // the one reader of results files: a damaged file is an input error
    // naming its line (exit code 2)
    let table = crate::results::read(&path)?;
    let header: Vec<String> = table.header().to_vec();
    let policy = header.iter().position(|h| h == "policy").filter(|&c| c >= lead);
    let Some(policy) = policy else {
        return broken("has no `policy` column after the swept keys and seed".into());
    };
    let expected = p.shard.runs(shape);
    if table.rows.len() > expected.len() {
        return broken(format!("has more than the shard's {} runs", expected.len()));
    }
    for (n, row) in table.rows.iter().enumerate() {
        let at = shape.index(expected[n]);
        if row[0] != at.point.to_string() || row[policy] != labels[at.policy] {
            return broken(format!(
                "row {} is point {} policy {}, where run {} is point {} policy {}",
                n + 1,
                &row[0],
                &row[policy],
                expected[n],
                at.point,
                labels[at.policy]
            ));
        }
        number_cells(p, &table, n, lead)?;
    }
    let rows: Vec<Vec<String>> = table.rows.iter().map(|r| r.to_vec()).collect();
    if rows.len() != expected.len() {
        return broken(format!("has {} runs, the shard {}", rows.len(), expected.len()));
    }
    Ok((header, rows))
}

/// The shard's scenario.yaml, checked against its manifest's hash.
fn scenario_of(p: &Part) -> Result<String> {
    let path = p.dir.join("scenario.yaml");
    let raw = match std::fs::read(&path) {
        Ok(raw) => raw,
        Err(e) => return refuse(&p.dir, format!("cannot read scenario.yaml ({e}); {FROM_SHARD}")),
    };
    let hash = format!("{:016x}", output::fnv1a64(&raw));
    if p.manifest["scenario"]["fnv1a64"] != hash.as_str() {
        return refuse(
            &p.dir,
            format!(
                "scenario.yaml does not match the manifest's fnv1a64 (changed after the sweep?); restore it, or rerun the shard with --shard {}/{}",
                p.shard.index, p.shard.count
            ),
        );
    }
    crate::results::table::utf8(&path, raw)
}

/// Merges the shard folders into `--out`.
pub fn execute(args: MergeArgs) -> Result<()> {
    let out_real = args.output.required_out()?.canonicalize().ok();
    if let Some(d) = args.shards.iter().find(|d| d.canonicalize().ok().is_some_and(|c| Some(c) == out_real)) {
        return Err(Error::Usage(format!(
            "--out {}: is one of the shard folders; give a new folder",
            d.display()
        )));
    }
    let parts = check_parts(args.shards.iter().map(|d| read_part(d)).collect::<Result<Vec<_>>>()?)?;
    let first = &parts[0];
    let (grid, shape, labels, baseline) = describe(&first.dir, &first.manifest)?;
    // every shard's own copy: the manifests agree, so one edited copy
    // would otherwise pass unseen
    let scenario = scenario_of(first)?;
    for p in &parts[1..] {
        scenario_of(p)?;
    }
    let lead = grid.axes.len() + 2;
    let mut rows: Vec<Option<Vec<String>>> = vec![None; shape.runs()];
    let mut header: Option<(Vec<String>, &Path)> = None;
    let mut text: Vec<String> = Vec::new();
    for p in &parts {
        let (h, got) = read_runs(p, shape, &labels, lead)?;
        match &header {
            Some((h0, d0)) if *h0 != h => {
                return refuse(&p.dir, format!("runs.csv's columns differ from {}'s", d0.display()));
            }
            Some(_) => {}
            None => header = Some((h, &p.dir)),
        }
        for (i, row) in p.shard.runs(shape).into_iter().zip(got) {
            rows[i] = Some(row);
        }
        for c in &p.text {
            if !text.contains(c) {
                text.push(c.clone());
            }
        }
    }
    let rows: Vec<Vec<String>> = rows.into_iter().flatten().collect();
    let header = header.map(|h| h.0).unwrap_or_default();
    if rows.len() != shape.runs() {
        // the shards partition the runs (Shard::runs), so this is a bug
        return Err(Error::Other(format!("merge: {} of {} runs gathered", rows.len(), shape.runs())));
    }
    let table = RunsTable::from_rows(header, rows, grid.axes.len(), &text);
    let staged = StagedDir::new(args.output.required_out()?, args.output.force, &output::marker())?;
    let results = Results {
        grid: &grid,
        shape,
        labels: &labels,
        baseline,
        table: &table,
        manifest: &first.manifest,
        scenario: &scenario,
    };
    output::write_results(staged.path(), &results)?;
    let out = staged.commit()?;
    if !args.output.quiet {
        eprintln!("merged {} shards ({} runs) into {}", parts.len(), shape.runs(), out.display());
    }
    Ok(())
}

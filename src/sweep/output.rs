//! The files of a sweep folder: `runs.csv`, `sweep.csv`, `paired.csv`,
//! `manifest.json`, `scenario.yaml`, and (drawn from those) `charts/` and
//! `report.html` (docs/sweep.md). [`write_results`] writes them all, so a
//! folder assembled from runs made elsewhere is the same byte for byte.
//!
//! The statistics are computed from `runs.csv`'s cells as written (seconds
//! to the microsecond, ratios to four decimals), not from the engine's
//! floats: so a folder assembled from runs made elsewhere gets the same
//! `sweep.csv` and `paired.csv` byte for byte.

use std::path::Path;

use super::bootstrap::ratio_interval;
use super::grid::Grid;
use super::runner::{RunResult, Shape};
use super::stats::{unpaired_half_width, Estimate};
use crate::error::{Error, Result};
use crate::results::cells::{cells, Cell};

/// How `sweep.csv` and `paired.csv` intervals are made, as their `method` column says.
pub const METHOD: &str = "student_t_95_over_seeds";
pub const PAIRED_METHOD: &str =
    "paired_t_95_over_seeds; unpaired: welch_t_95; ratio: paired_percentile_bootstrap_95_2000";

/// `runs.csv` in memory: one row per run, in run-index order.
pub struct RunsTable {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Columns holding a number in every run where they are not empty.
    metrics: Vec<usize>,
    /// Columns before the comparison's: point, the swept keys, seed.
    lead: usize,
}

impl RunsTable {
    /// `first_seeds`: each point's scenario seed (seed index 0).
    pub fn new(grid: &Grid, shape: Shape, first_seeds: &[u64], results: &[RunResult]) -> RunsTable {
        RunsTable::of_runs(grid, shape, first_seeds, results.iter().enumerate())
    }

    /// The table of some runs (a shard's), each with its run index.
    pub fn of_runs<'a>(
        grid: &Grid,
        shape: Shape,
        first_seeds: &[u64],
        results: impl ExactSizeIterator<Item = (usize, &'a RunResult)>,
    ) -> RunsTable {
        let mut header: Vec<String> = vec!["point".into()];
        header.extend(grid.axes.iter().map(|a| a.key.clone()));
        header.push("seed".into());
        let lead = header.len();
        let mut rows = Vec::with_capacity(results.len());
        let mut text_columns = vec![false; 0];
        for (n, (i, r)) in results.enumerate() {
            let at = shape.index(i);
            let mut typed = cells(&r.comparison);
            typed.push(("wait_mean", r.wait_mean.map_or(Cell::Empty, |m| Cell::MeanSecs(m.0))));
            if n == 0 {
                header.extend(typed.iter().map(|(n, _)| n.to_string()));
                text_columns = vec![false; typed.len()];
            }
            let mut row = vec![at.point.to_string()];
            row.extend(grid.values(at.point).iter().map(|v| v.to_string()));
            row.push(first_seeds[at.point].wrapping_add(at.seed as u64).to_string());
            for (c, (_, cell)) in typed.iter().enumerate() {
                text_columns[c] |= matches!(cell, Cell::Text(_));
                row.push(cell.csv());
            }
            rows.push(row);
        }
        let metrics = (0..text_columns.len()).filter(|&c| !text_columns[c]).map(|c| lead + c).collect();
        RunsTable { header, rows, metrics, lead }
    }

    /// A table read back from `runs.csv` cells (`merge`): `axes` swept keys,
    /// `text` the columns that held text in some run. Which columns are
    /// text cannot be told from the cells (a tenant may be named `1`), so a
    /// shard records them.
    pub fn from_rows(header: Vec<String>, rows: Vec<Vec<String>>, axes: usize, text: &[String]) -> RunsTable {
        let lead = axes + 2;
        let metrics = (lead..header.len()).filter(|&c| !text.contains(&header[c])).collect();
        RunsTable { header, rows, metrics, lead }
    }

    /// The columns after `seed` that are not metrics: text in some run.
    pub fn text_columns(&self) -> Vec<String> {
        (self.lead..self.header.len())
            .filter(|c| !self.metrics.contains(c))
            .map(|c| self.header[c].clone())
            .collect()
    }

    /// The values of metric column `m` over the seeds of (point, policy);
    /// `None` where the run left it empty.
    fn values(&self, shape: Shape, point: usize, policy: usize, m: usize) -> Vec<Option<f64>> {
        (0..shape.seeds)
            .map(|k| {
                let i = (point * shape.seeds + k) * shape.policies + policy;
                self.rows[i][m].parse::<f64>().ok()
            })
            .collect()
    }

    /// The point's lead cells: its number and swept values.
    fn point_lead(&self, shape: Shape, point: usize) -> &[String] {
        &self.rows[point * shape.seeds * shape.policies][..self.lead - 1]
    }
}

/// Everything a sweep folder is made of, whether its runs were made here
/// or gathered from shards by `merge`.
pub struct Results<'a> {
    pub grid: &'a Grid,
    pub shape: Shape,
    pub labels: &'a [String],
    pub baseline: usize,
    pub table: &'a RunsTable,
    /// `manifest.json`'s content.
    pub manifest: &'a serde_json::Value,
    /// The scenario file's text, copied as `scenario.yaml`.
    pub scenario: &'a str,
}

/// Writes a sweep's files into `dir`. `sweep` and `merge` both call this
/// alone, so a folder merged from shards is the one a single sweep writes.
pub fn write_results(dir: &Path, r: &Results) -> Result<()> {
    write_runs(&dir.join("runs.csv"), r.table)?;
    write_sweep(&dir.join("sweep.csv"), r.table, r.shape, r.labels)?;
    write_paired(&dir.join("paired.csv"), r.table, r.shape, r.labels, r.baseline)?;
    write_file(dir, "manifest.json", &format!("{:#}\n", r.manifest))?;
    write_file(dir, "scenario.yaml", r.scenario)?;
    super::report::write(dir, r.manifest)
}

/// `fairsim-results.json` of a sweep folder (a shard's too): the marker that
/// lets a later sweep replace the folder.
pub fn marker() -> String {
    let marker = serde_json::json!({"fairsim": env!("CARGO_PKG_VERSION"), "sweep": "manifest.json"});
    format!("{marker:#}\n")
}

pub fn write_file(dir: &Path, name: &str, body: &str) -> Result<()> {
    let path = dir.join(name);
    std::fs::write(&path, body).map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

/// A number for the CSV files: nine significant digits, no exponent.
pub fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return "0".into();
    }
    let rounded: f64 = format!("{x:.8e}").parse().unwrap_or(x);
    format!("{rounded}")
}

pub fn opt(x: Option<f64>) -> String {
    x.map(num).unwrap_or_default()
}

fn writer(path: &Path) -> Result<csv::Writer<std::fs::File>> {
    csv::Writer::from_path(path).map_err(|e| Error::Other(format!("cannot create {}: {e}", path.display())))
}

fn werr(path: &Path) -> impl Fn(csv::Error) -> Error + '_ {
    move |e| Error::Other(format!("writing {}: {e}", path.display()))
}

pub fn write_runs(path: &Path, t: &RunsTable) -> Result<()> {
    let mut w = writer(path)?;
    w.write_record(&t.header).map_err(werr(path))?;
    for row in &t.rows {
        w.write_record(row).map_err(werr(path))?;
    }
    w.flush().map_err(|e| Error::io(format!("writing {}", path.display()), e))
}

/// `sweep.csv`: per point, policy and metric, the mean over seeds and its interval.
pub fn write_sweep(path: &Path, t: &RunsTable, shape: Shape, labels: &[String]) -> Result<()> {
    let mut w = writer(path)?;
    let mut header: Vec<&str> = t.header[..t.lead - 1].iter().map(String::as_str).collect();
    header.extend(["policy", "metric", "n", "mean", "sd", "ci_low", "ci_high", "method"]);
    w.write_record(&header).map_err(werr(path))?;
    for p in 0..shape.points {
        for (j, label) in labels.iter().enumerate() {
            for &m in &t.metrics {
                let xs: Vec<f64> = t.values(shape, p, j, m).into_iter().flatten().collect();
                let e = Estimate::of(&xs);
                let mut row: Vec<String> = t.point_lead(shape, p).to_vec();
                row.extend([label.clone(), t.header[m].clone(), xs.len().to_string()]);
                row.push(opt(e.map(|e| e.mean)));
                row.push(opt(e.and_then(|e| e.sd)));
                let ci = e.and_then(|e| e.ci());
                row.push(opt(ci.map(|c| c.0)));
                row.push(opt(ci.map(|c| c.1)));
                row.push(METHOD.into());
                w.write_record(&row).map_err(werr(path))?;
            }
        }
    }
    w.flush().map_err(|e| Error::io(format!("writing {}", path.display()), e))
}

/// `paired.csv`: per point, policy other than the baseline and metric, the
/// mean per-seed difference policy - baseline with its paired interval,
/// and the half-width the same difference would have from independent runs.
pub fn write_paired(
    path: &Path,
    t: &RunsTable,
    shape: Shape,
    labels: &[String],
    baseline: usize,
) -> Result<()> {
    let mut w = writer(path)?;
    let mut header: Vec<&str> = t.header[..t.lead - 1].iter().map(String::as_str).collect();
    header.extend([
        "policy",
        "baseline",
        "metric",
        "n",
        "mean_diff",
        "sd_diff",
        "ci_low",
        "ci_high",
        "half_width",
        "unpaired_half_width",
        "width_ratio",
        "ratio",
        "ratio_low",
        "ratio_high",
        "method",
    ]);
    w.write_record(&header).map_err(werr(path))?;
    for p in 0..shape.points {
        for (j, label) in labels.iter().enumerate().filter(|(j, _)| *j != baseline) {
            for &m in &t.metrics {
                let base = t.values(shape, p, baseline, m);
                let pairs: Vec<(f64, f64)> = t
                    .values(shape, p, j, m)
                    .into_iter()
                    .zip(base)
                    .filter_map(|(x, y)| Some((x?, y?)))
                    .collect();
                let diffs: Vec<f64> = pairs.iter().map(|(x, y)| x - y).collect();
                let d = Estimate::of(&diffs);
                let xs: Vec<f64> = pairs.iter().map(|p| p.0).collect();
                let ys: Vec<f64> = pairs.iter().map(|p| p.1).collect();
                let unpaired =
                    Estimate::of(&xs).zip(Estimate::of(&ys)).and_then(|(a, b)| unpaired_half_width(&a, &b));
                let half = d.and_then(|d| d.half_width);
                let ratio = half.zip(unpaired).and_then(|(h, u)| (u > 0.0).then_some(h / u));
                let mut row: Vec<String> = t.point_lead(shape, p).to_vec();
                row.extend([
                    label.clone(),
                    labels[baseline].clone(),
                    t.header[m].clone(),
                    diffs.len().to_string(),
                ]);
                row.push(opt(d.map(|d| d.mean)));
                row.push(opt(d.and_then(|d| d.sd)));
                let ci = d.and_then(|d| d.ci());
                row.push(opt(ci.map(|c| c.0)));
                row.push(opt(ci.map(|c| c.1)));
                row.push(opt(half));
                row.push(opt(unpaired));
                row.push(opt(ratio));
                // the ratio of means, where every baseline run is positive
                let seed = fnv1a64(format!("{p}\u{0}{label}\u{0}{}", t.header[m]).as_bytes());
                let interval = ratio_interval(&pairs, seed);
                let (sx, sy) = (xs.iter().sum::<f64>(), ys.iter().sum::<f64>());
                row.push(opt(interval.map(|_| sx / sy)));
                row.push(opt(interval.map(|i| i.0)));
                row.push(opt(interval.map(|i| i.1)));
                row.push(PAIRED_METHOD.into());
                w.write_record(&row).map_err(werr(path))?;
            }
        }
    }
    w.flush().map_err(|e| Error::io(format!("writing {}", path.display()), e))
}

/// 64-bit FNV-1a of the scenario's text: enough for a later `merge` to
/// tell two scenarios apart (not a defence against a forger).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

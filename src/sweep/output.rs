//! The files of a sweep folder: `runs.csv`, `sweep.csv`, `paired.csv`,
//! `manifest.json`, `scenario.yaml`, and (drawn from those) `charts/` and
//! `report.html` (docs/sweep.md). [`write_folder`] writes them all, so a
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
        let mut header: Vec<String> = vec!["point".into()];
        header.extend(grid.axes.iter().map(|a| a.key.clone()));
        header.push("seed".into());
        let lead = header.len();
        let mut rows = Vec::with_capacity(results.len());
        let mut text_columns = vec![false; 0];
        for (i, r) in results.iter().enumerate() {
            let at = shape.index(i);
            let mut typed = cells(&r.comparison);
            typed.push(("wait_mean", r.wait_mean.map_or(Cell::Empty, |m| Cell::MeanSecs(m.0))));
            if i == 0 {
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

/// A number for the CSV files: nine significant digits, no exponent.
fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return "0".into();
    }
    let rounded: f64 = format!("{x:.8e}").parse().unwrap_or(x);
    format!("{rounded}")
}

fn opt(x: Option<f64>) -> String {
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

/// Writes every file of the sweep folder `dir` from the runs: the CSV
/// files, `manifest.json`, the scenario's text, then the charts and the
/// report drawn from the CSV files as written.
pub fn write_folder(
    dir: &Path,
    t: &RunsTable,
    shape: Shape,
    labels: &[String],
    baseline: usize,
    manifest: &serde_json::Value,
    scenario_text: &str,
) -> Result<()> {
    write_runs(&dir.join("runs.csv"), t)?;
    write_sweep(&dir.join("sweep.csv"), t, shape, labels)?;
    write_paired(&dir.join("paired.csv"), t, shape, labels, baseline)?;
    let write = |name: &str, body: &str| {
        std::fs::write(dir.join(name), body).map_err(|e| Error::io(format!("cannot write {name}"), e))
    };
    write("manifest.json", &format!("{manifest:#}\n"))?;
    write("scenario.yaml", scenario_text)?;
    super::report::write(dir, manifest)
}

/// 64-bit FNV-1a of the scenario's text: enough for a later `merge` to
/// tell two scenarios apart (not a defence against a forger).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

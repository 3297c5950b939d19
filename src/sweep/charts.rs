//! The charts of a sweep folder, drawn from its `sweep.csv` and
//! `manifest.json` (so a merged folder gets the same charts): each headline
//! metric against each swept parameter, one line per policy with its 95%
//! band, one chart per combination of the other parameters' values. A
//! sweep without a varied parameter gets one chart per metric with a dot
//! and whisker per policy.

use std::collections::HashMap;
use std::path::Path;

use super::svg::{render, LineChart, Point, Series};
use crate::error::{Error, Result};

/// The metrics a design review looks at, as (column, name, y axis with its
/// unit), in the order the report shows them. A column a sweep does not
/// fill (no classes: `worst_class_p99` empty) gets no chart.
pub const HEADLINE: [(&str, &str, &str); 6] = [
    ("wait_p99", "p99 wait", "p99 wait of all jobs (s)"),
    ("wait_mean", "mean wait", "mean wait of all jobs (s)"),
    ("tenant_p99_median", "median tenant p99", "median over tenants of their p99 wait (s)"),
    ("worst_tenant_p99", "worst tenant's p99 wait", "highest tenant p99 wait (s)"),
    ("worst_class_p99", "worst class's p99 wait", "highest class p99 wait (s)"),
    ("jain", "Jain's fairness index", "Jain's index (1 = fair, 1/n = one tenant served)"),
];

/// A drawn chart: file stem, the metric it shows, title and SVG text.
pub struct Drawn {
    pub stem: String,
    pub metric: String,
    pub title: String,
    pub svg: String,
}

/// What the charts need from `manifest.json`.
pub struct Design {
    pub scenario: String,
    /// (key, values as typed), in grid order.
    pub axes: Vec<(String, Vec<String>)>,
    pub policies: Vec<String>,
}

impl Design {
    pub fn of(manifest: &serde_json::Value) -> Design {
        let strings = |v: &serde_json::Value| -> Vec<String> {
            v.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_string)).collect()
        };
        let axes = manifest["grid"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| (a["key"].as_str().unwrap_or_default().to_string(), strings(&a["values"])))
            .collect();
        Design {
            scenario: manifest["scenario"]["name"].as_str().unwrap_or("sweep").to_string(),
            axes,
            policies: strings(&manifest["policies"]),
        }
    }

    /// The number of the point at value indices `coords` (the last axis varies fastest).
    fn point(&self, coords: &[usize]) -> usize {
        coords.iter().zip(&self.axes).fold(0, |p, (&c, (_, vals))| p * vals.len() + c)
    }
}

/// `sweep.csv` as (point, policy, metric) -> (mean, ci_low, ci_high) cells.
pub type Cells = HashMap<(usize, String, String), [String; 3]>;

/// Reads `sweep.csv`'s rows.
pub fn read_sweep(path: &Path) -> Result<Cells> {
    let fail = |e: csv::Error| Error::Other(format!("reading {}: {e}", path.display()));
    let mut r = csv::Reader::from_path(path).map_err(fail)?;
    let header: Vec<String> = r.headers().map_err(fail)?.iter().map(str::to_string).collect();
    let col = |n: &str| {
        header
            .iter()
            .position(|h| h == n)
            .ok_or_else(|| Error::Other(format!("{}: no column {n}", path.display())))
    };
    let (pt, po, me, mean, lo, hi) =
        (col("point")?, col("policy")?, col("metric")?, col("mean")?, col("ci_low")?, col("ci_high")?);
    let mut out = HashMap::new();
    for rec in r.records() {
        let rec = rec.map_err(fail)?;
        let point: usize =
            rec[pt].parse().map_err(|_| Error::Other(format!("{}: bad point", path.display())))?;
        out.insert(
            (point, rec[po].to_string(), rec[me].to_string()),
            [rec[mean].to_string(), rec[lo].to_string(), rec[hi].to_string()],
        );
    }
    Ok(out)
}

/// A chart file's stem: the characters a file name may hold everywhere.
fn stem(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || "._=-".contains(c) { c } else { '_' }).collect()
}

fn point_of(cells: &Cells, point: usize, policy: &str, metric: &str, x: f64) -> Option<Point> {
    let text = cells.get(&(point, policy.to_string(), metric.to_string()))?;
    let mean = text[0].parse().ok()?;
    let ci = text[1].parse().ok().zip(text[2].parse().ok());
    Some(Point { x, mean, ci, text: text.clone() })
}

/// Draws every chart into `dir/charts/` and returns them in report order
/// (metric by metric).
pub fn draw(dir: &Path, design: &Design, cells: &Cells) -> Result<Vec<Drawn>> {
    let out = dir.join("charts");
    std::fs::create_dir_all(&out).map_err(|e| Error::io(format!("cannot create {}", out.display()), e))?;
    let mut drawn = Vec::new();
    for (metric, name, y_label) in HEADLINE {
        let filled = cells.iter().any(|((_, _, m), t)| m == metric && !t[0].is_empty());
        if !filled {
            continue;
        }
        let varied: Vec<usize> = (0..design.axes.len()).filter(|&a| design.axes[a].1.len() >= 2).collect();
        if varied.is_empty() {
            drawn.push(by_policy(design, cells, metric, name, y_label));
        }
        for &a in &varied {
            drawn.extend(along(design, cells, a, (metric, name, y_label)));
        }
    }
    for d in &drawn {
        let path = out.join(format!("{}.svg", d.stem));
        std::fs::write(&path, &d.svg)
            .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))?;
    }
    Ok(drawn)
}

/// One point: a dot and whisker per policy.
fn by_policy(design: &Design, cells: &Cells, metric: &str, name: &str, y_label: &str) -> Drawn {
    let series = design
        .policies
        .iter()
        .enumerate()
        .map(|(i, p)| Series {
            name: p.clone(),
            points: point_of(cells, 0, p, metric, i as f64).into_iter().collect(),
        })
        .collect();
    let at: Vec<String> = design.axes.iter().map(|(k, v)| format!("{k}={}", v[0])).collect();
    let title = match at.is_empty() {
        true => format!("{} — {name} by policy", design.scenario),
        false => format!("{} — {name} by policy at {}", design.scenario, at.join(", ")),
    };
    let chart = LineChart {
        title: title.clone(),
        x_label: "policy".into(),
        y_label: y_label.into(),
        x_ticks: design.policies.iter().enumerate().map(|(i, p)| (i as f64, p.clone())).collect(),
        categorical: true,
        series,
    };
    Drawn { stem: stem(&format!("{metric}-by-policy")), metric: metric.into(), title, svg: render(&chart) }
}

/// The charts of `metric` along axis `a`: one per combination of the other
/// axes' values.
fn along(
    design: &Design,
    cells: &Cells,
    a: usize,
    (metric, name, y_label): (&str, &str, &str),
) -> Vec<Drawn> {
    let (key, values) = &design.axes[a];
    let numbers: Option<Vec<f64>> =
        values.iter().map(|v| v.parse::<f64>().ok().filter(|x| x.is_finite())).collect();
    // numbers at their value (8, 16, 32 spaced as such); text (1/s, 2/s) in order
    let categorical = numbers.is_none();
    let xs: Vec<f64> = numbers.unwrap_or_else(|| (0..values.len()).map(|i| i as f64).collect());
    let others: Vec<usize> = (0..design.axes.len()).filter(|&o| o != a).collect();
    let combos: usize = others.iter().map(|&o| design.axes[o].1.len()).product();
    let mut out = Vec::new();
    for combo in 0..combos {
        // the other axes' value indices, the last varying fastest
        let mut coords = vec![0; design.axes.len()];
        let mut rest = combo;
        for &o in others.iter().rev() {
            coords[o] = rest % design.axes[o].1.len();
            rest /= design.axes[o].1.len();
        }
        let series = design
            .policies
            .iter()
            .map(|p| {
                let points = (0..values.len())
                    .filter_map(|v| {
                        coords[a] = v;
                        point_of(cells, design.point(&coords), p, metric, xs[v])
                    })
                    .collect();
                Series { name: p.clone(), points }
            })
            .collect();
        let at: Vec<String> =
            others.iter().map(|&o| format!("{}={}", design.axes[o].0, design.axes[o].1[coords[o]])).collect();
        let (title, suffix) = match at.is_empty() {
            true => (format!("{} — {name} vs {key}", design.scenario), String::new()),
            false => (
                format!("{} — {name} vs {key} at {}", design.scenario, at.join(", ")),
                format!("-at-{}", at.join("-")),
            ),
        };
        let chart = LineChart {
            title: title.clone(),
            x_label: key.clone(),
            y_label: y_label.into(),
            x_ticks: xs.iter().copied().zip(values.iter().cloned()).collect(),
            categorical,
            series,
        };
        out.push(Drawn {
            stem: stem(&format!("{metric}-vs-{key}{suffix}")),
            metric: metric.into(),
            title,
            svg: render(&chart),
        });
    }
    out
}

//! Charts of a results folder, drawn from its CSV files (so `fairsim run` and
//! `fairsim report` draw the same pictures), as SVG and PNG.
//!
//! Text is rendered with `ab_glyph` and the DejaVu Sans bytes of the `dejavu`
//! crate: no system font libraries. Long runs stay cheap to draw: time series
//! are bucketed to at most [`MAX_POINTS`] points per line, and a wait CDF is
//! sampled at [`CDF_POINTS`] fixed quantiles of the sorted waits. With many
//! tenants the [`TOP_N`] with the most jobs are drawn and the rest summed (or,
//! for the p99 bars, maxed) as "others".

mod draw;
mod read;
mod series;

use std::path::Path;

pub use draw::{Chart, Line, Plot};
pub use series::{unit_for, Groups, Unit, CDF_POINTS, MAX_POINTS, TOP_N};

use crate::error::{Error, Result};
use draw::color;
use read::{read_classes, read_fairness, read_tenants, read_waits};
use series::{buckets, cdf_points, downsample, log_floor, Agg};

/// A policy's label and its tenants' p99 waits in seconds (from summary.csv).
pub type PolicyP99s = (String, Vec<(String, Option<f64>)>);

/// Per-policy inputs of the cross-policy charts.
pub struct PolicySeries {
    pub label: String,
    times: Vec<f64>,
    jain: Vec<Option<f64>>,
}

/// Draws the four per-policy charts of `label` (whose CSVs are in `dir/label`)
/// into `charts_dir`.
pub fn policy_charts(
    dir: &Path,
    label: &str,
    groups: &Groups,
    charts_dir: &Path,
) -> Result<(Vec<Chart>, PolicySeries)> {
    let pdir = dir.join(label);
    let (times, jain, series, classes, waits) = std::thread::scope(|s| {
        // jobs.csv (a row per job) is the largest file: read it on the
        // other core meanwhile, which takes about a third off the charts
        let waits = s.spawn(|| read_waits(&pdir.join("jobs.csv"), groups));
        let (times, jain) = read_fairness(&pdir.join("fairness.csv"))?;
        let series = read_tenants(&pdir.join("tenants.csv"), &times, groups)?;
        let classes = read_classes(&pdir.join("classes.csv"), &times)?;
        let waits = waits.join().unwrap_or_else(|p| std::panic::resume_unwind(p))?;
        Ok::<_, Error>((times, jain, series, classes, waits))
    })?;
    let t_max = times.last().copied().unwrap_or(0.0);
    let tu = unit_for(t_max);
    let xs: Vec<f64> = series.times.iter().map(|t| t / tu.div).collect();
    let x_label = format!("simulated time ({})", tu.name);
    let mut charts = Vec::new();

    let lines: Vec<Line> = series
        .completed
        .iter()
        .enumerate()
        .map(|(g, y)| Line {
            name: groups.names[g].clone(),
            color: groups.color(g),
            segments: vec![downsample(&xs, y, Agg::Last)],
        })
        .collect();
    let y_max = series.completed.iter().filter_map(|v| v.last().copied()).fold(0.0, f64::max);
    charts.push(
        Plot::Lines {
            title: format!("Cumulative completions per tenant — {label}"),
            x_label: x_label.clone(),
            y_label: "jobs completed".into(),
            x_max: xs.last().copied().unwrap_or(0.0),
            y_max,
            log_x: None,
            lines,
        }
        .render(charts_dir, &format!("{label}-completions"))?,
    );

    let age_max = classes.iter().flat_map(|(_, v)| v.iter().copied()).fold(0.0, f64::max);
    let au = unit_for(age_max);
    let lines: Vec<Line> = classes
        .iter()
        .enumerate()
        .map(|(i, (name, v))| {
            let y: Vec<f64> = v.iter().map(|a| a / au.div).collect();
            Line { name: name.clone(), color: color(i), segments: vec![downsample(&xs, &y, Agg::Max)] }
        })
        .collect();
    charts.push(
        Plot::Lines {
            title: format!("Oldest claimable job age per class — {label}"),
            x_label: x_label.clone(),
            y_label: format!("oldest claimable age ({})", au.name),
            x_max: xs.last().copied().unwrap_or(0.0),
            y_max: age_max / au.div,
            log_x: None,
            lines,
        }
        .render(charts_dir, &format!("{label}-oldest-age"))?,
    );

    let b = buckets(xs.len());
    let bx: Vec<f64> = b.iter().map(|r| xs[r.end - 1]).collect();
    let bands = series
        .running
        .iter()
        .enumerate()
        .map(|(g, y)| {
            (
                groups.names[g].clone(),
                groups.color(g),
                downsample(&xs, y, Agg::Mean).into_iter().map(|p| p.1).collect(),
            )
        })
        .collect();
    charts.push(
        Plot::Stacked {
            title: format!("Running jobs per tenant (who holds the workers) — {label}"),
            x_label: x_label.clone(),
            y_label: "running jobs (at tick ends)".into(),
            x: bx,
            bands,
        }
        .render(charts_dir, &format!("{label}-running"))?,
    );

    let w_max = waits.iter().filter_map(|w| w.last().copied()).fold(0.0, f64::max);
    let w_floor = log_floor(waits.iter().flatten().copied(), w_max);
    // a log axis spans decades: seconds read best there
    let wu = if w_floor.is_some() { Unit { div: 1.0, name: "s" } } else { unit_for(w_max) };
    let lines: Vec<Line> = waits
        .iter()
        .enumerate()
        .map(|(g, w)| Line {
            name: groups.names[g].clone(),
            color: groups.color(g),
            segments: vec![cdf_points(w, wu.div)],
        })
        .collect();
    charts.push(
        Plot::Lines {
            title: format!("Wait-time CDF per tenant — {label}"),
            x_label: format!(
                "wait before first start ({}{})",
                wu.name,
                if w_floor.is_some() { ", log scale" } else { "" }
            ),
            y_label: "fraction of jobs waiting at most x".into(),
            x_max: w_max / wu.div,
            y_max: 1.0,
            log_x: w_floor.map(|f| f / wu.div),
            lines,
        }
        .render(charts_dir, &format!("{label}-wait-cdf"))?,
    );
    Ok((charts, PolicySeries { label: label.to_string(), times, jain }))
}

/// Draws the cross-policy charts: p99 wait per tenant group by policy (from
/// each policy's summary rows as (tenant, p99 seconds)), and Jain's index over time.
pub fn cross_charts(
    groups: &Groups,
    p99: &[PolicyP99s],
    series: &[PolicySeries],
    charts_dir: &Path,
) -> Result<Vec<Chart>> {
    let mut charts = Vec::new();
    let max = p99.iter().flat_map(|(_, v)| v.iter().filter_map(|x| x.1)).fold(0.0, f64::max);
    let floor = log_floor(p99.iter().flat_map(|(_, v)| v.iter().filter_map(|x| x.1)), max);
    let u = if floor.is_some() { Unit { div: 1.0, name: "s" } } else { unit_for(max) };
    let bar_groups = p99
        .iter()
        .enumerate()
        .map(|(i, (label, rows))| {
            let mut vals: Vec<Option<f64>> = vec![None; groups.names.len()];
            for (tenant, v) in rows {
                if let (Some(g), Some(v)) = (groups.of(tenant), v) {
                    // "others" shows the worst p99 among the grouped tenants
                    vals[g] = Some(vals[g].map_or(*v, |x: f64| x.max(*v)));
                }
            }
            (label.clone(), color(i), vals.into_iter().map(|v| v.map(|x| x / u.div)).collect())
        })
        .collect();
    let mut categories = groups.names.clone();
    if let Some(o) = groups.others {
        categories[o] = format!("{} max", categories[o]);
    }
    charts.push(
        Plot::Bars {
            title: "p99 wait per tenant, by policy".into(),
            x_label: "tenant".into(),
            y_label: format!("p99 wait ({}{})", u.name, if floor.is_some() { ", log scale" } else { "" }),
            categories,
            groups: bar_groups,
            log_y: floor.map(|f| f / u.div),
        }
        .render(charts_dir, "p99-wait-by-policy")?,
    );

    let t_max = series.iter().filter_map(|s| s.times.last().copied()).fold(0.0, f64::max);
    let tu = unit_for(t_max);
    let lines = series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // windows not counted (fewer than two backlogged tenants) break the line
            let xs: Vec<f64> = s.times.iter().map(|t| t / tu.div).collect();
            let mut segments = Vec::new();
            for b in buckets(xs.len()) {
                let vals: Vec<f64> = s.jain[b.clone()].iter().flatten().copied().collect();
                if vals.is_empty() {
                    segments.push(Vec::new());
                } else {
                    let mean = vals.iter().sum::<f64>() / vals.len() as f64;
                    if segments.is_empty() {
                        segments.push(Vec::new());
                    }
                    if let Some(seg) = segments.last_mut() {
                        seg.push((xs[b.end - 1], mean));
                    }
                }
            }
            // a lone point would not show as a line: give it a dot's width
            let segments = segments
                .into_iter()
                .filter(|s: &Vec<(f64, f64)>| !s.is_empty())
                .map(|s| if s.len() == 1 { vec![s[0], (s[0].0 + t_max / tu.div / 400.0, s[0].1)] } else { s })
                .collect();
            Line { name: s.label.clone(), color: color(i), segments }
        })
        .collect();
    charts.push(
        Plot::Lines {
            title: "Jain's fairness index per window, by policy".into(),
            x_label: format!("simulated time ({})", tu.name),
            y_label: "Jain's index (1 = every tenant got its fair share)".into(),
            x_max: t_max / tu.div,
            y_max: 1.0 / 1.04,
            log_x: None,
            lines,
        }
        .render(charts_dir, "jain-over-time")?,
    );
    Ok(charts)
}

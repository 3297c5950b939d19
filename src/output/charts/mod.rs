//! Charts of a results folder, drawn from its CSV files (so `fairsim run` and
//! `fairsim report` draw the same pictures), as SVG and PNG.
//!
//! Text is rendered with `ab_glyph` and the DejaVu Sans bytes of the `dejavu`
//! crate: no system font libraries. Long runs stay cheap to draw: time series
//! are bucketed to at most [`MAX_POINTS`] points per line, and a wait CDF is
//! sampled at [`CDF_POINTS`] fixed quantiles of the sorted waits. With many
//! tenants the [`TOP_N`] with the most jobs are drawn and the rest summed (or,
//! for the p99 bars, maxed) as "others".
//!
//! The files: `read.rs` turns a policy's CSV files into per-tick series,
//! `series.rs` shapes them for drawing (tenant groups, buckets, CDF samples,
//! units), `scene.rs` reads what the charts take from the scenario (name,
//! SLAs, worker counts), `draw.rs` holds every plotters call, and this file
//! decides which charts a report has and what each shows.

mod draw;
mod read;
mod scene;
mod series;

use std::path::Path;

pub use draw::{color, dash, trim_num, Chart, Line, Mark, Plot, Point, Shape, Whisker, MARK_COLOR};
pub use scene::{load as load_scenario, Scene};
pub use series::{axis_unit, log_floor, unit_for, Groups, Unit, CDF_POINTS, MAX_POINTS, TOP_N};

use crate::error::Result;
use read::{read_admission, read_policy};
use series::{buckets, cdf_points, downsample, Agg};

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
    scene: &Scene,
) -> Result<(Vec<Chart>, PolicySeries)> {
    let data = read_policy(&dir.join(label), groups)?;
    let time = TimeAxis::new(&data.times);
    let name = scene.name();
    let class_slas = class_sla_marks(scene, &data.classes, time.max());
    let capacity = capacity_mark(scene.capacity(label), &time);
    let mut charts = vec![
        completions_plot(label, groups, &data.series.completed, &time).render(
            charts_dir,
            &format!("{label}-completions"),
            name,
        )?,
        oldest_age_plot(
            &format!("Oldest claimable job age per class — {label}"),
            &data.classes,
            &time,
            class_slas,
        )
        .render(charts_dir, &format!("{label}-oldest-age"), name)?,
        running_plot(label, groups, &data.series.running, &time, capacity).render(
            charts_dir,
            &format!("{label}-running"),
            name,
        )?,
        wait_cdf_plot(label, groups, &data.waits, scene).render(
            charts_dir,
            &format!("{label}-wait-cdf"),
            name,
        )?,
    ];
    if let Some((queues, total)) = &data.queues {
        let title = match queues.len() {
            n if n == *total => format!("Oldest claimable job age per queue — {label}"),
            n => {
                format!("Oldest claimable job age, the {n} of {total} queues with the oldest jobs — {label}")
            }
        };
        charts.push(oldest_age_plot(&title, queues, &time, Vec::new()).render(
            charts_dir,
            &format!("{label}-queue-age"),
            name,
        )?);
    }
    if let Some(counts) = read_admission(&dir.join(label).join("summary.csv"), groups)? {
        charts.push(admission_plot(label, groups, &counts).render(
            charts_dir,
            &format!("{label}-admission"),
            name,
        )?);
    }
    Ok((charts, PolicySeries { label: label.to_string(), times: data.times, jain: data.jain }))
}

/// One policy's headline figures from `comparison.csv`, for the strategy
/// comparison: the typical and the worst tenant's p99 wait (seconds) and
/// the mean and worst Jain's index.
pub struct Headline {
    pub label: String,
    pub tenant_p99_median: Option<f64>,
    pub worst_tenant_p99: Option<f64>,
    pub jain: Option<f64>,
    pub jain_min: Option<f64>,
}

/// Draws the cross-policy charts: p99 wait per tenant group by policy (from
/// each policy's summary rows as (tenant, p99 seconds)), Jain's index over
/// time (when `series` has the policies' fairness logs: a `--logs summary`
/// folder has none), and the strategy comparison (p99 of the typical and
/// the worst tenant, mean and worst Jain, side by side per label).
pub fn cross_charts(
    groups: &Groups,
    p99: &[PolicyP99s],
    series: &[PolicySeries],
    headlines: &[Headline],
    charts_dir: &Path,
    scene: &Scene,
) -> Result<Vec<Chart>> {
    let name = scene.name();
    let mut charts = vec![
        strategy_p99_plot(headlines, scene).render(charts_dir, "strategies-p99", name)?,
        strategy_jain_plot(headlines).render(charts_dir, "strategies-jain", name)?,
        p99_plot(groups, p99, scene).render(charts_dir, "p99-wait-by-policy", name)?,
    ];
    if !series.is_empty() {
        charts.push(jain_plot(series).render(charts_dir, "jain-over-time", name)?);
    }
    Ok(charts)
}

/// Horizontal lines at the classes' SLAs (seconds / `div`) across `0..x_end`,
/// one per distinct SLA naming its classes, black. At most four: more would
/// crowd the legend (the classes' own charts draw each).
fn sla_marks(scene: &Scene, div: f64, x_end: f64) -> Vec<Mark> {
    let mut by_value: Vec<(f64, Vec<&str>)> = Vec::new();
    for (class, sla) in &scene.slas {
        match by_value.iter_mut().find(|(v, _)| v == sla) {
            Some((_, names)) => names.push(class),
            None => by_value.push((*sla, vec![class])),
        }
    }
    by_value
        .into_iter()
        .take(4)
        .map(|(v, names)| Mark {
            name: format!("SLA {} s: {}", trim_secs(v), names.join(", ")),
            color: MARK_COLOR,
            points: vec![(0.0, v / div), (x_end, v / div)],
        })
        .collect()
}

/// Seconds as a short number (three significant digits at most).
fn trim_secs(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The typical tenant's p99 (the median over tenants: in a flood, a small
/// tenant's) and the worst tenant's, per label, on one log axis.
fn strategy_p99_plot(h: &[Headline], scene: &Scene) -> Plot {
    let values = || h.iter().flat_map(|r| [r.tenant_p99_median, r.worst_tenant_p99]).flatten();
    let max = values().fold(0.0, f64::max);
    let floor = log_floor(values(), max);
    let u = axis_unit(max, floor);
    let scaled = |f: fn(&Headline) -> Option<f64>| h.iter().map(|r| f(r).map(|v| v / u.div)).collect();
    Plot::Bars {
        title: "Strategy comparison: p99 wait of the typical and the worst tenant".into(),
        x_label: "policy or strategy (label)".into(),
        y_label: format!("p99 wait ({}{})", u.name, log_note(floor)),
        categories: h.iter().map(|r| r.label.clone()).collect(),
        groups: vec![
            ("median tenant p99".into(), color(0), scaled(|r| r.tenant_p99_median)),
            ("worst tenant p99".into(), color(1), scaled(|r| r.worst_tenant_p99)),
        ],
        log_y: floor.map(|f| f / u.div),
        marks: sla_marks(scene, u.div, h.len() as f64),
    }
}

/// Mean and worst Jain's index over the counted windows, per label.
fn strategy_jain_plot(h: &[Headline]) -> Plot {
    Plot::Bars {
        title: "Strategy comparison: Jain's index (1 = every tenant got its fair share)".into(),
        x_label: "policy or strategy (label)".into(),
        y_label: "Jain's index over the fairness windows".into(),
        categories: h.iter().map(|r| r.label.clone()).collect(),
        groups: vec![
            ("mean".into(), color(0), h.iter().map(|r| r.jain).collect()),
            ("worst window".into(), color(1), h.iter().map(|r| r.jain_min).collect()),
        ],
        log_y: None,
        marks: Vec::new(),
    }
}

/// Jobs each tenant group had admitted at once, deferred and rejected.
fn admission_plot(label: &str, groups: &Groups, counts: &[[f64; 3]]) -> Plot {
    let part = |i: usize| counts.iter().map(|c| Some(c[i])).collect();
    Plot::Bars {
        title: format!("Jobs admitted, deferred and rejected per tenant — {label}"),
        x_label: "tenant".into(),
        y_label: "jobs".into(),
        categories: groups.names.clone(),
        groups: vec![
            ("admitted".into(), color(0), part(0)),
            ("deferred".into(), color(1), part(1)),
            ("rejected".into(), color(3), part(2)),
        ],
        log_y: None,
        marks: Vec::new(),
    }
}

/// The x axis of a policy's time series: its tick end times, in a unit
/// chosen for the run's length.
struct TimeAxis {
    xs: Vec<f64>,
    /// Seconds per unit of the axis.
    div: f64,
    label: String,
}

impl TimeAxis {
    fn new(times: &[f64]) -> Self {
        let tu = unit_for(times.last().copied().unwrap_or(0.0));
        TimeAxis {
            xs: times.iter().map(|t| t / tu.div).collect(),
            div: tu.div,
            label: format!("simulated time ({})", tu.name),
        }
    }

    fn max(&self) -> f64 {
        self.xs.last().copied().unwrap_or(0.0)
    }
}

fn completions_plot(label: &str, groups: &Groups, completed: &[Vec<f64>], time: &TimeAxis) -> Plot {
    let lines = completed
        .iter()
        .enumerate()
        .map(|(g, y)| Line {
            name: groups.names[g].clone(),
            color: groups.color(g),
            pattern: g,
            segments: vec![downsample(&time.xs, y, Agg::Last)],
        })
        .collect();
    Plot::Lines {
        title: format!("Cumulative completions per tenant — {label}"),
        x_label: time.label.clone(),
        y_label: "jobs completed".into(),
        x_max: time.max(),
        y_max: completed.iter().filter_map(|v| v.last().copied()).fold(0.0, f64::max),
        log_x: None,
        lines,
        marks: Vec::new(),
    }
}

/// Each class's SLA (in seconds) as a line in the colour of the class's
/// line on the oldest-age chart, for the classes in `classes`.
fn class_sla_marks(scene: &Scene, classes: &[(String, Vec<f64>)], x_end: f64) -> Vec<(Mark, f64)> {
    scene
        .slas
        .iter()
        .filter_map(|(class, sla)| {
            let i = classes.iter().position(|(n, _)| n == class)?;
            let mark = Mark {
                name: format!("SLA {class} ({} s)", trim_secs(*sla)),
                color: color(i),
                points: vec![(0.0, *sla), (x_end, *sla)],
            };
            Some((mark, *sla))
        })
        .collect()
}

/// Oldest claimable age over time, a line per class or queue, and the
/// classes' SLAs (marks in seconds, with the SLA) as lines.
fn oldest_age_plot(
    title: &str,
    classes: &[(String, Vec<f64>)],
    time: &TimeAxis,
    slas: Vec<(Mark, f64)>,
) -> Plot {
    let age_max = classes.iter().flat_map(|(_, v)| v.iter().copied()).fold(0.0, f64::max);
    let sla_max = slas.iter().map(|s| s.1).fold(0.0, f64::max);
    let au = unit_for(age_max.max(sla_max));
    let marks = slas
        .into_iter()
        .map(|(m, _)| Mark { points: m.points.iter().map(|&(x, y)| (x, y / au.div)).collect(), ..m })
        .collect();
    let lines = classes
        .iter()
        .enumerate()
        .map(|(i, (name, v))| {
            let y: Vec<f64> = v.iter().map(|a| a / au.div).collect();
            // the worst age in a bucket, so a short starvation still shows
            Line {
                name: name.clone(),
                color: color(i),
                pattern: i,
                segments: vec![downsample(&time.xs, &y, Agg::Max)],
            }
        })
        .collect();
    Plot::Lines {
        title: title.to_string(),
        x_label: time.label.clone(),
        y_label: format!("oldest claimable age ({})", au.name),
        x_max: time.max(),
        y_max: age_max / au.div,
        log_x: None,
        lines,
        marks,
    }
}

/// The worker count over time as a step line over the time axis.
fn capacity_mark(steps: Option<&[(f64, f64)]>, time: &TimeAxis) -> Vec<Mark> {
    let Some(steps) = steps else { return Vec::new() };
    let (end, div) = (time.max(), time.div);
    let mut points: Vec<(f64, f64)> = Vec::new();
    for (k, &(at, n)) in steps.iter().enumerate() {
        let from = (at / div).min(end);
        let to = steps.get(k + 1).map_or(end, |s| (s.0 / div).min(end));
        points.push((from, n));
        points.push((to, n));
    }
    vec![Mark { name: "workers (capacity)".into(), color: MARK_COLOR, points }]
}

fn running_plot(
    label: &str,
    groups: &Groups,
    running: &[Vec<f64>],
    time: &TimeAxis,
    marks: Vec<Mark>,
) -> Plot {
    let xs = &time.xs;
    let bands = running
        .iter()
        .enumerate()
        .map(|(g, y)| {
            let mean = downsample(xs, y, Agg::Mean).into_iter().map(|p| p.1).collect();
            (groups.names[g].clone(), groups.color(g), mean)
        })
        .collect();
    Plot::Stacked {
        title: format!("Running jobs per tenant (who holds the workers) — {label}"),
        x_label: time.label.clone(),
        y_label: "running jobs (at tick ends)".into(),
        x: buckets(xs.len()).iter().map(|r| xs[r.end - 1]).collect(),
        bands,
        marks,
    }
}

fn wait_cdf_plot(label: &str, groups: &Groups, waits: &[Vec<f64>], scene: &Scene) -> Plot {
    let w_max = waits.iter().filter_map(|w| w.last().copied()).fold(0.0, f64::max);
    let w_floor = log_floor(waits.iter().flatten().copied(), w_max);
    let wu = axis_unit(w_max, w_floor);
    let lines = waits
        .iter()
        .enumerate()
        .map(|(g, w)| Line {
            name: groups.names[g].clone(),
            color: groups.color(g),
            pattern: g,
            segments: vec![cdf_points(w, wu.div)],
        })
        .collect();
    // the SLAs as vertical lines: the share of jobs left of one met it
    let marks = sla_marks(scene, wu.div, 1.0)
        .into_iter()
        .map(|m| Mark { points: vec![(m.points[0].1, 0.0), (m.points[0].1, 1.0)], ..m })
        .collect();
    Plot::Lines {
        title: format!("Wait-time CDF per tenant — {label}"),
        x_label: format!("wait before first start ({}{})", wu.name, log_note(w_floor)),
        y_label: "fraction of jobs waiting at most x".into(),
        x_max: w_max / wu.div,
        y_max: 1.0,
        log_x: w_floor.map(|f| f / wu.div),
        lines,
        marks,
    }
}

fn p99_plot(groups: &Groups, p99: &[PolicyP99s], scene: &Scene) -> Plot {
    let max = p99.iter().flat_map(|(_, v)| v.iter().filter_map(|x| x.1)).fold(0.0, f64::max);
    let floor = log_floor(p99.iter().flat_map(|(_, v)| v.iter().filter_map(|x| x.1)), max);
    let u = axis_unit(max, floor);
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
        // on two lines: one would run past a narrow cluster, and past the axis
        categories[o] = format!("{} others\n(largest)", groups.rest);
    }
    let marks = sla_marks(scene, u.div, categories.len() as f64);
    Plot::Bars {
        title: "p99 wait per tenant, by policy".into(),
        x_label: "tenant".into(),
        y_label: format!("p99 wait ({}{})", u.name, log_note(floor)),
        categories,
        groups: bar_groups,
        log_y: floor.map(|f| f / u.div),
        marks,
    }
}

fn jain_plot(series: &[PolicySeries]) -> Plot {
    let t_max = series.iter().filter_map(|s| s.times.last().copied()).fold(0.0, f64::max);
    let tu = unit_for(t_max);
    let dot = t_max / tu.div / 400.0;
    let lines = series
        .iter()
        .enumerate()
        .map(|(i, s)| Line {
            name: s.label.clone(),
            color: color(i),
            pattern: i,
            segments: jain_segments(s, tu.div, dot),
        })
        .collect();
    Plot::Lines {
        title: "Jain's fairness index per window, by policy".into(),
        x_label: format!("simulated time ({})", tu.name),
        y_label: "Jain's index (1 = every tenant got its fair share)".into(),
        x_max: t_max / tu.div,
        // the axis gets 4% headroom above y_max: this way it ends at 1
        y_max: 1.0 / 1.04,
        log_x: None,
        lines,
        marks: Vec::new(),
    }
}

/// A policy's Jain's index as bucket means over time (in units of `div`).
/// Windows not counted (fewer than two backlogged tenants) break the line;
/// a lone point would not show as a line, so it is drawn `dot` wide.
fn jain_segments(s: &PolicySeries, div: f64, dot: f64) -> Vec<Vec<(f64, f64)>> {
    let xs: Vec<f64> = s.times.iter().map(|t| t / div).collect();
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
    segments
        .into_iter()
        .filter(|s: &Vec<(f64, f64)>| !s.is_empty())
        .map(|s| if s.len() == 1 { vec![s[0], (s[0].0 + dot, s[0].1)] } else { s })
        .collect()
}

/// Marks an axis description when the axis is logarithmic.
fn log_note(floor: Option<f64>) -> &'static str {
    if floor.is_some() {
        ", log scale"
    } else {
        ""
    }
}

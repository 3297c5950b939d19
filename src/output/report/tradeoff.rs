//! The trade-off chart: one point per entry, what the protected tenants
//! get (a protection objective's figure) against what it costs (a cost
//! objective's figure, else utilization), each point filled when the entry
//! meets every objective and hollow when it breaks one, the bounds drawn.
//!
//! The protection shown is the first declared non-cost objective over
//! tenants each on their own (`all_but`, then `each`: the noisy-neighbour
//! question), else the first non-cost one; the cost, the first cost
//! objective over tenants (the flooder's own delay), else utilization.
//!
//! Over several seeds (`run --seeds N`) each figure is a mean and each point
//! gets whiskers for its 95% intervals on both axes: an objective's from
//! `scorecard.csv`, utilization's (when no objective is drawn across) from
//! each seed's figure in `seeds.csv`, the point then that mean too.

use super::verdict::{cell, entry_status, Scored};
use super::Table;
use crate::output::charts::{axis_unit, color, log_floor, Mark, Plot, Point, Shape, Whisker, MARK_COLOR};
use crate::results::confidence::Interval;
use crate::results::scorecard::{show, ScoreRow};

/// What the legend calls each shape.
pub(super) const MEETS: &str = "meets every objective";
pub(super) const BREAKS: &str = "breaks an objective";
pub(super) const UNCERTAIN: &str = "uncertain (interval straddles a bound)";

/// One axis: an objective's figures (or utilization) and how they scale.
struct Axis {
    /// Per entry, the figure in the axis unit.
    values: Vec<Option<f64>>,
    /// Per entry, its 95% interval (with two seeds or more).
    whiskers: Vec<Option<Whisker>>,
    bound: Option<f64>,
    label: String,
    log: Option<f64>,
}

/// Each entry's utilization over the seeds of `seeds.csv`, where it has an
/// interval (two seeds or more).
fn utilization_over_seeds(seeds: &Table, labels: &[String]) -> Vec<Option<Interval>> {
    labels
        .iter()
        .map(|l| {
            let xs: Vec<f64> = seeds
                .rows
                .iter()
                .filter(|r| cell(seeds, r, "policy") == l)
                .filter_map(|r| cell(seeds, r, "utilization").parse().ok())
                .collect();
            Interval::of(&xs).filter(|i| i.lo.is_some())
        })
        .collect()
}

/// A whisker from an interval in the file's unit, in an axis shown in `div`s.
fn whisker(lo: f64, hi: f64, div: f64) -> Whisker {
    Whisker { lo: lo / div, hi: hi / div, data: (lo, hi) }
}

/// The axis for `pick` (the objective of that name), or utilization from
/// `comparison.csv` (over `seeds.csv`'s seeds, when there are several)
/// when there is none.
fn axis(
    score: &[Scored],
    cmp: &Table,
    seeds: Option<&Table>,
    labels: &[String],
    pick: Option<&ScoreRow>,
) -> Axis {
    let Some(o) = pick else {
        let first: Vec<Option<f64>> =
            cmp.rows.iter().map(|r| cell(cmp, r, "utilization").parse::<f64>().ok()).collect();
        let over = seeds.map_or(vec![None; labels.len()], |t| utilization_over_seeds(t, labels));
        let (values, whiskers) = first
            .iter()
            .zip(&over)
            .map(|(u, i)| match i {
                // comparison.csv's is the first seed's: the mean goes with its interval
                Some(Interval { mean, lo: Some(lo), hi: Some(hi) }) => {
                    (Some(mean * 100.0), Some(whisker(*lo, *hi, 0.01)))
                }
                _ => (u.map(|u| u * 100.0), None),
            })
            .unzip();
        return Axis { values, whiskers, bound: None, label: "utilization (%)".into(), log: None };
    };
    let of = |l: &String| score.iter().find(|s| &s.row.policy == l && s.row.objective == o.objective);
    let raw: Vec<Option<f64>> = labels.iter().map(|l| of(l)?.row.figure).collect();
    let percent = o.unit == "ratio" && matches!(o.measure.as_str(), "utilization" | "sla_misses");
    let (div, unit, log) = match o.unit {
        "s" => {
            let max = raw.iter().flatten().copied().fold(o.bound, f64::max);
            let floor = log_floor(raw.iter().flatten().copied().chain([o.bound]), max);
            let u = axis_unit(max, floor);
            (
                u.div,
                format!(" ({}{})", u.name, if floor.is_some() { ", log scale" } else { "" }),
                floor.map(|f| f / u.div),
            )
        }
        _ if percent => (0.01, " (%)".into(), None),
        _ => (1.0, String::new(), None),
    };
    Axis {
        values: raw.iter().map(|v| v.map(|x| x / div)).collect(),
        whiskers: labels.iter().map(|l| of(l)?.interval.map(|(lo, hi)| whisker(lo, hi, div))).collect(),
        bound: Some(o.bound / div),
        label: format!("{}{unit}", o.objective),
        log,
    }
}

/// The objective drawn up the chart and the one across it (`None`:
/// utilization), from the first entry's rows.
fn choose(rows: &[&ScoreRow]) -> Option<(ScoreRow, Option<ScoreRow>)> {
    let by_scope = |cost: bool| {
        let of = |scope: &str| rows.iter().find(|r| r.cost == cost && r.scope == scope).copied();
        of("all_but").or_else(|| of("each"))
    };
    let protect = by_scope(false).or_else(|| rows.iter().find(|r| !r.cost).copied())?;
    let cost = by_scope(true).or_else(|| rows.iter().find(|r| r.cost && r.measure == "utilization").copied());
    Some((protect.clone(), cost.cloned()))
}

/// The chart, or `None` when nothing protects anyone (no scorecard, or only
/// cost objectives). Also returns the sentence under it.
pub(super) fn plot(
    score: &[Scored],
    cmp: &Table,
    seeds: Option<&Table>,
    labels: &[String],
) -> Option<(Plot, String)> {
    let first = labels.first()?;
    let rows: Vec<&ScoreRow> = score.iter().filter(|s| &s.row.policy == first).map(|s| &s.row).collect();
    let (protect, cost) = choose(&rows)?;
    let y = axis(score, cmp, seeds, labels, Some(&protect));
    let x = axis(score, cmp, seeds, labels, cost.as_ref());
    let mut points = Vec::new();
    let mut missing = Vec::new();
    let mut seen = [false; 3];
    for (i, l) in labels.iter().enumerate() {
        let status = entry_status(score.iter().filter(|s| &s.row.policy == l));
        let shape = match status {
            "pass" => Shape::Filled,
            "uncertain" => Shape::Triangle,
            _ => Shape::Hollow,
        };
        seen[match shape {
            Shape::Filled => 0,
            Shape::Hollow => 1,
            Shape::Triangle => 2,
        }] = true;
        match (x.values.get(i).copied().flatten(), y.values.get(i).copied().flatten()) {
            (Some(px), Some(py)) => points.push(Point {
                label: l.clone(),
                x: px,
                y: py,
                shape,
                color: color(i),
                x_whisker: x.whiskers.get(i).copied().flatten(),
                y_whisker: y.whiskers.get(i).copied().flatten(),
            }),
            _ => missing.push(l.clone()),
        }
    }
    let x_end = points.iter().map(|p| p.x).fold(x.bound.unwrap_or(0.0), f64::max);
    let y_end = points.iter().map(|p| p.y).fold(y.bound.unwrap_or(0.0), f64::max);
    let mut marks = Vec::new();
    if let Some(b) = y.bound {
        marks.push(Mark {
            name: format!("bound {}", show(&protect.measure, protect.unit, protect.bound)),
            color: MARK_COLOR,
            points: vec![(0.0, b), (x_end, b)],
        });
    }
    if let (Some(b), Some(c)) = (x.bound, &cost) {
        marks.push(Mark {
            name: format!("bound {}", show(&c.measure, c.unit, c.bound)),
            color: RGB_GREY,
            points: vec![(b, 0.0), (b, y_end)],
        });
    }
    let kinds: Vec<(String, Shape)> =
        [(MEETS, Shape::Filled), (BREAKS, Shape::Hollow), (UNCERTAIN, Shape::Triangle)]
            .into_iter()
            .zip(seen)
            .filter(|(_, s)| *s)
            .map(|((n, k), _)| (n.to_string(), k))
            .collect();
    let across = cost.as_ref().map_or("utilization".to_string(), |c| c.objective.clone());
    let mut note = format!(
        "Each point is an entry: up, {} ({} is better for the protected tenants); across, {across}, its cost. \
Filled points meet every objective, hollow ones break at least one; the dashed lines are the bounds.",
        protect.objective,
        if protect.direction == "at_least" { "higher" } else { "lower" }
    );
    if points.iter().any(|p| p.x_whisker.is_some() || p.y_whisker.is_some()) {
        note.push_str(&format!(
            " Each figure is the mean over {} seeds; the whiskers are its 95% interval.",
            super::verdict::seeds_of(score)
        ));
    }
    if !missing.is_empty() {
        note.push_str(&format!(" Not drawn (no figure): {}.", missing.join(", ")));
    }
    let plot = Plot::Points {
        title: format!("Trade-off: {} against {across}", protect.objective),
        x_label: x.label,
        y_label: y.label,
        points,
        log_x: x.log,
        log_y: y.log,
        marks,
        kinds,
    };
    Some((plot, note))
}

/// The cost bound's colour: apart from the protection's black in grey print.
const RGB_GREY: plotters::style::RGBColor = plotters::style::RGBColor(120, 120, 120);

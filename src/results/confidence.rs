//! Confidence over seeds (`fairsim run --seeds N`): each scorecard figure
//! as its mean over the seeds with a 95% Student t interval, a status that
//! is `uncertain` when the interval straddles the bound, and paired
//! differences between entries.
//!
//! Every entry is replayed at the same seeds with common random numbers
//! (each workload entry draws from its own stream of (seed, entry index),
//! as in `fairsim sweep`), so at one seed two entries see the same arrivals:
//! the difference of their figures at a seed is the strategies', and its
//! interval over the seeds is narrower than the two figures' own intervals
//! would suggest. With one seed the scorecard is the seed's, unchanged.

use serde::Serialize;

use super::scorecard::{show, verdict, EntryScore, ScoreRow, Verdict, FAIL, PASS, UNCERTAIN};
use super::{human_duration, PolicyResult};
use crate::stats::Estimate;

/// What the verdict says of a run of one seed, so a reader does not take
/// one seed's pass for the strategy's.
pub const ONE_SEED: &str =
    "one seed: no intervals; pass/fail may change with the seed: --seeds 10 gives 95% intervals.";

/// What a run at one seed keeps for the scorecard: its rows and cost
/// figures (a run beyond the first seed keeps nothing else, so memory stays
/// that of one full run).
#[derive(Debug, Clone, PartialEq)]
pub struct SeedFigures {
    pub rows: Vec<ScoreRow>,
    pub utilization: f64,
    pub rejected: u64,
    pub deferred: u64,
    /// Seconds.
    pub makespan: f64,
}

impl SeedFigures {
    pub fn of(r: &PolicyResult) -> SeedFigures {
        let c = &r.comparison;
        SeedFigures {
            rows: r.objectives.clone(),
            utilization: c.utilization.0,
            rejected: c.rejected,
            deferred: c.deferred,
            makespan: c.makespan.0 as f64 / 1e6,
        }
    }

    /// Every figure the seeds are compared on: each objective's, then the
    /// costs, as (name in `seeds.csv`, measure, unit, figure).
    pub fn figures(&self) -> Vec<(String, &str, &'static str, Option<f64>)> {
        let mut out: Vec<_> = self
            .rows
            .iter()
            .map(|r| (format!("objective:{}", r.objective), r.measure.as_str(), r.unit, r.figure))
            .collect();
        let costs = [
            ("utilization", "ratio", self.utilization),
            ("rejected", "count", self.rejected as f64),
            ("deferred", "count", self.deferred as f64),
            ("makespan", "s", self.makespan),
        ];
        // an objective on the whole run's figure already is that figure
        let judged =
            |m: &str| self.rows.iter().any(|r| r.measure == m && r.scope == "all" && r.class.is_none());
        out.extend(
            costs.into_iter().filter(|(m, ..)| !judged(m)).map(|(m, u, x)| (m.to_string(), m, u, Some(x))),
        );
        out
    }
}

/// A mean over seeds and its 95% interval (none below two seeds).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub mean: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

impl Interval {
    /// `None` for no figures.
    pub fn of(xs: &[f64]) -> Option<Interval> {
        let e = Estimate::of(xs)?;
        // figures that agree at every seed (a deterministic scenario) are
        // that figure with a width of 0: the mean's and the deviation's
        // rounding would otherwise put a bound equal to them inside the interval
        if xs.iter().all(|x| *x == xs[0]) {
            let x = xs[0];
            let at = (xs.len() > 1).then_some(x);
            return Some(Interval { mean: x, lo: at, hi: at });
        }
        let (lo, hi) = e.ci().unzip();
        Some(Interval { mean: e.mean, lo, hi })
    }
}

/// One entry's cost figures over the seeds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Costs {
    pub utilization: Interval,
    pub rejected: Interval,
    pub deferred: Interval,
    /// Seconds.
    pub makespan: Interval,
}

impl Costs {
    fn of(seeds: &[SeedFigures]) -> Costs {
        let over = |f: fn(&SeedFigures) -> f64| {
            let xs: Vec<f64> = seeds.iter().map(f).collect();
            Interval::of(&xs).unwrap_or(Interval { mean: 0.0, lo: None, hi: None })
        };
        Costs {
            utilization: over(|s| s.utilization),
            rejected: over(|s| s.rejected as f64),
            deferred: over(|s| s.deferred as f64),
            makespan: over(|s| s.makespan),
        }
    }
}

/// The entries judged over their seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// The seed of the first run; the k-th run of an entry is at seed + k.
    pub first_seed: u64,
    /// Per entry, in the run's order: its label and its figures at each seed.
    pub seeds: Vec<(String, Vec<SeedFigures>)>,
    /// Per entry: its scorecard rows over the seeds (the first seed's rows
    /// with one seed) and its cost figures over the seeds.
    pub rows: Vec<Vec<ScoreRow>>,
    pub costs: Vec<Costs>,
    pub verdict: Verdict,
}

impl Judgement {
    /// Judges every entry over its seeds (each entry has the same number).
    pub fn of(first_seed: u64, seeds: Vec<(String, Vec<SeedFigures>)>) -> Judgement {
        let rows: Vec<Vec<ScoreRow>> = seeds.iter().map(|(_, s)| over_seeds(s)).collect();
        let costs: Vec<Costs> = seeds.iter().map(|(_, s)| Costs::of(s)).collect();
        let mut v = verdict(&entry_scores(&seeds, &rows, &costs));
        v.seeds = seeds.first().map_or(1, |(_, s)| s.len().max(1));
        v.paired = paired(&seeds, &v);
        Judgement { first_seed, seeds, rows, costs, verdict: v }
    }

    /// What the verdict read of each entry: its rows and mean costs.
    pub fn entries(&self) -> Vec<EntryScore> {
        entry_scores(&self.seeds, &self.rows, &self.costs)
    }
}

fn entry_scores(
    seeds: &[(String, Vec<SeedFigures>)],
    rows: &[Vec<ScoreRow>],
    costs: &[Costs],
) -> Vec<EntryScore> {
    seeds
        .iter()
        .zip(rows)
        .zip(costs)
        .map(|(((policy, _), rows), c)| EntryScore {
            policy: policy.clone(),
            rows: rows.clone(),
            utilization: c.utilization.mean,
            // a tie-breaker only: the mean count to the nearest job
            rejected_deferred: (c.rejected.mean + c.deferred.mean).round() as u64,
            makespan: c.makespan.mean,
        })
        .collect()
}

/// An entry's scorecard rows over its seeds: the first seed's rows as they
/// are with one seed.
fn over_seeds(seeds: &[SeedFigures]) -> Vec<ScoreRow> {
    match seeds {
        [] => Vec::new(),
        [one] => one.rows.clone(),
        _ => (0..seeds[0].rows.len())
            .map(|i| row_over_seeds(&seeds.iter().map(|s| &s.rows[i]).collect::<Vec<_>>()))
            .collect(),
    }
}

/// One objective over the seeds: the mean figure, its interval, and the status.
fn row_over_seeds(rows: &[&ScoreRow]) -> ScoreRow {
    let first = rows[0];
    let at_most = first.direction == "at_most";
    let within = |x: f64| if at_most { x <= first.bound } else { x >= first.bound };
    let figures: Option<Vec<f64>> = rows.iter().map(|r| r.figure).collect();
    let interval = figures.as_deref().and_then(Interval::of);
    let status = match interval {
        Some(Interval { lo: Some(lo), hi: Some(hi), .. }) => {
            let (worst, best) = if at_most { (hi, lo) } else { (lo, hi) };
            if within(worst) {
                PASS
            } else if within(best) {
                UNCERTAIN
            } else {
                FAIL
            }
        }
        // a seed without a figure (none of the scope's jobs started): the
        // seeds' own statuses, uncertain when they disagree
        _ if rows.iter().all(|r| r.status == PASS) => PASS,
        _ if rows.iter().all(|r| r.status == FAIL) => FAIL,
        _ => UNCERTAIN,
    };
    let mean = interval.map(|i| i.mean);
    let exact = |x: f64| if first.unit == "s" { (x * 1e6).round() / 1e6 } else { x };
    ScoreRow {
        figure: mean,
        margin: mean.map(|m| exact(if at_most { first.bound - m } else { m - first.bound })),
        tenant: most_frequent(rows.iter().filter_map(|r| r.tenant.as_deref())),
        seeds: rows.len(),
        lo: interval.and_then(|i| i.lo),
        hi: interval.and_then(|i| i.hi),
        pass: status == PASS,
        status,
        ..first.clone()
    }
}

/// The name that occurs most often (the earliest on ties): the tenant most
/// often the worst of an `each` or `all_but` objective over the seeds.
fn most_frequent<'a>(names: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for n in names {
        match counts.iter_mut().find(|(m, _)| *m == n) {
            Some(c) => c.1 += 1,
            None => counts.push((n, 1)),
        }
    }
    // max_by_key keeps the last of equals: reversed, the earliest
    counts.iter().rev().max_by_key(|(_, c)| *c).map(|(n, _)| n.to_string())
}

/// An objective whose interval straddles its bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Straddle {
    pub objective: String,
    pub figure: Option<f64>,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    pub bound: f64,
    pub unit: &'static str,
    pub tenant: Option<String>,
}

/// An entry that breaks no objective for certain but may break some.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Uncertain {
    pub policy: String,
    /// Each objective whose interval straddles its bound, in declaration order.
    pub objectives: Vec<Straddle>,
}

impl Uncertain {
    pub fn of(e: &EntryScore) -> Uncertain {
        let objectives = e
            .rows
            .iter()
            .filter(|r| r.status == UNCERTAIN)
            .map(|r| Straddle {
                objective: r.objective.clone(),
                figure: r.figure,
                lo: r.lo,
                hi: r.hi,
                bound: r.bound,
                unit: r.unit,
                tenant: r.tenant.clone(),
            })
            .collect();
        Uncertain { policy: e.policy.clone(), objectives }
    }

    /// `weighted-cap is uncertain: `critical p99 <= 5.00 s` at 4.90 s [4.60 s, 5.20 s] straddles its bound.`
    pub fn line(&self, entries: &[EntryScore]) -> String {
        let row = |o: &str| {
            entries
                .iter()
                .find(|e| e.policy == self.policy)
                .and_then(|e| e.rows.iter().find(|r| r.objective == o))
        };
        let parts: Vec<String> = self
            .objectives
            .iter()
            .map(|s| {
                let r = row(&s.objective);
                let measure = r.map_or("", |r| r.measure.as_str());
                let heading = r.map_or(s.objective.clone(), |r| r.heading());
                let fig = s.figure.map_or("no figure at some seeds".into(), |f| show(measure, s.unit, f));
                let who = s.tenant.as_ref().map_or(String::new(), |t| format!(" ({t})"));
                format!("`{heading}` at {fig}{}{who}", show_interval(measure, s.unit, s.lo, s.hi))
            })
            .collect();
        let what = if parts.len() == 1 { "straddles its bound" } else { "straddle their bounds" };
        format!("{} is uncertain: {} {what}.", self.policy, parts.join("; "))
    }
}

/// The verdict's line on what the figures are, with N seeds.
pub fn seeds_line(n: usize) -> String {
    format!(
        "Over {n} seeds with common random numbers (every entry sees the same arrivals at each seed): \
each figure is the mean with its 95% interval; an objective whose interval straddles its bound is uncertain."
    )
}

/// ` [lo, hi]` in the measure's units, or nothing without an interval.
pub fn show_interval(measure: &str, unit: &str, lo: Option<f64>, hi: Option<f64>) -> String {
    match (lo, hi) {
        (Some(lo), Some(hi)) => format!(" [{}, {}]", show(measure, unit, lo), show(measure, unit, hi)),
        _ => String::new(),
    }
}

/// The difference of one figure between two entries, paired by seed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedDifference {
    /// The difference is `policy`'s figure minus `versus`'s.
    pub policy: String,
    pub versus: String,
    /// `cost_order`: `policy` follows `versus` among the entries the verdict
    /// orders by cost (those that pass, then the uncertain ones);
    /// `first_entry`: `versus` is the run's first entry.
    pub compared: &'static str,
    /// `objective:<name>`, or a cost figure: `utilization`, `rejected`,
    /// `deferred`, `makespan` (as in `seeds.csv`).
    pub figure: String,
    pub measure: String,
    pub unit: &'static str,
    /// The seeds at which both entries have the figure.
    pub seeds: usize,
    /// Mean over those seeds of the per-seed difference, and its 95% interval.
    pub difference: f64,
    pub lo: f64,
    pub hi: f64,
    /// The interval holds 0: the seeds do not tell the two apart.
    pub within_noise: bool,
}

/// The pairs the verdict speaks of: each entry ordered by cost against the
/// one before it, and each entry against the first; every figure of each.
pub fn paired(entries: &[(String, Vec<SeedFigures>)], v: &Verdict) -> Vec<PairedDifference> {
    if entries.first().is_none_or(|(_, s)| s.len() < 2) {
        return Vec::new();
    }
    let ranked: Vec<&str> =
        v.passing.iter().map(String::as_str).chain(v.uncertain.iter().map(|u| u.policy.as_str())).collect();
    let mut pairs: Vec<(&str, &str, &'static str)> =
        ranked.windows(2).map(|w| (w[1], w[0], "cost_order")).collect();
    let first = entries[0].0.as_str();
    for (label, _) in &entries[1..] {
        let known = pairs.iter().any(|(a, b, _)| (*a, *b) == (label, first) || (*a, *b) == (first, label));
        if !known {
            pairs.push((label, first, "first_entry"));
        }
    }
    let seeds_of = |l: &str| entries.iter().find(|(e, _)| e == l).map(|(_, s)| s.as_slice()).unwrap_or(&[]);
    pairs.into_iter().flat_map(|(a, b, why)| differences(a, seeds_of(a), b, seeds_of(b), why)).collect()
}

fn differences(
    a: &str,
    at_a: &[SeedFigures],
    b: &str,
    at_b: &[SeedFigures],
    compared: &'static str,
) -> Vec<PairedDifference> {
    let (fa, fb): (Vec<_>, Vec<_>) = at_a.iter().zip(at_b).map(|(x, y)| (x.figures(), y.figures())).unzip();
    let Some(names) = fa.first() else { return Vec::new() };
    names
        .iter()
        .enumerate()
        .filter_map(|(k, (figure, measure, unit, _))| {
            let diffs: Vec<f64> = fa.iter().zip(&fb).filter_map(|(x, y)| Some(x[k].3? - y[k].3?)).collect();
            let i = Interval::of(&diffs)?;
            let (lo, hi) = (i.lo?, i.hi?);
            Some(PairedDifference {
                policy: a.to_string(),
                versus: b.to_string(),
                compared,
                figure: figure.clone(),
                measure: measure.to_string(),
                unit,
                seeds: diffs.len(),
                difference: i.mean,
                lo,
                hi,
                within_noise: lo <= 0.0 && 0.0 <= hi,
            })
        })
        .collect()
}

/// A signed difference in the measure's units: `+1.2 pp`, `-3m 02s`, `+0.40`.
fn show_difference(measure: &str, unit: &str, v: f64) -> String {
    let sign = if v < 0.0 { "-" } else { "+" };
    match unit {
        "s" => format!("{sign}{}", human_duration(v.abs())),
        "count" => format!("{v:+.1}"),
        _ if measure == "utilization" || measure == "sla_misses" => format!("{:+.2} pp", v * 100.0),
        _ => format!("{v:+.3}"),
    }
}

/// One pair's differences (every figure of the pair, in order) in a sentence.
pub fn pair_line(pair: &[PairedDifference]) -> String {
    let Some(d) = pair.first() else { return String::new() };
    let name = |d: &PairedDifference| d.figure.strip_prefix("objective:").unwrap_or(&d.figure).to_string();
    let n = pair.iter().map(|d| d.seeds).max().unwrap_or(0);
    let apart: Vec<String> = pair
        .iter()
        .filter(|d| !d.within_noise)
        .map(|d| {
            let (m, u) = (d.measure.as_str(), d.unit);
            format!(
                "{} {} [{}, {}]",
                name(d),
                show_difference(m, u, d.difference),
                show_difference(m, u, d.lo),
                show_difference(m, u, d.hi)
            )
        })
        .collect();
    if apart.is_empty() {
        return format!(
            "{} and {} differ within noise in every figure (paired over {n} seeds).",
            d.policy, d.versus
        );
    }
    let within: Vec<String> = pair.iter().filter(|d| d.within_noise).map(name).collect();
    let rest = match within.is_empty() {
        true => String::new(),
        false => format!("; within noise: {}", within.join(", ")),
    };
    format!("{} differs from {} by {} (paired over {n} seeds){rest}.", d.policy, d.versus, apart.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_figures_have_an_interval_of_width_zero() {
        // 0.1 ten times: the sum is 0.9999999999999999, the mean of that
        // not 0.1; the figure is still exactly 0.1 with lo = hi
        let i = Interval::of(&[0.1; 10]).unwrap();
        assert_eq!((i.mean, i.lo, i.hi), (0.1, Some(0.1), Some(0.1)));
        assert_eq!(Interval::of(&[0.1]).unwrap().lo, None);
        // 1, 2, 3: mean 2, half-width t(0.975, 2) / sqrt(3) = 4.303 / 1.732
        let i = Interval::of(&[1.0, 2.0, 3.0]).unwrap();
        assert!((i.hi.unwrap() - 2.0 - 4.303 / 3f64.sqrt()).abs() < 1e-3);
    }

    #[test]
    fn the_most_frequent_name_wins_and_the_earliest_on_ties() {
        assert_eq!(most_frequent(["b", "a", "a"].into_iter()).as_deref(), Some("a"));
        assert_eq!(most_frequent(["b", "a"].into_iter()).as_deref(), Some("b"));
        assert_eq!(most_frequent([].into_iter()), None);
    }
}

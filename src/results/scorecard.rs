//! The scorecard: each objective evaluated on one entry's figures (the
//! figure, whose it is, pass or fail, the margin to the bound), and the
//! verdict over all entries (which meet every objective, ordered by what
//! they cost, and what each of the others breaks first).
//!
//! The objectives are the scenario's `objectives:`; without any, each class
//! with an `sla:` implies "that class's p99 wait at most its sla" (the SLA
//! says how long a job of the class may wait; p99 is the tail every other
//! figure of fairsim reports); without either, nothing is judged and the
//! verdict says that no objective was declared rather than naming a winner.

use serde::Serialize;

use super::confidence;
pub use super::scorecard_text::show;
use crate::accounting::groups::{Group, PERCENTILES};
use crate::accounting::{GroupStats, RunStats};
use crate::model::{
    ClassId, Direction, Measure, Objective, ObjectiveLimit as Limit, Scenario, TenantId, TenantScope,
};

/// Where the objectives of a scorecard come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The scenario's `objectives:`.
    Declared,
    /// Implied by the classes' `sla:` (no `objectives:`).
    Sla,
    /// Neither: nothing is judged.
    None,
}

impl Source {
    pub fn word(self) -> &'static str {
        match self {
            Source::Declared => "declared",
            Source::Sla => "sla",
            Source::None => "none",
        }
    }
}

/// The objectives a run is judged by, and where they come from.
pub fn objectives(sc: &Scenario) -> (Source, Vec<Objective>) {
    if !sc.objectives.is_empty() {
        return (Source::Declared, sc.objectives.clone());
    }
    let implied: Vec<Objective> = sc
        .classes
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            Some(Objective {
                name: format!("{} p99", c.name),
                measure: Measure::Wait { percentile: 99.0 },
                class: Some(i as ClassId),
                tenants: TenantScope::All,
                limit: Limit::Time(c.sla?),
                cost: false,
                line: 0,
            })
        })
        .collect();
    match implied.is_empty() {
        true => (Source::None, implied),
        false => (Source::Sla, implied),
    }
}

/// One objective on one entry: one row of `scorecard.csv`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreRow {
    pub policy: String,
    pub objective: String,
    /// `declared` or `sla` (implied by a class's `sla:`).
    pub source: &'static str,
    /// What is measured, as a column name (`wait_p99`, `sla_misses`, `utilization`...).
    pub measure: String,
    /// The class whose jobs count; empty for every class.
    pub class: Option<String>,
    /// `all`, `each` (the listed tenants) or `all_but` (every tenant but the listed).
    pub scope: &'static str,
    /// For `each` and `all_but`: the tenant whose figure is the worst (the figure).
    pub tenant: Option<String>,
    /// In the measure's unit: seconds, a ratio, or a count; empty when no
    /// job of the scope has one.
    pub figure: Option<f64>,
    /// `at_most` or `at_least`.
    pub direction: &'static str,
    pub bound: f64,
    /// `s`, `ratio` or `count`.
    pub unit: &'static str,
    pub pass: bool,
    /// How far the figure is inside its bound (bound − figure for `at_most`,
    /// figure − bound for `at_least`): negative when it fails.
    pub margin: Option<f64>,
    /// A cost limit (the verdict orders the passing entries by these).
    pub cost: bool,
    /// Seeds the figure is the mean over (`fairsim run --seeds N`); 1 by default.
    pub seeds: usize,
    /// The 95% Student t interval of the mean over the seeds; empty with one seed.
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    /// `pass`, `fail`, or `uncertain` when the interval straddles the bound.
    pub status: &'static str,
}

impl ScoreRow {
    /// A row as `scorecard.csv` holds it, `get` giving a column's cell
    /// (empty when absent): the report rebuilds the verdict from the file.
    pub fn from_cells<'a>(get: impl Fn(&str) -> &'a str) -> ScoreRow {
        let num = |c: &str| get(c).parse::<f64>().ok();
        let word = |c: &str, words: &[&'static str]| {
            words.iter().copied().find(|w| *w == get(c)).unwrap_or(words[0])
        };
        let text = |c: &str| Some(get(c).to_string()).filter(|t| !t.is_empty());
        ScoreRow {
            policy: get("policy").to_string(),
            objective: get("objective").to_string(),
            source: word("source", &["declared", "sla"]),
            measure: get("measure").to_string(),
            class: text("class"),
            scope: word("scope", &["all", "each", "all_but"]),
            tenant: text("tenant"),
            figure: num("figure"),
            direction: word("direction", &["at_most", "at_least"]),
            bound: num("bound").unwrap_or(0.0),
            unit: word("unit", &["s", "ratio", "count"]),
            pass: get("pass") == "true",
            margin: num("margin"),
            cost: get("cost") == "true",
            // a file written before `--seeds` is one seed's
            seeds: num("seeds").map_or(1, |n| n as usize),
            lo: num("lo"),
            hi: num("hi"),
            status: match get("status") {
                "" if get("pass") == "true" => PASS,
                "" => FAIL,
                w => [PASS, FAIL, UNCERTAIN].into_iter().find(|s| *s == w).unwrap_or(FAIL),
            },
        }
    }
}

/// The statuses of a scorecard row.
pub const PASS: &str = "pass";
pub const FAIL: &str = "fail";
pub const UNCERTAIN: &str = "uncertain";

/// The measure as a column name.
fn measure_name(m: Measure) -> String {
    match m {
        Measure::Wait { percentile: 100.0 } => "wait_max".into(),
        Measure::Wait { percentile: p } => format!("wait_p{p}"),
        Measure::WaitMean => "wait_mean".into(),
        Measure::SlaMisses => "sla_misses".into(),
        Measure::Share => "share".into(),
        Measure::Jain => "jain".into(),
        Measure::Gini => "gini".into(),
        Measure::Utilization => "utilization".into(),
        Measure::Makespan => "makespan".into(),
        Measure::Rejected => "rejected".into(),
        Measure::Deferred => "deferred".into(),
    }
}

fn unit_of(l: Limit) -> &'static str {
    match l {
        Limit::Time(_) => "s",
        Limit::Ratio(_) => "ratio",
        Limit::Count(_) => "count",
    }
}

fn bound_of(l: Limit) -> f64 {
    match l {
        Limit::Time(t) => t as f64 / 1e6,
        Limit::Ratio(r) => r,
        Limit::Count(n) => n as f64,
    }
}

/// A group's figure for a per-group measure, in the measure's unit.
fn group_figure(m: Measure, g: &GroupStats, s: &RunStats, place: Group) -> Option<f64> {
    let secs = |t: u64| t as f64 / 1e6;
    match m {
        Measure::Wait { percentile: p } if p == 100.0 || PERCENTILES.contains(&p) => g.wait_pct(p).map(secs),
        Measure::Wait { percentile: p } => s.extra_waits.get(place, p).map(secs),
        Measure::WaitMean => g.wait_mean().map(|us| us / 1e6),
        Measure::SlaMisses => (g.jobs > 0).then(|| g.sla_misses as f64 / g.jobs as f64),
        Measure::Share => (g.entitled > 0.0).then(|| g.received / g.entitled),
        Measure::Rejected => Some(g.rejected as f64),
        Measure::Deferred => Some(g.deferred as f64),
        Measure::Jain => s.jain.mean(),
        Measure::Gini => s.gini.mean(),
        Measure::Utilization | Measure::Makespan => None,
    }
}

/// The groups an objective looks at: (tenant id, group, place) for tenant
/// scopes, the single pooled group otherwise.
fn scoped<'a>(o: &Objective, s: &'a RunStats) -> Vec<(Option<TenantId>, &'a GroupStats, Group)> {
    let listed = |t: TenantId| match &o.tenants {
        TenantScope::All => true,
        TenantScope::Each(ts) => ts.contains(&t),
        TenantScope::AllBut(ts) => !ts.contains(&t),
    };
    match (&o.tenants, o.class) {
        (TenantScope::All, None) => vec![(None, &s.all, Group::All)],
        (TenantScope::All, Some(c)) => {
            s.classes.get(c as usize).map(|g| (None, g, Group::Class(c as usize))).into_iter().collect()
        }
        // one class declared: a tenant's jobs of it are all its jobs
        (_, Some(_)) if s.pairs.is_empty() && s.classes.len() <= 1 => tenants(s, listed),
        (_, Some(c)) => s
            .pairs
            .iter()
            .enumerate()
            .filter(|(_, ((t, k), _))| *k == c && listed(*t))
            .map(|(i, ((t, _), g))| (Some(*t), g, Group::Pair(i)))
            .collect(),
        (_, None) => tenants(s, listed),
    }
}

fn tenants(s: &RunStats, listed: impl Fn(TenantId) -> bool) -> Vec<(Option<TenantId>, &GroupStats, Group)> {
    s.tenants
        .iter()
        .enumerate()
        .filter(|(_, (t, _))| listed(*t))
        .map(|(i, (t, g))| (Some(*t), g, Group::Tenant(i)))
        .collect()
}

/// Evaluates every objective on one entry's figures. `utilization` is the
/// entry's headline utilization (see `comparison.csv`).
pub fn evaluate(
    label: &str,
    sc: &Scenario,
    s: &RunStats,
    utilization: f64,
    (source, objectives): &(Source, Vec<Objective>),
) -> Vec<ScoreRow> {
    objectives.iter().map(|o| evaluate_one(label, sc, s, utilization, *source, o)).collect()
}

fn evaluate_one(
    label: &str,
    sc: &Scenario,
    s: &RunStats,
    utilization: f64,
    source: Source,
    o: &Objective,
) -> ScoreRow {
    let dir = o.measure.direction();
    let (figure, tenant, jobs) = match o.measure {
        Measure::Utilization => (Some(utilization), None, 1),
        Measure::Makespan => (Some(s.makespan as f64 / 1e6), None, 1),
        m => {
            let groups = scoped(o, s);
            let jobs: u64 = groups.iter().map(|g| g.1.jobs).sum();
            // the worst group, the first on ties
            let mut worst: Option<(f64, Option<TenantId>)> = None;
            for (t, g, place) in &groups {
                let Some(f) = group_figure(m, g, s, *place) else { continue };
                let worse = match (worst, dir) {
                    (None, _) => true,
                    (Some((w, _)), Direction::AtMost) => f > w,
                    (Some((w, _)), Direction::AtLeast) => f < w,
                };
                if worse {
                    worst = Some((f, *t));
                }
            }
            (worst.map(|w| w.0), worst.and_then(|w| w.1), jobs)
        }
    };
    let bound = bound_of(o.limit);
    // times to the microsecond, as every file writes them
    let exact = |x: f64| if matches!(o.limit, Limit::Time(_)) { (x * 1e6).round() / 1e6 } else { x };
    let margin = figure.map(|f| {
        exact(match dir {
            Direction::AtMost => bound - f,
            Direction::AtLeast => f - bound,
        })
    });
    // a scope without jobs holds vacuously; one whose jobs have no figure
    // (none started) fails: its jobs waited past the end of the run
    let pass = match margin {
        Some(m) => m >= 0.0,
        None => jobs == 0,
    };
    ScoreRow {
        policy: label.to_string(),
        objective: o.name.clone(),
        source: source.word(),
        measure: measure_name(o.measure),
        class: o.class.map(|c| sc.classes[c as usize].name.clone()),
        scope: match o.tenants {
            TenantScope::All => "all",
            TenantScope::Each(_) => "each",
            TenantScope::AllBut(_) => "all_but",
        },
        tenant: match o.tenants {
            TenantScope::All => None,
            _ => tenant.map(|t| sc.tenants.name(t).into_owned()),
        },
        figure,
        direction: match dir {
            Direction::AtMost => "at_most",
            Direction::AtLeast => "at_least",
        },
        bound,
        unit: unit_of(o.limit),
        pass,
        margin,
        cost: o.cost,
        seeds: 1,
        lo: None,
        hi: None,
        status: if pass { PASS } else { FAIL },
    }
}

/// What the verdict needs of one entry: its scorecard rows and the figures
/// its cost is ordered by after the cost objectives.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryScore {
    pub policy: String,
    pub rows: Vec<ScoreRow>,
    pub utilization: f64,
    pub rejected_deferred: u64,
    /// Seconds.
    pub makespan: f64,
}

/// The objective an entry breaks first (in declaration order).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub policy: String,
    pub objective: String,
    pub figure: Option<f64>,
    pub bound: f64,
    pub unit: &'static str,
    pub tenant: Option<String>,
    /// How far past its bound (positive; empty when the scope had no figure).
    pub by: Option<f64>,
    /// How many of the entry's objectives it breaks.
    pub broken: usize,
    /// The figure's 95% interval over the seeds; empty with one seed.
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

/// The verdict over every entry of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub source: Source,
    /// The entries that meet every objective, cheapest first: by the cost
    /// objectives' figures in declaration order (each better the further
    /// inside its bound), then utilization (higher first), rejected plus
    /// deferred jobs (fewer first), makespan (shorter first); the entries'
    /// order on ties.
    pub passing: Vec<String>,
    /// The entries that break no objective for certain but have one whose
    /// interval straddles its bound, cheapest first (as `passing`).
    pub uncertain: Vec<confidence::Uncertain>,
    /// Every other entry, in the entries' order.
    pub failing: Vec<Failure>,
    /// Seeds every figure is the mean over.
    pub seeds: usize,
    /// Paired differences between entries over the seeds (empty with one
    /// seed; see [`confidence::paired`]).
    pub paired: Vec<confidence::PairedDifference>,
}

/// The verdict over `entries` (in the run's order).
pub fn verdict(entries: &[EntryScore]) -> Verdict {
    let source = match entries.iter().flat_map(|e| &e.rows).next() {
        None => Source::None,
        Some(r) if r.source == "sla" => Source::Sla,
        Some(_) => Source::Declared,
    };
    let seeds = entries.iter().flat_map(|e| &e.rows).map(|r| r.seeds).max().unwrap_or(1);
    if source == Source::None {
        let (passing, uncertain, failing, paired) = Default::default();
        return Verdict { source, passing, uncertain, failing, seeds, paired };
    }
    let has = |e: &EntryScore, status: &str| e.rows.iter().any(|r| r.status == status);
    let mut passing: Vec<&EntryScore> =
        entries.iter().filter(|e| !has(e, FAIL) && !has(e, UNCERTAIN)).collect();
    let mut uncertain: Vec<&EntryScore> =
        entries.iter().filter(|e| !has(e, FAIL) && has(e, UNCERTAIN)).collect();
    // stable: the entries' order on ties
    let by_cost = |a: &&EntryScore, b: &&EntryScore| {
        let costs = |e: &EntryScore| -> Vec<f64> {
            // lower is cheaper: a cost figure further inside its bound comes first
            e.rows.iter().filter(|r| r.cost).map(|r| -r.margin.unwrap_or(f64::INFINITY)).collect()
        };
        let key = |e: &EntryScore| (-e.utilization, e.rejected_deferred as f64, e.makespan);
        let (ka, kb) = (key(a), key(b));
        costs(a)
            .iter()
            .zip(costs(b).iter())
            .map(|(x, y)| x.total_cmp(y))
            .chain([ka.0.total_cmp(&kb.0), ka.1.total_cmp(&kb.1), ka.2.total_cmp(&kb.2)])
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    };
    passing.sort_by(by_cost);
    uncertain.sort_by(by_cost);
    let failing = entries
        .iter()
        .filter_map(|e| {
            let first = e.rows.iter().find(|r| r.status == FAIL)?;
            Some(Failure {
                policy: e.policy.clone(),
                objective: first.objective.clone(),
                figure: first.figure,
                bound: first.bound,
                unit: first.unit,
                tenant: first.tenant.clone(),
                by: first.margin.map(|m| -m),
                broken: e.rows.iter().filter(|r| r.status == FAIL).count(),
                lo: first.lo,
                hi: first.hi,
            })
        })
        .collect();
    Verdict {
        source,
        passing: passing.iter().map(|e| e.policy.clone()).collect(),
        uncertain: uncertain.iter().map(|e| confidence::Uncertain::of(e)).collect(),
        failing,
        seeds,
        paired: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(objective: &str, pass: bool, margin: f64, cost: bool) -> ScoreRow {
        ScoreRow {
            policy: String::new(),
            objective: objective.into(),
            source: "declared",
            measure: "wait_p99".into(),
            class: None,
            scope: "all",
            tenant: None,
            figure: Some(10.0 - margin),
            direction: "at_most",
            bound: 10.0,
            unit: "s",
            pass,
            margin: Some(margin),
            cost,
            seeds: 1,
            lo: None,
            hi: None,
            status: if pass { PASS } else { FAIL },
        }
    }

    fn entry(policy: &str, rows: Vec<ScoreRow>, utilization: f64, rd: u64, makespan: f64) -> EntryScore {
        EntryScore { policy: policy.into(), rows, utilization, rejected_deferred: rd, makespan }
    }

    #[test]
    fn the_verdict_orders_passing_entries_by_cost_and_names_the_first_broken_objective() {
        // objectives: "p99" (protection), "flood p99" (cost, at most 10 s).
        // a: flood p99 at 4 s (margin 6); b: at 1 s (margin 9), cheaper; c and
        // d tie on it at 4 s: then utilization, higher first (d 0.9 before c
        // 0.8); e and f tie on all that: rejected + deferred, fewer first (f);
        // g fails "flood p99" (the second) by 2 s and h both, "p99" first by 3 s.
        let ok = |m| row("p99", true, m, false);
        let flood = |pass, m| row("flood p99", pass, m, true);
        let entries = [
            entry("a", vec![ok(1.0), flood(true, 6.0)], 0.9, 0, 100.0),
            entry("b", vec![ok(1.0), flood(true, 9.0)], 0.5, 0, 100.0),
            entry("c", vec![ok(1.0), flood(true, 6.0)], 0.8, 0, 100.0),
            entry("g", vec![ok(5.0), flood(false, -2.0)], 0.99, 0, 1.0),
            entry("d", vec![ok(1.0), flood(true, 6.0)], 0.95, 0, 100.0),
            entry("e", vec![ok(1.0), flood(true, 0.0)], 0.7, 5, 100.0),
            entry("f", vec![ok(1.0), flood(true, 0.0)], 0.7, 2, 100.0),
            entry("h", vec![row("p99", false, -3.0, false), flood(false, -1.0)], 0.99, 0, 1.0),
        ];
        let v = verdict(&entries);
        assert_eq!(v.source, Source::Declared);
        assert_eq!(v.passing, ["b", "d", "a", "c", "f", "e"]);
        let failing: Vec<(&str, &str, Option<f64>, usize)> =
            v.failing.iter().map(|f| (f.policy.as_str(), f.objective.as_str(), f.by, f.broken)).collect();
        assert_eq!(failing, [("g", "flood p99", Some(2.0), 1), ("h", "p99", Some(3.0), 2)]);
        // no rows at all: nothing judged, nobody named
        let none = verdict(&[entry("a", vec![], 0.9, 0, 1.0), entry("b", vec![], 0.2, 0, 1.0)]);
        assert_eq!((none.source, none.passing.len(), none.failing.len()), (Source::None, 0, 0));
        assert!(none.lines(&[]).join(" ").contains("No objective was declared"));
    }

    #[test]
    fn makespan_breaks_the_last_tie() {
        let ok = || vec![row("p99", true, 1.0, false)];
        let v = verdict(&[entry("slow", ok(), 0.8, 0, 200.0), entry("quick", ok(), 0.8, 0, 100.0)]);
        assert_eq!(v.passing, ["quick", "slow"]);
    }
}

//! The results of a run as one serializable model: per policy, the
//! comparison row ([`Comparison`], one row of `comparison.csv`) and the
//! per-group rows ([`GroupRow`], the rows of `summary.csv`), and the
//! catalogue of their columns ([`COLUMNS`]: unit, files, whether it sums
//! over tenants, its line of docs). Every exporter (CSV files, the terminal
//! table, JSON) reads this model, and tune, the report's units and its
//! collapsed rows read the catalogue, so a new metric is one field here
//! plus its catalogue line (and the same line in docs/metrics.md, which a
//! test compares with the catalogue).

pub mod cells;
pub mod confidence;
pub mod document;
mod fixed;
pub mod scorecard;
mod scorecard_text;
pub mod table;
mod titles;
mod units;

use serde::Serialize;

use crate::accounting::{nearest_rank, GroupStats, RunStats};
use crate::model::{PolicySpec, Scenario, TenantId};
use crate::time::Time;

pub use table::read;
pub use titles::title;
pub use units::{human_duration, MeanSecs, Ratio, Secs};

/// One policy's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyResult {
    pub comparison: Comparison,
    /// `all`, then each class, then each tenant with jobs.
    pub groups: Vec<GroupRow>,
    /// One per resource of the scenario (`resources.csv`); none without `resources:`.
    pub resources: Vec<ResourceRow>,
    /// Each objective on this entry (`scorecard.csv`); none without
    /// objectives or class SLAs.
    pub objectives: Vec<scorecard::ScoreRow>,
    /// Each tenant's figures per class (`tenant_classes.csv`), when two or
    /// more classes have jobs; none otherwise.
    pub tenant_classes: Vec<PairRow>,
}

/// One tenant's jobs of one class: one row of `tenant_classes.csv`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairRow {
    pub tenant: String,
    pub class: String,
    pub jobs: u64,
    pub completed: u64,
    pub rejected: u64,
    pub unfinished: u64,
    pub wait_mean: Option<MeanSecs>,
    pub wait_p50: Option<Secs>,
    pub wait_p95: Option<Secs>,
    pub wait_p99: Option<Secs>,
    pub wait_max: Option<Secs>,
    pub sla_misses: u64,
    pub deadline_misses: u64,
    pub deferred: u64,
}

/// How much of one resource the run used: one row of `resources.csv`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceRow {
    pub resource: String,
    pub capacity: u64,
    /// Resource-seconds held: over attempts, the amount times the time held.
    pub used: Secs,
    /// `used` over (capacity x makespan); empty for a run of zero length.
    pub utilization: Option<Ratio>,
}

/// The headline figures of one policy: one row of `comparison.csv`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The policy's label.
    pub policy: String,
    pub jobs: u64,
    pub completed: u64,
    pub rejected: u64,
    /// Busy worker time over (workers x makespan).
    pub utilization: Ratio,
    pub wait_p99: Option<Secs>,
    /// Highest per-tenant p99 wait (whose: `worst_tenant`).
    pub worst_tenant_p99: Option<Secs>,
    pub worst_class_p99: Option<Secs>,
    pub oldest_age_max: Secs,
    /// Mean of Jain's index over fairness windows with two or more backlogged tenants.
    pub jain: Option<Ratio>,
    pub makespan: Secs,
    /// The registered policy name (`label` may differ).
    pub kind: String,
    pub worst_tenant: Option<String>,
    pub worst_class: Option<String>,
    pub jain_min: Option<Ratio>,
    /// Median over tenants of their p99 wait (nearest-rank, lower median):
    /// the typical tenant's tail, where `worst_tenant_p99` shows the worst.
    pub tenant_p99_median: Option<Secs>,
    pub slowdown_mean: Option<Ratio>,
    pub slowdown_p99: Option<Ratio>,
    /// Jobs that waited longer than their class's `sla` (starvation events).
    pub sla_misses: u64,
    pub deadline_misses: u64,
    /// Jobs admission deferred.
    pub deferred: u64,
    /// Useful work done: service of the attempts that completed their jobs.
    pub goodput: Secs,
    /// Work lost by stopped attempts (capacity kills, preemptions).
    pub lost_work: Secs,
    /// Mean Gini coefficient over the windows Jain's index counts (0: every
    /// tenant got the same share of its entitlement).
    pub gini: Option<Ratio>,
    /// The greatest (least fair) of those windows' Gini coefficients.
    pub gini_max: Option<Ratio>,
}

/// What a [`GroupRow`] covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    All,
    Class,
    Tenant,
}

/// The figures of one group of jobs: one row of `summary.csv`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupRow {
    pub scope: Scope,
    pub name: String,
    pub jobs: u64,
    pub completed: u64,
    pub rejected: u64,
    pub wait_mean: Option<MeanSecs>,
    pub wait_p50: Option<Secs>,
    pub wait_p95: Option<Secs>,
    pub wait_p99: Option<Secs>,
    pub wait_max: Option<Secs>,
    pub oldest_age_max: Secs,
    pub failed: u64,
    pub expired: u64,
    pub unfinished: u64,
    /// Worker time its attempts held.
    pub service: Secs,
    pub sla_misses: u64,
    pub deadline_misses: u64,
    pub slowdown_mean: Option<Ratio>,
    pub slowdown_p99: Option<Ratio>,
    /// Its part of the service received, and of the max-min fair
    /// entitlement, summed over fairness windows.
    pub share_received: Option<Ratio>,
    pub share_entitled: Option<Ratio>,
    /// Its service over the pool's worker time (workers x makespan).
    pub utilization: Option<Ratio>,
    pub deferred: u64,
    pub goodput: Secs,
    pub lost_work: Secs,
}

/// What the numbers of a column are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A time or duration, in seconds.
    Time,
    /// A dimensionless number: an index, a share, a fraction or a ratio.
    Ratio,
    /// A count of jobs.
    Count,
    /// A name (text).
    Name,
}

impl Unit {
    /// The unit as docs/metrics.md writes it.
    pub fn word(self) -> &'static str {
        match self {
            Unit::Time => "time (s)",
            Unit::Ratio => "ratio",
            Unit::Count => "count",
            Unit::Name => "name",
        }
    }
}

/// Which files have a column: `comparison.csv` ([`Comparison`]),
/// `summary.csv` ([`GroupRow`]), or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Files {
    Comparison,
    Summary,
    Both,
}

impl Files {
    pub fn comparison(self) -> bool {
        self != Files::Summary
    }
    pub fn summary(self) -> bool {
        self != Files::Comparison
    }
    /// The files as docs/metrics.md writes them.
    pub fn word(self) -> &'static str {
        match self {
            Files::Comparison => "comparison",
            Files::Summary => "summary",
            Files::Both => "both",
        }
    }
}

/// One column of `comparison.csv` or `summary.csv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    pub unit: Unit,
    pub files: Files,
    /// Whether the tenants' values add up to a meaningful total (the
    /// report's "… and K more tenants" row sums these and shows the
    /// largest value of the others).
    pub summed: bool,
    /// Its line in docs/metrics.md, "Every column".
    pub doc: &'static str,
}

const fn col(name: &'static str, unit: Unit, files: Files, summed: bool, doc: &'static str) -> Column {
    Column { name, unit, files, summed, doc }
}

use Files::{Both, Comparison as Cmp, Summary as Sum};
use Unit::{Count, Name, Ratio as R, Time as T};

/// Every column of [`Comparison`] and [`GroupRow`], in the order of
/// `comparison.csv`, then the columns only `summary.csv` has, in its order.
/// A test checks it against the two structs and against docs/metrics.md.
#[rustfmt::skip]
pub const COLUMNS: &[Column] = &[
    col("policy", Name, Cmp, false, "the policy's label (its folder name)"),
    col("jobs", Count, Both, true, "arrivals, whatever their outcome"),
    col("completed", Count, Both, true, "jobs that finished successfully"),
    col("rejected", Count, Both, true, "jobs refused by admission for good (`reject`, or `retry` with its re-sends spent)"),
    col("utilization", R, Both, true, "busy worker time / (workers × makespan), or over the worker time the pool offered when `capacity:` changes its size; a pool bounded by `resources:` alone gives its busiest resource's utilization in `comparison.csv` (see `resources.csv`) and an empty cell in `summary.csv`; an empty run gives 0. Per group: the group's service over the same worker time, so the groups add up to the `all` row"),
    col("wait_p99", T, Both, false, "nearest-rank p99 of the wait of the started jobs"),
    col("worst_tenant_p99", T, Cmp, false, "the highest per-tenant p99 wait; whose it is: `worst_tenant`"),
    col("worst_class_p99", T, Cmp, false, "the highest per-class p99 wait; whose it is: `worst_class`"),
    col("oldest_age_max", T, Both, false, "the longest any job of the group sat claimable (see [Oldest claimable age](#oldest-claimable-age))"),
    col("jain", R, Cmp, false, "mean Jain's index over counted fairness windows"),
    col("makespan", T, Cmp, false, "time of the last job's end"),
    col("kind", Name, Cmp, false, "the registered policy name (`policy` is the label)"),
    col("worst_tenant", Name, Cmp, false, "the tenant of `worst_tenant_p99` (the first on ties)"),
    col("worst_class", Name, Cmp, false, "the class of `worst_class_p99`"),
    col("jain_min", R, Cmp, false, "the worst counted fairness window"),
    col("tenant_p99_median", T, Cmp, false, "median over tenants of their p99 wait"),
    col("slowdown_mean", R, Both, false, "mean slowdown of completed jobs"),
    col("slowdown_p99", R, Both, false, "p99 slowdown of completed jobs"),
    col("sla_misses", Count, Both, true, "jobs that waited longer than their class's `sla`"),
    col("deadline_misses", Count, Both, true, "jobs that finished after their deadline, or expired"),
    col("deferred", Count, Both, true, "jobs that admission deferred: taken in, claimable later (see docs/scenario.md, Admission)"),
    col("goodput", T, Both, true, "seconds of useful work: the service of the attempts that completed their jobs, at undisturbed speed (`service` less failed attempts, the extra of slowed attempts, and `lost_work`)"),
    col("lost_work", T, Both, true, "seconds of work lost by stopped attempts: killed by a capacity loss (`capacity:` with `loss: kill`) or preempted (`reserve` with `preempt:`; at a checkpoint only the work since it), charged to their tenants (part of `service`)"),
    col("gini", R, Cmp, false, "mean Gini coefficient over the fairness windows `jain` counts, of the same received-over-entitled values (0 = equal, (n − 1)/n = one tenant served)"),
    col("gini_max", R, Cmp, false, "the worst (highest) Gini coefficient of those windows"),
    col("scope", Name, Sum, false, "`all`, `class` or `tenant`"),
    col("name", Name, Sum, false, "the class or tenant (`all` for the first row)"),
    col("wait_mean", T, Sum, false, "mean wait, seconds to six decimals"),
    col("wait_p50", T, Sum, false, "nearest-rank median wait"),
    col("wait_p95", T, Sum, false, "nearest-rank p95 wait"),
    col("wait_max", T, Sum, false, "the longest wait"),
    col("failed", Count, Sum, true, "jobs whose every allowed attempt failed"),
    col("expired", Count, Sum, true, "jobs dropped by the policy (e.g. `edf` with `late: drop`)"),
    col("unfinished", Count, Sum, true, "jobs still queued or running when the run ended"),
    col("service", T, Sum, true, "worker time the group's attempts held"),
    col("share_received", R, Sum, true, "the group's part of all service received in fairness windows"),
    col("share_entitled", R, Sum, true, "the group's part of the max-min fair entitlement over the same windows"),
];

/// The catalogue's line for a column name.
pub fn column(name: &str) -> Option<&'static Column> {
    COLUMNS.iter().find(|c| c.name == name)
}

/// The catalogue as docs/metrics.md shows it, "Every column".
pub fn columns_table() -> String {
    let mut t = String::from("| column | unit | in | sums over tenants | meaning |\n|---|---|---|---|---|\n");
    for c in COLUMNS {
        let sums = if c.summed { "yes" } else { "" };
        t.push_str(&format!(
            "| `{}` | {} | {} | {sums} | {} |\n",
            c.name,
            c.unit.word(),
            c.files.word(),
            c.doc
        ));
    }
    t
}

impl PolicyResult {
    pub fn new(spec: &PolicySpec, sc: &Scenario, s: &RunStats) -> Self {
        let comparison = Comparison::new(spec, sc, s);
        let objectives = scorecard::objectives(sc);
        PolicyResult {
            objectives: scorecard::evaluate(&spec.label, sc, s, comparison.utilization.0, &objectives),
            comparison,
            groups: group_rows(sc, s),
            resources: resource_rows(sc, s),
            tenant_classes: pair_rows(sc, s),
        }
    }

    /// What the verdict reads of this entry.
    pub fn entry_score(&self) -> scorecard::EntryScore {
        let c = &self.comparison;
        scorecard::EntryScore {
            policy: c.policy.clone(),
            rows: self.objectives.clone(),
            utilization: c.utilization.0,
            rejected_deferred: c.rejected + c.deferred,
            makespan: c.makespan.0 as f64 / 1e6,
        }
    }
}

/// Each tenant x class pair with jobs, when two or more classes have jobs.
fn pair_rows(sc: &Scenario, s: &RunStats) -> Vec<PairRow> {
    if s.classes.iter().filter(|g| g.jobs > 0).count() < 2 {
        return Vec::new();
    }
    s.pairs
        .iter()
        .map(|((t, c), g)| PairRow {
            tenant: sc.tenants.name(*t).into_owned(),
            class: sc.classes[*c as usize].name.clone(),
            jobs: g.jobs,
            completed: g.completed,
            rejected: g.rejected,
            unfinished: g.unfinished,
            wait_mean: g.wait_mean().map(MeanSecs),
            wait_p50: g.wait_pct(50.0).map(Secs),
            wait_p95: g.wait_pct(95.0).map(Secs),
            wait_p99: g.wait_pct(99.0).map(Secs),
            wait_max: g.wait_max().map(Secs),
            sla_misses: g.sla_misses,
            deadline_misses: g.deadline_misses,
            deferred: g.deferred,
        })
        .collect()
}

/// Each resource's use over its capacity for the whole run (resources do not
/// change size over time: `capacity:` changes workers only).
fn resource_rows(sc: &Scenario, s: &RunStats) -> Vec<ResourceRow> {
    let span = s.makespan as f64;
    sc.resources
        .iter()
        .zip(&s.resource_busy)
        .map(|((name, cap), &used)| ResourceRow {
            resource: name.clone(),
            capacity: *cap,
            used: Secs(used.min(Time::MAX as u128) as Time),
            utilization: (s.makespan > 0).then(|| Ratio(used as f64 / (*cap as f64 * span))),
        })
        .collect()
}

/// The headline utilization: busy worker time over the pool's worker time;
/// for a pool bounded by `resources:` alone (no worker count), the busiest
/// resource's utilization, since that resource is what limits the pool.
fn headline_utilization(sc: &Scenario, s: &RunStats) -> f64 {
    match pool_time(sc, s) {
        Some(pool) => s.busy as f64 / pool,
        None if sc.workers == u32::MAX => {
            resource_rows(sc, s).iter().filter_map(|r| r.utilization).map(|r| r.0).fold(0.0, f64::max)
        }
        None => 0.0,
    }
}

/// Worker time of the pool over the run, when it has a worker count.
fn pool_time(sc: &Scenario, s: &RunStats) -> Option<f64> {
    match s.worker_time {
        Some(t) => (s.makespan > 0).then_some(t),
        None => (s.makespan > 0 && sc.workers != u32::MAX).then_some(sc.workers as f64 * s.makespan as f64),
    }
}

/// Median over groups of their p99 wait (nearest-rank rank ceil(n/2)).
pub fn median_p99<'a>(groups: impl Iterator<Item = &'a GroupStats>) -> Option<Time> {
    let mut p99s: Vec<Time> = groups.filter_map(|g| g.wait_pct(99.0)).collect();
    p99s.sort_unstable();
    nearest_rank(&p99s, 50.0)
}

/// The group with the highest p99 wait (the first on ties) and that wait.
fn worst<'a>(
    groups: impl Iterator<Item = (usize, &'a GroupStats)>,
    names: impl Fn(usize) -> String,
) -> Option<(String, Time)> {
    groups
        .filter_map(|(i, g)| g.wait_pct(99.0).map(|p| (i, p)))
        .max_by_key(|&(i, p)| (p, std::cmp::Reverse(i)))
        .map(|(i, p)| (names(i), p))
}

impl Comparison {
    pub fn new(spec: &PolicySpec, sc: &Scenario, s: &RunStats) -> Self {
        let util = headline_utilization(sc, s);
        let jain_mean = s.jain.mean();
        let tenants = s.tenants.iter().map(|(t, g)| (*t as usize, g));
        let worst_tenant = worst(tenants, |i| sc.tenants.name(i as TenantId).into_owned());
        let worst_class = worst(s.classes.iter().enumerate(), |i| sc.classes[i].name.clone());
        Comparison {
            policy: spec.label.clone(),
            jobs: s.all.jobs,
            completed: s.all.completed,
            rejected: s.all.rejected,
            utilization: Ratio(util),
            wait_p99: s.all.wait_pct(99.0).map(Secs),
            worst_tenant_p99: worst_tenant.as_ref().map(|w| Secs(w.1)),
            worst_class_p99: worst_class.as_ref().map(|w| Secs(w.1)),
            oldest_age_max: Secs(s.all.oldest_age_max),
            jain: jain_mean.map(Ratio),
            makespan: Secs(s.makespan),
            kind: spec.kind.clone(),
            worst_tenant: worst_tenant.map(|w| w.0),
            worst_class: worst_class.map(|w| w.0),
            jain_min: s.jain.min.map(Ratio),
            tenant_p99_median: median_p99(s.tenants.iter().map(|(_, g)| g)).map(Secs),
            slowdown_mean: s.all.slowdown_mean().map(Ratio),
            slowdown_p99: s.all.slowdown_pct(99.0).map(Ratio),
            sla_misses: s.all.sla_misses,
            deadline_misses: s.all.deadline_misses,
            deferred: s.all.deferred,
            goodput: Secs(s.all.goodput()),
            lost_work: Secs(s.all.lost),
            gini: s.gini.mean().map(Ratio),
            gini_max: s.gini.max.map(Ratio),
        }
    }
}

/// `all`, each class with jobs, each tenant with jobs.
fn group_rows(sc: &Scenario, s: &RunStats) -> Vec<GroupRow> {
    let pool = pool_time(sc, s);
    let row = |scope, name: &str, g: &GroupStats| GroupRow::new(scope, name, g, &s.all, pool);
    let mut rows = vec![row(Scope::All, "all", &s.all)];
    let classes = sc.classes.iter().zip(&s.classes).filter(|(_, g)| g.jobs > 0);
    rows.extend(classes.map(|(c, g)| row(Scope::Class, &c.name, g)));
    rows.extend(s.tenants.iter().map(|(t, g)| row(Scope::Tenant, &sc.tenants.name(*t), g)));
    rows
}

impl GroupRow {
    fn new(scope: Scope, name: &str, g: &GroupStats, all: &GroupStats, pool: Option<f64>) -> Self {
        let frac = |x: f64, total: f64| (total > 0.0).then(|| Ratio(x / total));
        GroupRow {
            scope,
            name: name.to_string(),
            jobs: g.jobs,
            completed: g.completed,
            rejected: g.rejected,
            wait_mean: g.wait_mean().map(MeanSecs),
            wait_p50: g.wait_pct(50.0).map(Secs),
            wait_p95: g.wait_pct(95.0).map(Secs),
            wait_p99: g.wait_pct(99.0).map(Secs),
            wait_max: g.wait_max().map(Secs),
            oldest_age_max: Secs(g.oldest_age_max),
            failed: g.failed,
            expired: g.expired,
            unfinished: g.unfinished,
            service: Secs(g.service),
            sla_misses: g.sla_misses,
            deadline_misses: g.deadline_misses,
            slowdown_mean: g.slowdown_mean().map(Ratio),
            slowdown_p99: g.slowdown_pct(99.0).map(Ratio),
            share_received: frac(g.received, all.received),
            share_entitled: frac(g.entitled, all.entitled),
            utilization: frac(g.service as f64, pool.unwrap_or(0.0)),
            deferred: g.deferred,
            goodput: Secs(g.goodput()),
            lost_work: Secs(g.lost),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::cells::{cells, names, Cell};
    use super::*;

    fn comparison() -> Comparison {
        Comparison {
            policy: "drr-work".into(),
            jobs: 10,
            completed: 9,
            rejected: 0,
            utilization: Ratio(0.81234),
            wait_p99: Some(Secs(1_500_000)),
            worst_tenant_p99: None,
            worst_class_p99: Some(Secs(3)),
            oldest_age_max: Secs(2_000_000),
            jain: Some(Ratio(0.99995)),
            makespan: Secs(70_000_000),
            kind: "drr".into(),
            worst_tenant: None,
            worst_class: Some("bulk".into()),
            jain_min: None,
            tenant_p99_median: None,
            slowdown_mean: None,
            slowdown_p99: None,
            sla_misses: 4,
            deadline_misses: 0,
            deferred: 0,
            goodput: Secs(65_250_000),
            lost_work: Secs(0),
            gini: Some(Ratio(0.25)),
            gini_max: None,
        }
    }

    #[test]
    fn rows_flatten_to_exact_csv_text() {
        let c = cells(&comparison());
        let text: Vec<String> = c.iter().map(|(_, v)| v.csv()).collect();
        assert_eq!(
            text.join(","),
            "drr-work,10,9,0,0.8123,1.5,,0.000003,2,1.0000,70,drr,,bulk,,,,,4,0,0,65.25,0,0.2500,"
        );
        assert_eq!(c[5].1, Cell::Secs(1_500_000));
        assert_eq!(names(&comparison())[..3], ["policy", "jobs", "completed"]);
    }

    #[test]
    fn the_catalogue_lists_every_column_once_in_file_order() {
        let row = GroupRow::new(Scope::All, "all", &GroupStats::default(), &GroupStats::default(), None);
        let of =
            |f: fn(Files) -> bool| COLUMNS.iter().filter(|c| f(c.files)).map(|c| c.name).collect::<Vec<_>>();
        assert_eq!(of(Files::comparison), names(&comparison()), "COLUMNS against the fields of Comparison");
        // summary.csv has its own order: compare its columns as a set
        let (mut listed, mut fields) = (of(Files::summary), names(&row));
        listed.sort_unstable();
        fields.sort_unstable();
        assert_eq!(listed, fields, "COLUMNS against the fields of GroupRow");
        for (i, c) in COLUMNS.iter().enumerate() {
            assert!(COLUMNS[..i].iter().all(|d| d.name != c.name), "`{}` listed twice", c.name);
            assert!(!(c.summed && c.unit == Unit::Name), "a name cannot sum: `{}`", c.name);
        }
    }

    #[test]
    fn the_catalogue_matches_the_cells() {
        // the unit says how a cell is written: times as seconds, counts as integers
        let row = GroupRow::new(Scope::All, "all", &GroupStats::default(), &GroupStats::default(), None);
        for (name, cell) in cells(&comparison()).into_iter().chain(cells(&row)) {
            let unit = column(name).expect("in the catalogue").unit;
            let ok = match cell {
                Cell::Empty => unit != Unit::Name || name.starts_with("worst_"),
                Cell::Int(_) => unit == Unit::Count,
                Cell::Secs(_) | Cell::MeanSecs(_) => unit == Unit::Time,
                Cell::Ratio(_) | Cell::Float(_) => unit == Unit::Ratio,
                Cell::Text(_) => unit == Unit::Name,
            };
            assert!(ok, "`{name}`: cell {cell:?} but unit {unit:?}");
        }
    }

    #[test]
    fn docs_metrics_lists_exactly_the_catalogue() {
        // a new metric is a field here plus its catalogue line, and that line in docs/metrics.md
        let docs = include_str!("../../docs/metrics.md");
        let table = columns_table();
        assert!(
            docs.contains(&table),
            "docs/metrics.md, \"Every column\", must hold the catalogue's table as it stands:\n\n{table}"
        );
        let res = ResourceRow { resource: "gpu".into(), capacity: 4, used: Secs(0), utilization: None };
        for name in names(&res) {
            assert!(docs.contains(&format!("`{name}`")), "docs/metrics.md does not describe `{name}`");
        }
    }

    #[test]
    fn json_gives_seconds_and_full_precision() {
        let v = serde_json::to_value(comparison()).expect("serializes");
        assert_eq!(v["wait_p99"], 1.5);
        assert_eq!(v["worst_class_p99"], 0.000003);
        assert_eq!(v["jain"], 0.99995);
        assert!(v["worst_tenant"].is_null());
        let row = GroupRow::new(Scope::Tenant, "A", &GroupStats::default(), &GroupStats::default(), None);
        assert_eq!(serde_json::to_value(&row).expect("serializes")["scope"], "tenant");
        assert_eq!(cells(&row)[0].1, Cell::Text("tenant".into()));
    }
}

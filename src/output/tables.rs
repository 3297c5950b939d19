//! `summary.csv` and `comparison.csv`.

use std::path::Path;

use crate::engine::RunStats;
use crate::error::{Error, Result};
use crate::metrics::GroupStats;
use crate::scenario::Scenario;
use crate::time::{fmt_secs, Time};

/// Headline figures of one policy's run (one row of `comparison.csv`).
#[derive(Debug, Clone, PartialEq)]
pub struct Headline {
    pub label: String,
    pub jobs: u64,
    pub completed: u64,
    pub rejected: u64,
    /// Busy worker time over (workers x makespan).
    pub utilization: f64,
    pub wait_p99: Option<Time>,
    /// Highest per-tenant p99 wait, and whose.
    pub worst_tenant_p99: Option<(String, Time)>,
    pub worst_class_p99: Option<(String, Time)>,
    pub oldest_age_max: Time,
    /// Mean of Jain's index over fairness windows with two or more backlogged tenants.
    pub jain_mean: Option<f64>,
    pub jain_min: Option<f64>,
    pub makespan: Time,
    /// Median over tenants of their p99 wait (nearest-rank, lower median):
    /// the typical tenant's tail, where `worst_tenant_p99` shows the worst.
    pub tenant_p99_median: Option<Time>,
    pub slowdown_mean: Option<f64>,
    pub slowdown_p99: Option<f64>,
    /// Jobs that waited longer than their class's `sla` (starvation events).
    pub sla_misses: u64,
    pub deadline_misses: u64,
}

/// Median over groups of their p99 wait (nearest-rank rank ceil(n/2)).
pub fn median_p99(groups: &[GroupStats]) -> Option<Time> {
    let mut p99s: Vec<Time> = groups.iter().filter_map(|g| g.wait_pct(99.0)).collect();
    p99s.sort_unstable();
    crate::metrics::nearest_rank(&p99s, 50.0)
}

fn worst(groups: &[GroupStats], names: impl Fn(usize) -> String) -> Option<(String, Time)> {
    groups
        .iter()
        .enumerate()
        .filter_map(|(i, g)| g.wait_pct(99.0).map(|p| (i, p)))
        .max_by_key(|&(i, p)| (p, std::cmp::Reverse(i)))
        .map(|(i, p)| (names(i), p))
}

impl Headline {
    pub fn new(label: &str, sc: &Scenario, s: &RunStats) -> Self {
        let util = if s.makespan == 0 || sc.workers == u32::MAX {
            0.0
        } else {
            s.busy as f64 / (sc.workers as f64 * s.makespan as f64)
        };
        let jain_mean = if s.jain_windows.is_empty() {
            None
        } else {
            Some(s.jain_windows.iter().sum::<f64>() / s.jain_windows.len() as f64)
        };
        Headline {
            label: label.to_string(),
            jobs: s.all.jobs,
            completed: s.all.completed,
            rejected: s.all.rejected,
            utilization: util,
            wait_p99: s.all.wait_pct(99.0),
            worst_tenant_p99: worst(&s.tenants, |i| sc.tenants[i].name.clone()),
            worst_class_p99: worst(&s.classes, |i| sc.classes[i].name.clone()),
            oldest_age_max: s.all.oldest_age_max,
            jain_mean,
            jain_min: s.jain_windows.iter().copied().reduce(f64::min),
            makespan: s.makespan,
            tenant_p99_median: median_p99(&s.tenants),
            slowdown_mean: s.all.slowdown_mean(),
            slowdown_p99: s.all.slowdown_pct(99.0),
            sla_misses: s.all.sla_misses,
            deadline_misses: s.all.deadline_misses,
        }
    }
}

fn opt_secs(t: Option<Time>) -> String {
    t.map(fmt_secs).unwrap_or_default()
}

fn opt_f(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.4}")).unwrap_or_default()
}

fn writer(path: &Path) -> Result<csv::Writer<std::fs::File>> {
    csv::Writer::from_path(path).map_err(|e| Error::Other(format!("cannot create {}: {e}", path.display())))
}

fn cerr(e: csv::Error) -> Error {
    Error::Other(format!("writing CSV: {e}"))
}

/// Writes `summary.csv`: one row for all jobs, one per class, one per tenant.
pub fn write_summary(path: &Path, sc: &Scenario, s: &RunStats) -> Result<()> {
    let mut w = writer(path)?;
    let pool_time =
        if s.makespan == 0 || sc.workers == u32::MAX { 0.0 } else { sc.workers as f64 * s.makespan as f64 };
    let frac = |x: f64, total: f64| if total > 0.0 { format!("{:.4}", x / total) } else { String::new() };
    w.write_record([
        "scope",
        "name",
        "jobs",
        "completed",
        "rejected",
        "wait_mean",
        "wait_p50",
        "wait_p95",
        "wait_p99",
        "wait_max",
        "oldest_age_max",
        "failed",
        "expired",
        "unfinished",
        "service",
        "sla_misses",
        "deadline_misses",
        "slowdown_mean",
        "slowdown_p99",
        "share_received",
        "share_entitled",
        "utilization",
    ])
    .map_err(cerr)?;
    let mut row = |scope: &str, name: &str, g: &GroupStats| -> Result<()> {
        w.write_record([
            scope.to_string(),
            name.to_string(),
            g.jobs.to_string(),
            g.completed.to_string(),
            g.rejected.to_string(),
            g.wait_mean().map(|m| format!("{:.6}", m / 1e6)).unwrap_or_default(),
            opt_secs(g.wait_pct(50.0)),
            opt_secs(g.wait_pct(95.0)),
            opt_secs(g.wait_pct(99.0)),
            opt_secs(g.wait_max()),
            fmt_secs(g.oldest_age_max),
            g.failed.to_string(),
            g.expired.to_string(),
            g.unfinished.to_string(),
            fmt_secs(g.service),
            g.sla_misses.to_string(),
            g.deadline_misses.to_string(),
            opt_f(g.slowdown_mean()),
            opt_f(g.slowdown_pct(99.0)),
            frac(g.received, s.all.received),
            frac(g.entitled, s.all.entitled),
            frac(g.service as f64, pool_time),
        ])
        .map_err(cerr)
    };
    row("all", "all", &s.all)?;
    for (c, g) in sc.classes.iter().zip(&s.classes) {
        if g.jobs > 0 {
            row("class", &c.name, g)?;
        }
    }
    for (t, g) in sc.tenants.iter().zip(&s.tenants) {
        if g.jobs > 0 {
            row("tenant", &t.name, g)?;
        }
    }
    w.flush().map_err(|e| Error::io("writing summary.csv", e))
}

/// Column names of `comparison.csv`.
pub const COMPARISON_HEADER: [&str; 20] = [
    "policy",
    "jobs",
    "completed",
    "rejected",
    "utilization",
    "wait_p99",
    "worst_tenant_p99",
    "worst_class_p99",
    "oldest_age_max",
    "jain",
    "makespan",
    "kind",
    "worst_tenant",
    "worst_class",
    "jain_min",
    "tenant_p99_median",
    "slowdown_mean",
    "slowdown_p99",
    "sla_misses",
    "deadline_misses",
];

impl Headline {
    /// The row of `comparison.csv`, in [`COMPARISON_HEADER`] order.
    pub fn record(&self, kind: &str) -> Vec<String> {
        vec![
            self.label.clone(),
            self.jobs.to_string(),
            self.completed.to_string(),
            self.rejected.to_string(),
            format!("{:.4}", self.utilization),
            opt_secs(self.wait_p99),
            opt_secs(self.worst_tenant_p99.as_ref().map(|w| w.1)),
            opt_secs(self.worst_class_p99.as_ref().map(|w| w.1)),
            fmt_secs(self.oldest_age_max),
            opt_f(self.jain_mean),
            fmt_secs(self.makespan),
            kind.to_string(),
            self.worst_tenant_p99.as_ref().map(|w| w.0.clone()).unwrap_or_default(),
            self.worst_class_p99.as_ref().map(|w| w.0.clone()).unwrap_or_default(),
            opt_f(self.jain_min),
            opt_secs(self.tenant_p99_median),
            opt_f(self.slowdown_mean),
            opt_f(self.slowdown_p99),
            self.sla_misses.to_string(),
            self.deadline_misses.to_string(),
        ]
    }
}

/// Writes `comparison.csv`, one row per policy.
pub fn write_comparison(path: &Path, rows: &[(String, Headline)]) -> Result<()> {
    let mut w = writer(path)?;
    w.write_record(COMPARISON_HEADER).map_err(cerr)?;
    for (kind, h) in rows {
        w.write_record(h.record(kind)).map_err(cerr)?;
    }
    w.flush().map_err(|e| Error::io("writing comparison.csv", e))
}

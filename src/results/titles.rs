//! The display names of the columns: how the terminal, report.html and the
//! sweep report head a figure, one name per figure everywhere.

/// How the terminal and the reports head a column: one name per figure
/// everywhere (the column's own name when not listed).
#[rustfmt::skip]
const TITLES: &[(&str, &str)] = &[
    ("completed", "done"),
    ("utilization", "util"),
    ("wait_p99", "p99 wait"),
    ("tenant_p99_median", "median tenant p99"),
    ("worst_tenant_p99", "worst tenant p99"),
    ("worst_tenant", "worst tenant"),
    ("worst_class_p99", "worst class p99"),
    ("oldest_age_max", "oldest age"),
    ("jain", "Jain"),
    ("jain_min", "Jain min"),
    ("gini", "Gini"),
    ("gini_max", "Gini max"),
    ("sla_misses", "SLA misses"),
    ("deferred", "deferred"),
    ("rejected", "rejected"),
    ("makespan", "makespan"),
];

/// The display name of a column (see [`TITLES`]).
pub fn title(name: &str) -> &str {
    TITLES.iter().find(|t| t.0 == name).map_or(name, |t| t.1)
}

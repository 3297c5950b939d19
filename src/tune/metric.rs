//! The figures a requirement or an objective names: the columns of
//! `comparison.csv` (the whole run) and of `summary.csv` (the whole run, a
//! class or a tenant), the kind of number each is, and how one run's
//! figures give a value.

use crate::model::Scenario;
use crate::policy::closest;
use crate::results::cells::{cells, Cell};
use crate::results::{PolicyResult, Scope as GroupScope, Unit, COLUMNS};

/// What a figure counts, which decides the units its bound takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A time, in seconds.
    Secs,
    /// An index, share or ratio: a bare number or a percentage.
    Ratio,
    /// A count of jobs: a bare number.
    Count,
}

/// Whose figure it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    All,
    Class(String),
    Tenant(String),
}

/// The kind of number a column of the results catalogue holds; `None`
/// for names, which no requirement can bound.
fn kind(unit: Unit) -> Option<Kind> {
    match unit {
        Unit::Time => Some(Kind::Secs),
        Unit::Ratio => Some(Kind::Ratio),
        Unit::Count => Some(Kind::Count),
        Unit::Name => None,
    }
}

/// The numeric columns of the catalogue: name, kind, and whether
/// `summary.csv` has it per class and tenant (the others are figures of
/// the whole run only).
fn catalog() -> impl Iterator<Item = (&'static str, Kind, bool)> {
    COLUMNS.iter().filter_map(|c| Some((c.name, kind(c.unit)?, c.files.summary())))
}

/// Short names for the waits, as people say them ("p99 under 2 s").
const ALIASES: &[(&str, &str)] = &[
    ("mean", "wait_mean"),
    ("p50", "wait_p50"),
    ("p95", "wait_p95"),
    ("p99", "wait_p99"),
    ("max", "wait_max"),
];

/// A figure of one group, e.g. `p99(class=interactive)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// The column it is read from.
    pub column: &'static str,
    pub kind: Kind,
    pub scope: Scope,
    /// As written, without spaces: the name of its columns in `tune.csv`.
    pub label: String,
}

/// The column and kind a metric name stands for, and whether it exists
/// per class and tenant; the error offers the nearest name.
pub fn lookup(name: &str) -> Result<(&'static str, Kind, bool), String> {
    let column = ALIASES.iter().find(|(a, _)| *a == name).map_or(name, |(_, c)| c);
    if let Some(found) = catalog().find(|(c, _, _)| *c == column) {
        return Ok(found);
    }
    let names: Vec<&str> = ALIASES.iter().map(|a| a.0).chain(catalog().map(|c| c.0)).collect();
    let hint = closest(name, &names).map(|n| format!("did you mean `{n}`? ")).unwrap_or_default();
    Err(format!("unknown metric `{name}`; {hint}choose one of: {} (docs/tune.md)", names.join(", ")))
}

/// Checks that the scenario has the class or tenant a scope names; the
/// error offers the nearest name.
pub fn check_scope(scope: &Scope, sc: &Scenario) -> Result<(), String> {
    let (what, plural, name, names): (&str, &str, &str, Vec<String>) = match scope {
        Scope::All => return Ok(()),
        Scope::Class(n) => {
            if sc.classes.iter().any(|c| &c.name == n) {
                return Ok(());
            }
            ("class", "classes", n, sc.classes.iter().map(|c| c.name.clone()).collect())
        }
        Scope::Tenant(n) => {
            if sc.tenants.id_of(n).is_some() {
                return Ok(());
            }
            // a generated set may hold a million names: suggest among the first few thousand
            ("tenant", "tenants", n, sc.tenants.names().take(5000).map(|n| n.into_owned()).collect())
        }
    };
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let hint = closest(name, &refs).map(|n| format!("did you mean `{n}`? ")).unwrap_or_default();
    let listed: Vec<&str> = refs.iter().copied().take(12).collect();
    let more = if refs.len() > listed.len() { ", ..." } else { "" };
    Err(format!(
        "the scenario has no {what} `{name}`; {hint}its {plural}: {}{more}",
        if listed.is_empty() { "none".to_string() } else { listed.join(", ") }
    ))
}

impl Metric {
    /// The metric's value in one run; `None` where the run leaves it empty
    /// (no job of the group finished, no window with two backlogged tenants).
    pub fn value(&self, r: &PolicyResult) -> Option<f64> {
        let read = |row: Vec<(&'static str, Cell)>| {
            row.into_iter().find(|(n, _)| *n == self.column).and_then(|(_, c)| number(&c))
        };
        let group = |scope: GroupScope, name: &str| {
            r.groups.iter().find(|g| g.scope == scope && g.name == name).and_then(|g| read(cells(g)))
        };
        match &self.scope {
            // comparison.csv first: its utilization is the pool's, as the table shows it
            Scope::All => read(cells(&r.comparison)).or_else(|| {
                r.groups.iter().find(|g| g.scope == GroupScope::All).and_then(|g| read(cells(g)))
            }),
            Scope::Class(n) => group(GroupScope::Class, n),
            Scope::Tenant(n) => group(GroupScope::Tenant, n),
        }
    }
}

/// A cell as a number: times in seconds.
fn number(c: &Cell) -> Option<f64> {
    match *c {
        Cell::Int(v) => Some(v as f64),
        Cell::Float(v) | Cell::Ratio(v) => Some(v),
        Cell::Secs(t) => Some(t as f64 / 1e6),
        Cell::MeanSecs(us) => Some(us / 1e6),
        Cell::Empty | Cell::Text(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases() {
        assert_eq!(lookup("p99").unwrap(), ("wait_p99", Kind::Secs, true));
        assert_eq!(lookup("jain").unwrap(), ("jain", Kind::Ratio, false));
        assert!(lookup("jian").unwrap_err().contains("did you mean `jain`?"));
        assert!(!lookup("throughput").unwrap_err().contains("did you mean"));
        assert_eq!(number(&Cell::Secs(1_500_000)), Some(1.5));
        assert_eq!(number(&Cell::Text("x".into())), None);
    }
}

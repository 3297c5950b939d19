//! The evidence per class: each class's p99 wait and SLA misses under each
//! entry (from the entries' `summary.csv`), and the worst tenants of each
//! class under each entry (from `tenant_classes.csv`), a few names per
//! cell however many tenants the run had.

use std::path::PathBuf;

use super::format::duration;
use super::tables::html_table;
use super::verdict::cell;
use super::{esc, Table};

/// Tenants named per class and entry.
const WORST: usize = 3;

/// Per class (rows) and entry (columns): p99 wait, and SLA misses when a
/// class has an SLA.
fn class_table(labels: &[String], summaries: &[(PathBuf, Table)]) -> Option<Table> {
    let mut classes: Vec<String> = Vec::new();
    let mut cells: Vec<Vec<(String, String)>> = Vec::new();
    for (_, t) in summaries {
        let rows: Vec<(String, String, String)> = t
            .rows
            .iter()
            .filter(|r| cell(t, r, "scope") == "class")
            .map(|r| {
                (cell(t, r, "name").into(), cell(t, r, "wait_p99").into(), cell(t, r, "sla_misses").into())
            })
            .collect();
        for (c, _, _) in &rows {
            if !classes.contains(c) {
                classes.push(c.clone());
            }
        }
        cells.push(
            classes
                .iter()
                .map(|c| {
                    rows.iter()
                        .find(|r| &r.0 == c)
                        .map_or_else(Default::default, |r| (r.1.clone(), r.2.clone()))
                })
                .collect(),
        );
    }
    if classes.len() < 2 {
        return None;
    }
    let misses = cells.iter().flatten().any(|c| c.1.parse::<f64>().is_ok_and(|m| m > 0.0));
    let mut header = vec!["class".to_string()];
    for l in labels {
        header.push(format!("{l} p99"));
        if misses {
            header.push(format!("{l} SLA misses"));
        }
    }
    let rows = classes
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let mut row = vec![c.clone()];
            for e in &cells {
                let (p99, m) = e.get(k).cloned().unwrap_or_default();
                row.push(p99.parse::<f64>().map_or(p99, duration));
                if misses {
                    row.push(m);
                }
            }
            row
        })
        .collect();
    Some(Table { header, rows })
}

/// Per class (rows) and entry (columns): the [`WORST`] tenants by p99 wait
/// in that class, `t17 1h 44m, t04 1h 43m, …`.
fn worst_table(labels: &[String], tc: &Table) -> Table {
    let mut classes: Vec<String> = Vec::new();
    for r in &tc.rows {
        let c = cell(tc, r, "class").to_string();
        if !classes.contains(&c) {
            classes.push(c);
        }
    }
    let rows = classes
        .iter()
        .map(|c| {
            let mut row = vec![c.clone()];
            for l in labels {
                let mut w: Vec<(f64, &str)> = tc
                    .rows
                    .iter()
                    .filter(|r| cell(tc, r, "policy") == l && cell(tc, r, "class") == c)
                    .filter_map(|r| {
                        Some((cell(tc, r, "wait_p99").parse::<f64>().ok()?, cell(tc, r, "tenant")))
                    })
                    .collect();
                // worst first; ties by name, so the cell does not depend on the file's order
                w.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
                let named: Vec<String> =
                    w.iter().take(WORST).map(|(p, t)| format!("{t} {}", duration(*p))).collect();
                let more = w.len().saturating_sub(WORST);
                let tail = if more > 0 { format!(", … {more} more") } else { String::new() };
                row.push(format!("{}{tail}", named.join(", ")));
            }
            row
        })
        .collect();
    let header = std::iter::once("class".to_string()).chain(labels.iter().cloned()).collect();
    Table { header, rows }
}

/// Writes the section; nothing with fewer than two classes with jobs.
pub(super) fn section(
    labels: &[String],
    summaries: &[(PathBuf, Table)],
    tc: Option<&Table>,
    out: &mut String,
) {
    let Some(t) = class_table(labels, summaries) else { return };
    out.push_str("<h2 id=\"classes\">Evidence: per class</h2>\n");
    out.push_str("<p class=\"note\">Each class's p99 wait under each entry (and its jobs that waited past the class's SLA).</p>\n");
    html_table(&t, out);
    if let Some(tc) = tc {
        out.push_str(&format!(
            "<h3 id=\"tenant-classes\">Worst tenants per class</h3>\n<p class=\"note\">The {WORST} tenants with the \
highest p99 wait in each class under each entry (every tenant and class is in <code>{}</code>).</p>\n",
            esc("tenant_classes.csv")
        ));
        html_table(&worst_table(labels, tc), out);
    }
}

//! The report's tables: CSV rows shown with units (see [`super::format`]),
//! and long tables cut to the rows a reader looks for. A folder of 10,000
//! tenants would otherwise put 10,000 rows per policy into the page (22 MB);
//! the full rows stay in the CSV files.

use std::collections::HashMap;

use super::format::{cell, duration};
use super::{esc, Table};
use crate::results;

/// Rows of one kind (tenants, queues) shown by name; beyond this many, the
/// worst are shown and the rest collapsed into one row.
pub const TOP_ROWS: usize = 20;

/// Writes `t` as an HTML table in a box that scrolls sideways when wide.
/// Numbers are right-aligned; known columns are shown in their units.
pub(super) fn html_table(t: &Table, out: &mut String) {
    html_table_as(t, &t.header, out);
}

/// [`html_table`] with the columns headed `names` (the cells are still
/// formatted by the columns' names in `t`).
pub(super) fn html_table_as(t: &Table, names: &[String], out: &mut String) {
    out.push_str("<div class=\"scroll\"><table>\n<thead><tr>");
    for h in names {
        out.push_str(&format!("<th>{}</th>", esc(h)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in &t.rows {
        out.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            let column = t.header.get(i).map_or("", String::as_str);
            // a number, or a figure with its unit (`8.99 s`, `63.1%`): right-aligned
            let numeric = c.parse::<f64>().is_ok() || c.starts_with(|d: char| d.is_ascii_digit());
            let cls = if i == 0 || !numeric { "" } else { " class=\"n\"" };
            out.push_str(&format!("<td{cls}>{}</td>", esc(&cell(column, c))));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

/// A policy's `summary.csv` as shown: every scope with at most
/// [`TOP_ROWS`] + 1 rows whole; a longer one (tenants, queues) as its
/// [`TOP_ROWS`] rows with the highest p99 wait, worst first, then one row
/// "… and K more tenants" summing their counts and taking their largest
/// waits. Returns the table and how many rows were collapsed.
pub(super) fn summary_view(t: &Table) -> (Table, usize) {
    let (Some(si), Some(pi)) = (col(t, "scope"), col(t, "wait_p99")) else {
        return (t.clone(), 0);
    };
    let mut scopes: Vec<(&str, Vec<&Vec<String>>)> = Vec::new();
    for r in &t.rows {
        let s = r.get(si).map_or("", String::as_str);
        match scopes.iter_mut().find(|(name, _)| *name == s) {
            Some((_, rows)) => rows.push(r),
            None => scopes.push((s, vec![r])),
        }
    }
    let mut rows = Vec::new();
    let mut collapsed = 0;
    for (scope, mut group) in scopes {
        if group.len() <= TOP_ROWS + 1 {
            rows.extend(group.into_iter().cloned());
            continue;
        }
        let p99 =
            |r: &Vec<String>| r.get(pi).and_then(|c| c.parse::<f64>().ok()).unwrap_or(f64::NEG_INFINITY);
        // stable: a tie keeps the file's order
        group.sort_by(|a, b| p99(b).total_cmp(&p99(a)));
        let rest = &group[TOP_ROWS..];
        rows.extend(group[..TOP_ROWS].iter().map(|r| (*r).clone()));
        rows.push(aggregate_row(&t.header, scope, rest));
        collapsed += rest.len();
    }
    (Table { header: t.header.clone(), rows }, collapsed)
}

/// The row standing for `rest`: sums of the columns the results catalogue
/// marks `summed` (counts, service, shares), the largest value of the
/// other numeric ones (waits, ages, slowdowns).
fn aggregate_row(header: &[String], scope: &str, rest: &[&Vec<String>]) -> Vec<String> {
    header
        .iter()
        .enumerate()
        .map(|(i, h)| match h.as_str() {
            "scope" => scope.to_string(),
            "name" => format!("… and {} more {}", rest.len(), plural(scope)),
            _ => {
                let vals: Vec<f64> = rest.iter().filter_map(|r| r.get(i)?.parse::<f64>().ok()).collect();
                if vals.is_empty() {
                    return String::new();
                }
                if results::column(h).is_some_and(|c| c.summed) {
                    let sum: f64 = vals.iter().sum();
                    if h.starts_with("share") {
                        format!("{sum:.4}")
                    } else if sum.fract() == 0.0 {
                        format!("{sum:.0}")
                    } else {
                        format!("{sum:.6}")
                    }
                } else {
                    let max = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    // the cell of the row holding the maximum, so its digits are the file's
                    rest.iter()
                        .filter_map(|r| r.get(i))
                        .find(|c| c.parse::<f64>().ok() == Some(max))
                        .cloned()
                        .unwrap_or_default()
                }
            }
        })
        .collect()
}

fn plural(scope: &str) -> String {
    match scope {
        "class" => "classes".into(),
        s => format!("{s}s"),
    }
}

fn col(t: &Table, name: &str) -> Option<usize> {
    t.header.iter().position(|h| h == name)
}

/// The per-tenant table across policies: a row per tenant, a column per
/// policy, each cell the tenant's p99 wait under that policy. With more
/// than [`TOP_ROWS`] + 1 tenants, the [`TOP_ROWS`] whose worst p99 over
/// the policies is highest (ties by name), then one row with the largest
/// p99 of the rest under each policy. `None` without tenant rows.
pub(super) fn tenant_policy_table(labels: &[String], summaries: &[Table]) -> Option<(Table, usize)> {
    let mut order: Vec<String> = Vec::new();
    let mut cells: HashMap<String, Vec<Option<f64>>> = HashMap::new();
    for (k, t) in summaries.iter().enumerate() {
        let (Some(si), Some(ni), Some(pi)) = (col(t, "scope"), col(t, "name"), col(t, "wait_p99")) else {
            continue;
        };
        for r in t.rows.iter().filter(|r| r.get(si).is_some_and(|s| s == "tenant")) {
            let name = r[ni].clone();
            let row = cells.entry(name.clone()).or_insert_with(|| {
                order.push(name);
                vec![None; labels.len()]
            });
            row[k] = r.get(pi).and_then(|c| c.parse().ok());
        }
    }
    if order.is_empty() {
        return None;
    }
    let worst = |n: &String| cells[n].iter().flatten().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut collapsed = 0;
    let mut rest_max: Option<Vec<Option<f64>>> = None;
    if order.len() > TOP_ROWS + 1 {
        order.sort_by(|a, b| worst(b).total_cmp(&worst(a)).then_with(|| a.cmp(b)));
        let rest = order.split_off(TOP_ROWS);
        collapsed = rest.len();
        let max_of = |k: usize| rest.iter().filter_map(|n| cells[n][k]).reduce(f64::max);
        rest_max = Some((0..labels.len()).map(max_of).collect());
    }
    let show = |v: &Option<f64>| v.map(duration).unwrap_or_default();
    let mut rows: Vec<Vec<String>> =
        order.iter().map(|n| std::iter::once(n.clone()).chain(cells[n].iter().map(show)).collect()).collect();
    if let Some(m) = rest_max {
        let name = format!("… and {collapsed} more tenants (largest)");
        rows.push(std::iter::once(name).chain(m.iter().map(show)).collect());
    }
    let header = std::iter::once("tenant".to_string()).chain(labels.iter().cloned()).collect();
    Some((Table { header, rows }, collapsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(tenants: usize) -> Table {
        let header = ["scope", "name", "jobs", "wait_mean", "wait_p99"].map(String::from).to_vec();
        let mut rows = vec![["all", "all", "0", "0", "0"].map(String::from).to_vec()];
        // tenant i has i + 1 jobs and a p99 of i seconds
        for i in 0..tenants {
            rows.push(vec![
                "tenant".into(),
                format!("t{i:02}"),
                (i + 1).to_string(),
                "1".into(),
                i.to_string(),
            ]);
        }
        Table { header, rows }
    }

    #[test]
    fn thirty_tenants_show_the_twenty_worst_and_one_row_for_ten() {
        let (v, k) = summary_view(&summary(30));
        // 1 "all" row + 20 tenants + 1 collapsed row; t29 (p99 29 s) first
        assert_eq!((v.rows.len(), k), (22, 10));
        assert_eq!(v.rows[1][1], "t29");
        assert_eq!(v.rows[20][1], "t10");
        // the rest are t00..t09: 1 + 2 + ... + 10 = 55 jobs, largest p99 9 s
        assert_eq!(v.rows[21][1], "… and 10 more tenants");
        assert_eq!((v.rows[21][2].as_str(), v.rows[21][4].as_str()), ("55", "9"));
        // 21 tenants: all shown, none collapsed
        let (v, k) = summary_view(&summary(21));
        assert_eq!((v.rows.len(), k), (22, 0));
    }
}

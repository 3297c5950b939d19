//! What `fairsim run` prints: the comparison as a table for people, or as
//! JSON for scripts. Both read the results model ([`crate::results`]).

use crate::results::{Comparison, Secs};

/// Longest tenant or label shown in the table; the CSV files keep the rest.
const MAX_NAME: usize = 40;

/// Seconds to three decimals (the CSV files are exact).
fn secs(t: Option<Secs>) -> String {
    t.map(|t| format!("{:.3}s", t.0 as f64 / 1e6)).unwrap_or_else(|| "-".into())
}

/// `name`, cut to [`MAX_NAME`] characters with an ellipsis.
fn short(name: &str) -> String {
    if name.chars().count() <= MAX_NAME {
        return name.to_string();
    }
    let mut s: String = name.chars().take(MAX_NAME - 1).collect();
    s.push('…');
    s
}

type Column = (&'static str, fn(&Comparison) -> String);

/// The table's columns: a reading selection of the comparison's fields.
const COLUMNS: [Column; 10] = [
    ("policy", |c| short(&c.policy)),
    ("jobs", |c| c.jobs.to_string()),
    ("done", |c| c.completed.to_string()),
    ("util", |c| format!("{:.1}%", c.utilization.0 * 100.0)),
    ("p99 wait", |c| secs(c.wait_p99)),
    ("typical tenant p99", |c| secs(c.tenant_p99_median)),
    ("worst tenant p99", |c| match (&c.worst_tenant, c.worst_tenant_p99) {
        (Some(n), Some(t)) => format!("{} ({})", secs(Some(t)), short(n)),
        _ => "-".into(),
    }),
    ("oldest age", |c| secs(Some(c.oldest_age_max))),
    ("jain", |c| c.jain.map(|j| format!("{:.3}", j.0)).unwrap_or("-".into())),
    ("makespan", |c| secs(Some(c.makespan))),
];

/// The side-by-side comparison printed by `fairsim run`: the first column
/// left-aligned, the others right-aligned, a rule under the header.
pub fn table(rows: &[&Comparison]) -> String {
    let mut table: Vec<Vec<String>> = vec![COLUMNS.iter().map(|(h, _)| h.to_string()).collect()];
    table.extend(rows.iter().map(|r| COLUMNS.iter().map(|(_, f)| f(r)).collect()));
    let widths: Vec<usize> =
        (0..COLUMNS.len()).map(|c| table.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut s = String::new();
    for (i, r) in table.iter().enumerate() {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, v)| {
                // padded by hand: a `{:>w$}` width past 65,535 panics
                let pad = " ".repeat(widths[c] - v.chars().count());
                if c == 0 {
                    format!("{v}{pad}")
                } else {
                    format!("{pad}{v}")
                }
            })
            .collect();
        s.push_str(cells.join("  ").trim_end());
        s.push('\n');
        if i == 0 {
            s.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1)));
            s.push('\n');
        }
    }
    s
}

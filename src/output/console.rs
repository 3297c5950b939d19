//! What `fairsim run` prints: the comparison as a table for people, then
//! the scorecard and its verdict, or JSON for scripts. All read the results
//! model ([`crate::results`]); times in human units, column headings from
//! its catalogue ([`crate::results::title`]).

use crate::results::confidence::{show_interval, Interval, Judgement};
use crate::results::scorecard::show;
use crate::results::{human_duration, title, PolicyResult, Scope, Secs};

/// Longest tenant or label shown in the table; the CSV files keep the rest.
const MAX_NAME: usize = 40;

fn secs(t: Option<Secs>) -> String {
    t.map(|t| human_duration(t.0 as f64 / 1e6)).unwrap_or_else(|| "-".into())
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

type Column = (&'static str, fn(&PolicyResult) -> String);

/// The table's columns: a reading selection of the comparison's fields,
/// headed by their catalogue titles.
const COLUMNS: [Column; 11] = [
    ("policy", |r| short(&r.comparison.policy)),
    ("jobs", |r| r.comparison.jobs.to_string()),
    ("completed", |r| r.comparison.completed.to_string()),
    ("utilization", |r| format!("{:.1}%", r.comparison.utilization.0 * 100.0)),
    ("wait_p99", |r| secs(r.comparison.wait_p99)),
    ("tenant_p99_median", |r| secs(r.comparison.tenant_p99_median)),
    ("worst_tenant_p99", |r| match (&r.comparison.worst_tenant, r.comparison.worst_tenant_p99) {
        (Some(n), Some(t)) => format!("{} ({})", secs(Some(t)), short(n)),
        _ => "-".into(),
    }),
    ("oldest_age_max", |r| secs(Some(r.comparison.oldest_age_max))),
    ("jain", |r| r.comparison.jain.map(|j| format!("{:.3}", j.0)).unwrap_or("-".into())),
    ("sla_misses", |r| r.comparison.sla_misses.to_string()),
    ("makespan", |r| secs(Some(r.comparison.makespan))),
];

/// The classes with jobs, when two or more have (then the table has a p99
/// column per class).
fn classes(r: &PolicyResult) -> Vec<&str> {
    let names: Vec<&str> =
        r.groups.iter().filter(|g| g.scope == Scope::Class).map(|g| g.name.as_str()).collect();
    if names.len() >= 2 {
        names
    } else {
        Vec::new()
    }
}

/// The side-by-side comparison printed by `fairsim run`.
pub fn table(results: &[&PolicyResult]) -> String {
    let class_names = results.first().map(|r| classes(r)).unwrap_or_default();
    let mut header: Vec<String> = COLUMNS.iter().map(|(c, _)| title(c).to_string()).collect();
    header.extend(class_names.iter().map(|c| format!("{c} p99")));
    let mut rows = vec![header];
    for r in results {
        let mut row: Vec<String> = COLUMNS.iter().map(|(_, f)| f(r)).collect();
        for c in &class_names {
            let g = r.groups.iter().find(|g| g.scope == Scope::Class && g.name == *c);
            row.push(secs(g.and_then(|g| g.wait_p99)));
        }
        rows.push(row);
    }
    layout(&rows)
}

/// The scorecard (each objective's figure per entry, pass or FAIL, and the
/// cost columns) and the verdict; over several seeds, one row per entry
/// and objective (the intervals would make a column per objective too wide).
pub fn scorecard(results: &[&PolicyResult], judged: &Judgement) -> String {
    let entries = judged.entries();
    let v = &judged.verdict;
    let mut s = String::new();
    if v.seeds > 1 {
        s.push_str(&over_seeds(results, judged));
    } else if let Some(first) = results.first().filter(|r| !r.objectives.is_empty()) {
        let mut header = vec!["policy".to_string()];
        header.extend(first.objectives.iter().map(|o| o.heading()));
        header.extend(["utilization", "rejected", "deferred", "makespan"].map(|c| title(c).to_string()));
        let mut rows = vec![header];
        for r in results {
            let c = &r.comparison;
            let mut row = vec![short(&c.policy)];
            row.extend(r.objectives.iter().map(|o| o.cell()));
            row.push(format!("{:.1}%", c.utilization.0 * 100.0));
            row.push(c.rejected.to_string());
            row.push(c.deferred.to_string());
            row.push(secs(Some(c.makespan)));
            rows.push(row);
        }
        s.push_str("\nscorecard\n");
        s.push_str(&layout(&rows));
    }
    s.push('\n');
    for line in v.lines(&entries) {
        s.push_str(&line);
        s.push('\n');
    }
    s
}

/// The scorecard over several seeds: per entry, each objective's mean with
/// its interval and status, then the costs' means and intervals.
fn over_seeds(results: &[&PolicyResult], judged: &Judgement) -> String {
    let n = judged.verdict.seeds;
    let mut s = String::new();
    if results.iter().any(|r| !r.objectives.is_empty()) {
        let mut rows =
            vec![["policy", "objective", "figure [95% interval]", "status"].map(String::from).to_vec()];
        for r in results {
            for (i, o) in r.objectives.iter().enumerate() {
                let fig = o.figure.map_or("-".into(), |f| show(&o.measure, o.unit, f));
                let who = o.tenant.as_ref().map_or(String::new(), |t| format!(" ({})", short(t)));
                let status = if o.status == "fail" { "FAIL" } else { o.status };
                rows.push(vec![
                    if i == 0 { short(&r.comparison.policy) } else { String::new() },
                    o.heading(),
                    format!("{fig}{}{who}", show_interval(&o.measure, o.unit, o.lo, o.hi)),
                    status.to_string(),
                ]);
            }
        }
        s.push_str(&format!("\nscorecard over {n} seeds: the mean of each figure and its 95% interval\n"));
        s.push_str(&layout_with(&rows, 2));
    }
    let cost = |measure: &str, unit: &str, i: &Interval| {
        let interval = match (i.lo, i.hi) {
            (Some(lo), Some(hi)) if lo != hi => show_interval(measure, unit, i.lo, i.hi),
            _ => String::new(),
        };
        format!("{}{interval}", show(measure, unit, i.mean))
    };
    let mut rows = vec![["policy", "utilization", "rejected", "deferred", "makespan"]
        .map(|c| title(c).to_string())
        .to_vec()];
    for (r, c) in results.iter().zip(&judged.costs) {
        rows.push(vec![
            short(&r.comparison.policy),
            cost("utilization", "ratio", &c.utilization),
            cost("rejected", "count", &c.rejected),
            cost("deferred", "count", &c.deferred),
            cost("makespan", "s", &c.makespan),
        ]);
    }
    s.push_str(&format!("\ncosts over {n} seeds (an interval where the seeds differ)\n"));
    s.push_str(&layout(&rows));
    s
}

/// Rows as aligned text: the first column left-aligned, the others
/// right-aligned, a rule under the header.
fn layout(table: &[Vec<String>]) -> String {
    layout_with(table, 1)
}

/// [`layout`] with the first `left` columns left-aligned.
fn layout_with(table: &[Vec<String>], left: usize) -> String {
    let n = table.first().map_or(0, Vec::len);
    let widths: Vec<usize> =
        (0..n).map(|c| table.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut s = String::new();
    for (i, r) in table.iter().enumerate() {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, v)| {
                // padded by hand: a `{:>w$}` width past 65,535 panics
                let pad = " ".repeat(widths[c] - v.chars().count());
                if c < left {
                    format!("{v}{pad}")
                } else {
                    format!("{pad}{v}")
                }
            })
            .collect();
        s.push_str(cells.join("  ").trim_end());
        s.push('\n');
        if i == 0 {
            s.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len().max(1) - 1)));
            s.push('\n');
        }
    }
    s
}

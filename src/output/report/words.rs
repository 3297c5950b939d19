//! Numbers and lists as a sentence carries them: `20,000`, `a, b and c`,
//! and an objective in words (`p99 wait of critical jobs at most 5.00 s`).

use super::verdict::Scored;
use crate::model::{Objective, Scenario, TenantScope};
use crate::results::scorecard::show;

/// A count with thousands separators: `20000` -> `20,000`.
pub(super) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `a`, `a and b`, `a, b and c`.
pub(super) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// At most `keep` names, then `and K more`.
pub(super) fn some_of(names: &[String], keep: usize) -> String {
    if names.len() <= keep {
        return and_list(names);
    }
    format!("{} and {} more", names[..keep].join(", "), names.len() - keep)
}

/// `s` when `n` is not 1.
pub(super) fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// What a scorecard `measure` is, in words.
fn measure_words(measure: &str) -> String {
    match measure {
        "wait_max" => "longest wait".into(),
        "wait_mean" => "mean wait".into(),
        "sla_misses" => "share of jobs waiting past their SLA".into(),
        "share" => "service over its fair share".into(),
        "jain" => "mean Jain's index".into(),
        "gini" => "mean Gini coefficient".into(),
        "rejected" => "jobs rejected".into(),
        "deferred" => "jobs deferred".into(),
        m => match m.strip_prefix("wait_") {
            Some(p) => format!("{p} wait"),
            None => m.to_string(),
        },
    }
}

/// Whose jobs an objective looks at, from the scenario's objective when
/// known (it lists the tenants an `all_but` exempts), else from the row.
fn subject(s: &Scored, declared: Option<&Objective>, sc: Option<&Scenario>) -> Option<String> {
    let r = &s.row;
    let class = r.class.as_ref().map(|c| format!("{c} jobs"));
    let names = |ts: &[u32]| -> Vec<String> {
        ts.iter().map(|t| sc.map_or(t.to_string(), |sc| sc.tenants.name(*t).into_owned())).collect()
    };
    let tenants = match (declared.map(|o| &o.tenants), r.scope) {
        (Some(TenantScope::Each(ts)), _) if ts.len() == 1 => Some(names(ts).remove(0)),
        (Some(TenantScope::Each(ts)), _) => Some(format!("each of {}", and_list(&names(ts)))),
        (Some(TenantScope::AllBut(ts)), _) if ts.is_empty() => Some("each tenant".into()),
        (Some(TenantScope::AllBut(ts)), _) => {
            Some(format!("every tenant but {} (each on its own)", and_list(&names(ts))))
        }
        (Some(TenantScope::All), _) => None,
        (None, "each") => Some(r.tenant.clone().map_or("each listed tenant".into(), |t| t)),
        (None, "all_but") => Some("every tenant but the exempt (each on its own)".into()),
        (None, _) => None,
    };
    match (tenants, class) {
        (Some(t), Some(c)) => Some(format!("{t} ({c})")),
        (t, c) => t.or(c),
    }
}

/// An objective in words: `p99 wait of critical jobs at most 5.00 s`,
/// `utilization at least 80.0%`.
pub(super) fn objective(s: &Scored, sc: Option<&Scenario>) -> String {
    let r = &s.row;
    let declared = sc.and_then(|sc| sc.objectives.iter().find(|o| o.name == r.objective));
    let what = measure_words(&r.measure);
    let whole_run = matches!(r.measure.as_str(), "utilization" | "makespan" | "jain" | "gini");
    let what = match subject(s, declared, sc) {
        Some(who) if !whole_run => format!("{what} of {who}"),
        _ => what,
    };
    let op = if r.direction == "at_least" { "at least" } else { "at most" };
    format!("{what} {op} {}", show(&r.measure, r.unit, r.bound))
}

//! "The question": the scenario in words (the pool, the classes, the
//! tenants and which of them floods, the span of the arrivals) and what the
//! objectives ask of the entries. Derived from the scenario echoed in the
//! folder and from the CSV files, so it reads right for any scenario.

use super::verdict::{cell, scored, Scored};
use super::words::{and_list, count, objective, plural, some_of};
use super::{esc, Run};
use crate::model::{ArrivalSpec, Scenario, TenantScope};
use crate::results::human_duration;
use crate::time::to_secs_f64;

/// A tenant floods when it submits at least this many times the median
/// tenant's jobs: far enough out that an ordinary busy tenant is not named.
pub(super) const FLOOD_FACTOR: u64 = 10;

/// (tenant, jobs submitted) from the first entry's summary: every entry sees
/// the same arrivals, so any entry's counts are the run's.
pub(super) fn tenant_jobs(run: &Run) -> Vec<(String, u64)> {
    let Some((_, t)) = run.summaries.first() else { return Vec::new() };
    t.rows
        .iter()
        .filter(|r| cell(t, r, "scope") == "tenant")
        .map(|r| (cell(t, r, "name").to_string(), cell(t, r, "jobs").parse().unwrap_or(0)))
        .collect()
}

/// The median of the tenants' job counts (the lower one of an even count).
fn median(jobs: &[(String, u64)]) -> u64 {
    let mut n: Vec<u64> = jobs.iter().map(|j| j.1).collect();
    n.sort_unstable();
    n.get(n.len().saturating_sub(1) / 2).copied().unwrap_or(0)
}

/// The tenants that flood (see [`FLOOD_FACTOR`]), most jobs first.
pub(super) fn flooders(jobs: &[(String, u64)]) -> Vec<(String, u64)> {
    let m = median(jobs).max(1);
    let mut f: Vec<(String, u64)> =
        jobs.iter().filter(|j| jobs.len() > 1 && j.1 >= FLOOD_FACTOR * m).cloned().collect();
    f.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    f
}

fn secs(t: u64) -> String {
    human_duration(to_secs_f64(t))
}

/// The pool the entries share, as a phrase: `a pool of 10 workers`.
fn pool(sc: &Scenario) -> String {
    let res: Vec<String> = sc.resources.iter().map(|(n, c)| format!("{n} {c}")).collect();
    let mut s = if sc.workers == u32::MAX {
        format!("a pool bounded by its resources ({})", res.join(", "))
    } else if res.is_empty() {
        format!("a pool of {} worker{}", count(u64::from(sc.workers)), plural(u64::from(sc.workers)))
    } else {
        format!("a pool of {} workers with resources {}", count(u64::from(sc.workers)), res.join(", "))
    };
    if !sc.capacity.is_empty() {
        let n = sc.capacity.len() as u64;
        s.push_str(&format!(", whose worker count changes {n} time{} during the run", plural(n)));
    }
    s
}

/// The classes that have jobs, in words.
fn classes(sc: &Scenario, run: &Run) -> Option<String> {
    let with_jobs: Vec<String> = run.summaries.first().map_or(Vec::new(), |(_, t)| {
        t.rows
            .iter()
            .filter(|r| cell(t, r, "scope") == "class")
            .map(|r| cell(t, r, "name").to_string())
            .collect()
    });
    let mut declared: Vec<&crate::model::ClassSpec> = sc.classes.iter().collect();
    // most urgent first, as the scheduler sees them; stable for equal priorities
    declared.sort_by_key(|c| c.priority);
    let shown: Vec<String> = declared
        .into_iter()
        .filter(|c| with_jobs.contains(&c.name))
        .map(|c| {
            let sla = c.sla.map_or("no SLA".into(), |t| format!("SLA {}", secs(t)));
            format!("{} (priority {}, {sla})", c.name, c.priority)
        })
        .collect();
    (shown.len() > 1).then(|| {
        format!(
            "Jobs come in {} classes: {}; a lower priority number runs first.",
            shown.len(),
            and_list(&shown)
        )
    })
}

/// When the last job arrives: (time, whether it is an expectation, as for
/// a Poisson stream bounded by a count); `None` for a replayed trace.
fn last_arrival(sc: &Scenario) -> Option<(u64, bool)> {
    if !sc.traces.is_empty() {
        return None;
    }
    let ends = sc.workload.iter().map(|e| match e.arrivals {
        ArrivalSpec::Batch { at, .. } => (at, false),
        ArrivalSpec::Poisson { start, stop: Some(stop), .. } => (start.max(stop), false),
        ArrivalSpec::Poisson { start, count, .. } => {
            let rate = e.arrivals.mean_rate().unwrap_or(1.0);
            (start + (count.unwrap_or(0) as f64 / rate * 1e6) as u64, true)
        }
        ArrivalSpec::Every { every, start, stop, count } => {
            let by_count = count.map(|c| start + every * c.saturating_sub(1));
            let end = match (stop, by_count) {
                (Some(s), Some(c)) => s.min(c),
                (Some(s), None) => s,
                (None, c) => c.unwrap_or(start),
            };
            (end, false)
        }
    });
    ends.fold(None, |a: Option<(u64, bool)>, e| match a {
        Some(a) if a.0 >= e.0 => Some(a),
        _ => Some(e),
    })
}

/// When the entries' runs end (the makespan), in words.
fn ends(run: &Run) -> String {
    let cmp = run.comparison;
    let mut m: Vec<(f64, &str)> = cmp
        .rows
        .iter()
        .filter_map(|r| Some((cell(cmp, r, "makespan").parse().ok()?, cell(cmp, r, "policy"))))
        .collect();
    m.sort_by(|a, b| a.0.total_cmp(&b.0));
    match (m.first(), m.last()) {
        (Some(a), Some(b)) if m.len() > 1 && a.0 != b.0 => format!(
            "the last job ends between {} ({}) and {} ({}), depending on the entry",
            human_duration(a.0),
            a.1,
            human_duration(b.0),
            b.1
        ),
        (Some(a), _) => format!("the last job ends at {}", human_duration(a.0)),
        _ => String::new(),
    }
}

/// The question the objectives ask, as a sentence.
fn asked(score: &[Scored], sc: Option<&Scenario>, entries: usize) -> String {
    let first = score.first().map(|s| s.row.policy.clone()).unwrap_or_default();
    let rows: Vec<&Scored> = score.iter().filter(|s| s.row.policy == first).collect();
    let protect: Vec<String> = rows.iter().filter(|s| !s.row.cost).map(|s| objective(s, sc)).collect();
    let costs: Vec<String> = rows.iter().filter(|s| s.row.cost).map(|s| objective(s, sc)).collect();
    let implied = rows.first().is_some_and(|s| s.row.source == "sla");
    let mut q = String::new();
    if implied {
        q.push_str("No objectives are declared, so each class's SLA stands for one. ");
    }
    let which = format!("Which of the {entries} entries");
    match (protect.is_empty(), costs.is_empty()) {
        (false, false) => q.push_str(&format!(
            "{which} keep {}, and at what cost ({})?",
            and_list(&protect),
            and_list(&costs)
        )),
        (false, true) => q.push_str(&format!("{which} keep {}, and at what cost?", and_list(&protect))),
        (true, _) => q.push_str(&format!("{which} hold {}?", and_list(&costs))),
    }
    q
}

/// Writes the section.
pub(super) fn section(run: &Run, out: &mut String) {
    out.push_str("<h2 id=\"question\">The question</h2>\n<div class=\"story\">\n");
    let jobs = tenant_jobs(run);
    let total: u64 = jobs.iter().map(|j| j.1).sum();
    let mut p = Vec::new();
    if let Some(sc) = run.sc {
        // the entries of this folder: `--policy` may have replaced the file's list
        let topologies = run
            .labels
            .iter()
            .filter(|l| sc.policies.iter().any(|e| &e.label == *l && e.topology.is_some()))
            .count();
        let pooled = run.labels.len() - topologies;
        let topo = match topologies {
            0 => String::new(),
            k => format!(
                "; {pooled} of the {} entries run it as one queue served by every worker, {k} arrange it into \
queues and pools of their own (see the contenders)",
                run.labels.len()
            ),
        };
        p.push(format!(
            "{} tenant{} share {}{topo}.",
            count(jobs.len() as u64),
            plural(jobs.len() as u64),
            pool(sc)
        ));
        p.extend(classes(sc, run));
    } else if !jobs.is_empty() {
        p.push(format!("{} tenants share the pool.", count(jobs.len() as u64)));
    }
    if !jobs.is_empty() {
        let m = median(&jobs);
        let mut s = format!(
            "They submit {} jobs in all, the same arrivals under every entry; the median tenant submits {}.",
            count(total),
            count(m)
        );
        let flood = flooders(&jobs);
        let pct = |n: u64| 100.0 * n as f64 / total.max(1) as f64;
        let times = |n: u64| n as f64 / m.max(1) as f64;
        match flood.as_slice() {
            [] => {
                if let Some(b) = jobs.iter().max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0))) {
                    s.push_str(&format!(
                        " No tenant floods: the busiest, {}, submits {} jobs ({:.1}× the median).",
                        b.0,
                        count(b.1),
                        times(b.1)
                    ));
                }
            }
            [(t, n)] => s.push_str(&format!(
                " The flood: {t} submits {} jobs, {:.1}% of all and {:.0}× the median tenant's.",
                count(*n),
                pct(*n),
                times(*n)
            )),
            many => {
                let named: Vec<String> =
                    many.iter().map(|(t, n)| format!("{t} ({} jobs)", count(*n))).collect();
                let sum: u64 = many.iter().map(|f| f.1).sum();
                s.push_str(&format!(
                    " {} tenants flood, each with at least {FLOOD_FACTOR}× the median: {}; together {:.1}% of all jobs.",
                    many.len(),
                    some_of(&named, 5),
                    pct(sum)
                ));
            }
        }
        p.push(s);
    }
    if let Some(sc) = run.sc {
        let exempt: Vec<String> = sc
            .objectives
            .iter()
            .filter_map(|o| match &o.tenants {
                TenantScope::AllBut(ts) if !ts.is_empty() => Some(ts.clone()),
                _ => None,
            })
            .flatten()
            .map(|t| sc.tenants.name(t).into_owned())
            .fold(Vec::new(), |mut v, n| {
                if !v.contains(&n) {
                    v.push(n);
                }
                v
            });
        if !exempt.is_empty() {
            p.push(format!(
                "The objectives protect every tenant but {}: the others are the ones a flood must not hurt.",
                and_list(&exempt)
            ));
        }
        let span = match last_arrival(sc) {
            None => "Jobs arrive as the replayed trace recorded them".to_string(),
            Some((0, _)) => "Every job arrives at once, at 0 s".to_string(),
            Some((t, about)) => {
                format!("Jobs arrive from 0 s until {}{}", if about { "about " } else { "" }, secs(t))
            }
        };
        p.push(format!("{span}; {}.", ends(run)));
    }
    let score = run.scorecard.map_or(Vec::new(), scored);
    if score.is_empty() {
        p.push(
            "No objective is declared (no <code>objectives:</code> and no class <code>sla:</code>): the \
report compares the entries without naming a winner."
                .into(),
        );
        for s in &p[..p.len() - 1] {
            out.push_str(&format!("<p>{}</p>\n", esc(s)));
        }
        out.push_str(&format!("<p>{}</p>\n", p[p.len() - 1]));
    } else {
        for s in &p {
            out.push_str(&format!("<p>{}</p>\n", esc(s)));
        }
        let q = asked(&score, run.sc, run.labels.len());
        out.push_str(&format!("<p class=\"asked\" id=\"asked\"><strong>{}</strong></p>\n", esc(&q)));
    }
    out.push_str("</div>\n");
}

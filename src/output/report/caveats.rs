//! "Caveats fairsim knows": what the simulation leaves out that a reviewer
//! should weigh, derived from the run: the ideal estimator and where the
//! entries lean on it, how many seeds the figures rest on, the dispatch
//! overhead not modelled, a replayed trace's missing load, and what the
//! data shows (jobs left unfinished, jobs admission refused).

use std::path::PathBuf;

use super::verdict::{cell, seeds};
use super::words::{and_list, count, plural, some_of};
use super::{esc, Run, Table};
use crate::model::{Limit, Predictor, Scenario, Value};

/// The entries whose policy or admission uses a job's true service before it
/// has run: `cost: work` charged by the oracle, and a backlog prediction.
fn oracle_users(sc: &Scenario) -> Vec<String> {
    sc.policies
        .iter()
        .filter(|p| {
            let work = matches!(p.params.value("cost"), Some(Value::Word("work")));
            let oracle = !matches!(p.params.value("charge"), Some(Value::Word(w)) if *w != "oracle");
            let run = sc.for_run(p);
            let backlog = run.admission.iter().any(|r| {
                matches!(r.limit, Limit::Delay { predict: Predictor::Backlog, .. } | Limit::QueuedWork(_))
            });
            (work && oracle) || backlog
        })
        .map(|p| p.label.clone())
        .collect()
}

/// Per entry, the count in `column` of its summary's `all` row, where not 0.
fn counted(labels: &[String], summaries: &[(PathBuf, Table)], column: &str) -> Vec<(String, u64)> {
    labels
        .iter()
        .zip(summaries)
        .filter_map(|(l, (_, t))| {
            let r = t.rows.iter().find(|r| cell(t, r, "scope") == "all")?;
            let n: u64 = cell(t, r, column).parse().ok()?;
            (n > 0).then(|| (l.clone(), n))
        })
        .collect()
}

fn per_entry(items: &[(String, u64)]) -> String {
    let named: Vec<String> = items.iter().map(|(l, n)| format!("{l} {}", count(*n))).collect();
    some_of(&named, 6)
}

/// Whether the echoed scenario replays a trace (also when it could not be
/// loaded here, as a trace's path may not resolve from the folder).
fn replays_trace(run: &Run) -> bool {
    match run.sc {
        Some(sc) => !sc.traces.is_empty(),
        None => run.yaml.is_some_and(|y| {
            y.lines().any(|l| l.contains("--trace") || l.trim_start().starts_with("- trace:"))
        }),
    }
}

/// The caveats, each a sentence of HTML.
pub(super) fn caveats(run: &Run) -> Vec<String> {
    let mut out = Vec::new();
    let users = run.sc.map_or(Vec::new(), oracle_users);
    let ideal = "The estimator is ideal: wherever a policy or an admission rule uses a job's service time before it runs \
(work-based charging, a backlog's predicted delay), fairsim gives it the true service, which no real scheduler knows";
    out.push(match users.as_slice() {
        [] => format!(
            "{ideal}. No entry here orders or admits by service time, so this does not flatter any of them."
        ),
        u => format!(
            "{ideal}; here {} do{}, so in production they would do somewhat worse.",
            esc(&and_list(u)),
            if u.len() == 1 { "es" } else { "" }
        ),
    });
    let n = seeds(run.scorecard);
    let seed = run.sc.map_or(String::new(), |sc| format!(" ({})", sc.seed));
    out.push(if n > 1 {
        format!(
            "{n} seeds: each figure is the mean over {n} replays with common random numbers, shown with its 95% interval; \
an objective whose interval straddles its bound is marked uncertain."
        )
    } else {
        format!(
            "One seed{seed}: each figure is one draw of the arrivals and service times. Differences between entries are \
of policy, not of luck (every entry sees the same draw), but how far a figure would move on another draw is \
unknown: <code>fairsim run --seeds N</code> gives each a 95% interval."
        )
    });
    out.push(
        "No dispatch overhead is modelled: fetching, claiming and acknowledging a job take no time, so a worker starts \
its next job the instant one ends (a real processor spends a round trip to its queue on each)."
            .into(),
    );
    if replays_trace(run) {
        out.push(
            "The arrivals replay a trace: load the trace did not record (other producers, jobs outside its window, \
retries a producer made elsewhere) is missing, so the waits here may be lower than production's."
                .into(),
        );
    }
    let unfinished = counted(run.labels, run.summaries, "unfinished");
    if !unfinished.is_empty() {
        let total: u64 = unfinished.iter().map(|u| u.1).sum();
        out.push(format!(
            "The run ended with job{} still queued or running: {}. A job that never started has no wait, so \
those entries' wait figures understate their delay.",
            plural(total),
            esc(&per_entry(&unfinished))
        ));
    }
    let rejected = counted(run.labels, run.summaries, "rejected");
    if !rejected.is_empty() {
        out.push(format!(
            "Admission rejected jobs ({}): a rejected job has no wait, so those entries' wait figures leave out the \
work they turned away.",
            esc(&per_entry(&rejected))
        ));
    }
    let expired = counted(run.labels, run.summaries, "expired");
    if !expired.is_empty() {
        out.push(format!("Jobs expired before they started ({}).", esc(&per_entry(&expired))));
    }
    out
}

/// Writes the section.
pub(super) fn section(run: &Run, out: &mut String) {
    out.push_str("<h2 id=\"caveats\">Caveats fairsim knows</h2>\n<ul class=\"caveats\">\n");
    for c in caveats(run) {
        out.push_str(&format!("<li>{c}</li>\n"));
    }
    out.push_str("</ul>\n");
}

//! The scorecard and the verdict in words, as the terminal and the reports
//! show them (the figures and the judging are [`super::scorecard`]'s).

use super::confidence;
use super::scorecard::{EntryScore, ScoreRow, Source, Verdict, FAIL};

/// A figure as the terminal and the reports show it: times in human units,
/// utilization and SLA-miss fractions as percentages, other ratios to three
/// decimals, counts whole.
pub fn show(measure: &str, unit: &str, v: f64) -> String {
    match unit {
        "s" => super::human_duration(v),
        // a mean over seeds may fall between two counts
        "count" if v.fract() != 0.0 => format!("{v:.1}"),
        "count" => format!("{v:.0}"),
        _ if measure == "utilization" || measure == "sla_misses" => format!("{:.1}%", v * 100.0),
        _ => format!("{v:.3}"),
    }
}

impl ScoreRow {
    /// The objective with its bound, e.g. `critical p99 <= 5.00 s`.
    pub fn heading(&self) -> String {
        let op = if self.direction == "at_least" { ">=" } else { "<=" };
        format!("{} {op} {}", self.objective, show(&self.measure, self.unit, self.bound))
    }

    /// The figure (`-` when none), its interval over the seeds when there
    /// is one, whose it is, and pass, FAIL or uncertain.
    pub fn cell(&self) -> String {
        let fig = self.figure.map_or("-".into(), |f| show(&self.measure, self.unit, f));
        let interval = confidence::show_interval(&self.measure, self.unit, self.lo, self.hi);
        let who = self.tenant.as_ref().map_or(String::new(), |t| format!(" ({t})"));
        let status = match self.status {
            FAIL => "FAIL",
            s => s,
        };
        format!("{fig}{interval}{who} {status}")
    }
}

impl Verdict {
    /// The verdict in sentences, one per line, for the terminal and the
    /// reports (which escape it).
    pub fn lines(&self, entries: &[EntryScore]) -> Vec<String> {
        let mut out = Vec::new();
        match self.source {
            Source::None => {
                out.push(
                    "No objective was declared (no `objectives:` and no class `sla:`): nothing is judged, \
and no entry is named best from a single column."
                        .into(),
                );
                return out;
            }
            Source::Sla => out.push(
                "No `objectives:` declared: each class with an `sla:` is judged by its p99 wait at most its sla."
                    .into(),
            ),
            Source::Declared => {}
        }
        let n = entries.len();
        let mut certainly = "";
        if self.seeds > 1 {
            out.push(confidence::seeds_line(self.seeds));
            certainly = " with certainty";
        }
        if self.passing.is_empty() {
            out.push(format!("None of the {n} entries meets every objective{certainly}."));
        } else {
            out.push(format!(
                "{} of {n} entries {} every objective{certainly}, cheapest first: {}.",
                self.passing.len(),
                if self.passing.len() == 1 { "meets" } else { "meet" },
                self.passing.join(", ")
            ));
        }
        out.extend(self.uncertain.iter().map(|u| u.line(entries)));
        for f in &self.failing {
            let row = entries
                .iter()
                .find(|e| e.policy == f.policy)
                .and_then(|e| e.rows.iter().find(|r| r.objective == f.objective));
            let measure = row.map_or("", |r| r.measure.as_str());
            let fig =
                f.figure.map_or("no figure (none of its jobs started)".into(), |v| show(measure, f.unit, v));
            let fig = fig + &confidence::show_interval(measure, f.unit, f.lo, f.hi);
            let who = f.tenant.as_ref().map_or(String::new(), |t| format!(" ({t})"));
            let by = f.by.map_or(String::new(), |b| format!(", off by {}", show(measure, f.unit, b)));
            let more = match f.broken {
                1 => String::new(),
                k => format!("; {k} objectives broken"),
            };
            let heading = row.map_or(f.objective.clone(), |r| r.heading());
            out.push(format!("{} breaks `{heading}` first: {fig}{who}{by}{more}.", f.policy));
        }
        out.extend(
            self.paired
                .chunk_by(|a, b| (&a.policy, &a.versus) == (&b.policy, &b.versus))
                .map(confidence::pair_line),
        );
        if self.seeds <= 1 {
            out.push(confidence::ONE_SEED.into());
        }
        out
    }
}

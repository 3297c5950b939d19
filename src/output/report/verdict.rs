//! The scorecard and the verdict, rebuilt from `scorecard.csv` and
//! `comparison.csv`: each objective's figure per entry with its status, the
//! cost columns, then the verdict's sentences.
//!
//! A run with `--seeds N` adds `seeds`, `lo`, `hi` (the 95% interval of the
//! figure's mean) and `status` (`pass`, `fail` or `uncertain`) to
//! `scorecard.csv`; they are read from the file's header, so a folder
//! written before they existed (one seed) reads as it always did.

use super::{esc, format, Table};
use crate::results::{self, scorecard::show};
use results::confidence::PairedDifference;
use results::scorecard::{verdict, EntryScore, ScoreRow};

/// One scorecard row with what the seeds add.
pub(super) struct Scored {
    pub row: ScoreRow,
    /// The 95% interval of the figure's mean, with two seeds or more.
    pub interval: Option<(f64, f64)>,
    /// `pass`, `fail` or `uncertain`.
    pub status: String,
}

/// The cell of column `c` in row `r` of `t`; empty when the column is absent.
pub(super) fn cell<'a>(t: &'a Table, r: &'a [String], c: &str) -> &'a str {
    t.header.iter().position(|h| h == c).and_then(|i| r.get(i)).map_or("", String::as_str)
}

/// Every row of `scorecard.csv`, in the file's order.
pub(super) fn scored(t: &Table) -> Vec<Scored> {
    t.rows
        .iter()
        .map(|r| {
            let row = ScoreRow::from_cells(|c| cell(t, r, c));
            let num = |c: &str| cell(t, r, c).parse::<f64>().ok();
            let status = match cell(t, r, "status") {
                "" => if row.pass { "pass" } else { "fail" }.to_string(),
                s => s.to_string(),
            };
            Scored { interval: num("lo").zip(num("hi")), status, row }
        })
        .collect()
}

/// The number of seeds behind the figures: the largest `seeds` cell, 1
/// when the column is absent (a one-seed run writes none).
pub(super) fn seeds(t: Option<&Table>) -> u64 {
    t.map_or(1, |t| t.rows.iter().filter_map(|r| cell(t, r, "seeds").parse::<u64>().ok()).max().unwrap_or(1))
}

/// The number of seeds behind the scorecard's figures (1 without rows).
pub(super) fn seeds_of(score: &[Scored]) -> usize {
    score.iter().map(|s| s.row.seeds).max().unwrap_or(1)
}

/// An entry's status over its rows: `fail` when one fails, else
/// `uncertain` when one is, else `pass`.
pub(super) fn entry_status<'a>(rows: impl Iterator<Item = &'a Scored>) -> &'static str {
    let mut status = "pass";
    for s in rows {
        match s.status.as_str() {
            "fail" => return "fail",
            "uncertain" => status = "uncertain",
            _ => {}
        }
    }
    status
}

/// A figure as the scorecard shows it: `5.09 s`, with its interval
/// `5.09 s [4.80 s, 5.41 s]`, and whose it is.
pub(super) fn figure_text(s: &Scored) -> String {
    let r = &s.row;
    let fig = r.figure.map_or("-".into(), |f| show(&r.measure, r.unit, f));
    let interval = s.interval.map_or(String::new(), |(lo, hi)| {
        format!(" [{}, {}]", show(&r.measure, r.unit, lo), show(&r.measure, r.unit, hi))
    });
    let who = r.tenant.as_ref().map_or(String::new(), |t| format!(" ({t})"));
    format!("{fig}{interval}{who}")
}

/// The entries as the verdict takes them, in `comparison.csv`'s order.
fn entries(score: &[Scored], cmp: &Table) -> Vec<EntryScore> {
    cmp.rows
        .iter()
        .map(|r| {
            let policy = cell(cmp, r, "policy").to_string();
            let num = |c: &str| cell(cmp, r, c).parse::<f64>().unwrap_or(0.0);
            EntryScore {
                rows: score.iter().filter(|s| s.row.policy == policy).map(|s| s.row.clone()).collect(),
                utilization: num("utilization"),
                rejected_deferred: (num("rejected") + num("deferred")) as u64,
                makespan: num("makespan"),
                policy,
            }
        })
        .collect()
}

/// The paired differences of `seeds_paired.csv`, in the file's order (the
/// verdict's: a pair's figures together). A row whose words this fairsim
/// does not write (a folder from another version) is left out rather than
/// misread.
fn paired(t: &Table) -> Vec<PairedDifference> {
    let word = |v: &str, words: &[&'static str]| words.iter().copied().find(|w| *w == v);
    t.rows
        .iter()
        .filter_map(|r| {
            let text = |c: &str| cell(t, r, c).to_string();
            let num = |c: &str| cell(t, r, c).parse::<f64>().ok();
            Some(PairedDifference {
                policy: text("policy"),
                versus: text("versus"),
                compared: word(cell(t, r, "compared"), &["cost_order", "first_entry"])?,
                figure: text("figure"),
                measure: text("measure"),
                unit: word(cell(t, r, "unit"), &["s", "ratio", "count"])?,
                seeds: cell(t, r, "seeds").parse().ok()?,
                difference: num("difference")?,
                lo: num("lo")?,
                hi: num("hi")?,
                within_noise: cell(t, r, "within_noise") == "true",
            })
        })
        .collect()
}

const COSTS: [&str; 4] = ["utilization", "rejected", "deferred", "makespan"];

/// Writes the section; `pairs` is `seeds_paired.csv` (with two seeds or more).
pub(super) fn section(score: Option<&Table>, cmp: &Table, pairs: Option<&Table>, out: &mut String) {
    let score = score.map_or(Vec::new(), scored);
    let entries = entries(&score, cmp);
    out.push_str("<h2 id=\"scorecard\">Scorecard and verdict</h2>\n");
    if let Some(first) = entries.iter().find(|e| !e.rows.is_empty()) {
        out.push_str("<div class=\"scroll\"><table class=\"scorecard\">\n<thead><tr><th>policy</th>");
        for r in &first.rows {
            out.push_str(&format!("<th>{}</th>", esc(&r.heading())));
        }
        for c in COSTS {
            out.push_str(&format!("<th>{}</th>", esc(results::title(c))));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for r in &cmp.rows {
            let policy = cell(cmp, r, "policy");
            out.push_str(&format!("<tr><td>{}</td>", esc(policy)));
            for s in score.iter().filter(|s| s.row.policy == policy) {
                // the word says it too: colour alone does not survive print
                let word = match s.status.as_str() {
                    "pass" => "pass",
                    "uncertain" => "uncertain",
                    _ => "FAIL",
                };
                out.push_str(&format!(
                    "<td class=\"n {}\">{} {word}</td>",
                    esc(&s.status),
                    esc(&figure_text(s))
                ));
            }
            for c in COSTS {
                out.push_str(&format!("<td class=\"n\">{}</td>", esc(&format::cell(c, cell(cmp, r, c)))));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table></div>\n");
    }
    out.push_str("<div id=\"verdict\" class=\"verdict\">\n");
    let mut v = verdict(&entries);
    // the lines the terminal prints after the verdict: which differences
    // the seeds tell apart and which are within noise
    v.paired = pairs.map_or(Vec::new(), paired);
    for line in v.lines(&entries) {
        out.push_str(&format!("<p>{}</p>\n", esc(&line)));
    }
    let uncertain: Vec<String> = score
        .iter()
        .filter(|s| s.status == "uncertain")
        .map(|s| format!("{} on `{}`", s.row.policy, s.row.objective))
        .collect();
    if !uncertain.is_empty() {
        out.push_str(&format!(
            "<p class=\"uncertain\">Uncertain (the 95% interval of the figure straddles the bound, so more seeds \
could turn it either way): {}.</p>\n",
            esc(&uncertain.join(", "))
        ));
    }
    out.push_str("</div>\n");
}

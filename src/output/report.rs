//! The self-contained `report.html` of a results folder, rebuilt from the CSV
//! files alone: `fairsim run` calls [`build`] on the folder it just wrote,
//! `fairsim report DIR` on an existing one, so both produce the same bytes.
//!
//! Needs `comparison.csv`, `<label>/summary.csv` for every policy in it and,
//! unless the folder was written with `--logs summary` (then the report has
//! the charts the summaries allow: the strategy comparison and p99 wait by
//! policy), `<label>/{tenants,classes,fairness,jobs}.csv`. `scenario.yaml`
//! is echoed when present (and gives the charts the classes' SLAs and the
//! worker count); the marker `fairsim-results.json` gives the provenance line.
//!
//! The page stays small however many tenants the run had: tables show the
//! [`tables::TOP_ROWS`] worst tenants and one row for the rest.

mod format;
mod provenance;
mod tables;

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

use super::charts::{self, Chart, Groups, Scene};
use tables::{html_table, html_table_as, summary_view, tenant_policy_table, TOP_ROWS};

use crate::results;

/// A small CSV file held whole, as the page shows it: header and rows
/// (read by [`crate::results::read`], or a view made of one).
#[derive(Debug, Clone)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Reads `path` through the results reader; a missing or malformed
    /// file is an input error (exit 2).
    pub fn read(path: &Path) -> Result<Table> {
        let t = crate::results::read(path)?;
        Ok(Table { header: t.header().to_vec(), rows: t.rows.iter().map(|r| r.to_vec()).collect() })
    }

    /// Index of a column; an input error naming the file when absent.
    pub fn col(&self, name: &str, path: &Path) -> Result<usize> {
        self.header.iter().position(|h| h == name).ok_or_else(|| {
            Error::input(
                path,
                1,
                0,
                format!("column `{name}` is missing; was this file written by `fairsim run`?"),
            )
        })
    }
}

/// Files every policy folder needs for the charts.
const CHART_INPUTS: [&str; 4] = ["fairness.csv", "tenants.csv", "classes.csv", "jobs.csv"];

/// Builds `charts/` and `report.html` in `dir` from its CSV files. Writes to
/// temporary names first, so an existing report is replaced whole or not at all.
pub fn build(dir: &Path) -> Result<PathBuf> {
    let cmp_path = dir.join("comparison.csv");
    let comparison = Table::read(&cmp_path)?;
    let pi = comparison.col("policy", &cmp_path)?;
    let labels: Vec<String> = comparison.rows.iter().map(|r| r[pi].clone()).collect();
    let mut summaries = Vec::new();
    for label in &labels {
        let p = dir.join(label).join("summary.csv");
        let t = Table::read(&p)?;
        summaries.push((p, t));
    }
    // charts need the full logs; a `--logs summary` folder has none of them
    let present: Vec<bool> =
        labels.iter().map(|l| CHART_INPUTS.iter().any(|f| dir.join(l).join(f).exists())).collect();
    let with_charts = present.iter().any(|&p| p);
    if with_charts {
        for l in &labels {
            for f in CHART_INPUTS {
                let p = dir.join(l).join(f);
                if !p.exists() {
                    return Err(Error::input(
                        &p,
                        0,
                        0,
                        "file is missing: the charts need every CSV written by `fairsim run` (rerun it, or restore the file)",
                    ));
                }
            }
        }
    }
    let scorecard = match dir.join("scorecard.csv") {
        p if p.exists() => Some(Table::read(&p)?),
        _ => None,
    };
    let scenario = fs::read_to_string(dir.join("scenario.yaml")).ok();
    let scene = Scene::of_folder(dir, scenario_name(scenario.as_deref()));

    let staging = dir.join(format!(".charts.partial-{}", std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    fs::create_dir_all(&staging).map_err(|e| Error::io(format!("cannot create {}", staging.display()), e))?;
    let drawn = headlines(&comparison, &cmp_path).and_then(|h| {
        let inputs =
            ChartInputs { dir, labels: &labels, summaries: &summaries, headlines: &h, scene: &scene };
        draw_charts(&inputs, with_charts, &staging)
    });
    if drawn.is_err() {
        let _ = fs::remove_dir_all(&staging);
    }
    let (per_policy, cross) = drawn?;
    let page = Page {
        scorecard: scorecard.as_ref(),
        comparison: &comparison,
        labels: &labels,
        summaries: &summaries,
        per_policy: &per_policy,
        cross: &cross,
        scenario: scenario.as_deref(),
        provenance: provenance::line(dir),
        full_logs: with_charts,
    };
    let html = render_html(&page);
    let tmp = dir.join(format!(".report.html.partial-{}", std::process::id()));
    fs::write(&tmp, html).map_err(|e| Error::io(format!("cannot write {}", tmp.display()), e))?;
    let charts_dir = dir.join("charts");
    if charts_dir.exists() {
        fs::remove_dir_all(&charts_dir)
            .map_err(|e| Error::io(format!("cannot replace {}", charts_dir.display()), e))?;
    }
    fs::rename(&staging, &charts_dir)
        .map_err(|e| Error::io(format!("cannot move charts into {}", charts_dir.display()), e))?;
    let out = dir.join("report.html");
    fs::rename(&tmp, &out).map_err(|e| Error::io(format!("cannot write {}", out.display()), e))?;
    Ok(out)
}

type Drawn = (Vec<Vec<Chart>>, Vec<Chart>);

/// The strategy comparison's figures of each row of `comparison.csv`.
fn headlines(cmp: &Table, path: &Path) -> Result<Vec<charts::Headline>> {
    let cols =
        ["policy", "tenant_p99_median", "worst_tenant_p99", "jain", "jain_min"].map(|c| cmp.col(c, path));
    let [pi, mi, wi, ji, ki] = cols;
    let (pi, mi, wi, ji, ki) = (pi?, mi?, wi?, ji?, ki?);
    Ok(cmp
        .rows
        .iter()
        .map(|r| charts::Headline {
            label: r[pi].clone(),
            tenant_p99_median: r[mi].parse().ok(),
            worst_tenant_p99: r[wi].parse().ok(),
            jain: r[ji].parse().ok(),
            jain_min: r[ki].parse().ok(),
        })
        .collect())
}

/// What the charts are drawn from.
struct ChartInputs<'a> {
    dir: &'a Path,
    labels: &'a [String],
    summaries: &'a [(PathBuf, Table)],
    headlines: &'a [charts::Headline],
    scene: &'a Scene,
}

/// Draws the charts into `out`: every chart with the full logs, otherwise
/// (`--logs summary`) those drawn from comparison.csv and summary.csv alone.
fn draw_charts(inputs: &ChartInputs, full_logs: bool, out: &Path) -> Result<Drawn> {
    let ChartInputs { dir, labels, summaries, headlines, scene } = *inputs;
    // tenants ranked by jobs from the first policy (every policy sees the same arrivals)
    let mut tenants: Vec<(String, u64)> = Vec::new();
    let mut p99: Vec<charts::PolicyP99s> = Vec::new();
    for (i, (path, t)) in summaries.iter().enumerate() {
        let (si, ni, ji, wi) =
            (t.col("scope", path)?, t.col("name", path)?, t.col("jobs", path)?, t.col("wait_p99", path)?);
        let mut rows = Vec::new();
        for r in t.rows.iter().filter(|r| r[si] == "tenant") {
            if i == 0 {
                tenants.push((r[ni].clone(), r[ji].parse().unwrap_or(0)));
            }
            rows.push((r[ni].clone(), r[wi].parse().ok()));
        }
        p99.push((labels[i].clone(), rows));
    }
    let groups = Groups::new(tenants);
    let mut per_policy = Vec::new();
    let mut series = Vec::new();
    if full_logs {
        for label in labels {
            let (c, s) = charts::policy_charts(dir, label, &groups, out, scene)?;
            per_policy.push(c);
            series.push(s);
        }
    }
    let cross = charts::cross_charts(&groups, &p99, &series, headlines, out, scene)?;
    Ok((per_policy, cross))
}

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            _ => o.push(c),
        }
    }
    o
}

/// Strips the XML prolog plotters may emit, so the SVG can sit inline in HTML.
fn inline_svg(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}

fn figure(c: &Chart, out: &mut String) {
    out.push_str(&format!(
        "<figure id=\"{}\">\n{}\n<figcaption>{} (<a href=\"charts/{}.png\">PNG</a>, <a href=\"charts/{}.svg\">SVG</a>)</figcaption>\n</figure>\n",
        esc(&c.stem),
        inline_svg(&c.svg),
        esc(&c.title),
        esc(&c.stem),
        esc(&c.stem)
    ));
}

const STYLE: &str = "body{font-family:DejaVu Sans,Verdana,sans-serif;margin:2em auto;max-width:1300px;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}h3{margin-top:1.5em}
table{border-collapse:collapse;font-size:.85em}th,td{border:1px solid #ddd;padding:3px 6px;white-space:nowrap}
th{background:#f3f3f3;position:sticky;top:0}td.n{text-align:right;font-variant-numeric:tabular-nums}
.scroll{overflow-x:auto;max-width:100%}figure{margin:1em 0}figure svg{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}pre{background:#f7f7f7;padding:1em;overflow-x:auto;font-size:.85em}
p.note{font-size:.9em;color:#444;max-width:60em}p.provenance{font-size:.85em;color:#555}
p.provenance code{white-space:pre-wrap;word-break:break-all}
td.pass{color:#1a6b1a}td.fail{color:#a31515;font-weight:bold}div.verdict{font-size:1.05em;max-width:60em}";

fn scenario_name(yaml: Option<&str>) -> Option<String> {
    yaml?.lines().find_map(|l| {
        let v = l.strip_prefix("name:")?;
        let v = v.split('#').next()?.trim().trim_matches(|c| c == '"' || c == '\'');
        (!v.is_empty()).then(|| v.to_string())
    })
}

/// Columns of the headline table (headed by their catalogue titles).
const HEADLINE: [&str; 10] = [
    "policy",
    "utilization",
    "wait_p99",
    "tenant_p99_median",
    "worst_tenant_p99",
    "worst_tenant",
    "oldest_age_max",
    "jain",
    "jain_min",
    "sla_misses",
];

/// The figures a design review looks at first. Which entry is best is the
/// verdict's to say (see [`scorecard`]), never one column's.
fn headline(t: &Table, out: &mut String) {
    let cols: Vec<usize> = HEADLINE.iter().filter_map(|c| t.header.iter().position(|h| h == c)).collect();
    let sub = Table {
        header: cols.iter().map(|&c| t.header[c].clone()).collect(),
        rows: t
            .rows
            .iter()
            .map(|r| cols.iter().map(|&c| r.get(c).cloned().unwrap_or_default()).collect())
            .collect(),
    };
    let names: Vec<String> = sub.header.iter().map(|h| results::title(h).to_string()).collect();
    html_table_as(&sub, &names, out);
}

/// The scorecard (each objective's figure per entry with pass or FAIL, and
/// the cost columns) and the verdict, rebuilt from `scorecard.csv` and
/// `comparison.csv`.
fn scorecard(score: Option<&Table>, cmp: &Table, out: &mut String) {
    use results::scorecard::{verdict, EntryScore, ScoreRow};
    let at = |t: &Table, r: &Vec<String>, c: &str| -> String {
        t.header.iter().position(|h| h == c).and_then(|i| r.get(i).cloned()).unwrap_or_default()
    };
    let rows: Vec<ScoreRow> = score.map_or(Vec::new(), |t| {
        t.rows
            .iter()
            .map(|r| {
                ScoreRow::from_cells(|c| {
                    t.header.iter().position(|h| h == c).and_then(|i| r.get(i)).map_or("", String::as_str)
                })
            })
            .collect()
    });
    let entries: Vec<EntryScore> = cmp
        .rows
        .iter()
        .map(|r| {
            let policy = at(cmp, r, "policy");
            let num = |c: &str| at(cmp, r, c).parse::<f64>().unwrap_or(0.0);
            EntryScore {
                rows: rows.iter().filter(|s| s.policy == policy).cloned().collect(),
                utilization: num("utilization"),
                rejected_deferred: (num("rejected") + num("deferred")) as u64,
                makespan: num("makespan"),
                policy,
            }
        })
        .collect();
    let v = verdict(&entries);
    out.push_str("<h2 id=\"scorecard\">Scorecard and verdict</h2>\n");
    if let Some(first) = entries.iter().find(|e| !e.rows.is_empty()) {
        out.push_str("<div class=\"scroll\"><table class=\"scorecard\">\n<thead><tr><th>policy</th>");
        for r in &first.rows {
            out.push_str(&format!("<th>{}</th>", esc(&r.heading())));
        }
        for c in ["utilization", "rejected", "deferred", "makespan"] {
            out.push_str(&format!("<th>{}</th>", esc(results::title(c))));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for (e, r) in entries.iter().zip(&cmp.rows) {
            out.push_str(&format!("<tr><td>{}</td>", esc(&e.policy)));
            for s in &e.rows {
                let cls = if s.pass { "pass" } else { "fail" };
                out.push_str(&format!("<td class=\"n {cls}\">{}</td>", esc(&s.cell())));
            }
            for c in ["utilization", "rejected", "deferred", "makespan"] {
                out.push_str(&format!("<td class=\"n\">{}</td>", esc(&format::cell(c, &at(cmp, r, c)))));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table></div>\n");
    }
    out.push_str("<div id=\"verdict\" class=\"verdict\">\n");
    for line in v.lines(&entries) {
        out.push_str(&format!("<p>{}</p>\n", esc(&line)));
    }
    out.push_str("</div>\n");
}

/// Everything the page shows.
struct Page<'a> {
    /// `scorecard.csv`, absent when nothing is judged.
    scorecard: Option<&'a Table>,
    comparison: &'a Table,
    labels: &'a [String],
    summaries: &'a [(PathBuf, Table)],
    per_policy: &'a [Vec<Chart>],
    cross: &'a [Chart],
    scenario: Option<&'a str>,
    provenance: Option<String>,
    /// Whether the folder has the full logs (not `--logs summary`).
    full_logs: bool,
}

fn render_html(p: &Page) -> String {
    let (labels, scenario) = (p.labels, p.scenario);
    let name = scenario_name(scenario).unwrap_or_else(|| "fairsim results".into());
    let mut h = String::new();
    h.push_str(&format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>fairsim report: {}</title>\n<style>\n{STYLE}\n</style>\n</head>\n<body>\n",
        esc(&name)
    ));
    h.push_str(&format!("<h1>fairsim report: {}</h1>\n", esc(&name)));
    if let Some(line) = &p.provenance {
        h.push_str(line);
    }
    h.push_str(&format!(
        "<p class=\"note\">{} policies on the same arrivals. Waits are first start minus arrival; percentiles are exact nearest-rank. \
Jain's index is computed per fairness window (one log tick) on service received over each tenant's max-min fair entitlement, \
and averaged over windows with at least two backlogged tenants (see docs/metrics.md). Times are rounded to the unit shown \
(<code>7m 35s</code>, <code>0.53 s</code>), utilization is a percentage of capacity; the CSV files hold the exact values, \
times in seconds.</p>\n",
        labels.len()
    ));
    scorecard(p.scorecard, p.comparison, &mut h);
    h.push_str("<nav><ul>\n<li><a href=\"#scorecard\">Scorecard and verdict</a></li>\n<li><a href=\"#comparison\">Comparison</a></li>\n");
    h.push_str("<li><a href=\"#tenants\">Tenants across policies</a></li>\n");
    for l in labels {
        h.push_str(&format!("<li><a href=\"#policy-{0}\">{0}</a></li>\n", esc(l)));
    }
    h.push_str("<li><a href=\"#scenario\">Scenario</a></li>\n</ul></nav>\n");
    h.push_str("<h2 id=\"comparison\">Comparison</h2>\n");
    headline(p.comparison, &mut h);
    h.push_str("<h3>comparison.csv</h3>\n");
    html_table(p.comparison, &mut h);
    for c in p.cross {
        figure(c, &mut h);
    }
    if !p.full_logs {
        h.push_str(
            "<p class=\"note\">The folder was written with <code>--logs summary</code>: the charts over time \
(completions, running jobs, oldest age, wait CDFs, Jain's index) need the full logs.</p>\n",
        );
    }
    let tables: Vec<Table> = p.summaries.iter().map(|s| s.1.clone()).collect();
    h.push_str("<h2 id=\"tenants\">Tenants across policies</h2>\n");
    match tenant_policy_table(labels, &tables) {
        Some((t, collapsed)) => {
            h.push_str("<p class=\"note\">p99 wait of each tenant under each policy");
            if collapsed > 0 {
                h.push_str(&format!(
                    ": the {TOP_ROWS} tenants with the highest p99 under the policy that treats them worst, \
then the largest p99 among the other {collapsed} (all of them are in each policy's summary.csv)"
                ));
            }
            h.push_str(".</p>\n");
            html_table(&t, &mut h);
        }
        None => h.push_str("<p class=\"note\">The summaries have no tenant rows.</p>\n"),
    }
    for (i, l) in labels.iter().enumerate() {
        h.push_str(&format!("<h2 id=\"policy-{0}\">Policy {0}</h2>\n<h3>summary.csv</h3>\n", esc(l)));
        let (shown, collapsed) = summary_view(&p.summaries[i].1);
        if collapsed > 0 {
            h.push_str(&format!(
                "<p class=\"note\">The {TOP_ROWS} tenants with the highest p99 wait, worst first; the other {collapsed} \
in one row (counts and work summed, waits and slowdowns their largest). Every row is in <code>{}/summary.csv</code>.</p>\n",
                esc(l)
            ));
        }
        html_table(&shown, &mut h);
        if let Some(cs) = p.per_policy.get(i) {
            for c in cs {
                figure(c, &mut h);
            }
        }
    }
    h.push_str("<h2 id=\"scenario\">Scenario</h2>\n");
    match scenario {
        Some(s) => h.push_str(&format!("<pre>{}</pre>\n", esc(s))),
        None => h.push_str("<p class=\"note\">scenario.yaml is not in the folder.</p>\n"),
    }
    h.push_str("</body>\n</html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_finds_the_scenario_name() {
        assert_eq!(esc("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        assert_eq!(scenario_name(Some("# c\nname: noisy  # x\nseed: 1")), Some("noisy".into()));
        assert_eq!(scenario_name(Some("seed: 1")), None);
    }
}

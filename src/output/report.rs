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

mod caveats;
mod contenders;
mod evidence;
mod format;
mod provenance;
mod question;
mod tables;
mod tradeoff;
mod verdict;
mod words;

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

use super::charts::{self, Chart, Groups, Scene};
use tables::{html_table, html_table_as, summary_view, tenant_policy_table, TOP_ROWS};

use crate::model::Scenario;
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
    let tenant_classes = match dir.join("tenant_classes.csv") {
        p if p.exists() => Some(Table::read(&p)?),
        _ => None,
    };
    // written by `run --seeds N` (N >= 2 for the pairs): the whiskers of the
    // trade-off chart and the verdict's paired lines
    let seeds = match dir.join("seeds.csv") {
        p if p.exists() => Some(Table::read(&p)?),
        _ => None,
    };
    let paired = match dir.join("seeds_paired.csv") {
        p if p.exists() => Some(Table::read(&p)?),
        _ => None,
    };
    let scenario = fs::read_to_string(dir.join("scenario.yaml")).ok();
    let model = charts::load_scenario(dir);
    let scene = match &model {
        Some(sc) => Scene::of(sc),
        None => Scene::named(scenario_name(scenario.as_deref())),
    };

    let staging = dir.join(format!(".charts.partial-{}", std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    fs::create_dir_all(&staging).map_err(|e| Error::io(format!("cannot create {}", staging.display()), e))?;
    let drawn = headlines(&comparison, &cmp_path).and_then(|h| {
        let inputs =
            ChartInputs { dir, labels: &labels, summaries: &summaries, headlines: &h, scene: &scene };
        let (per_policy, cross) = draw_charts(&inputs, with_charts, &staging)?;
        let score = scorecard.as_ref().map_or(Vec::new(), verdict::scored);
        let tradeoff = match tradeoff::plot(&score, &comparison, seeds.as_ref(), &labels) {
            Some((plot, note)) => Some((plot.render(&staging, "tradeoff", scene.name())?, note)),
            None => None,
        };
        Ok((per_policy, cross, tradeoff))
    });
    if drawn.is_err() {
        let _ = fs::remove_dir_all(&staging);
    }
    let (per_policy, cross, tradeoff) = drawn?;
    let run = Run {
        sc: model.as_ref(),
        yaml: scenario.as_deref(),
        comparison: &comparison,
        scorecard: scorecard.as_ref(),
        paired: paired.as_ref(),
        labels: &labels,
        summaries: &summaries,
    };
    let page = Page {
        run: &run,
        tenant_classes: tenant_classes.as_ref(),
        per_policy: &per_policy,
        cross: &cross,
        tradeoff: tradeoff.as_ref(),
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
fn draw_charts(inputs: &ChartInputs, full_logs: bool, out: &Path) -> Result<(Vec<Vec<Chart>>, Vec<Chart>)> {
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
td.pass{color:#1a6b1a}td.fail{color:#a31515;font-weight:bold}td.uncertain{color:#8a5a00;font-style:italic}
div.verdict{font-size:1.05em;max-width:60em}div.story p,ul.contenders li,ul.caveats li{max-width:60em;line-height:1.45}
p.asked{font-size:1.1em}nav ul{columns:3;font-size:.9em}";

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

/// What the run's sections are written from.
struct Run<'a> {
    /// The scenario echoed in the folder, when this fairsim loads it.
    sc: Option<&'a Scenario>,
    /// Its text.
    yaml: Option<&'a str>,
    comparison: &'a Table,
    /// `scorecard.csv`, absent when nothing is judged.
    scorecard: Option<&'a Table>,
    /// `seeds_paired.csv`, absent with one seed.
    paired: Option<&'a Table>,
    labels: &'a [String],
    summaries: &'a [(PathBuf, Table)],
}

/// Everything the page shows.
struct Page<'a> {
    run: &'a Run<'a>,
    tenant_classes: Option<&'a Table>,
    per_policy: &'a [Vec<Chart>],
    cross: &'a [Chart],
    /// The trade-off chart and the sentence under it.
    tradeoff: Option<&'a (Chart, String)>,
    provenance: Option<String>,
    /// Whether the folder has the full logs (not `--logs summary`).
    full_logs: bool,
}

fn render_html(p: &Page) -> String {
    let run = p.run;
    let (labels, scenario) = (run.labels, run.yaml);
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
    nav(p, &mut h);
    // a design review's order: what is asked, who competes, the answer, what
    // it costs, the evidence behind it, then what the simulation leaves out
    question::section(run, &mut h);
    contenders::section(run, &mut h);
    verdict::section(run.scorecard, run.comparison, run.paired, &mut h);
    if let Some((c, note)) = p.tradeoff {
        h.push_str(&format!(
            "<h2 id=\"trade-off\">The trade-off</h2>\n<p class=\"note\">{}</p>\n",
            esc(note)
        ));
        figure(c, &mut h);
    }
    h.push_str("<h2 id=\"comparison\">Evidence: the comparison</h2>\n");
    h.push_str(&format!(
        "<p class=\"note\">{} entries on the same arrivals. Waits are first start minus arrival; percentiles are exact nearest-rank. \
Jain's index is computed per fairness window (one log tick) on service received over each tenant's max-min fair entitlement, \
and averaged over windows with at least two backlogged tenants (see docs/metrics.md). Times are rounded to the unit shown \
(<code>7m 35s</code>, <code>0.53 s</code>), utilization is a percentage of capacity; the CSV files hold the exact values, \
times in seconds.</p>\n",
        labels.len()
    ));
    headline(run.comparison, &mut h);
    h.push_str("<h3>comparison.csv</h3>\n");
    html_table(run.comparison, &mut h);
    for c in p.cross {
        figure(c, &mut h);
    }
    if !p.full_logs {
        h.push_str(
            "<p class=\"note\">The folder was written with <code>--logs summary</code>: the charts over time \
(completions, running jobs, oldest age, wait CDFs, Jain's index) need the full logs.</p>\n",
        );
    }
    evidence::section(labels, run.summaries, p.tenant_classes, &mut h);
    let tables: Vec<Table> = run.summaries.iter().map(|s| s.1.clone()).collect();
    h.push_str("<h2 id=\"tenants\">Evidence: tenants across entries</h2>\n");
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
        h.push_str(&format!(
            "<h2 id=\"policy-{0}\">Evidence: entry {0}</h2>\n<h3>summary.csv</h3>\n",
            esc(l)
        ));
        let (shown, collapsed) = summary_view(&run.summaries[i].1);
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
    caveats::section(run, &mut h);
    h.push_str("<h2 id=\"scenario\">Scenario</h2>\n");
    match scenario {
        Some(s) => h.push_str(&format!("<pre>{}</pre>\n", esc(s))),
        None => h.push_str("<p class=\"note\">scenario.yaml is not in the folder.</p>\n"),
    }
    h.push_str("</body>\n</html>\n");
    h
}

/// Links to the sections, in the page's order.
fn nav(p: &Page, h: &mut String) {
    let mut items = vec![
        ("question", "The question".to_string()),
        ("contenders", "The contenders".into()),
        ("scorecard", "Scorecard and verdict".into()),
    ];
    if p.tradeoff.is_some() {
        items.push(("trade-off", "The trade-off".into()));
    }
    items.push(("comparison", "Evidence: the comparison".into()));
    if p.run
        .summaries
        .first()
        .is_some_and(|(_, t)| t.rows.iter().filter(|r| r.first().is_some_and(|s| s == "class")).count() > 1)
    {
        items.push(("classes", "Evidence: per class".into()));
    }
    items.push(("tenants", "Evidence: tenants across entries".into()));
    h.push_str("<nav><ul>\n");
    for (id, title) in items {
        h.push_str(&format!("<li><a href=\"#{id}\">{}</a></li>\n", esc(&title)));
    }
    for l in p.run.labels {
        h.push_str(&format!("<li><a href=\"#policy-{0}\">entry {0}</a></li>\n", esc(l)));
    }
    h.push_str("<li><a href=\"#caveats\">Caveats</a></li>\n<li><a href=\"#scenario\">Scenario</a></li>\n</ul></nav>\n");
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

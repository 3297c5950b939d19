//! `report.html` of a sweep folder: what was swept, the paired comparison
//! against the baseline, the charts, and each point's means with their
//! intervals. Drawn from `manifest.json`, `sweep.csv` and `paired.csv`
//! alone, so a folder merged from shards gets the same page; it names the
//! command as an equivalent one rebuilt from the manifest (not as typed, and
//! with no start time) for the same reason.

use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;

use super::charts::{self, Cells, Design, Drawn, HEADLINE};
use crate::error::{Error, Result};

const STYLE: &str = "body{font-family:DejaVu Sans,Verdana,sans-serif;margin:2em auto;max-width:1300px;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}h3{margin-top:1.5em}
table{border-collapse:collapse;font-size:.85em}th,td{border:1px solid #ddd;padding:3px 6px;white-space:nowrap}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:1em 0}figure svg{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}p.note{font-size:.9em;color:#444;max-width:60em}
p.provenance{font-size:.85em;color:#555}p.provenance code{white-space:pre-wrap;word-break:break-all}
ul.paired li{margin:.2em 0}";

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A number for the page: four significant digits, a true minus sign.
pub fn show(v: f64) -> String {
    let digits = if v == 0.0 { 0 } else { (3 - v.abs().log10().floor() as i32).clamp(0, 9) as usize };
    let s = format!("{:.digits$}", v.abs());
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if v < 0.0 && s != "0" {
        format!("\u{2212}{s}")
    } else {
        s
    }
}

/// A headline figure for the page: times in human units (the one
/// formatter of the terminal and every report), Jain's index as a number.
fn figure(metric: &str, v: f64) -> String {
    if metric == "jain" {
        show(v)
    } else {
        crate::results::human_duration(v).replace('-', "\u{2212}")
    }
}

/// How many times narrower the paired interval is than the unpaired one,
/// as the page writes it (from `paired.csv`'s `width_ratio`).
pub fn narrower(width_ratio: f64) -> String {
    format!("{:.1}", 1.0 / width_ratio)
}

/// A CSV file as header -> column and rows.
struct Csv {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Csv {
    fn read(path: &Path) -> Result<Csv> {
        let fail = |e: csv::Error| Error::Other(format!("reading {}: {e}", path.display()));
        let mut r = csv::Reader::from_path(path).map_err(fail)?;
        let header = r.headers().map_err(fail)?.iter().map(str::to_string).collect();
        let rows = r
            .records()
            .map(|rec| rec.map(|r| r.iter().map(str::to_string).collect()))
            .collect::<std::result::Result<_, _>>()
            .map_err(fail)?;
        Ok(Csv { header, rows })
    }

    fn cell<'a>(&self, row: &'a [String], col: &str) -> &'a str {
        self.header.iter().position(|h| h == col).map_or("", |i| row[i].as_str())
    }
}

/// Writes `dir/charts/*.svg` and `dir/report.html` from the folder's files.
pub fn write(dir: &Path, manifest: &serde_json::Value) -> Result<()> {
    let design = Design::of(manifest);
    let cells = charts::read_sweep(&dir.join("sweep.csv"))?;
    let drawn = charts::draw(dir, &design, &cells)?;
    let paired = Csv::read(&dir.join("paired.csv"))?;
    let html = page(manifest, &design, &cells, &paired, &drawn);
    let path = dir.join("report.html");
    std::fs::write(&path, html).map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

/// The command that makes this folder, rebuilt from the manifest.
fn command(m: &serde_json::Value, design: &Design) -> String {
    let file = m["scenario"]["file"].as_str().unwrap_or("SCENARIO");
    let mut c = format!("fairsim sweep {file} --seeds {}", m["seeds"]["count"]);
    for (k, v) in &design.axes {
        let _ = write!(c, " --set {k}={}", v.join(","));
    }
    for p in &design.policies {
        let _ = write!(c, " --policy {p}");
    }
    let _ = write!(c, " --baseline {} --out DIR", m["baseline"].as_str().unwrap_or_default());
    c
}

/// The point's values as `key=value, ...` (or "the scenario as written").
fn point_name(design: &Design, p: usize) -> String {
    let mut rest = p;
    let mut parts = Vec::new();
    for (k, vals) in design.axes.iter().rev() {
        parts.push(format!("{k}={}", vals[rest % vals.len()]));
        rest /= vals.len();
    }
    parts.reverse();
    if parts.is_empty() {
        "the scenario as written".into()
    } else {
        parts.join(", ")
    }
}

fn page(m: &serde_json::Value, design: &Design, cells: &Cells, paired: &Csv, drawn: &[Drawn]) -> String {
    let name = esc(&design.scenario);
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>fairsim sweep: {name}</title>\n<style>\n{STYLE}\n</style>\n</head>\n<body>\n<h1>fairsim sweep: {name}</h1>\n"
    );
    let _ = writeln!(
        h,
        "<p class=\"provenance\">Made by fairsim {} · <code>{}</code> (the equivalent command, rebuilt from manifest.json)</p>",
        esc(m["fairsim"].as_str().unwrap_or("?")),
        esc(&command(m, design))
    );
    h.push_str("<nav><ul>\n<li><a href=\"#design\">What was swept</a></li>\n<li><a href=\"#paired\">Paired comparison</a></li>\n<li><a href=\"#charts\">Charts</a></li>\n<li><a href=\"#points\">Each point</a></li>\n</ul></nav>\n");
    design_section(m, design, &mut h);
    paired_section(m, design, paired, &mut h);
    h.push_str("<h2 id=\"charts\">Charts</h2>\n<p class=\"note\">Lines join the means over seeds; the bands (whiskers for a lone point) are the 95% Student t intervals of <code>sweep.csv</code>. Policies differ in colour, dash and marker.</p>\n");
    let mut last = "";
    for d in drawn {
        if d.metric != last {
            let title = HEADLINE.iter().find(|x| x.0 == d.metric).map_or(d.metric.as_str(), |x| x.1);
            let _ = writeln!(h, "<h3>{}</h3>", esc(title));
            last = &d.metric;
        }
        let _ = writeln!(
            h,
            "<figure id=\"{0}\">\n{1}<figcaption>{2} (<a href=\"charts/{0}.svg\">SVG</a>)</figcaption>\n</figure>",
            esc(&d.stem),
            d.svg,
            esc(&d.title)
        );
    }
    points_section(design, cells, &mut h);
    h.push_str("<h2>Files</h2>\n<p class=\"note\"><a href=\"runs.csv\">runs.csv</a> (every run), <a href=\"sweep.csv\">sweep.csv</a> (every metric), <a href=\"paired.csv\">paired.csv</a>, <a href=\"manifest.json\">manifest.json</a>, <a href=\"scenario.yaml\">scenario.yaml</a>; columns and methods in docs/sweep.md.</p>\n</body>\n</html>\n");
    h
}

fn design_section(m: &serde_json::Value, design: &Design, h: &mut String) {
    h.push_str("<h2 id=\"design\">What was swept</h2>\n<table>\n");
    let row = |h: &mut String, k: &str, v: &str| {
        let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
    };
    let scenario = format!("{} ({})", design.scenario, m["scenario"]["file"].as_str().unwrap_or("?"));
    row(h, "scenario", &scenario);
    for (k, v) in &design.axes {
        row(h, k, &v.join(", "));
    }
    if design.axes.is_empty() {
        row(h, "grid", "one point: the scenario as written");
    }
    let (first, count) =
        (m["seeds"]["first"].as_u64().unwrap_or(0), m["seeds"]["count"].as_u64().unwrap_or(0));
    row(
        h,
        "seeds per point",
        &format!("{count} ({first} to {})", first.wrapping_add(count.saturating_sub(1))),
    );
    row(h, "policies", &design.policies.join(", "));
    row(h, "baseline", m["baseline"].as_str().unwrap_or_default());
    row(
        h,
        "runs",
        &format!(
            "{} points x {count} seeds x {} policies = {}",
            m["points"],
            design.policies.len(),
            m["runs"]
        ),
    );
    h.push_str("</table>\n<p class=\"note\">Every policy runs on the same arrivals at a given point and seed (common random numbers). \
Intervals are 95%: Student t over seeds for each mean (a run's p99 is one value per seed, and the seeds are independent replications, \
so the mean of per-run p99s has a t interval like any other mean); paired t over the per-seed differences for the comparison; \
a paired percentile bootstrap (2,000 resamples of the seeds) for the ratio of two means, which is not a mean. See docs/sweep.md.</p>\n");
}

/// The paired differences of the headline metrics, point by point.
fn paired_section(m: &serde_json::Value, design: &Design, t: &Csv, h: &mut String) {
    let base = m["baseline"].as_str().unwrap_or_default();
    let _ = writeln!(h, "<h2 id=\"paired\">Paired comparison against {}</h2>", esc(base));
    if t.rows.is_empty() {
        h.push_str("<p class=\"note\">One policy only: nothing to compare.</p>\n");
        return;
    }
    h.push_str("<p class=\"note\">Policy minus baseline on the same seed, mean over seeds with its paired 95% interval; the ratio of the means with its bootstrap interval; and how many times narrower the paired interval is than the one the same difference would have from independent runs (Welch).</p>\n");
    let by_point: HashMap<(String, String, String), &Vec<String>> = t
        .rows
        .iter()
        .map(|r| {
            (
                (
                    t.cell(r, "point").to_string(),
                    t.cell(r, "policy").to_string(),
                    t.cell(r, "metric").to_string(),
                ),
                r,
            )
        })
        .collect();
    for p in 0..m["points"].as_u64().unwrap_or(1) as usize {
        let _ = writeln!(h, "<h3>{}</h3>\n<ul class=\"paired\">", esc(&point_name(design, p)));
        for policy in design.policies.iter().filter(|x| *x != base) {
            for (metric, name, _) in HEADLINE {
                let Some(r) = by_point.get(&(p.to_string(), policy.clone(), metric.to_string())) else {
                    continue;
                };
                let num = |c: &str| t.cell(r, c).parse::<f64>().ok();
                let Some(diff) = num("mean_diff") else { continue };
                let mut line = format!("{policy} vs {base}, {name}: {}", figure(metric, diff));
                if let (Some(lo), Some(hi)) = (num("ci_low"), num("ci_high")) {
                    let _ = write!(line, " [{}, {}]", figure(metric, lo), figure(metric, hi));
                }
                if let (Some(r), Some(lo), Some(hi)) = (num("ratio"), num("ratio_low"), num("ratio_high")) {
                    let _ = write!(line, "; ratio {}× [{}, {}]", show(r), show(lo), show(hi));
                }
                if let Some(w) = num("width_ratio").filter(|w| *w > 0.0) {
                    let _ = write!(line, "; paired CI {}× narrower than unpaired", narrower(w));
                }
                let _ = writeln!(h, "<li>{}</li>", esc(&line));
            }
        }
        h.push_str("</ul>\n");
    }
}

/// Per point, a table of policy x headline metric: mean ± half-width.
fn points_section(design: &Design, cells: &Cells, h: &mut String) {
    h.push_str("<h2 id=\"points\">Each point</h2>\n<p class=\"note\">Mean over seeds ± the half-width of its 95% interval.</p>\n");
    let metrics: Vec<_> = HEADLINE
        .iter()
        .filter(|(m, _, _)| cells.iter().any(|((_, _, c), t)| c == m && !t[0].is_empty()))
        .collect();
    let points: usize = design.axes.iter().map(|a| a.1.len()).product();
    for p in 0..points {
        let _ = writeln!(h, "<h3>{}</h3>\n<table>\n<tr><th>policy</th>", esc(&point_name(design, p)));
        for (_, name, _) in &metrics {
            let _ = write!(h, "<th>{}</th>", esc(name));
        }
        h.push_str("</tr>\n");
        for policy in &design.policies {
            let _ = write!(h, "<tr><td>{}</td>", esc(policy));
            for (metric, _, _) in &metrics {
                let text = cells.get(&(p, policy.clone(), metric.to_string()));
                let cell = text.and_then(|t| {
                    let mean: f64 = t[0].parse().ok()?;
                    Some(match t[1].parse::<f64>().ok().zip(t[2].parse::<f64>().ok()) {
                        Some((lo, hi)) => {
                            format!("{} ± {}", figure(metric, mean), figure(metric, (hi - lo) / 2.0))
                        }
                        None => figure(metric, mean),
                    })
                });
                let _ = write!(h, "<td class=\"n\">{}</td>", esc(&cell.unwrap_or_default()));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
    }
}

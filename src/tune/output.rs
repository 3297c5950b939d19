//! What `tune` writes: `tune.csv` (one row per evaluated point), the chart
//! of the binding metric against the first parameter, and the answer's
//! wording on the terminal.

use std::path::Path;

use plotters::style::RGBColor;

use super::metric::{Kind, Metric};
use super::param::Param;
use super::require::Requirement;
use super::search::Evaluated;
use crate::error::{Error, Result};
use crate::output::charts::{unit_for, Line, Mark, Plot};
use crate::sweep::output::opt;

/// Three significant digits and the unit, for people: `1.73 s`, `412 ms`, `0.912`.
pub fn human(kind: Kind, x: f64) -> String {
    let sig3 = |x: f64| {
        if x == 0.0 || !x.is_finite() {
            return format!("{x}");
        }
        let decimals = (2 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.decimals$}")
    };
    match kind {
        Kind::Secs if x.abs() < 1.0 && x != 0.0 => format!("{} ms", sig3(x * 1e3)),
        Kind::Secs => format!("{} s", sig3(x)),
        Kind::Ratio | Kind::Count => sig3(x),
    }
}

/// `tune.csv`: per evaluated point, its values, the search step, each
/// metric's mean and interval, each requirement's verdict, the tightest,
/// and the chosen point.
pub fn write_csv(
    path: &Path,
    params: &[Param],
    metrics: &[Metric],
    reqs: &[Requirement],
    points: &[Evaluated],
    chosen: Option<usize>,
) -> Result<()> {
    let err = |e: csv::Error| Error::Other(format!("writing {}: {e}", path.display()));
    let mut w = csv::Writer::from_path(path).map_err(err)?;
    let mut header: Vec<String> = vec!["point".into()];
    header.extend(params.iter().map(|p| p.key.clone()));
    header.extend(["step".into(), "seeds".into()]);
    for m in metrics {
        for part in ["n", "mean", "ci_low", "ci_high"] {
            header.push(format!("{} {part}", m.label));
        }
    }
    header.extend(reqs.iter().map(|r| r.text.clone()));
    header.extend(["accepted".into(), "tightest".into(), "chosen".into()]);
    w.write_record(&header).map_err(err)?;
    for (i, p) in points.iter().enumerate() {
        let mut row = vec![i.to_string()];
        row.extend(params.iter().zip(&p.coords).map(|(q, &c)| q.value(c)));
        row.extend([p.step.to_string(), p.runs.len().to_string()]);
        for e in &p.estimates {
            row.push(e.map_or(0, |e| e.n).to_string());
            row.push(opt(e.map(|e| e.mean)));
            let ci = e.and_then(|e| e.ci());
            row.push(opt(ci.map(|c| c.0)));
            row.push(opt(ci.map(|c| c.1)));
        }
        for (j, pass) in p.judged.iter().zip(&p.pass) {
            row.push(
                match (j, pass) {
                    (None, _) => "unmeasured",
                    (_, true) => "pass",
                    (_, false) => "fail",
                }
                .into(),
            );
        }
        row.push(if p.accepted() { "yes" } else { "no" }.into());
        row.push(p.tightest(reqs).map(|b| reqs[b].text.clone()).unwrap_or_default());
        row.push(if chosen == Some(i) { "yes" } else { "" }.into());
        w.write_record(&row).map_err(err)?;
    }
    w.flush().map_err(|e| Error::io(format!("writing {}", path.display()), e))
}

/// Colours of the lines, one per value of a second parameter: the first of
/// the report's Okabe & Ito palette.
const COLORS: [RGBColor; 4] =
    [RGBColor(0, 114, 178), RGBColor(230, 159, 0), RGBColor(0, 158, 115), RGBColor(213, 94, 0)];

/// `tune.svg` and `tune.png`: requirement `req`'s metric against the first
/// parameter, its mean and the judged end of the interval (one pair of
/// lines per value of a second parameter), and the bound.
pub fn chart(
    dir: &Path,
    params: &[Param],
    req: &Requirement,
    metric: usize,
    points: &[Evaluated],
    scenario: &str,
) -> Result<()> {
    let x_param = &params[0];
    let max = points
        .iter()
        .filter_map(|p| p.estimates[metric].and_then(|e| e.ci()).map(|c| c.1))
        .fold(req.bound, f64::max);
    // far from the bound the curve says nothing more (an overloaded point's
    // wait is hours): cut the axis so the bound stays readable
    let cut = (req.bound > 0.0 && max > 3.0 * req.bound).then_some(3.0 * req.bound);
    let max = cut.unwrap_or(max);
    let (div, unit) = match req.metric.kind {
        Kind::Secs => {
            let u = unit_for(max);
            (u.div, format!(" ({})", u.name))
        }
        _ => (1.0, String::new()),
    };
    let mut series: Vec<(String, Vec<&Evaluated>)> = Vec::new();
    for p in points {
        let name = params.get(1).map(|q| format!("{}={}", q.key, q.value(p.coords[1]))).unwrap_or_default();
        match series.iter_mut().find(|s| s.0 == name) {
            Some(s) => s.1.push(p),
            None => series.push((name, vec![p])),
        }
    }
    let mut lines = Vec::new();
    for (k, (name, pts)) in series.iter_mut().enumerate() {
        pts.sort_by(|a, b| x_param.number(a.coords[0]).total_cmp(&x_param.number(b.coords[0])));
        let x = |p: &Evaluated| x_param.number(p.coords[0]);
        let mean: Vec<(f64, f64)> =
            pts.iter().filter_map(|p| p.estimates[metric].map(|e| (x(p), e.mean.min(max) / div))).collect();
        let ci = |upper: bool| -> Vec<(f64, f64)> {
            pts.iter()
                .filter_map(|p| {
                    p.estimates[metric]
                        .and_then(|e| e.ci())
                        .map(|c| (x(p), (if upper { c.1 } else { c.0 }).min(max) / div))
                })
                .collect()
        };
        let of = if name.is_empty() { String::new() } else { format!(", {name}") };
        let color = COLORS[k % COLORS.len()];
        lines.push(Line { name: format!("mean{of}"), color, pattern: 0, segments: vec![mean] });
        lines.push(Line { name: format!("95% CI upper{of}"), color, pattern: 2, segments: vec![ci(true)] });
        lines.push(Line { name: format!("95% CI lower{of}"), color, pattern: 2, segments: vec![ci(false)] });
    }
    let xs: Vec<f64> = points.iter().map(|p| x_param.number(p.coords[0])).collect();
    let (x_lo, x_hi) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, &x| (a.0.min(x), a.1.max(x)));
    let bound = Mark {
        name: format!("bound: {}", req.text),
        color: RGBColor(0, 0, 0),
        points: vec![(x_lo.min(0.0), req.bound / div), (x_hi, req.bound / div)],
    };
    let x_label = if x_param.numeric() {
        x_param.key.clone()
    } else {
        format!("{} (position in the listed values, from 0)", x_param.key)
    };
    let plot = Plot::Lines {
        title: format!(
            "{} against {}: mean and 95% CI{}",
            req.metric.label,
            x_param.key,
            if cut.is_some() { " (cut at 3x the bound)" } else { "" }
        ),
        x_label,
        y_label: format!("{}{unit}", req.metric.label),
        x_max: x_hi.max(0.0),
        y_max: max / div,
        log_x: None,
        lines,
        marks: vec![bound],
    };
    plot.render(dir, "tune", Some(scenario)).map(|_| ())
}

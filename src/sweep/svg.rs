//! A sweep chart as SVG text: one line per policy over a swept parameter,
//! its 95% interval a shaded band (or, for a lone point, a whisker).
//!
//! Written by hand rather than through plotters (which `fairsim run`'s
//! charts use) so that each band carries the numbers it was drawn from
//! (`data-ci-low`, `data-ci-high`, as written in `sweep.csv`) and the plot
//! area its axis mapping (`data-x0`... on `g.plot`): a reader, or a test, can
//! check the drawing against the file. The colours and dash patterns are
//! the run charts' (Okabe-Ito, ordered to differ in grey), and each policy
//! also has its own marker shape, so the lines stay apart in print.

use std::fmt::Write;

use crate::output::charts::{color, dash, trim_num};

const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 480.0;
/// The plot area, in pixels: left, right, top, bottom.
const LEFT: f64 = 84.0;
const RIGHT: f64 = 690.0;
const TOP: f64 = 56.0;
const BOTTOM: f64 = 404.0;

/// One point of a line: x, the mean, and its interval when there is one;
/// `text` are the cells of `sweep.csv` (mean, ci_low, ci_high) as written.
#[derive(Debug, Clone)]
pub struct Point {
    pub x: f64,
    pub mean: f64,
    pub ci: Option<(f64, f64)>,
    pub text: [String; 3],
}

/// One policy's line.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub points: Vec<Point>,
}

/// What to draw. `x_ticks` are the labelled positions: the swept values
/// (numbers at their value, text at 0, 1, 2...) or the policies.
#[derive(Debug, Clone)]
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_ticks: Vec<(f64, String)>,
    /// Whether x holds categories (policies, or swept values that are not
    /// numbers) at 0, 1, 2...: half a step of room at either end.
    pub categorical: bool,
    pub series: Vec<Series>,
}

/// The y axis: linear from 0 (or the lowest value), or in decades when the
/// values are positive and span more than two of them (fifo's p99 in
/// minutes beside wfq's in tenths of a second).
#[derive(Debug, Clone, Copy)]
enum Scale {
    Linear(f64, f64),
    Log(f64, f64),
}

impl Scale {
    fn of(values: &[f64]) -> Scale {
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !min.is_finite() || !max.is_finite() {
            return Scale::Linear(0.0, 1.0);
        }
        if min > 0.0 && max / min > 100.0 {
            return Scale::Log(10f64.powf(min.log10().floor()), 10f64.powf(max.log10().ceil()));
        }
        let lo = min.min(0.0);
        let hi = if max > lo { max + 0.05 * (max - lo) } else { lo + 1.0 };
        Scale::Linear(lo, hi)
    }

    fn bounds(&self) -> (f64, f64) {
        match *self {
            Scale::Linear(a, b) | Scale::Log(a, b) => (a, b),
        }
    }

    /// The pixel row of value `v`.
    fn py(&self, v: f64) -> f64 {
        let f = match *self {
            Scale::Linear(a, b) => (v - a) / (b - a),
            Scale::Log(a, b) => (v.max(a).log10() - a.log10()) / (b.log10() - a.log10()),
        };
        BOTTOM - f * (BOTTOM - TOP)
    }

    fn ticks(&self) -> Vec<f64> {
        match *self {
            Scale::Log(a, b) => {
                let (lo, hi) = (a.log10().round() as i32, b.log10().round() as i32);
                (lo..=hi).map(|e| 10f64.powi(e)).collect()
            }
            Scale::Linear(a, b) => {
                let raw = (b - a) / 5.0;
                let mag = 10f64.powf(raw.log10().floor());
                let step =
                    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
                let first = (a / step).ceil() as i64;
                let last = (b / step).floor() as i64;
                (first..=last).map(|k| k as f64 * step).collect()
            }
        }
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn hex(i: usize) -> String {
    let c = color(i);
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// Marker `i` centred at (x, y): circle, square, triangle, diamond,
/// inverted triangle, then the same shapes hollow.
fn marker(i: usize, x: f64, y: f64, fill: &str) -> String {
    let r = 5.5;
    let fill = if i % 10 >= 5 { "white" } else { fill };
    let style = format!("fill=\"{fill}\" stroke=\"#222\" stroke-width=\"1\"");
    let poly = |pts: &[(f64, f64)]| {
        let p: Vec<String> = pts.iter().map(|(dx, dy)| format!("{:.2},{:.2}", x + dx, y + dy)).collect();
        format!("<polygon class=\"marker\" points=\"{}\" {style}/>", p.join(" "))
    };
    match i % 5 {
        0 => format!("<circle class=\"marker\" cx=\"{x:.2}\" cy=\"{y:.2}\" r=\"{r}\" {style}/>"),
        1 => poly(&[(-r, -r), (r, -r), (r, r), (-r, r)]),
        2 => poly(&[(0.0, -r * 1.2), (r * 1.1, r * 0.8), (-r * 1.1, r * 0.8)]),
        3 => poly(&[(0.0, -r * 1.3), (r * 1.3, 0.0), (0.0, r * 1.3), (-r * 1.3, 0.0)]),
        _ => poly(&[(0.0, r * 1.2), (r * 1.1, -r * 0.8), (-r * 1.1, -r * 0.8)]),
    }
}

fn dash_attr(i: usize) -> String {
    dash(i).map(|(on, off)| format!(" stroke-dasharray=\"{on} {off}\"")).unwrap_or_default()
}

/// Runs of consecutive points that have an interval.
fn runs_with_ci(points: &[Point]) -> Vec<&[Point]> {
    points.split(|p| p.ci.is_none()).filter(|r| !r.is_empty()).collect()
}

/// The chart as SVG text.
pub fn render(c: &LineChart) -> String {
    let mut values: Vec<f64> = Vec::new();
    for p in c.series.iter().flat_map(|s| &s.points) {
        values.push(p.mean);
        if let Some((lo, hi)) = p.ci {
            values.extend([lo, hi]);
        }
    }
    let scale = Scale::of(&values);
    let xs: Vec<f64> = c.x_ticks.iter().map(|t| t.0).collect();
    let (xmin, xmax) = (
        xs.iter().copied().fold(f64::INFINITY, f64::min),
        xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    // room at the ends keeps the end points and their labels off the frame
    let pad = if c.categorical || xmax <= xmin { 0.5 } else { 0.06 * (xmax - xmin) };
    let (x0, x1) = if xmin.is_finite() { (xmin - pad, xmax + pad) } else { (0.0, 1.0) };
    let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * (RIGHT - LEFT);
    let (y0, y1) = scale.bounds();
    let kind = if matches!(scale, Scale::Log(..)) { "log" } else { "linear" };

    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n\
<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"white\"/>\n\
<text x=\"{:.1}\" y=\"28\" font-size=\"17\" font-weight=\"bold\" text-anchor=\"middle\">{}</text>\n",
        WIDTH / 2.0,
        esc(&c.title)
    );
    let _ = writeln!(
        s,
        "<g class=\"plot\" data-x0=\"{x0}\" data-x1=\"{x1}\" data-px0=\"{LEFT}\" data-px1=\"{RIGHT}\" data-y0=\"{y0}\" data-y1=\"{y1}\" data-py0=\"{BOTTOM}\" data-py1=\"{TOP}\" data-y-scale=\"{kind}\">"
    );
    // grid, ticks and axis labels
    for t in scale.ticks() {
        let y = scale.py(t);
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" x2=\"{RIGHT}\" y1=\"{y:.2}\" y2=\"{y:.2}\" stroke=\"#e6e6e6\"/><text x=\"{:.1}\" y=\"{:.2}\" font-size=\"12\" text-anchor=\"end\">{}</text>",
            LEFT - 6.0,
            y + 4.0,
            trim_num(t)
        );
    }
    for (x, label) in &c.x_ticks {
        let _ = writeln!(
            s,
            "<line x1=\"{0:.2}\" x2=\"{0:.2}\" y1=\"{BOTTOM}\" y2=\"{1}\" stroke=\"#444\"/><text x=\"{0:.2}\" y=\"{2}\" font-size=\"12\" text-anchor=\"middle\">{3}</text>",
            px(*x),
            BOTTOM + 5.0,
            BOTTOM + 20.0,
            esc(label)
        );
    }
    let _ = writeln!(
        s,
        "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>",
        RIGHT - LEFT,
        BOTTOM - TOP
    );
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{}\" font-size=\"14\" text-anchor=\"middle\">{}</text>",
        (LEFT + RIGHT) / 2.0,
        BOTTOM + 48.0,
        esc(&c.x_label)
    );
    let _ = writeln!(
        s,
        "<text transform=\"translate(22 {:.1}) rotate(-90)\" font-size=\"14\" text-anchor=\"middle\">{}</text>",
        (TOP + BOTTOM) / 2.0,
        esc(&c.y_label)
    );
    for (i, series) in c.series.iter().enumerate() {
        let col = hex(i);
        let _ = writeln!(s, "<g class=\"series\" data-policy=\"{}\">", esc(&series.name));
        for run in runs_with_ci(&series.points) {
            let xs: Vec<String> = run.iter().map(|p| trim(p.x)).collect();
            let lows: Vec<&str> = run.iter().map(|p| p.text[1].as_str()).collect();
            let highs: Vec<&str> = run.iter().map(|p| p.text[2].as_str()).collect();
            let data = format!(
                "data-policy=\"{}\" data-x=\"{}\" data-ci-low=\"{}\" data-ci-high=\"{}\"",
                esc(&series.name),
                xs.join(" "),
                lows.join(" "),
                highs.join(" ")
            );
            if run.len() == 1 {
                let (p, (lo, hi)) = (&run[0], run[0].ci.unwrap_or((run[0].mean, run[0].mean)));
                let (x, ya, yb) = (px(p.x), scale.py(lo), scale.py(hi));
                let _ = writeln!(
                    s,
                    "<path class=\"ci\" {data} d=\"M{x:.2},{ya:.2}V{yb:.2}M{:.2},{ya:.2}H{:.2}M{:.2},{yb:.2}H{:.2}\" stroke=\"{col}\" stroke-width=\"2\" fill=\"none\"/>",
                    x - 6.0,
                    x + 6.0,
                    x - 6.0,
                    x + 6.0
                );
            } else {
                let mut pts: Vec<String> = run
                    .iter()
                    .map(|p| format!("{:.2},{:.2}", px(p.x), scale.py(p.ci.map_or(p.mean, |c| c.1))))
                    .collect();
                pts.extend(
                    run.iter()
                        .rev()
                        .map(|p| format!("{:.2},{:.2}", px(p.x), scale.py(p.ci.map_or(p.mean, |c| c.0)))),
                );
                let _ = writeln!(
                    s,
                    "<polygon class=\"ci\" {data} points=\"{}\" fill=\"{col}\" fill-opacity=\"0.18\" stroke=\"{col}\" stroke-opacity=\"0.5\" stroke-width=\"0.8\"{}/>",
                    pts.join(" "),
                    dash_attr(i)
                );
            }
        }
        if series.points.len() > 1 {
            let pts: Vec<String> =
                series.points.iter().map(|p| format!("{:.2},{:.2}", px(p.x), scale.py(p.mean))).collect();
            let _ = writeln!(
                s,
                "<polyline class=\"mean\" points=\"{}\" fill=\"none\" stroke=\"{col}\" stroke-width=\"2.2\"{}/>",
                pts.join(" "),
                dash_attr(i)
            );
        }
        for p in &series.points {
            s.push_str(&marker(i, px(p.x), scale.py(p.mean), &col));
            s.push('\n');
        }
        s.push_str("</g>\n");
    }
    s.push_str("</g>\n");
    legend(&mut s, c);
    s.push_str("</svg>\n");
    s
}

fn legend(s: &mut String, c: &LineChart) {
    let x = RIGHT + 24.0;
    for (i, series) in c.series.iter().enumerate() {
        let y = TOP + 10.0 + 26.0 * i as f64;
        let col = hex(i);
        let _ = writeln!(
            s,
            "<line x1=\"{x}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"{col}\" stroke-width=\"2.2\"{}/>{}<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\">{}</text>",
            x + 36.0,
            dash_attr(i),
            marker(i, x + 18.0, y, &col),
            x + 44.0,
            y + 4.5,
            esc(&series.name)
        );
    }
    let y = TOP + 10.0 + 26.0 * c.series.len() as f64;
    let _ = writeln!(
        s,
        "<rect x=\"{x}\" y=\"{:.1}\" width=\"36\" height=\"12\" fill=\"#888\" fill-opacity=\"0.25\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\">95% CI over seeds</text>",
        y - 6.0,
        x + 44.0,
        y + 4.5
    );
}

/// An x value for a data attribute: the shortest text that reads back the same.
fn trim(x: f64) -> String {
    format!("{x}")
}

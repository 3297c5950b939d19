//! Charts of a results folder, drawn from its CSV files (so `fairsim run` and
//! `fairsim report` draw the same pictures), as SVG and PNG.
//!
//! Text is rendered with `ab_glyph` and the DejaVu Sans bytes of the `dejavu`
//! crate: no system font libraries. Long runs stay cheap to draw: time series
//! are bucketed to at most [`MAX_POINTS`] points per line, and a wait CDF is
//! sampled at [`CDF_POINTS`] fixed quantiles of the sorted waits. With many
//! tenants the [`TOP_N`] with the most jobs are drawn and the rest summed (or,
//! for the p99 bars, maxed) as "others".

use std::collections::HashMap;
use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle};

use crate::error::{Error, Result};

/// Most points drawn per line.
pub const MAX_POINTS: usize = 2000;
/// Quantiles sampled per wait CDF.
pub const CDF_POINTS: usize = 200;
/// Tenants drawn individually; the rest are grouped as "others".
pub const TOP_N: usize = 8;

const WIDTH: u32 = 1100;
const HEIGHT: u32 = 560;
const LEGEND_W: u32 = 210;
const FONT: &str = "sans-serif";

const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(127, 127, 127),
];

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

const OTHERS_COLOR: RGBColor = RGBColor(160, 160, 160);

fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font shipped inside the crate; a
        // failure here would only mean text is missing, so it is not fatal.
        let _ = register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let _ = register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
    });
}

/// A unit for an axis of seconds: s, min or h, whichever keeps numbers readable.
#[derive(Debug, Clone, Copy)]
pub struct Unit {
    pub div: f64,
    pub name: &'static str,
}

/// The unit for values up to `max_secs`.
pub fn unit_for(max_secs: f64) -> Unit {
    if max_secs >= 3.0 * 3600.0 {
        Unit { div: 3600.0, name: "h" }
    } else if max_secs >= 5.0 * 60.0 {
        Unit { div: 60.0, name: "min" }
    } else if max_secs >= 1.0 || max_secs == 0.0 {
        Unit { div: 1.0, name: "s" }
    } else {
        Unit { div: 0.001, name: "ms" }
    }
}

/// One line of a line chart; `segments` are drawn unconnected (gaps where a
/// value is undefined).
#[derive(Debug, Clone)]
pub struct Line {
    pub name: String,
    pub color: RGBColor,
    pub segments: Vec<Vec<(f64, f64)>>,
}

/// Something to draw.
#[derive(Debug, Clone)]
pub enum Plot {
    Lines {
        title: String,
        x_label: String,
        y_label: String,
        x_max: f64,
        y_max: f64,
        /// Logarithmic x axis from `x_min` (for values spanning decades, like waits).
        log_x: Option<f64>,
        lines: Vec<Line>,
    },
    /// Bands stacked bottom-up in order, over the common `x`.
    Stacked {
        title: String,
        x_label: String,
        y_label: String,
        x: Vec<f64>,
        bands: Vec<(String, RGBColor, Vec<f64>)>,
    },
    /// One cluster of bars per category, one bar per group in each.
    Bars {
        title: String,
        x_label: String,
        y_label: String,
        categories: Vec<String>,
        groups: Vec<(String, RGBColor, Vec<Option<f64>>)>,
        /// Logarithmic y axis from this floor (bars start at it).
        log_y: Option<f64>,
    },
}

/// A drawn chart: its file stem, title and SVG text.
#[derive(Debug, Clone)]
pub struct Chart {
    pub stem: String,
    pub title: String,
    pub svg: String,
}

type Draw = std::result::Result<(), String>;

fn de<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

impl Plot {
    pub fn title(&self) -> &str {
        match self {
            Plot::Lines { title, .. } | Plot::Stacked { title, .. } | Plot::Bars { title, .. } => title,
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Draw {
        root.fill(&WHITE).map_err(de)?;
        let (plot, legend) = root.split_horizontally(WIDTH - LEGEND_W);
        match self {
            Plot::Lines { title, x_label, y_label, x_max, y_max, log_x, lines } => {
                macro_rules! lines_on {
                    ($xr:expr, $lo:expr) => {{
                        let mut chart = ChartBuilder::on(&plot)
                            .caption(title, (FONT, 22).into_font().style(FontStyle::Bold))
                            .margin(14)
                            .x_label_area_size(50)
                            .y_label_area_size(75)
                            .build_cartesian_2d($xr, 0f64..nice_max(*y_max))
                            .map_err(de)?;
                        chart
                            .configure_mesh()
                            .x_desc(x_label.as_str())
                            .y_desc(y_label.as_str())
                            .label_style((FONT, 14))
                            .axis_desc_style((FONT, 16))
                            .light_line_style(RGBColor(235, 235, 235))
                            .x_label_formatter(&|v| trim_num(*v))
                            .y_label_formatter(&|v| trim_num(*v))
                            .draw()
                            .map_err(de)?;
                        for l in lines {
                            for seg in &l.segments {
                                let pts = seg.iter().map(|&(x, y)| (x.max($lo), y));
                                chart
                                    .draw_series(LineSeries::new(pts, l.color.stroke_width(2)))
                                    .map_err(de)?;
                            }
                        }
                    }};
                }
                match log_x {
                    Some(lo) => lines_on!((*lo..nice_max(*x_max).max(lo * 10.0)).log_scale(), *lo),
                    None => lines_on!(0f64..nice_max(*x_max), 0.0),
                }
                let entries: Vec<(String, RGBColor)> =
                    lines.iter().map(|l| (l.name.clone(), l.color)).collect();
                draw_legend(&legend, &entries, false)?;
            }
            Plot::Stacked { title, x_label, y_label, x, bands } => {
                let mut top = vec![0.0; x.len()];
                let mut polys = Vec::new();
                for (_, c, v) in bands {
                    let lower = top.clone();
                    for (t, y) in top.iter_mut().zip(v) {
                        *t += y;
                    }
                    let mut pts: Vec<(f64, f64)> = x.iter().copied().zip(top.iter().copied()).collect();
                    pts.extend(x.iter().copied().zip(lower).rev());
                    polys.push((pts, *c));
                }
                let y_max = top.iter().copied().fold(0.0, f64::max);
                let x_max = x.last().copied().unwrap_or(0.0);
                let mut chart = ChartBuilder::on(&plot)
                    .caption(title, (FONT, 22).into_font().style(FontStyle::Bold))
                    .margin(14)
                    .x_label_area_size(50)
                    .y_label_area_size(75)
                    .build_cartesian_2d(0f64..nice_max(x_max), 0f64..nice_max(y_max))
                    .map_err(de)?;
                mesh(&mut chart, x_label, y_label)?;
                for (pts, c) in polys {
                    if pts.len() >= 3 {
                        chart.draw_series(std::iter::once(Polygon::new(pts, c.filled()))).map_err(de)?;
                    }
                }
                // legend top-down in the order the bands are stacked on screen
                let entries: Vec<(String, RGBColor)> =
                    bands.iter().rev().map(|(n, c, _)| (n.clone(), *c)).collect();
                draw_legend(&legend, &entries, true)?;
            }
            Plot::Bars { title, x_label, y_label, categories, groups, log_y } => {
                let y_max = groups.iter().flat_map(|g| g.2.iter().flatten()).copied().fold(0.0, f64::max);
                let n = categories.len().max(1) as f64;
                macro_rules! bars_on {
                    ($yr:expr, $lo:expr) => {{
                        let mut chart = ChartBuilder::on(&plot)
                            .caption(title, (FONT, 22).into_font().style(FontStyle::Bold))
                            .margin(14)
                            .x_label_area_size(50)
                            .y_label_area_size(75)
                            .build_cartesian_2d(0f64..n, $yr)
                            .map_err(de)?;
                        chart
                            .configure_mesh()
                            .disable_x_mesh()
                            .x_labels(0)
                            .x_desc(x_label.as_str())
                            .y_desc(y_label.as_str())
                            .label_style((FONT, 14))
                            .axis_desc_style((FONT, 16))
                            .light_line_style(RGBColor(235, 235, 235))
                            .y_label_formatter(&|v| trim_num(*v))
                            .draw()
                            .map_err(de)?;
                        let g = groups.len().max(1) as f64;
                        let bw = 0.8 / g;
                        for (k, (_, c, vals)) in groups.iter().enumerate() {
                            let rects = vals.iter().enumerate().filter_map(|(i, v)| {
                                v.map(|v| {
                                    let x0 = i as f64 + 0.1 + k as f64 * bw;
                                    Rectangle::new([(x0, $lo), (x0 + bw * 0.92, v.max($lo))], c.filled())
                                })
                            });
                            chart.draw_series(rects).map_err(de)?;
                        }
                        // category names under the clusters, in backend pixels
                        let style =
                            TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
                        for (i, name) in categories.iter().enumerate() {
                            let (px, py) = chart.backend_coord(&(i as f64 + 0.5, $lo));
                            plot.draw(&Text::new(short(name, 16), (px, py + 6), style.clone()))
                                .map_err(de)?;
                        }
                    }};
                }
                match log_y {
                    Some(lo) => bars_on!((*lo..nice_max(y_max).max(lo * 10.0)).log_scale(), *lo),
                    None => bars_on!(0f64..nice_max(y_max), 0.0),
                }
                let entries: Vec<(String, RGBColor)> =
                    groups.iter().map(|(n, c, _)| (n.clone(), *c)).collect();
                draw_legend(&legend, &entries, true)?;
            }
        }
        root.present().map_err(de)?;
        Ok(())
    }

    /// Draws the chart into `dir/STEM.svg` and `dir/STEM.png` and returns the SVG text.
    pub fn render(&self, dir: &Path, stem: &str) -> Result<Chart> {
        register_fonts();
        let fail = |e: String| Error::Other(format!("drawing chart {stem}: {e}"));
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
            self.draw(&root).map_err(fail)?;
        }
        let svg_path = dir.join(format!("{stem}.svg"));
        std::fs::write(&svg_path, &svg)
            .map_err(|e| Error::io(format!("cannot write {}", svg_path.display()), e))?;
        let png_path = dir.join(format!("{stem}.png"));
        {
            let root = BitMapBackend::new(&png_path, (WIDTH, HEIGHT)).into_drawing_area();
            self.draw(&root).map_err(fail)?;
        }
        Ok(Chart { stem: stem.to_string(), title: self.title().to_string(), svg })
    }
}

fn mesh<DB: DrawingBackend>(
    chart: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    x_label: &str,
    y_label: &str,
) -> Draw {
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .light_line_style(RGBColor(235, 235, 235))
        .x_label_formatter(&|v| trim_num(*v))
        .y_label_formatter(&|v| trim_num(*v))
        .draw()
        .map_err(de)
}

/// When values span more than two decades, the floor of a logarithmic axis:
/// a little under the smallest positive value (at least max / 1e6, since
/// zeros and near-zeros are drawn at the floor). `None`: a linear axis reads better.
fn log_floor(values: impl Iterator<Item = f64>, max: f64) -> Option<f64> {
    let min_pos = values.filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
    if !(max > 0.0 && min_pos.is_finite()) || max / min_pos < 100.0 {
        return None;
    }
    // a power of ten, so the axis starts on a labelled decade
    Some(10f64.powf((min_pos.max(max / 1e6)).log10().floor()))
}

/// An upper axis bound a little above `max` (and 1 for an empty chart).
fn nice_max(max: f64) -> f64 {
    if max.is_finite() && max > 0.0 {
        max * 1.04
    } else {
        1.0
    }
}

fn trim_num(v: f64) -> String {
    // three significant digits, without trailing zeros
    let decimals = if v == 0.0 { 0 } else { (2 - v.abs().log10().floor() as i32).clamp(0, 9) as usize };
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn short(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(max - 1).collect();
        s.push('…');
        s
    }
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(String, RGBColor)],
    boxes: bool,
) -> Draw {
    let style = TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (name, c)) in entries.iter().enumerate() {
        let y = 60 + 24 * i as i32;
        if boxes {
            area.draw(&Rectangle::new([(6, y - 7), (24, y + 7)], c.filled())).map_err(de)?;
        } else {
            area.draw(&PathElement::new(vec![(4, y), (26, y)], c.stroke_width(3))).map_err(de)?;
        }
        area.draw(&Text::new(short(name, 22), (32, y), style.clone())).map_err(de)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Turning the CSV files into plots.

/// Which tenants are drawn by name (the [`TOP_N`] with most jobs, ties by
/// name) and which are grouped as "others".
#[derive(Debug, Clone)]
pub struct Groups {
    /// Display names: the top tenants, then "others (N)" if any.
    pub names: Vec<String>,
    index: HashMap<String, usize>,
    pub others: Option<usize>,
}

impl Groups {
    /// Groups for tenants given as (name, jobs).
    pub fn new(mut tenants: Vec<(String, u64)>) -> Self {
        tenants.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        // with one tenant too many, drawing it beats an "others (1)"
        let shown = if tenants.len() <= TOP_N + 1 { tenants.len() } else { TOP_N };
        let mut names = Vec::new();
        let mut index = HashMap::new();
        for (i, (n, _)) in tenants.iter().enumerate() {
            index.insert(n.clone(), i.min(shown));
            if i < shown {
                names.push(n.clone());
            }
        }
        let others = (tenants.len() > shown).then(|| {
            names.push(format!("others ({})", tenants.len() - shown));
            shown
        });
        Groups { names, index, others }
    }

    /// The group of a tenant (unknown tenants go to "others", or are dropped).
    pub fn of(&self, tenant: &str) -> Option<usize> {
        self.index.get(tenant).copied().or(self.others)
    }

    pub fn color(&self, g: usize) -> RGBColor {
        if Some(g) == self.others {
            OTHERS_COLOR
        } else {
            color(g)
        }
    }
}

/// Buckets of tick indices: at most [`MAX_POINTS`] consecutive ranges.
fn buckets(n: usize) -> Vec<std::ops::Range<usize>> {
    let per = n.div_ceil(MAX_POINTS).max(1);
    (0..n).step_by(per).map(|s| s..(s + per).min(n)).collect()
}

fn col(header: &csv::ByteRecord, name: &str, file: &Path) -> Result<usize> {
    header.iter().position(|h| h == name.as_bytes()).ok_or_else(|| {
        Error::input(
            file,
            1,
            0,
            format!("column `{name}` is missing; was this file written by `fairsim run`?"),
        )
    })
}

fn open(path: &Path) -> Result<csv::Reader<std::fs::File>> {
    if !path.exists() {
        return Err(Error::input(
            path,
            0,
            0,
            "file is missing: the report needs every CSV written by `fairsim run` (rerun it to regenerate the folder)",
        ));
    }
    csv::Reader::from_path(path).map_err(|e| Error::input(path, 0, 0, format!("cannot read: {e}")))
}

fn num(rec: &csv::ByteRecord, i: usize, path: &Path, line: u64) -> Result<Option<f64>> {
    let cell = rec.get(i).unwrap_or(b"");
    if cell.is_empty() {
        return Ok(None);
    }
    std::str::from_utf8(cell)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .map(Some)
        .ok_or_else(|| Error::input(path, line as usize, i + 1, "not a number"))
}

fn text(rec: &csv::ByteRecord, i: usize) -> String {
    text_ref(rec, i).into_owned()
}

/// The cell as text without copying it (valid UTF-8, as fairsim writes it).
fn text_ref(rec: &csv::ByteRecord, i: usize) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(rec.get(i).unwrap_or(b""))
}

/// The per-tick time series of one policy, aggregated into groups.
struct TickSeries {
    times: Vec<f64>,
    /// [group][tick]
    completed: Vec<Vec<f64>>,
    running: Vec<Vec<f64>>,
}

/// Reads tick end times from `fairness.csv` (one row per tick) and the
/// Jain value of each.
fn read_fairness(path: &Path) -> Result<(Vec<f64>, Vec<Option<f64>>)> {
    let mut r = open(path)?;
    let h = r.byte_headers().map_err(|e| Error::input(path, 1, 0, e.to_string()))?.clone();
    let (ti, ji) = (col(&h, "time", path)?, col(&h, "jain", path)?);
    let mut times = Vec::new();
    let mut jain = Vec::new();
    let mut rec = csv::ByteRecord::new();
    let mut line = 1;
    while r.read_byte_record(&mut rec).map_err(|e| Error::input(path, line as usize + 1, 0, e.to_string()))? {
        line += 1;
        times.push(num(&rec, ti, path, line)?.unwrap_or(0.0));
        jain.push(num(&rec, ji, path, line)?);
    }
    Ok((times, jain))
}

/// Position of `t` in the sorted tick times (rows are written at tick ends).
fn tick_index(times: &[f64], t: f64, from: usize) -> usize {
    let mut i = from;
    while i < times.len() && times[i] < t {
        i += 1;
    }
    i.min(times.len().saturating_sub(1))
}

fn read_tenants(path: &Path, times: &[f64], groups: &Groups) -> Result<TickSeries> {
    let mut r = open(path)?;
    let h = r.byte_headers().map_err(|e| Error::input(path, 1, 0, e.to_string()))?.clone();
    let (ti, ni, ri, ci) = (
        col(&h, "time", path)?,
        col(&h, "tenant", path)?,
        col(&h, "running", path)?,
        col(&h, "completed", path)?,
    );
    let g = groups.names.len();
    let n = times.len();
    let mut running = vec![vec![0.0; n]; g];
    // completions change only in rows: record per-group increments, then accumulate
    let mut delta = vec![vec![0.0; n]; g];
    // per tenant, in first-seen order: its group and its last completed count
    // (one lookup per row without copying the name: tenants.csv has a row per
    // tenant with work per tick, a million rows for a million jobs)
    let mut slot: HashMap<String, usize> = HashMap::new();
    let mut group_of: Vec<Option<usize>> = Vec::new();
    let mut last: Vec<f64> = Vec::new();
    let mut rec = csv::ByteRecord::new();
    let mut line = 1u64;
    let mut at = 0;
    while r.read_byte_record(&mut rec).map_err(|e| Error::input(path, line as usize + 1, 0, e.to_string()))? {
        line += 1;
        let t = num(&rec, ti, path, line)?.unwrap_or(0.0);
        at = tick_index(times, t, at);
        let name = text_ref(&rec, ni);
        let s = match slot.get(name.as_ref()) {
            Some(&s) => s,
            None => {
                slot.insert(name.to_string(), last.len());
                group_of.push(groups.of(&name));
                last.push(0.0);
                last.len() - 1
            }
        };
        let Some(k) = group_of[s] else { continue };
        if n == 0 {
            continue;
        }
        running[k][at] += num(&rec, ri, path, line)?.unwrap_or(0.0);
        let done = num(&rec, ci, path, line)?.unwrap_or(0.0);
        delta[k][at] += done - last[s];
        last[s] = done;
    }
    let completed = delta
        .into_iter()
        .map(|d| {
            let mut acc = 0.0;
            d.into_iter()
                .map(|x| {
                    acc += x;
                    acc
                })
                .collect()
        })
        .collect();
    Ok(TickSeries { times: times.to_vec(), completed, running })
}

/// Oldest claimable age per class per tick (0 when nothing is claimable), classes in first-seen order.
fn read_classes(path: &Path, times: &[f64]) -> Result<Vec<(String, Vec<f64>)>> {
    let mut r = open(path)?;
    let h = r.byte_headers().map_err(|e| Error::input(path, 1, 0, e.to_string()))?.clone();
    let (ti, ci, ai) = (col(&h, "time", path)?, col(&h, "class", path)?, col(&h, "oldest_age", path)?);
    let mut out: Vec<(String, Vec<f64>)> = Vec::new();
    let mut rec = csv::ByteRecord::new();
    let mut line = 1u64;
    let mut at = 0;
    while r.read_byte_record(&mut rec).map_err(|e| Error::input(path, line as usize + 1, 0, e.to_string()))? {
        line += 1;
        if times.is_empty() {
            break;
        }
        let t = num(&rec, ti, path, line)?.unwrap_or(0.0);
        at = tick_index(times, t, at);
        let name = text(&rec, ci);
        let k = match out.iter().position(|(n, _)| *n == name) {
            Some(k) => k,
            None => {
                out.push((name, vec![0.0; times.len()]));
                out.len() - 1
            }
        };
        out[k].1[at] = num(&rec, ai, path, line)?.unwrap_or(0.0);
    }
    Ok(out)
}

/// Sorted first-attempt waits per group, from `jobs.csv`.
fn read_waits(path: &Path, groups: &Groups) -> Result<Vec<Vec<f64>>> {
    let mut r = open(path)?;
    let h = r.byte_headers().map_err(|e| Error::input(path, 1, 0, e.to_string()))?.clone();
    let (ni, wi) = (col(&h, "tenant", path)?, col(&h, "wait", path)?);
    let mut waits = vec![Vec::new(); groups.names.len()];
    let mut rec = csv::ByteRecord::new();
    let mut line = 1u64;
    while r.read_byte_record(&mut rec).map_err(|e| Error::input(path, line as usize + 1, 0, e.to_string()))? {
        line += 1;
        let Some(w) = num(&rec, wi, path, line)? else { continue };
        if let Some(k) = groups.of(&text_ref(&rec, ni)) {
            waits[k].push(w);
        }
    }
    for w in &mut waits {
        w.sort_by(f64::total_cmp);
    }
    Ok(waits)
}

/// (x, y) points of the empirical CDF of sorted `w` at [`CDF_POINTS`] quantiles
/// (nearest-rank), as a step: the fraction of jobs that waited at most x.
fn cdf_points(w: &[f64], div: f64) -> Vec<(f64, f64)> {
    if w.is_empty() {
        return Vec::new();
    }
    let n = w.len();
    let mut pts = vec![(0.0, 0.0)];
    for i in 0..=CDF_POINTS {
        let q = i as f64 / CDF_POINTS as f64;
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        pts.push((w[rank - 1] / div, rank as f64 / n as f64));
    }
    pts
}

fn downsample(x: &[f64], y: &[f64], how: Agg) -> Vec<(f64, f64)> {
    buckets(x.len())
        .into_iter()
        .map(|b| {
            let xv = x[b.end - 1];
            let ys = &y[b.clone()];
            let yv = match how {
                Agg::Last => ys[ys.len() - 1],
                Agg::Max => ys.iter().copied().fold(0.0, f64::max),
                Agg::Mean => ys.iter().sum::<f64>() / ys.len() as f64,
            };
            (xv, yv)
        })
        .collect()
}

#[derive(Clone, Copy)]
enum Agg {
    Last,
    Max,
    Mean,
}

/// A policy's label and its tenants' p99 waits in seconds (from summary.csv).
pub type PolicyP99s = (String, Vec<(String, Option<f64>)>);

/// Per-policy inputs of the cross-policy charts.
pub struct PolicySeries {
    pub label: String,
    times: Vec<f64>,
    jain: Vec<Option<f64>>,
}

/// Draws the four per-policy charts of `label` (whose CSVs are in `dir/label`)
/// into `charts_dir`.
pub fn policy_charts(
    dir: &Path,
    label: &str,
    groups: &Groups,
    charts_dir: &Path,
) -> Result<(Vec<Chart>, PolicySeries)> {
    let pdir = dir.join(label);
    let (times, jain, series, classes, waits) = std::thread::scope(|s| {
        // jobs.csv (a row per job) is the largest file: read it on the
        // other core meanwhile, which takes about a third off the charts
        let waits = s.spawn(|| read_waits(&pdir.join("jobs.csv"), groups));
        let (times, jain) = read_fairness(&pdir.join("fairness.csv"))?;
        let series = read_tenants(&pdir.join("tenants.csv"), &times, groups)?;
        let classes = read_classes(&pdir.join("classes.csv"), &times)?;
        let waits = waits.join().unwrap_or_else(|p| std::panic::resume_unwind(p))?;
        Ok::<_, Error>((times, jain, series, classes, waits))
    })?;
    let t_max = times.last().copied().unwrap_or(0.0);
    let tu = unit_for(t_max);
    let xs: Vec<f64> = series.times.iter().map(|t| t / tu.div).collect();
    let x_label = format!("simulated time ({})", tu.name);
    let mut charts = Vec::new();

    let lines: Vec<Line> = series
        .completed
        .iter()
        .enumerate()
        .map(|(g, y)| Line {
            name: groups.names[g].clone(),
            color: groups.color(g),
            segments: vec![downsample(&xs, y, Agg::Last)],
        })
        .collect();
    let y_max = series.completed.iter().filter_map(|v| v.last().copied()).fold(0.0, f64::max);
    charts.push(
        Plot::Lines {
            title: format!("Cumulative completions per tenant — {label}"),
            x_label: x_label.clone(),
            y_label: "jobs completed".into(),
            x_max: xs.last().copied().unwrap_or(0.0),
            y_max,
            log_x: None,
            lines,
        }
        .render(charts_dir, &format!("{label}-completions"))?,
    );

    let age_max = classes.iter().flat_map(|(_, v)| v.iter().copied()).fold(0.0, f64::max);
    let au = unit_for(age_max);
    let lines: Vec<Line> = classes
        .iter()
        .enumerate()
        .map(|(i, (name, v))| {
            let y: Vec<f64> = v.iter().map(|a| a / au.div).collect();
            Line { name: name.clone(), color: color(i), segments: vec![downsample(&xs, &y, Agg::Max)] }
        })
        .collect();
    charts.push(
        Plot::Lines {
            title: format!("Oldest claimable job age per class — {label}"),
            x_label: x_label.clone(),
            y_label: format!("oldest claimable age ({})", au.name),
            x_max: xs.last().copied().unwrap_or(0.0),
            y_max: age_max / au.div,
            log_x: None,
            lines,
        }
        .render(charts_dir, &format!("{label}-oldest-age"))?,
    );

    let b = buckets(xs.len());
    let bx: Vec<f64> = b.iter().map(|r| xs[r.end - 1]).collect();
    let bands = series
        .running
        .iter()
        .enumerate()
        .map(|(g, y)| {
            (
                groups.names[g].clone(),
                groups.color(g),
                downsample(&xs, y, Agg::Mean).into_iter().map(|p| p.1).collect(),
            )
        })
        .collect();
    charts.push(
        Plot::Stacked {
            title: format!("Running jobs per tenant (who holds the workers) — {label}"),
            x_label: x_label.clone(),
            y_label: "running jobs (at tick ends)".into(),
            x: bx,
            bands,
        }
        .render(charts_dir, &format!("{label}-running"))?,
    );

    let w_max = waits.iter().filter_map(|w| w.last().copied()).fold(0.0, f64::max);
    let w_floor = log_floor(waits.iter().flatten().copied(), w_max);
    // a log axis spans decades: seconds read best there
    let wu = if w_floor.is_some() { Unit { div: 1.0, name: "s" } } else { unit_for(w_max) };
    let lines: Vec<Line> = waits
        .iter()
        .enumerate()
        .map(|(g, w)| Line {
            name: groups.names[g].clone(),
            color: groups.color(g),
            segments: vec![cdf_points(w, wu.div)],
        })
        .collect();
    charts.push(
        Plot::Lines {
            title: format!("Wait-time CDF per tenant — {label}"),
            x_label: format!(
                "wait before first start ({}{})",
                wu.name,
                if w_floor.is_some() { ", log scale" } else { "" }
            ),
            y_label: "fraction of jobs waiting at most x".into(),
            x_max: w_max / wu.div,
            y_max: 1.0,
            log_x: w_floor.map(|f| f / wu.div),
            lines,
        }
        .render(charts_dir, &format!("{label}-wait-cdf"))?,
    );
    Ok((charts, PolicySeries { label: label.to_string(), times, jain }))
}

/// Draws the cross-policy charts: p99 wait per tenant group by policy (from
/// each policy's summary rows as (tenant, p99 seconds)), and Jain's index over time.
pub fn cross_charts(
    groups: &Groups,
    p99: &[PolicyP99s],
    series: &[PolicySeries],
    charts_dir: &Path,
) -> Result<Vec<Chart>> {
    let mut charts = Vec::new();
    let max = p99.iter().flat_map(|(_, v)| v.iter().filter_map(|x| x.1)).fold(0.0, f64::max);
    let floor = log_floor(p99.iter().flat_map(|(_, v)| v.iter().filter_map(|x| x.1)), max);
    let u = if floor.is_some() { Unit { div: 1.0, name: "s" } } else { unit_for(max) };
    let bar_groups = p99
        .iter()
        .enumerate()
        .map(|(i, (label, rows))| {
            let mut vals: Vec<Option<f64>> = vec![None; groups.names.len()];
            for (tenant, v) in rows {
                if let (Some(g), Some(v)) = (groups.of(tenant), v) {
                    // "others" shows the worst p99 among the grouped tenants
                    vals[g] = Some(vals[g].map_or(*v, |x: f64| x.max(*v)));
                }
            }
            (label.clone(), color(i), vals.into_iter().map(|v| v.map(|x| x / u.div)).collect())
        })
        .collect();
    let mut categories = groups.names.clone();
    if let Some(o) = groups.others {
        categories[o] = format!("{} max", categories[o]);
    }
    charts.push(
        Plot::Bars {
            title: "p99 wait per tenant, by policy".into(),
            x_label: "tenant".into(),
            y_label: format!("p99 wait ({}{})", u.name, if floor.is_some() { ", log scale" } else { "" }),
            categories,
            groups: bar_groups,
            log_y: floor.map(|f| f / u.div),
        }
        .render(charts_dir, "p99-wait-by-policy")?,
    );

    let t_max = series.iter().filter_map(|s| s.times.last().copied()).fold(0.0, f64::max);
    let tu = unit_for(t_max);
    let lines = series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // windows not counted (fewer than two backlogged tenants) break the line
            let xs: Vec<f64> = s.times.iter().map(|t| t / tu.div).collect();
            let mut segments = Vec::new();
            for b in buckets(xs.len()) {
                let vals: Vec<f64> = s.jain[b.clone()].iter().flatten().copied().collect();
                if vals.is_empty() {
                    segments.push(Vec::new());
                } else {
                    let mean = vals.iter().sum::<f64>() / vals.len() as f64;
                    if segments.is_empty() {
                        segments.push(Vec::new());
                    }
                    if let Some(seg) = segments.last_mut() {
                        seg.push((xs[b.end - 1], mean));
                    }
                }
            }
            // a lone point would not show as a line: give it a dot's width
            let segments = segments
                .into_iter()
                .filter(|s: &Vec<(f64, f64)>| !s.is_empty())
                .map(|s| if s.len() == 1 { vec![s[0], (s[0].0 + t_max / tu.div / 400.0, s[0].1)] } else { s })
                .collect();
            Line { name: s.label.clone(), color: color(i), segments }
        })
        .collect();
    charts.push(
        Plot::Lines {
            title: "Jain's fairness index per window, by policy".into(),
            x_label: format!("simulated time ({})", tu.name),
            y_label: "Jain's index (1 = every tenant got its fair share)".into(),
            x_max: t_max / tu.div,
            y_max: 1.0 / 1.04,
            log_x: None,
            lines,
        }
        .render(charts_dir, "jain-over-time")?,
    );
    Ok(charts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_keep_the_top_tenants_and_sum_the_rest() {
        let many: Vec<(String, u64)> = (0..200).map(|i| (format!("t{i:03}"), i as u64)).collect();
        let g = Groups::new(many);
        // the 8 busiest are t199..t192, then "others (192)"
        assert_eq!(g.names.len(), TOP_N + 1);
        assert_eq!(g.names[0], "t199");
        assert_eq!(g.names[TOP_N], "others (192)");
        assert_eq!(g.of("t000"), Some(TOP_N));
        assert_eq!(g.of("t195"), Some(4));
        // two tenants: both by name, no others
        let g = Groups::new(vec![("a".into(), 1), ("b".into(), 5)]);
        assert_eq!(g.names, vec!["b".to_string(), "a".to_string()]);
        assert_eq!(g.others, None);
    }

    #[test]
    fn cdf_samples_nearest_rank_quantiles() {
        // 4 waits: the CDF reaches 1/4 at 1, 2/4 at 2, 3/4 at 3 and 1 at 10
        let pts = cdf_points(&[1.0, 2.0, 3.0, 10.0], 1.0);
        assert_eq!(pts.len(), CDF_POINTS + 2);
        assert_eq!(pts[0], (0.0, 0.0));
        assert!(pts.contains(&(1.0, 0.25)) && pts.contains(&(2.0, 0.5)) && pts.contains(&(3.0, 0.75)));
        assert_eq!(*pts.last().unwrap(), (10.0, 1.0));
    }

    #[test]
    fn buckets_bound_the_points_per_line() {
        assert_eq!(buckets(10).len(), 10);
        let b = buckets(1_000_001);
        assert!(b.len() <= MAX_POINTS);
        assert_eq!(b.last().unwrap().end, 1_000_001);
        assert_eq!(
            downsample(&[1.0, 2.0, 3.0], &[4.0, 6.0, 5.0], Agg::Max),
            vec![(1.0, 4.0), (2.0, 6.0), (3.0, 5.0)]
        );
    }
}

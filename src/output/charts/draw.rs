//! Drawing: turns a [`Plot`] into SVG and PNG files with plotters. The page
//! layout (size, legend column, fonts, palette) and every plotters call live
//! here, so the rest of the module deals only in numbers and names.

use std::path::Path;
use std::sync::Once;

use plotters::coord::combinators::LogCoord;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle};

use crate::error::{Error, Result};

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

pub(super) fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

pub(super) const OTHERS_COLOR: RGBColor = RGBColor(160, 160, 160);

fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font shipped inside the crate; a
        // failure here would only mean text is missing, so it is not fatal.
        let _ = register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let _ = register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
    });
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
        /// Logarithmic x axis from this floor (for values spanning decades, like waits).
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
        self.labels().title
    }

    fn labels(&self) -> Labels<'_> {
        match self {
            Plot::Lines { title, x_label, y_label, .. }
            | Plot::Stacked { title, x_label, y_label, .. }
            | Plot::Bars { title, x_label, y_label, .. } => Labels { title, x: x_label, y: y_label },
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Draw {
        root.fill(&WHITE).map_err(de)?;
        let (plot, legend) = root.split_horizontally(WIDTH - LEGEND_W);
        let labels = self.labels();
        match self {
            Plot::Lines { x_max, y_max, log_x, lines, .. } => {
                draw_lines(&plot, &labels, *x_max, *y_max, *log_x, lines)
            }
            Plot::Stacked { x, bands, .. } => draw_stacked(&plot, &labels, x, bands),
            Plot::Bars { categories, groups, log_y, .. } => {
                draw_bars(&plot, &labels, categories, groups, *log_y)
            }
        }?;
        let (entries, boxes) = self.legend();
        draw_legend(&legend, &entries, boxes)?;
        root.present().map_err(de)?;
        Ok(())
    }

    /// The legend's names and colours, top-down, and whether they are shown
    /// as filled boxes (areas, bars) rather than line strokes.
    fn legend(&self) -> (Vec<(String, RGBColor)>, bool) {
        match self {
            Plot::Lines { lines, .. } => (lines.iter().map(|l| (l.name.clone(), l.color)).collect(), false),
            // top-down in the order the bands are stacked on screen
            Plot::Stacked { bands, .. } => {
                (bands.iter().rev().map(|(n, c, _)| (n.clone(), *c)).collect(), true)
            }
            Plot::Bars { groups, .. } => (groups.iter().map(|(n, c, _)| (n.clone(), *c)).collect(), true),
        }
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

/// A chart's title and axis descriptions.
struct Labels<'a> {
    title: &'a str,
    x: &'a str,
    y: &'a str,
}

/// A chart with x and y axes, as plotters draws onto it.
type Axes<'a, DB, X, Y> = ChartContext<'a, DB, Cartesian2d<X, Y>>;

/// The axes of one chart in `area`, titled; the x and y ranges are generic
/// because a logarithmic axis is a different coordinate type from a linear one.
fn frame<'a, DB, X, Y>(
    area: &'a DrawingArea<DB, Shift>,
    title: &str,
    x: X,
    y: Y,
) -> std::result::Result<Axes<'a, DB, X::CoordDescType, Y::CoordDescType>, String>
where
    DB: DrawingBackend,
    X: AsRangedCoord,
    Y: AsRangedCoord,
{
    ChartBuilder::on(area)
        .caption(title, (FONT, 22).into_font().style(FontStyle::Bold))
        .margin(14)
        .x_label_area_size(50)
        .y_label_area_size(75)
        .build_cartesian_2d(x, y)
        .map_err(de)
}

/// Grid, tick labels and axis descriptions of a chart with numbers on both axes.
fn mesh<DB, X, Y>(chart: &mut Axes<'_, DB, X, Y>, x_label: &str, y_label: &str) -> Draw
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
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

fn draw_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    labels: &Labels,
    x_max: f64,
    y_max: f64,
    log_x: Option<f64>,
    lines: &[Line],
) -> Draw {
    match log_x {
        Some(lo) => lines_on(area, labels, log_axis(lo, x_max), y_max, lo, lines),
        None => lines_on(area, labels, 0f64..nice_max(x_max), y_max, 0.0, lines),
    }
}

/// The lines over the x axis `x_range`; points left of `x_floor` (zeros on a
/// log axis) are drawn at it.
fn lines_on<DB, X>(
    area: &DrawingArea<DB, Shift>,
    labels: &Labels,
    x_range: X,
    y_max: f64,
    x_floor: f64,
    lines: &[Line],
) -> Draw
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = frame(area, labels.title, x_range, 0f64..nice_max(y_max))?;
    mesh(&mut chart, labels.x, labels.y)?;
    for l in lines {
        for seg in &l.segments {
            let pts = seg.iter().map(|&(x, y)| (x.max(x_floor), y));
            chart.draw_series(LineSeries::new(pts, l.color.stroke_width(2))).map_err(de)?;
        }
    }
    Ok(())
}

fn draw_stacked<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    labels: &Labels,
    x: &[f64],
    bands: &[(String, RGBColor, Vec<f64>)],
) -> Draw {
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
    let mut chart = frame(area, labels.title, 0f64..nice_max(x_max), 0f64..nice_max(y_max))?;
    mesh(&mut chart, labels.x, labels.y)?;
    for (pts, c) in polys {
        if pts.len() >= 3 {
            chart.draw_series(std::iter::once(Polygon::new(pts, c.filled()))).map_err(de)?;
        }
    }
    Ok(())
}

fn draw_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    labels: &Labels,
    categories: &[String],
    groups: &[(String, RGBColor, Vec<Option<f64>>)],
    log_y: Option<f64>,
) -> Draw {
    let y_max = groups.iter().flat_map(|g| g.2.iter().flatten()).copied().fold(0.0, f64::max);
    match log_y {
        Some(lo) => bars_on(area, labels, categories, groups, log_axis(lo, y_max), lo),
        None => bars_on(area, labels, categories, groups, 0f64..nice_max(y_max), 0.0),
    }
}

/// The bars over the y axis `y_range`, rising from `y_floor`.
fn bars_on<DB, Y>(
    area: &DrawingArea<DB, Shift>,
    labels: &Labels,
    categories: &[String],
    groups: &[(String, RGBColor, Vec<Option<f64>>)],
    y_range: Y,
    y_floor: f64,
) -> Draw
where
    DB: DrawingBackend,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let n = categories.len().max(1) as f64;
    let mut chart = frame(area, labels.title, 0f64..n, y_range)?;
    // no x tick labels: the categories are named under their clusters below
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .x_desc(labels.x)
        .y_desc(labels.y)
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .light_line_style(RGBColor(235, 235, 235))
        .y_label_formatter(&|v| trim_num(*v))
        .draw()
        .map_err(de)?;
    let bw = 0.8 / groups.len().max(1) as f64;
    for (k, (_, c, vals)) in groups.iter().enumerate() {
        let rects = vals.iter().enumerate().filter_map(|(i, v)| {
            v.map(|v| {
                let x0 = i as f64 + 0.1 + k as f64 * bw;
                Rectangle::new([(x0, y_floor), (x0 + bw * 0.92, v.max(y_floor))], c.filled())
            })
        });
        chart.draw_series(rects).map_err(de)?;
    }
    // placed in backend pixels, as the x axis has no labels to hang them on
    let style = TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, name) in categories.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(i as f64 + 0.5, y_floor));
        area.draw(&Text::new(short(name, 16), (px, py + 6), style.clone())).map_err(de)?;
    }
    Ok(())
}

/// A logarithmic axis from `floor` to a little above `max`, at least a decade long.
fn log_axis(floor: f64, max: f64) -> LogCoord<f64> {
    (floor..nice_max(max).max(floor * 10.0)).log_scale().into()
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

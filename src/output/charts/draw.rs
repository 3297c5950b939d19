//! Drawing: turns a [`Plot`] into SVG and PNG files with plotters. The page
//! layout (size, legend column, fonts, palette) and every plotters call live
//! here, so the rest of the module deals only in numbers and names.

use std::path::Path;
use std::sync::Once;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle};

use crate::error::{Error, Result};

mod points;
mod scale;

pub use points::{Point, Shape, Whisker};
pub use scale::trim_num;
use scale::{log_bounds, log_range, nice_max, short};

const WIDTH: u32 = 1100;
const HEIGHT: u32 = 560;
const LEGEND_W: u32 = 210;
const FONT: &str = "sans-serif";

/// Okabe & Ito's eight colours, which colour-blind readers tell apart,
/// ordered so that neighbours (the first two or three policies, the bars of
/// one cluster) also differ in lightness when printed in grey (luminance
/// 87, 162, 106, 119, 159, 151, 0, 214 of 255).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(230, 159, 0),   // orange
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(0, 0, 0),       // black
    RGBColor(240, 228, 66),  // yellow
];

pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Dash and gap lengths (pixels) of line `i`, `None` for a solid line:
/// lines whose colours are alike in grey (0, 2, 3 and 1, 4, 5) get
/// different patterns, so overlapping lines stay apart in print; black is
/// solid, as black dashes are the reference lines'.
pub fn dash(i: usize) -> Option<(u32, u32)> {
    const PATTERNS: [Option<(u32, u32)>; 4] = [None, Some((10, 5)), Some((3, 4)), Some((18, 6))];
    const OF_COLOUR: [usize; 8] = [0, 1, 2, 3, 2, 0, 0, 3];
    PATTERNS[OF_COLOUR[i % OF_COLOUR.len()]]
}

pub(super) const OTHERS_COLOR: RGBColor = RGBColor(190, 190, 190);

/// Colour of reference lines (SLAs, capacity) unless they belong to a line.
pub const MARK_COLOR: RGBColor = RGBColor(0, 0, 0);

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
    /// Index of the line's dash pattern (its colour's index).
    pub pattern: usize,
    pub segments: Vec<Vec<(f64, f64)>>,
}

/// A reference line in data coordinates (a class SLA, the worker count),
/// drawn dashed over the data and named in the legend.
#[derive(Debug, Clone)]
pub struct Mark {
    pub name: String,
    pub color: RGBColor,
    pub points: Vec<(f64, f64)>,
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
        marks: Vec<Mark>,
    },
    /// Bands stacked bottom-up in order, over the common `x`.
    Stacked {
        title: String,
        x_label: String,
        y_label: String,
        x: Vec<f64>,
        bands: Vec<(String, RGBColor, Vec<f64>)>,
        marks: Vec<Mark>,
    },
    /// One cluster of bars per category, one bar per group in each. A
    /// category name may hold a line break (drawn as two lines).
    Bars {
        title: String,
        x_label: String,
        y_label: String,
        categories: Vec<String>,
        groups: Vec<(String, RGBColor, Vec<Option<f64>>)>,
        /// Logarithmic y axis from this floor (bars start at it).
        log_y: Option<f64>,
        marks: Vec<Mark>,
    },
    /// Labelled points (one per entry) over reference lines; `kinds` names
    /// in the legend what each shape means.
    Points {
        title: String,
        x_label: String,
        y_label: String,
        points: Vec<Point>,
        /// Logarithmic axes from these floors.
        log_x: Option<f64>,
        log_y: Option<f64>,
        marks: Vec<Mark>,
        kinds: Vec<(String, Shape)>,
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
            | Plot::Bars { title, x_label, y_label, .. }
            | Plot::Points { title, x_label, y_label, .. } => Labels { title, x: x_label, y: y_label },
        }
    }

    fn marks(&self) -> &[Mark] {
        match self {
            Plot::Lines { marks, .. }
            | Plot::Stacked { marks, .. }
            | Plot::Bars { marks, .. }
            | Plot::Points { marks, .. } => marks,
        }
    }

    /// Draws the chart under a title across the whole width (the chart's
    /// own, after the scenario's name when known).
    /// With `svg`, the points' whiskers are collected there for
    /// [`points::with_whiskers`] instead of drawn.
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        scenario: Option<&str>,
        svg: Option<&mut Vec<points::Placed>>,
    ) -> Draw {
        root.fill(&WHITE).map_err(de)?;
        let labels = self.labels();
        let heading = match scenario {
            Some(name) => format!("{name} — {}", labels.title),
            None => labels.title.to_string(),
        };
        let body = root.titled(&heading, (FONT, 21).into_font().style(FontStyle::Bold)).map_err(de)?;
        let (plot, legend) = body.split_horizontally(WIDTH - LEGEND_W);
        let marks = self.marks();
        match self {
            Plot::Lines { x_max, y_max, log_x, lines, .. } => {
                draw_lines(&plot, &labels, (*x_max, *y_max), *log_x, lines, marks)
            }
            Plot::Stacked { x, bands, .. } => draw_stacked(&plot, &labels, x, bands, marks),
            Plot::Bars { categories, groups, log_y, .. } => {
                draw_bars(&plot, &labels, categories, groups, *log_y, marks)
            }
            Plot::Points { points, log_x, log_y, .. } => {
                points::draw_points(&plot, &labels, points, (*log_x, *log_y), marks, svg)
            }
        }?;
        draw_legend(&legend, &self.legend())?;
        root.present().map_err(de)?;
        Ok(())
    }

    /// The legend's entries top-down: the data (as filled boxes for areas
    /// and bars, as strokes for lines), then the reference lines.
    fn legend(&self) -> Vec<Entry> {
        let entry = |name: &String, color: RGBColor, swatch| Entry { name: name.clone(), color, swatch };
        let mut entries: Vec<Entry> = match self {
            Plot::Lines { lines, .. } => {
                lines.iter().map(|l| entry(&l.name, l.color, Swatch::Stroke(dash(l.pattern)))).collect()
            }
            // top-down in the order the bands are stacked on screen
            Plot::Stacked { bands, .. } => {
                bands.iter().rev().map(|(n, c, _)| entry(n, *c, Swatch::Box)).collect()
            }
            Plot::Bars { groups, .. } => groups.iter().map(|(n, c, _)| entry(n, *c, Swatch::Box)).collect(),
            Plot::Points { kinds, .. } => {
                kinds.iter().map(|(n, k)| entry(n, LEGEND_INK, Swatch::Shape(*k))).collect()
            }
        };
        entries.extend(self.marks().iter().map(|m| entry(&m.name, m.color, Swatch::Stroke(MARK_DASH))));
        entries
    }

    /// Draws the chart into `dir/STEM.svg` and `dir/STEM.png` and returns
    /// the SVG text; `scenario` names the scenario in the title.
    pub fn render(&self, dir: &Path, stem: &str, scenario: Option<&str>) -> Result<Chart> {
        register_fonts();
        let fail = |e: String| Error::Other(format!("drawing chart {stem}: {e}"));
        let mut svg = String::new();
        let mut whiskers = Vec::new();
        {
            let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
            self.draw(&root, scenario, Some(&mut whiskers)).map_err(fail)?;
        }
        let svg = points::with_whiskers(svg, &whiskers);
        let svg_path = dir.join(format!("{stem}.svg"));
        std::fs::write(&svg_path, &svg)
            .map_err(|e| Error::io(format!("cannot write {}", svg_path.display()), e))?;
        let png_path = dir.join(format!("{stem}.png"));
        {
            // the PNG is written when drawn: a failure here is most often
            // the file (a full disk), which plotters calls a backend error
            let fail = |e: String| Error::Other(format!("cannot write {}: {e}", png_path.display()));
            let root = BitMapBackend::new(&png_path, (WIDTH, HEIGHT)).into_drawing_area();
            self.draw(&root, scenario, None).map_err(fail)?;
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

/// Dash and gap of reference lines: longer than any line's pattern.
const MARK_DASH: Option<(u32, u32)> = Some((14, 7));

/// How a legend entry shows its colour.
#[derive(Clone, Copy)]
enum Swatch {
    Box,
    Stroke(Option<(u32, u32)>),
    Shape(Shape),
}

/// Colour of the legend's point shapes, which stand for every entry's colour.
const LEGEND_INK: RGBColor = RGBColor(80, 80, 80);

struct Entry {
    name: String,
    color: RGBColor,
    swatch: Swatch,
}

/// The axes of one chart in `area`; the x and y ranges are generic
/// because a logarithmic axis is a different coordinate type from a linear one.
fn frame<'a, DB, X, Y>(
    area: &'a DrawingArea<DB, Shift>,
    x: X,
    y: Y,
) -> std::result::Result<Axes<'a, DB, X::CoordDescType, Y::CoordDescType>, String>
where
    DB: DrawingBackend,
    X: AsRangedCoord,
    Y: AsRangedCoord,
{
    ChartBuilder::on(area)
        .margin(14)
        .x_label_area_size(72)
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

/// Draws `points` as a line of `style`, dashed when `dash` is given.
fn stroke<DB, X, Y>(
    chart: &mut Axes<'_, DB, X, Y>,
    points: &[(f64, f64)],
    dash: Option<(u32, u32)>,
    style: ShapeStyle,
) -> Draw
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    match dash {
        None => chart.draw_series(LineSeries::new(points.iter().copied(), style)).map(|_| ()),
        Some((on, off)) => {
            chart.draw_series(DashedLineSeries::new(points.iter().copied(), on, off, style)).map(|_| ())
        }
    }
    .map_err(de)
}

fn draw_marks<DB, X, Y>(chart: &mut Axes<'_, DB, X, Y>, marks: &[Mark]) -> Draw
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for m in marks {
        stroke(chart, &m.points, MARK_DASH, m.color.stroke_width(2))?;
    }
    Ok(())
}

/// The largest x and y of the reference lines, so the axes reach them.
fn marks_max(marks: &[Mark]) -> (f64, f64) {
    marks.iter().flat_map(|m| m.points.iter()).fold((0.0, 0.0), |a, p| (a.0.max(p.0), a.1.max(p.1)))
}

fn draw_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    labels: &Labels,
    (x_max, y_max): (f64, f64),
    log_x: Option<f64>,
    lines: &[Line],
    marks: &[Mark],
) -> Draw {
    let (mx, my) = marks_max(marks);
    let (x_max, y_max) = (x_max.max(mx), y_max.max(my));
    match log_x {
        Some(lo) => {
            let (lo, hi) = log_bounds(lo, x_max);
            lines_on(area, labels, log_range(lo, hi), y_max, lo, lines, marks)
        }
        None => lines_on(area, labels, 0f64..nice_max(x_max), y_max, 0.0, lines, marks),
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
    marks: &[Mark],
) -> Draw
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = frame(area, x_range, 0f64..nice_max(y_max))?;
    mesh(&mut chart, labels.x, labels.y)?;
    for l in lines {
        for seg in &l.segments {
            let pts: Vec<(f64, f64)> = seg.iter().map(|&(x, y)| (x.max(x_floor), y)).collect();
            stroke(&mut chart, &pts, dash(l.pattern), l.color.stroke_width(2))?;
        }
    }
    draw_marks(&mut chart, marks)
}

fn draw_stacked<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    labels: &Labels,
    x: &[f64],
    bands: &[(String, RGBColor, Vec<f64>)],
    marks: &[Mark],
) -> Draw {
    let mut top = vec![0.0; x.len()];
    let mut polys = Vec::new();
    for (_, c, v) in bands {
        let lower = top.clone();
        for (t, y) in top.iter_mut().zip(v) {
            *t += y;
        }
        let upper: Vec<(f64, f64)> = x.iter().copied().zip(top.iter().copied()).collect();
        let mut pts = upper.clone();
        pts.extend(x.iter().copied().zip(lower).rev());
        polys.push((pts, upper, *c));
    }
    let (mx, my) = marks_max(marks);
    let y_max = top.iter().copied().fold(my, f64::max);
    let x_max = x.last().copied().unwrap_or(0.0).max(mx);
    let mut chart = frame(area, 0f64..nice_max(x_max), 0f64..nice_max(y_max))?;
    mesh(&mut chart, labels.x, labels.y)?;
    for (pts, upper, c) in polys {
        if pts.len() >= 3 {
            chart.draw_series(std::iter::once(Polygon::new(pts, c.filled()))).map_err(de)?;
            // a white edge between bands keeps neighbours apart in grey
            stroke(&mut chart, &upper, None, WHITE.stroke_width(1))?;
        }
    }
    draw_marks(&mut chart, marks)
}

fn draw_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    labels: &Labels,
    categories: &[String],
    groups: &[(String, RGBColor, Vec<Option<f64>>)],
    log_y: Option<f64>,
    marks: &[Mark],
) -> Draw {
    let y_max = groups.iter().flat_map(|g| g.2.iter().flatten()).copied().fold(marks_max(marks).1, f64::max);
    let bars = BarData { categories, groups, marks };
    match log_y {
        Some(lo) => {
            let (lo, hi) = log_bounds(lo, y_max);
            bars_on(area, labels, &bars, log_range(lo, hi), lo)
        }
        None => bars_on(area, labels, &bars, 0f64..nice_max(y_max), 0.0),
    }
}

struct BarData<'a> {
    categories: &'a [String],
    groups: &'a [(String, RGBColor, Vec<Option<f64>>)],
    marks: &'a [Mark],
}

/// The bars over the y axis `y_range`, rising from `y_floor`.
fn bars_on<DB, Y>(
    area: &DrawingArea<DB, Shift>,
    labels: &Labels,
    data: &BarData,
    y_range: Y,
    y_floor: f64,
) -> Draw
where
    DB: DrawingBackend,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let (categories, groups) = (data.categories, data.groups);
    let n = categories.len().max(1) as f64;
    let mut chart = frame(area, 0f64..n, y_range)?;
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
    let marks: Vec<Mark> = data
        .marks
        .iter()
        .map(|m| Mark {
            points: m.points.iter().map(|&(x, y)| (x.min(n), y.max(y_floor))).collect(),
            ..m.clone()
        })
        .collect();
    draw_marks(&mut chart, &marks)?;
    // placed in backend pixels, as the x axis has no labels to hang them on;
    // each line cut to the cluster's width, so the last stays inside the axis
    let style = TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    let (left, _) = chart.backend_coord(&(0.0, y_floor));
    let (right, _) = chart.backend_coord(&(n, y_floor));
    let fits = ((right - left) as f64 / n / 7.5).floor().clamp(4.0, 24.0) as usize;
    for (i, name) in categories.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(i as f64 + 0.5, y_floor));
        for (k, line) in name.lines().enumerate() {
            let at = (px, py + 6 + 16 * k as i32);
            area.draw(&Text::new(short(line, fits), at, style.clone())).map_err(de)?;
        }
    }
    Ok(())
}

fn draw_legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, entries: &[Entry]) -> Draw {
    let style = TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, e) in entries.iter().enumerate() {
        let y = 40 + 24 * i as i32;
        let (c, line) = (e.color, vec![(4, y), (26, y)]);
        match e.swatch {
            Swatch::Shape(k) => {
                points::draw_shape(area, (15, y), k, c)?;
                Ok(())
            }
            Swatch::Box => area.draw(&Rectangle::new([(6, y - 7), (24, y + 7)], c.filled())),
            Swatch::Stroke(None) => area.draw(&PathElement::new(line, c.stroke_width(3))),
            Swatch::Stroke(Some((on, off))) => area.draw(&plotters::element::DashedPathElement::new(
                line,
                on.min(8),
                off.min(4),
                c.stroke_width(3),
            )),
        }
        .map_err(de)?;
        area.draw(&Text::new(short(&e.name, 24), (32, y), style.clone())).map_err(de)?;
    }
    Ok(())
}

//! Scatter charts: one labelled point per entry, its shape saying whether
//! the entry meets its objectives, over reference lines (the bounds), with
//! whiskers for the 95% intervals where the figures are means over seeds.
//!
//! In the SVG the whiskers are written here rather than by plotters, each a
//! `<line class="whisker">` carrying the entry, the axis and the interval's
//! ends as `scorecard.csv` holds them (`data-lo`, `data-hi`): a script or a
//! test reads the interval off the chart without inverting its scale. The
//! PNG has the same whiskers, drawn by plotters.

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::scale::{log_bounds, log_range, nice_max};
use super::{de, draw_marks, frame, marks_max, mesh, Draw, Labels, Mark, FONT};

/// How a point is drawn: the legend of a trade-off chart says what each means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A filled disc.
    Filled,
    /// A ring.
    Hollow,
    /// An open triangle.
    Triangle,
}

/// One labelled point, in axis units.
#[derive(Debug, Clone)]
pub struct Point {
    pub label: String,
    pub x: f64,
    pub y: f64,
    pub shape: Shape,
    pub color: RGBColor,
    /// The 95% intervals across and up, when the figures are means over seeds.
    pub x_whisker: Option<Whisker>,
    pub y_whisker: Option<Whisker>,
}

/// A 95% interval along one axis: its ends in axis units, and as the file
/// it comes from holds them (seconds, ratios), for the SVG's attributes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Whisker {
    pub lo: f64,
    pub hi: f64,
    pub data: (f64, f64),
}

/// A whisker placed on the SVG: its ends in pixels and what it shows.
#[derive(Debug, Clone)]
pub(super) struct Placed {
    label: String,
    axis: char,
    data: (f64, f64),
    from: (i32, i32),
    to: (i32, i32),
    color: RGBColor,
}

/// Half the length of a whisker's end caps, in pixels.
const CAP: i32 = 4;

/// Radius of a point in pixels: large enough to tell a ring from a disc in print.
const RADIUS: i32 = 7;

/// Draws `shape` centred on `at` (pixels of `area`).
pub(super) fn draw_shape<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    shape: Shape,
    color: RGBColor,
) -> Draw {
    match shape {
        Shape::Filled => area.draw(&Circle::new(at, RADIUS, color.filled())),
        Shape::Hollow => area.draw(&Circle::new(at, RADIUS, color.stroke_width(3))),
        Shape::Triangle => area.draw(&TriangleMarker::new(at, RADIUS + 2, color.stroke_width(3))),
    }
    .map_err(de)
}

/// The points over linear or logarithmic axes (from the floors given), the
/// axes reaching every point and every reference line.
pub(super) fn draw_points<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    labels: &Labels,
    points: &[Point],
    (log_x, log_y): (Option<f64>, Option<f64>),
    marks: &[Mark],
    svg: Option<&mut Vec<Placed>>,
) -> Draw {
    let (mx, my) = marks_max(marks);
    // the axes reach the whiskers' far ends too
    let far = |w: Option<Whisker>| w.map_or(f64::MIN, |w| w.hi);
    let x_max = points.iter().map(|p| p.x.max(far(p.x_whisker))).fold(mx, f64::max);
    let y_max = points.iter().map(|p| p.y.max(far(p.y_whisker))).fold(my, f64::max);
    let data = PointData { labels, points, marks, svg: std::cell::RefCell::new(svg) };
    match (log_x, log_y) {
        (None, None) => points_on(area, &data, 0f64..nice_max(x_max), 0f64..nice_max(y_max), (0.0, 0.0)),
        (Some(lx), None) => {
            let (lo, hi) = log_bounds(lx, x_max);
            points_on(area, &data, log_range(lo, hi), 0f64..nice_max(y_max), (lo, 0.0))
        }
        (None, Some(ly)) => {
            let (lo, hi) = log_bounds(ly, y_max);
            points_on(area, &data, 0f64..nice_max(x_max), log_range(lo, hi), (0.0, lo))
        }
        (Some(lx), Some(ly)) => {
            let ((xl, xh), (yl, yh)) = (log_bounds(lx, x_max), log_bounds(ly, y_max));
            points_on(area, &data, log_range(xl, xh), log_range(yl, yh), (xl, yl))
        }
    }
}

struct PointData<'a> {
    labels: &'a Labels<'a>,
    points: &'a [Point],
    marks: &'a [Mark],
    /// Where the SVG's whiskers go (drawn by plotters when `None`); a
    /// cell because each of the four scale cases takes the data by reference.
    svg: std::cell::RefCell<Option<&'a mut Vec<Placed>>>,
}

fn points_on<DB, X, Y>(
    area: &DrawingArea<DB, Shift>,
    data: &PointData,
    x_range: X,
    y_range: Y,
    (x_floor, y_floor): (f64, f64),
) -> Draw
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = frame(area, x_range, y_range)?;
    mesh(&mut chart, data.labels.x, data.labels.y)?;
    // a zero on a log axis sits on its floor, as on the other charts
    let clamp = |(x, y): (f64, f64)| (x.max(x_floor), y.max(y_floor));
    let marks: Vec<Mark> = data
        .marks
        .iter()
        .map(|m| Mark { points: m.points.iter().map(|&p| clamp(p)).collect(), ..m.clone() })
        .collect();
    draw_marks(&mut chart, &marks)?;
    let plot = chart.plotting_area();
    let right = plot.get_pixel_range().0.end;
    for p in data.points {
        let ends = [
            ('x', p.x_whisker.map(|w| ((w.lo, p.y), (w.hi, p.y), w.data))),
            ('y', p.y_whisker.map(|w| ((p.x, w.lo), (p.x, w.hi), w.data))),
        ];
        for (axis, end) in ends {
            let Some((a, b, values)) = end else { continue };
            let (a, b) = (clamp(a), clamp(b));
            match data.svg.borrow_mut().as_mut() {
                Some(out) => out.push(Placed {
                    label: p.label.clone(),
                    axis,
                    data: values,
                    from: chart.backend_coord(&a),
                    to: chart.backend_coord(&b),
                    color: p.color,
                }),
                None => {
                    let style = p.color.stroke_width(2);
                    plot.draw(&PathElement::new(vec![a, b], style)).map_err(de)?;
                    let cap = if axis == 'x' { [(0, -CAP), (0, CAP)] } else { [(-CAP, 0), (CAP, 0)] };
                    for end in [a, b] {
                        plot.draw(&(EmptyElement::at(end) + PathElement::new(cap.to_vec(), style)))
                            .map_err(de)?;
                    }
                }
            }
        }
    }
    // labels beside their points; one that would cover an earlier one moves down
    let mut placed: Vec<(i32, i32, i32, i32)> = Vec::new();
    for p in data.points {
        let at = clamp((p.x, p.y));
        let (px, py) = chart.backend_coord(&at);
        let width = 8 * p.label.chars().count() as i32;
        // near the right edge the label goes to the left of its point
        let left = px + RADIUS + 4 + width > right;
        let dx = if left { -(RADIUS + 4) } else { RADIUS + 4 };
        let mut dy = -RADIUS - 2;
        let x0 = if left { px + dx - width } else { px + dx };
        for _ in 0..6 {
            let (y0, y1) = (py + dy - 8, py + dy + 8);
            if !placed.iter().any(|r| x0 < r.2 && r.0 < x0 + width && y0 < r.3 && r.1 < y1) {
                break;
            }
            dy += 17;
        }
        placed.push((x0, py + dy - 8, x0 + width, py + dy + 8));
        let anchor = if left { HPos::Right } else { HPos::Left };
        let style = TextStyle::from((FONT, 15).into_font()).pos(Pos::new(anchor, VPos::Center));
        let here = || EmptyElement::at(at);
        match p.shape {
            Shape::Filled => plot.draw(&(here() + Circle::new((0, 0), RADIUS, p.color.filled()))),
            Shape::Hollow => plot.draw(&(here() + Circle::new((0, 0), RADIUS, p.color.stroke_width(3)))),
            Shape::Triangle => {
                plot.draw(&(here() + TriangleMarker::new((0, 0), RADIUS + 2, p.color.stroke_width(3))))
            }
        }
        .map_err(de)?;
        plot.draw(&(here() + Text::new(p.label.clone(), (dx, dy), style))).map_err(de)?;
    }
    Ok(())
}

/// `svg` with `whiskers` drawn over it: a `<g class="whiskers">` before its
/// closing tag, each whisker a line between its ends plus two end caps.
pub(super) fn with_whiskers(svg: String, whiskers: &[Placed]) -> String {
    let Some(end) = svg.rfind("</svg>") else { return svg };
    if whiskers.is_empty() {
        return svg;
    }
    let mut g = String::from("<g class=\"whiskers\" stroke-width=\"2\">\n");
    for w in whiskers {
        let RGBColor(r, gr, b) = w.color;
        let stroke = format!("#{r:02X}{gr:02X}{b:02X}");
        g.push_str(&format!(
            "<line class=\"whisker\" data-policy=\"{}\" data-axis=\"{}\" data-lo=\"{}\" data-hi=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\"/>\n",
            attr(&w.label),
            w.axis,
            w.data.0,
            w.data.1,
            w.from.0,
            w.from.1,
            w.to.0,
            w.to.1
        ));
        for (x, y) in [w.from, w.to] {
            let ((x1, y1), (x2, y2)) = match w.axis {
                'x' => ((x, y - CAP), (x, y + CAP)),
                _ => ((x - CAP, y), (x + CAP, y)),
            };
            g.push_str(&format!(
                "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"{stroke}\"/>\n"
            ));
        }
    }
    g.push_str("</g>\n");
    let mut out = svg;
    out.insert_str(end, &g);
    out
}

/// `text` as an XML attribute value.
fn attr(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

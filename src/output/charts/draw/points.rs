//! Scatter charts: one labelled point per entry, its shape saying whether
//! the entry meets its objectives, over reference lines (the bounds).

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
}

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
) -> Draw {
    let (mx, my) = marks_max(marks);
    let x_max = points.iter().map(|p| p.x).fold(mx, f64::max);
    let y_max = points.iter().map(|p| p.y).fold(my, f64::max);
    let data = PointData { labels, points, marks };
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

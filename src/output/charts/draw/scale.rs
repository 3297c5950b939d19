//! Axis scales: where a logarithmic axis ends, a little headroom above the
//! data, and numbers and names cut to fit.

use plotters::coord::combinators::LogCoord;
use plotters::prelude::*;

/// The ends of a logarithmic axis over values up to `max`: from `floor`
/// (a power of ten) to the power of ten at or above `max`, at least a decade,
/// so the tallest bar fits and both ends are labelled decades.
pub(super) fn log_bounds(floor: f64, max: f64) -> (f64, f64) {
    let mut top = if max.is_finite() && max > 0.0 { 10f64.powf(max.log10().ceil()) } else { 1.0 };
    // log10 of an exact power of ten may land a hair above the integer
    if top / 10.0 >= max {
        top /= 10.0;
    }
    (floor, top.max(floor * 10.0))
}

/// A log range a hair wider than `lo..hi`: plotters labels the powers of
/// ten inside the range, stepping by repeated multiplication, and the top
/// one lands a rounding error past `hi` (its label was left off).
pub(super) fn log_range(lo: f64, hi: f64) -> LogCoord<f64> {
    (lo * (1.0 - 1e-9)..hi * (1.0 + 1e-9)).log_scale().into()
}
/// An upper axis bound a little above `max` (and 1 for an empty chart).
pub(super) fn nice_max(max: f64) -> f64 {
    if max.is_finite() && max > 0.0 {
        max * 1.04
    } else {
        1.0
    }
}

pub fn trim_num(v: f64) -> String {
    // three significant digits, without trailing zeros
    let decimals = if v == 0.0 { 0 } else { (2 - v.abs().log10().floor() as i32).clamp(0, 9) as usize };
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

pub(super) fn short(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(max - 1).collect();
        s.push('…');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_axis_ends_on_the_decade_above_the_largest_value() {
        // 423.6 lies between 10^2 and 10^3: the axis runs to 1000 (the
        // labels are read off a drawn chart in tests/report.rs)
        assert_eq!(log_bounds(0.1, 423.6), (0.1, 1000.0));
        // an exact power of ten is its own top; below the floor's decade, one decade
        assert_eq!(log_bounds(0.1, 100.0), (0.1, 100.0));
        assert_eq!(log_bounds(1.0, 2.0), (1.0, 10.0));
        assert_eq!(log_bounds(1.0, 0.5), (1.0, 10.0));
    }
}

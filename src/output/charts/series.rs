//! Shaping values for drawing: which tenants are drawn by name, bucketing of
//! long series, wait CDF samples, and the unit and scale of an axis.

use std::collections::HashMap;

use plotters::style::RGBColor;

use super::draw::{color, OTHERS_COLOR};

/// Most points drawn per line.
pub const MAX_POINTS: usize = 2000;
/// Quantiles sampled per wait CDF.
pub const CDF_POINTS: usize = 200;
/// Tenants drawn individually; the rest are grouped as "others".
pub const TOP_N: usize = 8;

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

/// The unit of an axis of seconds up to `max`, given its log floor (see
/// [`log_floor`]).
pub fn axis_unit(max: f64, log_floor: Option<f64>) -> Unit {
    // a log axis spans decades: seconds read best there
    if log_floor.is_some() {
        Unit { div: 1.0, name: "s" }
    } else {
        unit_for(max)
    }
}

/// When values span more than two decades, the floor of a logarithmic axis:
/// a little under the smallest positive value (at least max / 1e6, since
/// zeros and near-zeros are drawn at the floor). `None`: a linear axis reads better.
pub fn log_floor(values: impl Iterator<Item = f64>, max: f64) -> Option<f64> {
    let min_pos = values.filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
    if !(max > 0.0 && min_pos.is_finite()) || max / min_pos < 100.0 {
        return None;
    }
    // a power of ten, so the axis starts on a labelled decade
    Some(10f64.powf((min_pos.max(max / 1e6)).log10().floor()))
}

/// Which tenants are drawn by name (the [`TOP_N`] with most jobs, ties by
/// name) and which are grouped as "others".
#[derive(Debug, Clone)]
pub struct Groups {
    /// Display names: the top tenants, then "others (N)" if any.
    pub names: Vec<String>,
    index: HashMap<String, usize>,
    pub others: Option<usize>,
    /// How many tenants "others" stands for.
    pub rest: usize,
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
        Groups { names, index, others, rest: tenants.len() - shown }
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
pub(super) fn buckets(n: usize) -> Vec<std::ops::Range<usize>> {
    let per = n.div_ceil(MAX_POINTS).max(1);
    (0..n).step_by(per).map(|s| s..(s + per).min(n)).collect()
}

/// (x, y) points of the empirical CDF of sorted `w` at [`CDF_POINTS`] quantiles
/// (nearest-rank), as a step: the fraction of jobs that waited at most x.
pub(super) fn cdf_points(w: &[f64], div: f64) -> Vec<(f64, f64)> {
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

pub(super) fn downsample(x: &[f64], y: &[f64], how: Agg) -> Vec<(f64, f64)> {
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
pub(super) enum Agg {
    Last,
    Max,
    Mean,
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

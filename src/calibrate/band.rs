//! `fairsim calibrate --seeds N`: where the recorded waits fall in what
//! the model gives over N seeds. A deployment that draws (a weighted or
//! random poll, shuffle-sharding) gives a different p99 at every seed, so
//! one seed's figure cannot be set against the record; the band (min,
//! median, max over the seeds) says whether the record is one of the
//! outcomes the model produces. Times in seconds.

use std::collections::BTreeMap;

use super::compare::{Calibration, Waits};
use crate::results::human_duration as human;

/// One recorded figure against its simulated band.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// `all`, `tenant` or `class`.
    pub group: &'static str,
    pub name: String,
    /// `mean_wait` or `p99_wait`.
    pub metric: &'static str,
    pub recorded: f64,
    pub min: f64,
    /// Nearest-rank median of the seeds' figures (the lower middle for an
    /// even count, as every percentile in fairsim).
    pub median: f64,
    pub max: f64,
    /// Seeds that gave the figure (a group none of whose jobs started at
    /// a seed has no figure there).
    pub seeds: usize,
}

impl Band {
    pub fn inside(&self) -> bool {
        self.min <= self.recorded && self.recorded <= self.max
    }

    /// recorded − the nearer edge: 0 inside, positive above the band,
    /// negative below it.
    pub fn outside_by(&self) -> f64 {
        if self.recorded < self.min {
            self.recorded - self.min
        } else if self.recorded > self.max {
            self.recorded - self.max
        } else {
            0.0
        }
    }
}

type Key = (u8, &'static str, String, u8, &'static str);

/// The bands of every figure of `runs` (one calibration per seed, the
/// record the same in each): overall, then per tenant, then per class,
/// mean before p99.
pub fn bands(runs: &[Calibration]) -> Vec<Band> {
    // the recorded figure and the simulated ones, keyed so the order is stable
    let mut by: BTreeMap<Key, (f64, Vec<f64>)> = BTreeMap::new();
    let mut add = |rank: u8, group: &'static str, w: &Waits| {
        for (m, metric, rec, sim) in [
            (0, "mean_wait", w.recorded_mean, w.simulated_mean),
            (1, "p99_wait", w.recorded_p99, w.simulated_p99),
        ] {
            by.entry((rank, group, w.name.clone(), m, metric)).or_insert((rec, Vec::new())).1.push(sim);
        }
    };
    for c in runs {
        add(0, "all", &c.all);
        c.tenants.iter().for_each(|w| add(1, "tenant", w));
        c.classes.iter().for_each(|w| add(2, "class", w));
    }
    by.into_iter()
        .map(|((_, group, name, _, metric), (recorded, mut sims))| {
            sims.sort_by(f64::total_cmp);
            // nearest rank: the ceil(n / 2)-th smallest
            let median = sims[sims.len().div_ceil(2) - 1];
            Band {
                group,
                name,
                metric,
                recorded,
                min: sims[0],
                median,
                max: sims[sims.len() - 1],
                seeds: sims.len(),
            }
        })
        .collect()
}

pub const CSV_HEADER: &str =
    "group,name,metric,recorded,simulated_min,simulated_median,simulated_max,seeds,inside,outside_by";

/// One row of band.csv (seconds to the microsecond).
pub fn csv_row(b: &Band, name_cell: &str) -> String {
    format!(
        "{},{},{},{:.6},{:.6},{:.6},{:.6},{},{},{:.6}",
        b.group,
        name_cell,
        b.metric,
        b.recorded,
        b.min,
        b.median,
        b.max,
        b.seeds,
        b.inside(),
        b.outside_by()
    )
}

/// The lines `calibrate --seeds N` prints after the one-seed summary.
pub fn summary(bands: &[Band], seeds: usize) -> String {
    let mut s = format!("band over {seeds} seeds (simulated min .. median .. max; recorded):\n");
    for b in bands {
        let what = if b.group == "all" { "all jobs".to_string() } else { format!("{} {}", b.group, b.name) };
        let metric = if b.metric == "mean_wait" { "mean" } else { "p99" };
        let verdict = if b.inside() {
            "inside".to_string()
        } else {
            let side = if b.outside_by() > 0.0 { "above" } else { "below" };
            format!("OUTSIDE, {} {side}", human(b.outside_by().abs()))
        };
        s.push_str(&format!(
            "  {what} {metric} wait: {} .. {} .. {}; recorded {}: {verdict}\n",
            human(b.min),
            human(b.median),
            human(b.max),
            human(b.recorded)
        ));
    }
    let inside = bands.iter().filter(|b| b.inside()).count();
    s.push_str(&format!("{inside} of {} recorded figures inside the band\n", bands.len()));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn band(recorded: f64, min: f64, max: f64) -> Band {
        Band {
            group: "all",
            name: "all".into(),
            metric: "p99_wait",
            recorded,
            min,
            median: min,
            max,
            seeds: 2,
        }
    }

    #[test]
    fn outside_by_is_the_distance_to_the_nearer_edge() {
        assert_eq!(band(1.0, 1.0, 2.0).outside_by(), 0.0);
        assert!(band(2.0, 1.0, 2.0).inside());
        assert_eq!(band(2.5, 1.0, 2.0).outside_by(), 0.5);
        assert_eq!(band(0.25, 1.0, 2.0).outside_by(), -0.75);
        assert!(!band(0.25, 1.0, 2.0).inside());
    }
}

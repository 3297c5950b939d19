//! A Poisson entry's rate over time (`arrivals: {poisson, profile}`): the
//! base rate times piecewise-constant factors (steps, a daily shape of 24
//! hourly factors, a weekly shape of 7 daily ones) times, with `bursts`,
//! the state of a two-state Markov chain (on/off), which makes the entry a
//! Markov-modulated Poisson process.

use crate::time::{Time, SECOND};

/// One hour, one day, in microseconds.
pub const HOUR: Time = 3600 * SECOND;
pub const DAY: Time = 24 * HOUR;

/// Most pieces [`RateProfile::integral`] walks before it answers from the
/// long-run mean instead.
const MAX_PIECES: u64 = 1_000_000;

/// The rate factors of one entry.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RateProfile {
    /// From each time on (strictly increasing), the factor; 1 before the first.
    pub steps: Vec<(Time, f64)>,
    /// Factor of each hour of the day, 24 of them; hour 0 starts at time 0.
    pub daily: Option<Vec<f64>>,
    /// Factor of each day of the week, 7 of them; day 0 starts at time 0.
    pub weekly: Option<Vec<f64>>,
    pub bursts: Option<Bursts>,
}

/// `bursts: {on, off, high, low}`: periods of mean `on` (exponential) at
/// `high` times the rate alternate with periods of mean `off` at `low` times it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bursts {
    pub on: Time,
    pub off: Time,
    pub high: f64,
    pub low: f64,
}

impl Bursts {
    /// The share of time spent in bursts, on / (on + off), in the long run
    /// (the chain's stationary law).
    pub fn on_share(&self) -> f64 {
        self.on as f64 / (self.on as f64 + self.off as f64)
    }

    /// The long-run mean factor.
    pub fn mean(&self) -> f64 {
        let p = self.on_share();
        p * self.high + (1.0 - p) * self.low
    }
}

impl RateProfile {
    /// The factor of the deterministic part (steps, daily, weekly) at `t`,
    /// and when that piece ends (`Time::MAX`: never). O(log steps).
    pub fn piece(&self, t: Time) -> (f64, Time) {
        let (mut f, mut end) = (1.0, Time::MAX);
        let i = self.steps.partition_point(|s| s.0 <= t);
        if i > 0 {
            f *= self.steps[i - 1].1;
        }
        if let Some(s) = self.steps.get(i) {
            end = end.min(s.0);
        }
        if let Some(d) = &self.daily {
            f *= d[((t / HOUR) % 24) as usize];
            end = end.min((t / HOUR + 1) * HOUR);
        }
        if let Some(w) = &self.weekly {
            f *= w[((t / DAY) % 7) as usize];
            end = end.min((t / DAY + 1) * DAY);
        }
        (f, end)
    }

    /// The mean factor in the long run, after the last step: the mean of the
    /// daily shape times that of the weekly one times the bursts' mean.
    pub fn long_run(&self) -> f64 {
        let mean = |v: &Option<Vec<f64>>| v.as_ref().map_or(1.0, |v| v.iter().sum::<f64>() / v.len() as f64);
        let last = self.steps.last().map_or(1.0, |s| s.1);
        last * mean(&self.daily) * mean(&self.weekly) * self.bursts.map_or(1.0, |b| b.mean())
    }

    /// The factor integrated over [a, b), in microseconds (the expected
    /// arrivals are this times the base rate per microsecond): exact for the
    /// deterministic part, the bursts' stationary mean for the rest. `None`
    /// past [`MAX_PIECES`] pieces.
    pub fn integral(&self, a: Time, b: Time) -> Option<f64> {
        let (mut t, mut sum, mut pieces) = (a, 0.0, 0u64);
        while t < b {
            let (f, end) = self.piece(t);
            let end = end.min(b);
            sum += f * (end - t) as f64;
            t = end;
            pieces += 1;
            if pieces > MAX_PIECES {
                return None;
            }
        }
        Some(sum * self.bursts.map_or(1.0, |b| b.mean()))
    }

    /// The greatest factor any instant can have.
    pub fn peak(&self) -> f64 {
        let most = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
        let steps = most(&self.steps.iter().map(|s| s.1).collect::<Vec<_>>()).max(1.0);
        steps
            * self.daily.as_deref().map_or(1.0, most)
            * self.weekly.as_deref().map_or(1.0, most)
            * self.bursts.map_or(1.0, |b| b.high.max(b.low))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_end_at_the_next_step_hour_or_day() {
        let mut daily = vec![1.0; 24];
        daily[2] = 0.5;
        let p = RateProfile {
            steps: vec![(90 * 60 * SECOND, 4.0)],
            daily: Some(daily),
            weekly: None,
            bursts: None,
        };
        // before the step at 1h30: factor 1, the hour ends at 1h
        assert_eq!(p.piece(0), (1.0, HOUR));
        // 1h: the step ends the piece at 1h30
        assert_eq!(p.piece(HOUR), (1.0, 90 * 60 * SECOND));
        assert_eq!(p.piece(90 * 60 * SECOND), (4.0, 2 * HOUR));
        // hour 2 of the day: 4 x 0.5
        assert_eq!(p.piece(2 * HOUR + 5), (2.0, 3 * HOUR));
        // [0, 3h): 1h x 1 + 0.5h x 1 + 0.5h x 4 + 1h x 2 = 5.5 factor-hours
        assert_eq!(p.integral(0, 3 * HOUR), Some(5.5 * HOUR as f64));
        // long run: 4 x (23 + 0.5) / 24
        assert!((p.long_run() - 4.0 * 23.5 / 24.0).abs() < 1e-12);
        assert_eq!(p.peak(), 4.0);
    }

    #[test]
    fn weekly_days_and_bursts_scale_the_mean() {
        let p = RateProfile {
            weekly: Some(vec![1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5]),
            bursts: Some(Bursts { on: 10 * SECOND, off: 30 * SECOND, high: 8.0, low: 0.0 }),
            ..Default::default()
        };
        // bursts a quarter of the time at 8: mean 2; the week (5 + 1)/7
        assert_eq!(p.bursts.map(|b| b.mean()), Some(2.0));
        assert!((p.long_run() - 2.0 * 6.0 / 7.0).abs() < 1e-12);
        // day 5 (Saturday from a Monday start): 0.5, ending at day 6
        assert_eq!(p.piece(5 * DAY + 1), (0.5, 6 * DAY));
        // a whole week: 6 factor-days, times the bursts' 2
        assert_eq!(p.integral(0, 7 * DAY), Some(12.0 * DAY as f64));
        assert_eq!(p.peak(), 8.0);
    }
}

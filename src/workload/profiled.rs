//! The arrival times of a Poisson entry whose rate follows a profile
//! (steps, daily and weekly shapes, on/off bursts): the rate is piecewise
//! constant, so within each piece the gaps are exponential at the piece's
//! rate, and a gap that would cross the piece's end is drawn afresh from
//! there (the exponential is memoryless, so this is exact). It is thinning
//! (Lewis and Shedler) against a majorant equal to each piece's own rate,
//! which accepts every candidate: no draw is spent on rejections, and a
//! long quiet piece costs one step, not candidates at the peak rate.
//! The draws come from the entry's own stream, so every policy of a run
//! sees the same arrivals.

use std::sync::Arc;

use rand::RngExt;
use rand_distr::{Distribution, Exp1};
use rand_pcg::Pcg64;

use crate::model::RateProfile;
use crate::time::{from_secs_f64, to_secs_f64, Time, HORIZON};

/// The state of one profiled entry's arrivals.
#[derive(Debug, Clone)]
pub struct Profiled {
    /// Base arrivals per second.
    rate: f64,
    profile: Arc<RateProfile>,
    /// In a burst (`bursts`: the high state).
    on: bool,
    /// When the burst state next flips (`Time::MAX` without bursts).
    switch_at: Time,
}

impl Profiled {
    /// From `start`, the bursts' first state drawn from their long-run law
    /// (on with probability on / (on + off)), so the process is stationary.
    pub fn new(rate: f64, profile: Arc<RateProfile>, start: Time, rng: &mut Pcg64) -> Self {
        let mut p = Profiled { rate, profile, on: false, switch_at: Time::MAX };
        if let Some(b) = p.profile.bursts {
            p.on = rng.random::<f64>() < b.on_share();
            p.switch_at = start.saturating_add(p.sojourn(rng));
        }
        p
    }

    /// A stay in the current burst state: exponential of its mean.
    fn sojourn(&self, rng: &mut Pcg64) -> Time {
        let b = self.profile.bursts.expect("only with bursts");
        let mean = to_secs_f64(if self.on { b.on } else { b.off });
        let e: f64 = Exp1.sample(rng);
        from_secs_f64(e * mean)
    }

    /// The next arrival after `from`; a time at or past `stop`, or past the
    /// horizon, when none comes before it. Out of line: the generator's
    /// loop stays as small for plain entries as without profiles.
    #[inline(never)]
    pub fn next(&mut self, from: Time, stop: Time, rng: &mut Pcg64) -> Time {
        let mut t = from;
        loop {
            if t >= stop || t > HORIZON {
                return t;
            }
            let (mut f, mut end) = self.profile.piece(t);
            if let Some(b) = self.profile.bursts {
                while t >= self.switch_at {
                    self.on = !self.on;
                    self.switch_at = self.switch_at.saturating_add(self.sojourn(rng));
                }
                f *= if self.on { b.high } else { b.low };
                end = end.min(self.switch_at);
            }
            if f > 0.0 {
                let e: f64 = Exp1.sample(rng);
                let at = t.saturating_add(from_secs_f64(e / (self.rate * f)));
                if at < end {
                    return at;
                }
            }
            t = end;
        }
    }
}

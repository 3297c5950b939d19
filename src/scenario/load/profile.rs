//! `profile:` of Poisson arrivals: steps, a daily or weekly shape, on/off
//! bursts (docs/scenario.md, "Time-varying arrivals"). Judged here so that
//! every accepted profile generates in time proportional to its arrivals:
//! the peak rate is a rate (at most 10^9/s), the steps are few, and the
//! bursts flip state a bounded number of times over the entry.

use std::sync::Arc;

use serde_saphyr::Spanned;

use super::{Builder, MAX_JOBS};
use crate::error::Result;
use crate::model::*;
use crate::scenario::raw::*;
use crate::time::{to_secs_f64, Time, HORIZON, HORIZON_TEXT};

/// Most `steps` (each is a piece the generator and the loader walk).
const MAX_STEPS: usize = 10_000;
/// The fastest rate fairsim accepts anywhere (docs/scenario.md, "Limits").
const MAX_RATE: f64 = 1e9;
/// Most burst state flips expected over one entry: each costs a draw.
const MAX_FLIPS: f64 = MAX_JOBS as f64;

impl Builder<'_> {
    /// The profile of a Poisson entry of base `rate` from `start`, ending
    /// at `stop` and/or after `count` jobs.
    pub(super) fn build_profile(
        &self,
        p: &Spanned<RawProfile>,
        rate: f64,
        start: Time,
        stop: Option<Time>,
        count: Option<u64>,
    ) -> Result<Arc<RateProfile>> {
        let r = &p.value;
        if r.steps.is_none() && r.daily.is_none() && r.weekly.is_none() && r.bursts.is_none() {
            return Err(
                self.err_at(p, "`profile` needs at least one of `steps`, `daily`, `weekly` or `bursts`")
            );
        }
        let mut out = RateProfile::default();
        if let Some(steps) = &r.steps {
            out.steps = self.steps(steps)?;
        }
        if let Some(d) = &r.daily {
            out.daily = Some(self.shape(d, "daily", 24, "one per hour of the day, from midnight")?);
        }
        if let Some(w) = &r.weekly {
            out.weekly = Some(self.shape(w, "weekly", 7, "one per day of the week, from time 0")?);
        }
        if let Some(b) = &r.bursts {
            out.bursts = Some(self.bursts(b)?);
        }
        let peak = rate * out.peak();
        if !peak.is_finite() || peak > MAX_RATE {
            return Err(self.err_at(
                p,
                format!("this profile's peak rate is {peak:e}/s, more than {MAX_RATE:e}/s; lower the factors or the rate"),
            ));
        }
        let expected =
            ArrivalSpec::Poisson { rate, start, stop, count, profile: Some(Arc::new(out.clone())) }
                .expected_count();
        if expected.is_nan() || expected <= 0.0 {
            return Err(self.err_at(
                p,
                "this profile's factors are 0 over the whole of the entry: it would have no arrivals; raise a factor",
            ));
        }
        // without a stop, only the count ends the entry: its long-run rate
        // must bring arrivals inside the horizon, as `poisson` alone must
        if stop.is_none() && rate * out.long_run() * to_secs_f64(HORIZON) < 1.0 {
            return Err(self.err_at(
                p,
                format!("with this profile the long-run rate (after the last step) is so low that the mean gap between arrivals is past {HORIZON_TEXT}; add a `stop` or raise the last factor"),
            ));
        }
        if let (Some(b), Some(raw)) = (out.bursts, &r.bursts) {
            // the span the entry lasts: to its stop, or for its count at
            // the long-run rate; a flip every (on + off) / 2 on average
            let span = match stop {
                Some(s) => to_secs_f64(s - start),
                None => count.unwrap_or(0) as f64 / (rate * out.long_run()),
            };
            let flips = 2.0 * span / to_secs_f64(b.on + b.off);
            if flips > MAX_FLIPS {
                return Err(self.err_at(
                    raw,
                    format!("these bursts flip about {flips:.3e} times over the entry, more than {MAX_FLIPS:e}; lengthen `on` and `off`"),
                ));
            }
        }
        Ok(Arc::new(out))
    }

    fn factor(&self, f: &Spanned<f64>, key: &str) -> Result<f64> {
        if !f.value.is_finite() || f.value < 0.0 {
            return Err(self.err_at(
                f,
                format!("`{key}`: a factor must be a finite number at least 0, such as 0.5 or 2"),
            ));
        }
        Ok(f.value)
    }

    fn steps(&self, s: &Spanned<Vec<Spanned<RawStep>>>) -> Result<Vec<(Time, f64)>> {
        if s.value.is_empty() || s.value.len() > MAX_STEPS {
            return Err(
                self.err_at(s, format!("`steps` needs 1 to {MAX_STEPS} items `{{at: DURATION, factor: F}}`"))
            );
        }
        let mut out: Vec<(Time, f64)> = Vec::with_capacity(s.value.len());
        for st in &s.value {
            let at = self.dur(&st.value.at, "at")?;
            if out.last().is_some_and(|l| l.0 >= at) {
                return Err(self.err_at(&st.value.at, "`steps` must be in strictly increasing order of `at`"));
            }
            out.push((at, self.factor(&st.value.factor, "factor")?));
        }
        Ok(out)
    }

    fn shape(&self, v: &Spanned<Vec<Spanned<f64>>>, key: &str, n: usize, what: &str) -> Result<Vec<f64>> {
        if v.value.len() != n {
            return Err(
                self.err_at(v, format!("`{key}` needs exactly {n} factors ({what}), not {}", v.value.len()))
            );
        }
        let out = v.value.iter().map(|f| self.factor(f, key)).collect::<Result<Vec<f64>>>()?;
        if out.iter().all(|f| *f == 0.0) {
            return Err(
                self.err_at(v, format!("`{key}` factors are all 0: the entry would have no arrivals"))
            );
        }
        Ok(out)
    }

    fn bursts(&self, b: &Spanned<RawBursts>) -> Result<Bursts> {
        let r = &b.value;
        let on = self.pos_dur(&r.on, "on")?;
        let off = self.pos_dur(&r.off, "off")?;
        let high = self.factor(&r.high, "high")?;
        let low = match &r.low {
            Some(l) => self.factor(l, "low")?,
            None => 0.0,
        };
        if high == 0.0 && low == 0.0 {
            return Err(self.err_at(b, "`bursts` with `high` and `low` both 0 has no arrivals; raise `high`"));
        }
        Ok(Bursts { on, off, high, low })
    }
}

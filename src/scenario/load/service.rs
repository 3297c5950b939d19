//! `service:` of a workload entry: a duration, or a map naming one law:
//! constant, exponential, uniform, lognormal, Pareto (bounded or not), a
//! histogram, or the empirical law of a trace's recorded run times. A law
//! that draws past the horizon more often than once in 10^9 jobs is
//! refused (docs/scenario.md, "Limits"): such a draw stops the run.

use std::sync::Arc;

use serde_saphyr::Spanned;

use super::Builder;
use crate::error::Result;
use crate::model::*;
use crate::scenario::raw::*;
use crate::time::{parse_duration, to_secs_f64, HORIZON, HORIZON_TEXT};

/// z-score of the 99th percentile of the standard normal distribution.
const Z_P99: f64 = 2.326_347_874_040_840_8;
/// The standard normal's 1 - 10^-9 quantile (5.998), rounded up: a
/// lognormal's draw past e^(mu + 6 sigma) is rarer than once in 10^9.
const Z_RARE: f64 = 6.0;
/// ln(10^9): an exponential draw past 20.7 means is rarer than once in 10^9.
pub(super) const RARE_LN: f64 = 20.723_265_836_946_41;
/// Largest Pareto shape: past it every draw is `min` to the microsecond.
const MAX_ALPHA: f64 = 1000.0;
/// Most bins of a histogram (each bin is searched by bisection per draw).
const MAX_BINS: usize = 100_000;
/// Most recorded service times of an empirical law: 80 MB held all run.
const MAX_EMPIRICAL: usize = 10_000_000;

impl Builder<'_> {
    pub(super) fn build_service(&self, s: &Spanned<RawService>) -> Result<ServiceSpec> {
        let map = match &s.value {
            RawService::Constant(d) => {
                let t = parse_duration(&d.0.text).map_err(|m| self.err_at(s, format!("`service`: {m}")))?;
                return Ok(ServiceSpec::Constant(t));
            }
            RawService::Map(m) => m,
        };
        let n = [
            map.constant.is_some(),
            map.exponential.is_some(),
            map.uniform.is_some(),
            map.lognormal.is_some(),
            map.pareto.is_some(),
            map.histogram.is_some(),
            map.empirical.is_some(),
        ]
        .iter()
        .filter(|k| **k)
        .count();
        if n != 1 {
            return Err(self.err_at(
                s,
                "`service` needs exactly one of `constant: D`, `exponential: MEAN`, `uniform: {min, max}`, `lognormal: {median, p99}`, `pareto: {alpha, min, max}`, `histogram: {edges, counts}` or `empirical: {path}`",
            ));
        }
        if let Some(c) = &map.constant {
            return Ok(ServiceSpec::Constant(self.dur(c, "constant")?));
        }
        if let Some(e) = &map.exponential {
            let mean = self.pos_dur(e, "exponential")?;
            // a draw past the horizon stops the run: it must be rarer than 1
            // in 10^9, P(S > H) = e^(-H / mean)
            if to_secs_f64(mean) * RARE_LN > to_secs_f64(HORIZON) {
                return Err(self.err_at(
                    e,
                    format!(
                        "an exponential service of mean {} s draws past {HORIZON_TEXT} more often than once in 10^9 jobs (the mean must be at most 1/{RARE_LN:.1} of it); lower the mean",
                        crate::time::fmt_secs(mean)
                    ),
                ));
            }
            return Ok(ServiceSpec::Exponential { mean });
        }
        if let Some(u) = &map.uniform {
            let min = self.dur(&u.value.min, "min")?;
            let max = self.dur(&u.value.max, "max")?;
            if min > max {
                return Err(self.err_at(&u.value.max, "uniform `max` must be at least `min`; swap them"));
            }
            return Ok(ServiceSpec::Uniform { min, max });
        }
        if let Some(p) = &map.pareto {
            return self.pareto(p);
        }
        if let Some(h) = &map.histogram {
            return self.histogram(h);
        }
        if let Some(e) = &map.empirical {
            return self.empirical(e);
        }
        let Some(l) = &map.lognormal else {
            return Err(self.err_at(s, "`service` needs a distribution"));
        };
        self.lognormal(l)
    }

    fn lognormal(&self, l: &Spanned<RawLognormal>) -> Result<ServiceSpec> {
        let v = &l.value;
        match (&v.median, &v.p99, &v.mu, &v.sigma) {
            (Some(med), Some(p99), None, None) => {
                let m = self.pos_dur(med, "median")?;
                let p = self.dur(p99, "p99")?;
                if p <= m {
                    return Err(self.err_at(p99, "lognormal `p99` must be greater than `median`"));
                }
                let (ms, ps) = (to_secs_f64(m), to_secs_f64(p));
                let (mu, sigma) = (ms.ln(), (ps.ln() - ms.ln()) / Z_P99);
                self.lognormal_tail(mu, sigma, p99)?;
                Ok(ServiceSpec::LogNormal { mu, sigma })
            }
            (None, None, Some(mu), Some(sigma)) => {
                if !mu.value.is_finite() {
                    return Err(self.err_at(mu, "lognormal `mu` must be a finite number (log-seconds)"));
                }
                if !(sigma.value.is_finite() && sigma.value >= 0.0) {
                    return Err(self.err_at(sigma, "lognormal `sigma` must be zero or positive (log-seconds)"));
                }
                // a p99 past the horizon makes draws past it likely, not rare
                let p99 = (mu.value + Z_P99 * sigma.value).exp();
                if p99.is_nan() || p99 > to_secs_f64(HORIZON) {
                    return Err(self.err_at(
                        mu,
                        format!("this lognormal's p99, e^(mu + 2.33 sigma) = {p99:.3e} s, is past {HORIZON_TEXT}; lower mu or sigma"),
                    ));
                }
                self.lognormal_tail(mu.value, sigma.value, mu)?;
                Ok(ServiceSpec::LogNormal { mu: mu.value, sigma: sigma.value })
            }
            _ => Err(self.err_at(
                l,
                "`lognormal` needs either `{median: D, p99: D}` or `{mu: F, sigma: F}` (both keys of one pair, nothing else)",
            )),
        }
    }

    /// A lognormal whose draws pass the horizon more often than once in
    /// 10^9 (its 1 - 10^-9 quantile, e^(mu + 6 sigma), past it) is refused,
    /// as such a draw stops the run.
    fn lognormal_tail<T>(&self, mu: f64, sigma: f64, at: &Spanned<T>) -> Result<()> {
        let q = (mu + Z_RARE * sigma).exp();
        if q.is_nan() || q > to_secs_f64(HORIZON) {
            return Err(self.err_at(
                at,
                format!("this lognormal draws past {HORIZON_TEXT} more often than once in 10^9 jobs (e^(mu + 6 sigma) = {q:.3e} s); lower its median or p99"),
            ));
        }
        Ok(())
    }

    /// `pareto: {alpha, min, max}`. Without `max` the mean, alpha min /
    /// (alpha - 1), is infinite for alpha <= 1, and P(S > x) = (min/x)^alpha
    /// must be under 10^-9 at the horizon; with `max`, any alpha > 0 and
    /// every draw within [min, max].
    fn pareto(&self, p: &Spanned<RawPareto>) -> Result<ServiceSpec> {
        let v = &p.value;
        let alpha = v.alpha.value;
        if !(alpha.is_finite() && alpha > 0.0 && alpha <= MAX_ALPHA) {
            return Err(self.err_at(
                &v.alpha,
                format!("Pareto `alpha` {alpha} must be a number above 0 and at most {MAX_ALPHA} (the tail's shape: 1.5 is heavy, 3 light)"),
            ));
        }
        let min = self.pos_dur(&v.min, "min")?;
        let Some(m) = &v.max else {
            if alpha <= 1.0 {
                return Err(self.err_at(
                    &v.alpha,
                    format!("a Pareto of alpha {alpha} has an infinite mean (alpha must be above 1); bound it with `max: D` (a bounded Pareto) or raise alpha"),
                ));
            }
            // (min / H)^alpha <= 10^-9: alpha ln(H / min) >= ln 10^9
            let reach = alpha * (to_secs_f64(HORIZON) / to_secs_f64(min)).ln();
            if reach < RARE_LN {
                return Err(self.err_at(
                    &v.min,
                    format!(
                        "this Pareto draws past {HORIZON_TEXT} more often than once in 10^9 jobs ((min / horizon)^alpha = {:.3e}); lower `min`, raise `alpha` or bound it with `max`",
                        (-reach).exp()
                    ),
                ));
            }
            return Ok(ServiceSpec::Pareto { alpha, min, max: None });
        };
        let max = self.dur(m, "max")?;
        if max <= min {
            return Err(self.err_at(m, "Pareto `max` must be greater than `min`"));
        }
        Ok(ServiceSpec::Pareto { alpha, min, max: Some(max) })
    }

    /// `histogram: {edges, counts}`: n + 1 increasing edges, n counts.
    fn histogram(&self, h: &Spanned<RawHistogram>) -> Result<ServiceSpec> {
        let (edges_raw, counts_raw) = (&h.value.edges, &h.value.counts);
        let mut edges = Vec::with_capacity(edges_raw.value.len());
        for e in &edges_raw.value {
            let t = self.dur(e, "edges")?;
            if edges.last().is_some_and(|&prev| t <= prev) {
                return Err(self.err_at(
                    e,
                    "histogram `edges` must increase strictly (each bin from one edge to the next)",
                ));
            }
            edges.push(t);
        }
        let bins = edges.len().saturating_sub(1);
        if bins == 0 || bins > MAX_BINS {
            return Err(self.err_at(
                edges_raw,
                format!("a histogram needs from 2 to {} edges (n + 1 edges bound n bins)", MAX_BINS + 1),
            ));
        }
        if counts_raw.value.len() != bins {
            return Err(self.err_at(
                counts_raw,
                format!(
                    "{} edges bound {bins} bins, so `counts` needs {bins} numbers, not {}",
                    edges.len(),
                    counts_raw.value.len()
                ),
            ));
        }
        let mut cumulative = Vec::with_capacity(bins);
        let mut sum = 0.0;
        for c in &counts_raw.value {
            if !(c.value.is_finite() && c.value >= 0.0 && c.value <= 1e15) {
                return Err(self.err_at(
                    c,
                    format!("a histogram count must be a number from 0 to 10^15, not {}", c.value),
                ));
            }
            sum += c.value;
            cumulative.push(sum);
        }
        if sum <= 0.0 {
            return Err(self.err_at(counts_raw, "every histogram count is 0: give some bin a positive count"));
        }
        for c in &mut cumulative {
            *c /= sum;
        }
        // the last bin ends the law whatever rounding left
        if let Some(last) = cumulative.last_mut() {
            *last = 1.0;
        }
        Ok(ServiceSpec::Histogram(Arc::new(Histogram { edges, cumulative })))
    }

    /// `empirical: {path, ...}`: the run times a trace recorded, each draw
    /// one of them; the trace is read once, here.
    fn empirical(&self, e: &Spanned<Box<RawEmpirical>>) -> Result<ServiceSpec> {
        let spec = self.trace_spec(e, &e.value)?;
        let path = &e.value.path;
        match std::fs::metadata(&spec.path) {
            Err(err) => {
                return Err(self.err_at(
                    path,
                    format!(
                        "cannot read trace `{}`: {err}; check the path (relative to the scenario file)",
                        spec.path.display()
                    ),
                ))
            }
            Ok(m) if !m.is_file() => {
                return Err(self.err_at(path, "not a regular file; give the path of a CSV or SWF trace"))
            }
            Ok(_) => {}
        }
        let values =
            crate::workload::trace::recorded_services(&spec, self.path, self.resources.len(), MAX_EMPIRICAL)?;
        if values.is_empty() {
            return Err(self.err_at(
                path,
                format!("trace `{}` has no row with a service time to draw from", spec.path.display()),
            ));
        }
        Ok(ServiceSpec::Empirical(values.into()))
    }
}

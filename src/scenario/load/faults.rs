//! `capacity:` (worker count changes over time) and `slowdowns:` (a slow
//! dependency stretching the attempts that start in a window).

use serde_saphyr::Spanned;

use super::Builder;
use crate::error::Result;
use crate::model::{Backoff, CapacityChange, Loss, PolicySpec, RetrySpec, Slowdown};
use crate::scenario::raw::{RawCapacityChange, RawRetry, RawSlowdown};
use crate::time::{Time, HORIZON, HORIZON_TEXT};

/// Most capacity changes: each is a few events, but a schedule of more
/// than this belongs in a trace of its own (not built), not in YAML.
const MAX_CHANGES: usize = 10_000;

/// Largest slowdown factor: a million times longer is already an outage.
const MAX_FACTOR: f64 = 1e6;

impl Builder<'_> {
    pub(super) fn build_capacity(
        &self,
        raw: Option<&Spanned<Vec<Spanned<RawCapacityChange>>>>,
        workers: u32,
        policies: &[PolicySpec],
    ) -> Result<Vec<CapacityChange>> {
        let Some(list) = raw else { return Ok(Vec::new()) };
        if list.value.is_empty() {
            return Err(self.err_at(
                list,
                "`capacity` is empty; list at least one change, e.g. `- {at: 1h, workers: 2}`, or remove the key",
            ));
        }
        if workers == u32::MAX {
            return Err(self.err_at(
                list,
                "`capacity` changes the number of workers over time; declare the starting `workers:` too",
            ));
        }
        if let Some(p) = policies.iter().find(|p| p.topology.is_some()) {
            return Err(self.err_line(
                p.line,
                p.column,
                format!(
                    "policy `{}` runs on a topology, whose pools keep their size: `capacity` changes the workers of the default pool only; drop `topology:` from this entry or `capacity:`",
                    p.label
                ),
            ));
        }
        if list.value.len() > MAX_CHANGES {
            return Err(self.err_at(
                list,
                format!(
                    "at most {MAX_CHANGES} capacity changes; merge changes or model a longer outage as one"
                ),
            ));
        }
        let mut out: Vec<CapacityChange> = Vec::with_capacity(list.value.len());
        for c in &list.value {
            let at = self.dur(&c.value.at, "at")?;
            if at >= HORIZON {
                return Err(self.err_at(&c.value.at, format!("`at` must come before {HORIZON_TEXT}")));
            }
            if let Some(prev) = out.last() {
                if at <= prev.at {
                    return Err(self.err_at(
                        &c.value.at,
                        "capacity changes must be listed in order of `at`, each later than the one before",
                    ));
                }
            }
            let loss = match c.value.loss.as_ref().map(|l| l.value.as_str()) {
                None | Some("drain") => Loss::Drain,
                Some("kill") => Loss::Kill,
                Some(other) => {
                    let l = c.value.loss.as_ref().expect("matched Some");
                    return Err(self.err_at(
                        l,
                        format!("unknown `loss: {other}`; use `drain` (running jobs finish, then their workers leave) or `kill` (they stop now and go back to their queue)"),
                    ));
                }
            };
            out.push(CapacityChange { at, workers: c.value.workers.value, loss });
        }
        let last = list.value.last().expect("a list with a change");
        if last.value.workers.value == 0 {
            return Err(self.err_at(
                &last.value.workers,
                "the last capacity change leaves no worker, so the queue could never drain; end with a change back to at least 1 worker",
            ));
        }
        Ok(out)
    }

    pub(super) fn build_slowdowns(
        &self,
        raw: Option<&Spanned<Vec<Spanned<RawSlowdown>>>>,
    ) -> Result<Vec<Slowdown>> {
        let Some(list) = raw else { return Ok(Vec::new()) };
        let mut out = Vec::with_capacity(list.value.len());
        for s in &list.value {
            let r = &s.value;
            let (from, to) = (self.dur(&r.from, "from")?, self.dur(&r.to, "to")?);
            if to <= from {
                return Err(self.err_at(&r.to, "`to` must be later than `from`"));
            }
            if to > HORIZON {
                return Err(self.err_at(&r.to, format!("`to` must not pass {HORIZON_TEXT}")));
            }
            let factor = r.factor.value;
            if !(factor.is_finite() && (1.0..=MAX_FACTOR).contains(&factor)) {
                return Err(self.err_at(
                    &r.factor,
                    format!("`factor` must be a number from 1 to {MAX_FACTOR:e} (3 makes attempts three times longer)"),
                ));
            }
            let tenant = r.tenant.as_ref().map(|t| self.tenant_ref(t)).transpose()?;
            let class = r.class.as_ref().map(|c| self.class_ref(c)).transpose()?;
            out.push(Slowdown { from, to, factor, tenant, class });
        }
        Ok(out)
    }

    pub(super) fn build_retry(&self, raw: &Spanned<RawRetry>) -> Result<RetrySpec> {
        let r = &raw.value;
        let limit = |d: &Spanned<crate::scenario::raw::Dur>, key: &str| -> Result<Time> {
            let t = self.pos_dur(d, key)?;
            match t < HORIZON / 2 {
                true => Ok(t),
                false => Err(self.err_at(d, format!("`{key}` must stay under half of {HORIZON_TEXT}, or a retry would come back past the end of simulated time"))),
            }
        };
        let backoff = match &r.backoff {
            None => None,
            Some(b) => Some(match (&b.value.fixed, &b.value.exponential, &b.value.max) {
                (Some(f), None, None) => Backoff::Fixed(limit(f, "fixed")?),
                (None, Some(e), Some(m)) => {
                    let (base, max) = (limit(e, "exponential")?, limit(m, "max")?);
                    if max < base {
                        return Err(self.err_at(m, "`max` must be at least the first wait (`exponential`)"));
                    }
                    Backoff::Exponential { base, max }
                }
                (None, Some(_), None) => {
                    return Err(self.err_at(b, "`exponential` backoff needs `max:`, the longest wait (e.g. `{exponential: 1s, max: 5m}`)"))
                }
                _ => {
                    return Err(self.err_at(
                        b,
                        "`backoff` is `{fixed: D}` or `{exponential: D, max: D}` (the first wait, doubling up to max)",
                    ))
                }
            }),
        };
        let jitter = match &r.jitter {
            None => 0.0,
            Some(j) if j.value.is_finite() && (0.0..=1.0).contains(&j.value) => j.value,
            Some(j) => return Err(self.err_at(
                j,
                "`jitter` must be from 0 (none) to 1 (full jitter: a wait uniform between 0 and the backoff)",
            )),
        };
        if jitter > 0.0 && backoff.is_none() {
            let j = r.jitter.as_ref().expect("jitter given");
            return Err(self.err_at(j, "`jitter` shortens a `backoff`; give `backoff:` too"));
        }
        let budget = match &r.budget {
            None => None,
            Some(b) if b.value.limit.value == 0 => {
                return Err(self.err_at(&b.value.limit, "`limit` must be at least 1 (0 would fail every job at its first failure: drop `failure:` instead)"))
            }
            Some(b) => Some((b.value.limit.value, self.pos_dur(&b.value.window, "window")?)),
        };
        Ok(RetrySpec { backoff, jitter, budget })
    }
}

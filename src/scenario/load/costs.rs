//! `costs:` (at the top, for the default pool and as every pool's default;
//! on a pool, for it): the worker time a dispatch spends besides service.

use serde_saphyr::Spanned;

use super::Builder;
use crate::error::Result;
use crate::model::{Costs, PolicySpec, StartGroup, StartLimit, TenantId};
use crate::scenario::raw::{RawCosts, RawLimiter};
use crate::scenario::raw_dispatch::RawStartGroup;
use crate::time::parse_rate;

/// Most starts a sliding-window limiter counts (it keeps their times).
const MAX_SLIDING: u32 = 100_000;

impl Builder<'_> {
    /// The costs `raw` names, the others from `base`.
    pub(super) fn build_costs(&self, raw: Option<&Spanned<RawCosts>>, base: Costs) -> Result<Costs> {
        let Some(r) = raw else { return Ok(base) };
        let r = &r.value;
        let mut c = base;
        for (field, key, d) in [
            (&mut c.claim, "costs.claim", &r.claim),
            (&mut c.refusal, "costs.refusal", &r.refusal),
            (&mut c.finish, "costs.finish", &r.finish),
            (&mut c.poll_interval, "costs.poll_interval", &r.poll_interval),
        ] {
            if let Some(d) = d {
                *field = self.dur(d, key)?;
            }
        }
        Ok(c)
    }

    /// A pool's `limiter:`; `batch`: the pool's claim batch.
    pub(super) fn build_limiter(
        &self,
        raw: Option<&Spanned<RawLimiter>>,
        batch: u32,
    ) -> Result<Option<StartLimit>> {
        let Some(at) = raw else { return Ok(None) };
        if batch > 1 {
            return Err(self.err_at(
                at,
                "a start limiter with claim batching is not modelled (a batch's later jobs start without a fetch); remove `limiter` or `batch`",
            ));
        }
        let r = &at.value;
        let limit = match (&r.max, &r.duration, &r.rate, &r.burst, &r.limit, &r.window) {
            (Some(max), Some(duration), None, None, None, None) => {
                if max.value == 0 {
                    return Err(self.err_at(max, "`max` must be at least 1 start per window"));
                }
                StartLimit::Anchored { max: max.value, duration: self.pos_dur(duration, "duration")? }
            }
            (None, None, Some(rate), burst, None, None) => {
                let per_sec =
                    parse_rate(&rate.value.0.text).map_err(|m| self.err_at(rate, format!("`rate`: {m}")))?;
                let burst = match burst {
                    Some(b) if b.value.is_finite() && (1.0..=1e9).contains(&b.value) => b.value,
                    Some(b) => return Err(self.err_at(b, format!("`burst: {}` must be from 1 to 10^9 starts", b.value))),
                    None => 1.0,
                };
                StartLimit::Bucket { rate: per_sec, burst }
            }
            (None, None, None, None, Some(limit), Some(window)) => {
                if limit.value == 0 || limit.value > MAX_SLIDING {
                    return Err(self.err_at(limit, format!("`limit` must be from 1 to {MAX_SLIDING} starts per window")));
                }
                StartLimit::Sliding { limit: limit.value, window: self.pos_dur(window, "window")? }
            }
            _ => {
                return Err(self.err_at(
                    at,
                    "a limiter is one of BullMQ's window `{max: 20, duration: 1s}`, a token bucket `{rate: 20/s, burst: 5}` or a sliding window `{limit: 20, window: 1s}`",
                ))
            }
        };
        Ok(Some(limit))
    }

    /// `start_limits:`: each group's tenants (each in one group at most)
    /// and its limiter. Not with claim batches or reservation ahead (a
    /// batch's later jobs, a node's reserved ones, start without a claim),
    /// as caps are not.
    pub(super) fn build_start_groups(
        &self,
        raw: Option<&Spanned<Vec<Spanned<RawStartGroup>>>>,
    ) -> Result<Vec<StartGroup>> {
        let Some(list) = raw else { return Ok(Vec::new()) };
        let mut seen: std::collections::HashMap<TenantId, usize> = std::collections::HashMap::new();
        let mut groups = Vec::with_capacity(list.value.len());
        for (i, g) in list.value.iter().enumerate() {
            let r = &g.value;
            if r.tenants.value.is_empty() {
                return Err(self.err_at(&r.tenants, "`tenants` is empty; list the tenants whose starts the limiter counts together, e.g. [A, B]"));
            }
            let mut tenants = Vec::with_capacity(r.tenants.value.len());
            for name in &r.tenants.value {
                let id = self.known_tenant(name, "start_limits")?;
                if let Some(j) = seen.insert(id, i) {
                    return Err(self.err_at(
                        name,
                        format!("tenant `{}` is already in start limit {} (counting from 1); a tenant's starts are counted by one limiter at most", name.value, j + 1),
                    ));
                }
                tenants.push(id);
            }
            let limit = self.build_limiter(Some(&r.limiter), 1)?.expect("a limiter was given");
            groups.push(StartGroup { tenants, limit });
        }
        if let Some(t) =
            self.topologies.iter().find(|t| t.pools.iter().any(|p| p.batch > 1 || p.prefetch.is_some()))
        {
            return Err(self.err_at(
                list,
                format!("`start_limits` with claim batching or reservation ahead (topology `{}`) is not modelled (a batch's later jobs, and a node's reserved ones, start without a claim); remove `batch` or `prefetch`, or the limits", t.name),
            ));
        }
        Ok(groups)
    }

    /// Costs with the features they are not modelled with: a capacity change
    /// retires free workers, and a worker still finishing or asleep between
    /// polls is neither free nor running.
    pub(super) fn check_costs(
        &self,
        raw: Option<&Spanned<RawCosts>>,
        top: Costs,
        capacity: bool,
        policies: &[PolicySpec],
    ) -> Result<()> {
        let Some(at) = raw.filter(|_| top.any()) else { return Ok(()) };
        if capacity && policies.iter().any(|p| p.topology.is_none()) {
            return Err(self.err_at(
                at,
                "dispatch costs with `capacity:` changes are not modelled (a retired worker might be one still claiming or finishing); remove `costs` or `capacity`",
            ));
        }
        Ok(())
    }
}

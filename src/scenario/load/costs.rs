//! `costs:` (at the top, for the default pool and as every pool's default;
//! on a pool, for it): the worker time a dispatch spends besides service.

use serde_saphyr::Spanned;

use super::Builder;
use crate::error::Result;
use crate::model::{Costs, PolicySpec};
use crate::scenario::raw::RawCosts;

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

//! `tenants:` on a policy entry: that run's own weights and caps,
//! `{flood: {cap: 3}}`, in the shape and under the rules of the top-level
//! `tenants:`, so "the same deployment with a cap" is one more compared
//! entry on identical arrivals. [`Scenario::for_run`] applies them.

use serde_saphyr::Spanned;

use super::{pos, Builder};
use crate::error::Result;
use crate::model::*;
use crate::policy;
use crate::scenario::raw::*;

/// The keys of one tenant's override.
const KEYS: [&str; 2] = ["weight", "cap"];

impl Builder<'_> {
    /// The changes an entry's `tenants: {NAME: {weight, cap}}` makes. Names
    /// are the scenario's tenants: declared, used by the workload, or names
    /// of a generated set.
    pub(super) fn run_tenants(&self, v: &Spanned<RawValue>) -> Result<Vec<TenantChange>> {
        let RawValue::Map(m) = &v.value else {
            return Err(self.err_at(
                v,
                "`tenants` on a policy entry is a map of tenant: {weight, cap}, e.g. `tenants: {flood: {cap: 3}}`",
            ));
        };
        let mut out: Vec<TenantChange> = Vec::with_capacity(m.len());
        for (name, props) in m {
            let id = self.known_tenant(name, "`tenants` on a policy entry")?;
            if out.iter().any(|c| c.id == id) {
                return Err(self.err_at(name, format!("tenant `{}` is listed twice; keep one", name.value)));
            }
            let mut change = TenantChange { id, weight: None, cap: None };
            match &props.value {
                RawValue::Null => {}
                RawValue::Map(keys) => {
                    for (key, value) in keys {
                        let whose = format!("tenant `{}`", name.value);
                        match key.value.as_str() {
                            "weight" => {
                                change.weight = Some(self.weight(&self.number(value, &whose)?, &whose)?)
                            }
                            "cap" => change.cap = Some(self.cap(&self.whole(value, &whose)?, &whose)?),
                            other => {
                                let hint = match policy::closest(other, &KEYS) {
                                    Some(k) => format!("did you mean `{k}`? "),
                                    None => String::new(),
                                };
                                return Err(self.err_at(
                                    key,
                                    format!("unknown key `{other}` for tenant `{}`; {hint}a tenant takes `weight` and `cap`", name.value),
                                ));
                            }
                        }
                    }
                }
                _ => {
                    return Err(self.err_at(
                        props,
                        format!(
                            "tenant `{}` takes a map such as `{{cap: 3}}` or `{{weight: 2}}`",
                            name.value
                        ),
                    ))
                }
            }
            out.push(change);
        }
        Ok(out)
    }

    /// A claimed batch or a reserved job holds no cap slot, so an entry
    /// that adds a cap cannot run on a topology whose pools claim in
    /// batches or reserve ahead (the rule the top-level caps meet at
    /// `batch:` and `prefetch:`).
    pub(super) fn check_entry_caps(&self, spec: &PolicySpec, at: &Spanned<RawValue>) -> Result<()> {
        let batched = spec.topology.is_some_and(|t| self.topologies[t].pools.iter().any(|p| p.batch > 1));
        if batched && spec.tenants.iter().any(|c| c.cap.is_some()) {
            return Err(self.err_at(
                at,
                "claim batching with tenant caps is not modelled (a cap is checked when a job starts, after the batch was claimed); drop the cap or use a topology without `batch`",
            ));
        }
        let prefetching =
            spec.topology.is_some_and(|t| self.topologies[t].pools.iter().any(|p| p.prefetch.is_some()));
        if prefetching && spec.tenants.iter().any(|c| c.cap.is_some()) {
            return Err(self.err_at(
                at,
                "reservation ahead with tenant caps is not modelled (a cap is checked when a job starts, after the node reserved it); drop the cap or use a topology without `prefetch`",
            ));
        }
        Ok(())
    }

    /// The id of a tenant named in `what`, or an error with the closest
    /// name among those with a name of their own.
    pub(super) fn known_tenant(&self, name: &Spanned<String>, what: &str) -> Result<TenantId> {
        if let Some(id) = self.tenants.id_of(&name.value) {
            return Ok(id);
        }
        let named: Vec<String> = (0..self.tenants.len() as TenantId)
            .filter_map(|t| self.tenants.named(t).map(|s| s.name.clone()))
            .collect();
        let refs: Vec<&str> = named.iter().map(String::as_str).collect();
        let hint = match policy::closest(&name.value, &refs) {
            Some(n) => format!("did you mean `{n}`? "),
            None => String::new(),
        };
        let sets: Vec<String> = self
            .tenants
            .generated()
            .map(|(_, s)| format!("{}0..{}{}", s.prefix, s.prefix, s.count - 1))
            .collect();
        let mut known = refs.iter().take(20).copied().collect::<Vec<_>>().join(", ");
        if refs.len() > 20 {
            known.push_str(", ...");
        }
        if !sets.is_empty() {
            known =
                format!("{known}{}generated {}", if known.is_empty() { "" } else { "; " }, sets.join(", "));
        }
        Err(self.err_at(
            name,
            format!(
                "{what} names tenant `{}`, which is not in the scenario; {hint}tenants: {known} (declare it under `tenants:` or use it in `workload:`)",
                name.value
            ),
        ))
    }

    /// A number written as a YAML number.
    fn number(&self, v: &Spanned<RawValue>, whose: &str) -> Result<Spanned<f64>> {
        match &v.value {
            RawValue::Scalar(t) if t.numeric => match t.text.parse::<f64>() {
                Ok(x) => Ok(Spanned { value: x, referenced: v.referenced, defined: v.defined }),
                Err(_) => Err(self.err_at(v, format!("{whose}: expected a number, e.g. 2"))),
            },
            _ => Err(self.err_at(v, format!("{whose}: expected a number, e.g. 2"))),
        }
    }

    /// A whole number written as a YAML number.
    fn whole(&self, v: &Spanned<RawValue>, whose: &str) -> Result<Spanned<i64>> {
        let wrong = || {
            let (l, c) = pos(v);
            self.err_line(
                l,
                c,
                format!("{whose}: cap must be a whole number of at least 1 (jobs running at once)"),
            )
        };
        match &v.value {
            RawValue::Scalar(t) if t.numeric => match t.text.parse::<i64>() {
                Ok(x) => Ok(Spanned { value: x, referenced: v.referenced, defined: v.defined }),
                Err(_) => Err(wrong()),
            },
            _ => Err(wrong()),
        }
    }
}

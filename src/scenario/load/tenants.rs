//! Resources, tenants (declared, referenced, generated) and classes.

use serde_saphyr::Spanned;

use super::{Builder, MAX_SPREAD, MAX_WEIGHT, MIN_WEIGHT};
use crate::error::Result;
use crate::model::*;
use crate::scenario::raw::*;

/// A name of a generated set declared under `tenants:` with its own weight
/// or cap (each `None` when the set's applies).
#[derive(Debug)]
pub(super) struct Override {
    name: String,
    weight: Option<f64>,
    cap: Option<u32>,
}

impl Builder<'_> {
    pub(super) fn build_resources(
        &self,
        res: &Spanned<NamedMap<Spanned<u64>>>,
    ) -> Result<Vec<(String, u64)>> {
        if res.value.0.is_empty() {
            return Err(self.err_at(
                res,
                "`resources` is empty; list capacities such as `{cpu: 8, mem: 32}` or remove the key",
            ));
        }
        if res.value.0.len() > MAX_RESOURCES {
            return Err(self.err_at(
                res,
                format!(
                    "`resources` declares {} dimensions; at most {MAX_RESOURCES} are supported, remove some",
                    res.value.0.len()
                ),
            ));
        }
        let mut out = Vec::new();
        for (name, cap) in &res.value.0 {
            if cap.value == 0 {
                return Err(self.err_at(
                    cap,
                    format!("resource `{name}` has capacity 0; write a positive whole number"),
                ));
            }
            out.push((name.clone(), cap.value));
        }
        Ok(out)
    }

    pub(super) fn declare_tenant(&mut self, name: &str, props: &Spanned<Option<RawTenant>>) -> Result<()> {
        if name.is_empty() {
            return Err(self.err_at(props, "a tenant name is empty; give every tenant a name"));
        }
        let mut weight = None;
        let mut cap = None;
        if let Some(p) = &props.value {
            if let Some(w) = &p.weight {
                weight = Some(self.weight(w, &format!("tenant `{name}`"))?);
            }
            if let Some(c) = &p.cap {
                cap = Some(self.cap(c, &format!("tenant `{name}`"))?);
            }
        }
        if self.tenants.id_of(name).is_some() || self.pending.iter().any(|o| o.name == name) {
            return Err(self.err_at(props, format!("tenant `{name}` is declared twice; keep one")));
        }
        if self.spreads.iter().any(|s| s.index_of(name).is_some()) {
            // one of a generated set's names: its weight and cap override the
            // set's when the set is generated
            self.pending.push(Override { name: name.to_string(), weight, cap });
            return Ok(());
        }
        self.tenants.push_named(TenantSpec { name: name.to_string(), weight: weight.unwrap_or(1.0), cap });
        Ok(())
    }

    /// A cap: at least 1 job running at once.
    pub(super) fn cap(&self, c: &Spanned<i64>, whose: &str) -> Result<u32> {
        if c.value < 1 || c.value > u32::MAX as i64 {
            return Err(self.err_at(
                c,
                format!(
                    "{whose}: cap {} must be a whole number of at least 1 (jobs running at once); remove it for no cap",
                    c.value
                ),
            ));
        }
        Ok(c.value as u32)
    }

    /// Declares, as tenants of their own, overrides whose set was never
    /// generated (cannot happen while [`Builder::spreads`] lists every set;
    /// kept so no declared tenant is ever dropped).
    pub(super) fn declare_unmatched_overrides(&mut self) {
        for o in std::mem::take(&mut self.pending) {
            self.tenants.push_named(TenantSpec { name: o.name, weight: o.weight.unwrap_or(1.0), cap: o.cap });
        }
    }

    /// A weight, within [`MIN_WEIGHT`, `MAX_WEIGHT`].
    pub(super) fn weight(&self, w: &Spanned<f64>, whose: &str) -> Result<f64> {
        if !(w.value.is_finite() && (MIN_WEIGHT..=MAX_WEIGHT).contains(&w.value)) {
            return Err(self.err_at(
                w,
                format!(
                    "{whose}: weight {} must be between {MIN_WEIGHT} and {MAX_WEIGHT} (a ratio of a million at most keeps the fair-share arithmetic exact enough), e.g. 1",
                    w.value
                ),
            ));
        }
        Ok(w.value)
    }

    /// Id of a tenant referenced by the workload, auto-declaring it (weight 1, no cap).
    pub(super) fn reference_tenant(&mut self, name: &Spanned<String>) -> Result<TenantId> {
        if let Some(id) = self.tenants.id_of(&name.value) {
            return Ok(id);
        }
        if self.pending.iter().any(|o| o.name == name.value) {
            return Err(self.err_at(
                name,
                format!(
                    "tenant `{}` is one of a generated set (`tenants: {{count, prefix}}`) listed further down; move this entry below that one",
                    name.value
                ),
            ));
        }
        if name.value.is_empty() {
            return Err(self.err_at(name, "`tenant` is empty; write the tenant's name"));
        }
        if self.tenants.len() >= MAX_TENANTS as usize {
            return Err(self.err_at(name, format!("more than {MAX_TENANTS} tenants; fairsim's limit")));
        }
        Ok(self.tenants.push_named(TenantSpec { name: name.value.clone(), weight: 1.0, cap: None }))
    }

    /// First id and count of a `tenants: {count, prefix}` set, declaring it
    /// the first time the same set is used.
    pub(super) fn spread_tenants(&mut self, spread: &Spanned<RawSpread>) -> Result<(TenantId, u32)> {
        let n = spread.value.count.value;
        if n == 0 || n > MAX_SPREAD {
            return Err(self.err_at(
                &spread.value.count,
                format!("`tenants.count` must be between 1 and {MAX_SPREAD}; got {n}"),
            ));
        }
        let weight = match &spread.value.weight {
            Some(w) => Some(self.weight(w, "generated tenants")?),
            None => None,
        };
        let cap = match &spread.value.cap {
            Some(c) => Some(self.cap(c, "generated tenants")?),
            None => None,
        };
        let set = GeneratedSet {
            prefix: spread.value.prefix.value.clone(),
            count: n,
            weight: weight.unwrap_or(1.0),
            cap,
        };
        // the same set used again (or a smaller one of the same names): reuse
        // it, with the weight and cap it was given
        let reuse = self
            .tenants
            .generated()
            .find(|(_, g)| g.prefix == set.prefix && g.width() == set.width() && g.count >= n);
        if let Some((first, g)) = reuse {
            if weight.is_some_and(|w| w != g.weight) || cap.is_some_and(|c| Some(c) != g.cap) {
                return Err(self.err_at(
                    spread,
                    format!(
                        "the tenants `{}...` are generated again with another weight or cap; give `weight`/`cap` on one entry only (or the same on each)",
                        set.prefix
                    ),
                ));
            }
            return Ok((first, n));
        }
        if let Some(name) = self.tenants.clashes(&set) {
            return Err(self.err_at(
                &spread.value.prefix,
                format!(
                    "generated tenant name `{name}` (prefix `{}`) is already a tenant; choose another prefix",
                    set.prefix
                ),
            ));
        }
        if self.tenants.len() as u64 + n as u64 > MAX_TENANTS as u64 {
            return Err(self.err_at(
                &spread.value.count,
                format!("more than {MAX_TENANTS} tenants in all; fairsim's limit"),
            ));
        }
        let first = self.tenants.push_generated(set.clone());
        // names of this set declared under `tenants:` keep their own weight and cap
        let (mine, rest): (Vec<Override>, Vec<Override>) =
            std::mem::take(&mut self.pending).into_iter().partition(|o| set.index_of(&o.name).is_some());
        self.pending = rest;
        for o in mine {
            let i = set.index_of(&o.name).expect("partitioned on it");
            self.tenants.set_override(first + i, o.weight.unwrap_or(set.weight), o.cap.or(set.cap));
        }
        Ok((first, n))
    }

    pub(super) fn build_classes(
        &mut self,
        raw: Option<&Spanned<NamedMap<Spanned<Option<RawClass>>>>>,
    ) -> Result<()> {
        self.classes.push(ClassSpec { name: "default".into(), priority: 5, weight: 1.0, sla: None });
        let Some(raw) = raw else { return Ok(()) };
        if raw.value.0.len() >= ClassId::MAX as usize {
            return Err(self.err_at(raw, "too many classes"));
        }
        for (name, props) in &raw.value.0 {
            if name.is_empty() {
                return Err(self.err_at(props, "a class name is empty; give every class a name"));
            }
            let mut spec = ClassSpec { name: name.clone(), priority: 5, weight: 1.0, sla: None };
            if let Some(p) = &props.value {
                if let Some(pr) = &p.priority {
                    spec.priority = pr.value;
                }
                if let Some(w) = &p.weight {
                    spec.weight = self.weight(w, &format!("class `{name}`"))?;
                }
                if let Some(s) = &p.sla {
                    spec.sla = Some(self.pos_dur(s, "sla")?);
                }
            }
            if name == "default" {
                self.classes[0] = spec;
            } else {
                self.classes.push(spec);
            }
        }
        Ok(())
    }

    pub(super) fn class_names(&self) -> String {
        self.classes.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
    }

    pub(super) fn class_ref(&self, name: &Spanned<String>) -> Result<ClassId> {
        match self.classes.iter().position(|c| c.name == name.value) {
            Some(i) => Ok(i as ClassId),
            None => Err(self.err_at(
                name,
                format!(
                    "class `{}` is not declared; declared classes: {}; add it under `classes:` or use one of these{}",
                    name.value,
                    self.class_names(),
                    yaml_bool_hint(&name.value)
                ),
            )),
        }
    }
}

/// YAML 1.1 reads y, n, yes, no, on and off as booleans: a class or tenant
/// written so reaches fairsim as `true` or `false`.
fn yaml_bool_hint(name: &str) -> &'static str {
    match name {
        "true" | "false" => {
            " (YAML reads y, n, yes, no, on and off as true or false: quote the name, e.g. \"y\")"
        }
        _ => "",
    }
}

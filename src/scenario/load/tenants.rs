//! Resources, tenants (declared, referenced, generated) and classes.

use serde_saphyr::Spanned;

use super::{Builder, MAX_SPREAD};
use crate::error::Result;
use crate::model::*;
use crate::scenario::raw::*;

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
        let mut weight = 1.0;
        let mut cap = None;
        if let Some(p) = &props.value {
            if let Some(w) = &p.weight {
                if !(w.value.is_finite() && w.value > 0.0) {
                    return Err(self.err_at(
                        w,
                        format!("tenant `{name}`: weight {} must be greater than zero, e.g. 1", w.value),
                    ));
                }
                weight = w.value;
            }
            if let Some(c) = &p.cap {
                if c.value < 1 || c.value > u32::MAX as i64 {
                    return Err(self.err_at(
                        c,
                        format!(
                            "tenant `{name}`: cap {} must be a whole number of at least 1 (jobs running at once); remove it for no cap",
                            c.value
                        ),
                    ));
                }
                cap = Some(c.value as u32);
            }
        }
        self.tenant_ids.insert(name.to_string(), self.tenants.len() as TenantId);
        self.tenants.push(TenantSpec { name: name.to_string(), weight, cap });
        Ok(())
    }

    /// Id of a tenant referenced by the workload, auto-declaring it (weight 1, no cap).
    pub(super) fn reference_tenant(&mut self, name: &Spanned<String>) -> Result<TenantId> {
        if let Some(&id) = self.tenant_ids.get(&name.value) {
            return Ok(id);
        }
        if name.value.is_empty() {
            return Err(self.err_at(name, "`tenant` is empty; write the tenant's name"));
        }
        self.add_tenant(&name.value)
    }

    pub(super) fn add_tenant(&mut self, name: &str) -> Result<TenantId> {
        let id = self.tenants.len();
        if id >= u32::MAX as usize {
            return Err(self.err_line(0, 0, "too many tenants"));
        }
        self.tenant_ids.insert(name.to_string(), id as TenantId);
        self.tenants.push(TenantSpec { name: name.to_string(), weight: 1.0, cap: None });
        Ok(id as TenantId)
    }

    /// First id of a `tenants: {count, prefix}` spread, declaring the tenants
    /// the first time the same spread is seen.
    pub(super) fn spread_tenants(&mut self, spread: &Spanned<RawSpread>) -> Result<(TenantId, u32)> {
        let n = spread.value.count.value;
        if n == 0 || n > MAX_SPREAD {
            return Err(self.err_at(
                &spread.value.count,
                format!("`tenants.count` must be between 1 and {MAX_SPREAD}; got {n}"),
            ));
        }
        let prefix = &spread.value.prefix.value;
        let width = (n - 1).to_string().len();
        let name_of = |i: u32| format!("{prefix}{i:0width$}");
        let first = name_of(0);
        if let Some(&f) = self.tenant_ids.get(&first) {
            // The same spread used again: reuse it if it is the same consecutive run.
            let same = (0..n).all(|i| self.tenant_ids.get(&name_of(i)) == Some(&(f + i)));
            if same {
                return Ok((f, n));
            }
        }
        for i in 0..n {
            let nm = name_of(i);
            if self.tenant_ids.contains_key(&nm) {
                return Err(self.err_at(
                    &spread.value.prefix,
                    format!(
                        "generated tenant name `{nm}` (prefix `{prefix}`) is already a tenant; choose another prefix"
                    ),
                ));
            }
        }
        let f = self.tenants.len() as TenantId;
        for i in 0..n {
            self.add_tenant(&name_of(i))?;
        }
        Ok((f, n))
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
                    if !(w.value.is_finite() && w.value > 0.0) {
                        return Err(self.err_at(
                            w,
                            format!("class `{name}`: weight {} must be greater than zero, e.g. 1", w.value),
                        ));
                    }
                    spec.weight = w.value;
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
                    "class `{}` is not declared; declared classes: {}; add it under `classes:` or use one of these",
                    name.value,
                    self.class_names()
                ),
            )),
        }
    }
}

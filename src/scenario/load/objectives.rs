//! `objectives:`: what must hold for a strategy to pass, one map each:
//! exactly one measure key whose value is the bound (`wait_p99: 5s`,
//! `utilization: 80%`), an optional scope (`class:`, `tenant:` or
//! `tenants:`), `name:` and `cost:`. Every name is resolved and every bound
//! checked here, so `validate` refuses what `run` would.

use serde_saphyr::Spanned;

use super::{pos, Builder};
use crate::error::Result;
use crate::model::*;
use crate::policy;
use crate::scenario::raw::*;
use crate::time::parse_duration;

/// The measure keys, for messages and did-you-mean (`wait_pNN` takes any
/// percentile; these are the usual ones).
const MEASURES: [&str; 14] = [
    "wait_p50",
    "wait_p90",
    "wait_p95",
    "wait_p99",
    "wait_max",
    "wait_mean",
    "sla_misses",
    "share",
    "jain",
    "gini",
    "utilization",
    "makespan",
    "rejected",
    "deferred",
];

/// The keys of an objective besides its measure.
const OTHER_KEYS: [&str; 5] = ["name", "class", "tenant", "tenants", "cost"];

type Entries = [(Spanned<String>, Spanned<RawValue>)];

impl Builder<'_> {
    pub(super) fn build_objectives(
        &self,
        raw: Option<&Spanned<Vec<Spanned<RawValue>>>>,
    ) -> Result<Vec<Objective>> {
        let Some(raw) = raw else { return Ok(Vec::new()) };
        if raw.value.is_empty() {
            return Err(self.err_at(
                raw,
                "`objectives` is empty; list at least one, e.g. `- {class: critical, wait_p99: 5s}`, or remove the key",
            ));
        }
        let mut out: Vec<Objective> = Vec::with_capacity(raw.value.len());
        for item in &raw.value {
            let RawValue::Map(m) = &item.value else {
                return Err(self.err_at(
                    item,
                    "an objective is a map such as `{class: critical, wait_p99: 5s}` or `{utilization: 80%}`",
                ));
            };
            let (objective, name_at) = self.objective(item, m)?;
            if out.iter().any(|o| o.name == objective.name) {
                let (l, c) = name_at.map(pos).unwrap_or_else(|| pos(item));
                return Err(self.err_line(
                    l,
                    c,
                    format!(
                        "two objectives are named `{}`; give this one a `name:` of its own",
                        objective.name
                    ),
                ));
            }
            out.push(objective);
        }
        Ok(out)
    }

    /// One objective, and where its `name:` was written (if it was).
    fn objective<'v>(
        &self,
        item: &Spanned<RawValue>,
        m: &'v Entries,
    ) -> Result<(Objective, Option<&'v Spanned<RawValue>>)> {
        let (line, col) = pos(item);
        let mut measure: Option<(&Spanned<String>, Measure, &Spanned<RawValue>)> = None;
        let (mut name, mut class, mut tenants, mut cost) = (None, None, None, None);
        for (key, value) in m {
            match key.value.as_str() {
                "name" => name = Some(value),
                "class" => class = Some((key, self.objective_class(value)?)),
                "tenant" | "tenants" => {
                    if tenants.is_some() {
                        return Err(
                            self.err_at(key, "an objective has both `tenant` and `tenants`; keep one")
                        );
                    }
                    tenants = Some((key, self.objective_tenants(key, value)?));
                }
                "cost" => cost = Some(self.flag(value)?),
                k => {
                    let Some(found) = self.measure_of(key)? else {
                        let hint = match policy::closest(k, &[&MEASURES[..], &OTHER_KEYS[..]].concat()) {
                            Some(n) => format!("did you mean `{n}`? "),
                            None => String::new(),
                        };
                        return Err(self.err_at(
                            key,
                            format!("unknown objective key `{k}`; {hint}an objective takes one measure (wait_pNN such as wait_p99 or wait_p99.9, wait_max, wait_mean, sla_misses, share, jain, gini, utilization, makespan, rejected, deferred) and optionally class, tenant or tenants, name, cost"),
                        ));
                    };
                    if let Some((first, _, _)) = measure {
                        return Err(self.err_at(
                            key,
                            format!("an objective has one measure, and this one has `{}` and `{k}`; write each as an objective of its own", first.value),
                        ));
                    }
                    measure = Some((key, found, value));
                }
            }
        }
        let Some((key, measure, bound)) = measure else {
            return Err(self.err_line(
                line,
                col,
                "this objective has no measure; add one, e.g. `wait_p99: 5s`, `sla_misses: 1%` or `utilization: 80%`",
            ));
        };
        let limit = self.objective_limit(&key.value, measure, bound)?;
        let run_wide =
            matches!(measure, Measure::Jain | Measure::Gini | Measure::Utilization | Measure::Makespan);
        if run_wide {
            if let Some(k) = class.map(|(k, _)| k).or(tenants.as_ref().map(|(k, _)| *k)) {
                return Err(self.err_at(
                    k,
                    format!(
                        "`{}` is a figure of the whole run, not of a class or tenant; drop `{}`",
                        key.value, k.value
                    ),
                ));
            }
        }
        if let (Measure::Share, Some((k, _))) = (measure, class) {
            return Err(self.err_at(
                k,
                "`share` is a tenant's service over all its classes, not of one class; drop `class`",
            ));
        }
        if measure == Measure::SlaMisses {
            self.check_sla(key, class)?;
        }
        let scope = match tenants {
            Some((_, s)) => s,
            // a pooled share means nothing: each tenant's must hold
            None if measure == Measure::Share => TenantScope::AllBut(Vec::new()),
            None => TenantScope::All,
        };
        let class = class.map(|(_, c)| c);
        let name = match name {
            Some(n) => self.objective_name(n)?,
            None => self.default_name(&key.value, class, &scope),
        };
        let objective = Objective {
            name,
            measure,
            class,
            tenants: scope,
            limit,
            cost: cost.unwrap_or(measure.is_cost()),
            line,
        };
        Ok((objective, m.iter().find(|(k, _)| k.value == "name").map(|(_, v)| v)))
    }

    /// The measure a key names; `None` when it names none.
    fn measure_of(&self, key: &Spanned<String>) -> Result<Option<Measure>> {
        let k = key.value.as_str();
        Ok(Some(match k {
            "wait_max" => Measure::Wait { percentile: 100.0 },
            "wait_mean" => Measure::WaitMean,
            "sla_misses" => Measure::SlaMisses,
            "share" => Measure::Share,
            "jain" => Measure::Jain,
            "gini" => Measure::Gini,
            "utilization" => Measure::Utilization,
            "makespan" => Measure::Makespan,
            "rejected" => Measure::Rejected,
            "deferred" => Measure::Deferred,
            _ => {
                let Some(p) = k.strip_prefix("wait_p") else { return Ok(None) };
                let (whole, frac) = p.split_once('.').unwrap_or((p, "0"));
                let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
                if !digits(whole) || !digits(frac) {
                    return Ok(None);
                }
                let percentile: f64 = p.parse().unwrap_or(f64::NAN);
                if !(percentile > 0.0 && percentile <= 100.0) {
                    return Err(self.err_at(
                        key,
                        format!("`{k}`: the percentile {p} is outside (0, 100]; write e.g. wait_p99, wait_p99.9, or wait_max for the largest wait"),
                    ));
                }
                Measure::Wait { percentile }
            }
        }))
    }

    /// The bound in the measure's unit: a time for waits and the makespan,
    /// a fraction (`0.8` or `80%`) for misses, shares, Jain's index and
    /// utilization, a whole number of jobs for rejected and deferred.
    fn objective_limit(&self, key: &str, measure: Measure, v: &Spanned<RawValue>) -> Result<ObjectiveLimit> {
        let RawValue::Scalar(t) = &v.value else {
            return Err(self.err_at(v, format!("`{key}` takes one bound, e.g. {}", example(measure))));
        };
        let text = t.text.trim();
        match measure {
            Measure::Wait { .. } | Measure::WaitMean | Measure::Makespan => {
                if text.ends_with('%') {
                    return Err(self.err_at(
                        v,
                        format!(
                            "`{key}: {text}`: a wait is a time, not a fraction; write e.g. {}",
                            example(measure)
                        ),
                    ));
                }
                parse_duration(text).map(ObjectiveLimit::Time).map_err(|m| {
                    self.err_at(v, format!("`{key}`: {m}; write a time such as {}", example(measure)))
                })
            }
            Measure::Rejected | Measure::Deferred => match text.parse::<u64>() {
                Ok(n) if t.numeric => Ok(ObjectiveLimit::Count(n)),
                _ => Err(self.err_at(
                    v,
                    format!(
                        "`{key}: {text}` is a number of jobs at most; write a whole number such as 0 or 100"
                    ),
                )),
            },
            Measure::SlaMisses | Measure::Share | Measure::Jain | Measure::Gini | Measure::Utilization => {
                let x = match text.strip_suffix('%') {
                    Some(p) => p.trim().parse::<f64>().ok().map(|x| x / 100.0),
                    None if t.numeric => text.parse::<f64>().ok(),
                    None => None,
                };
                let top = if measure == Measure::Share { f64::INFINITY } else { 1.0 };
                match x {
                    Some(x) if x.is_finite() && (0.0..=top).contains(&x) => Ok(ObjectiveLimit::Ratio(x)),
                    _ => Err(self.err_at(
                        v,
                        format!(
                            "`{key}: {text}` must be a fraction {}, written 0.8 or 80%; e.g. {}",
                            if measure == Measure::Share {
                                "of zero or more (1 is a fair share)"
                            } else {
                                "from 0 to 1"
                            },
                            example(measure)
                        ),
                    )),
                }
            }
        }
    }

    /// `sla_misses` builds on the classes' `sla:`: its class must have one,
    /// and without a class some class must.
    fn check_sla(&self, key: &Spanned<String>, class: Option<(&Spanned<String>, ClassId)>) -> Result<()> {
        match class {
            Some((k, c)) if self.classes[c as usize].sla.is_none() => Err(self.err_at(
                k,
                format!(
                    "class `{}` has no `sla:`, and `sla_misses` counts the jobs that waited past their class's sla; add `sla:` to the class or bound a wait (e.g. `wait_p99: 5s`)",
                    self.classes[c as usize].name
                ),
            )),
            None if self.classes.iter().all(|c| c.sla.is_none()) => Err(self.err_at(
                key,
                "`sla_misses` counts the jobs that waited past their class's `sla:`, and no class declares one; add `sla:` under `classes:` or bound a wait (e.g. `wait_p99: 5s`)",
            )),
            _ => Ok(()),
        }
    }

    /// `class: NAME`, a declared class.
    fn objective_class(&self, v: &Spanned<RawValue>) -> Result<ClassId> {
        let RawValue::Scalar(t) = &v.value else {
            return Err(self.err_at(v, "`class` is the name of a declared class"));
        };
        if let Some(i) = self.classes.iter().position(|c| c.name == t.text) {
            return Ok(i as ClassId);
        }
        let names: Vec<&str> = self.classes.iter().map(|c| c.name.as_str()).collect();
        let hint = match policy::closest(&t.text, &names) {
            Some(n) => format!("did you mean `{n}`? "),
            None => String::new(),
        };
        Err(self.err_at(
            v,
            format!(
                "an objective names class `{}`, which is not declared; {hint}declared classes: {}",
                t.text,
                names.join(", ")
            ),
        ))
    }

    /// `tenant: A`, `tenants: [A, B]`, `tenants: {all_but: [flood]}` or
    /// `tenants: each`.
    fn objective_tenants(&self, key: &Spanned<String>, v: &Spanned<RawValue>) -> Result<TenantScope> {
        let what = "an objective";
        match (key.value.as_str(), &v.value) {
            ("tenant", RawValue::Scalar(_)) => Ok(TenantScope::Each(vec![self.listed_tenant(v, what)?])),
            ("tenants", RawValue::Scalar(t)) if t.text == "each" => Ok(TenantScope::AllBut(Vec::new())),
            ("tenants", RawValue::List(items)) => Ok(TenantScope::Each(self.tenant_ids(v, items)?)),
            ("tenants", RawValue::Map(m)) if m.len() == 1 && m[0].0.value == "all_but" => {
                let RawValue::List(items) = &m[0].1.value else {
                    return Err(self.err_at(&m[0].1, "`all_but` lists tenant names, e.g. `{all_but: [flood]}`"));
                };
                let ids = self.tenant_ids(&m[0].1, items)?;
                if ids.len() >= self.tenants.len() {
                    return Err(self.err_at(&m[0].1, "`all_but` leaves no tenant; exempt fewer"));
                }
                Ok(TenantScope::AllBut(ids))
            }
            ("tenant", _) => Err(self.err_at(v, "`tenant` is one tenant's name; for several write `tenants: [A, B]`")),
            _ => Err(self.err_at(
                v,
                "`tenants` is a list `[A, B]`, `{all_but: [flood]}` (every tenant but these) or `each` (every tenant); each tenant is judged on its own and the worst counts",
            )),
        }
    }

    /// Distinct tenant ids of a non-empty list.
    fn tenant_ids(&self, at: &Spanned<RawValue>, items: &[Spanned<RawValue>]) -> Result<Vec<TenantId>> {
        if items.is_empty() {
            return Err(self.err_at(at, "the list of tenants is empty; name at least one"));
        }
        let mut ids = Vec::with_capacity(items.len());
        for item in items {
            let id = self.listed_tenant(item, "an objective")?;
            if ids.contains(&id) {
                return Err(self.err_at(item, "this tenant is listed twice; list each once"));
            }
            ids.push(id);
        }
        Ok(ids)
    }

    fn listed_tenant(&self, v: &Spanned<RawValue>, what: &str) -> Result<TenantId> {
        let RawValue::Scalar(t) = &v.value else {
            return Err(self.err_at(v, format!("{what} lists tenant names; this is not a name")));
        };
        let name = Spanned { value: t.text.clone(), referenced: v.referenced, defined: v.defined };
        self.known_tenant(&name, what)
    }

    fn flag(&self, v: &Spanned<RawValue>) -> Result<bool> {
        match &v.value {
            RawValue::Scalar(t) if t.text == "true" => Ok(true),
            RawValue::Scalar(t) if t.text == "false" => Ok(false),
            _ => Err(self.err_at(v, "`cost` is true (a cost limit, ordering the passing entries) or false")),
        }
    }

    fn objective_name(&self, v: &Spanned<RawValue>) -> Result<String> {
        match &v.value {
            RawValue::Scalar(t) if !t.text.trim().is_empty() && !t.text.chars().any(char::is_control) => {
                Ok(t.text.trim().to_string())
            }
            _ => Err(self.err_at(v, "`name` is a short text naming the objective, e.g. critical-p99")),
        }
    }

    /// "critical wait_p99", "all but flood wait_p99", "utilization".
    fn default_name(&self, key: &str, class: Option<ClassId>, scope: &TenantScope) -> String {
        let names =
            |ids: &[TenantId]| ids.iter().map(|&t| self.tenants.name(t)).collect::<Vec<_>>().join(", ");
        let mut parts: Vec<String> = Vec::new();
        if let Some(c) = class {
            parts.push(self.classes[c as usize].name.clone());
        }
        match scope {
            TenantScope::All => {}
            TenantScope::Each(ids) => parts.push(names(ids)),
            TenantScope::AllBut(ids) if ids.is_empty() => parts.push("each tenant".into()),
            TenantScope::AllBut(ids) => parts.push(format!("all but {}", names(ids))),
        }
        parts.push(key.to_string());
        parts.join(" ")
    }
}

/// A bound of the measure's unit, for messages.
fn example(measure: Measure) -> &'static str {
    match measure {
        Measure::Wait { .. } | Measure::WaitMean => "`5s` or `2m`",
        Measure::Makespan => "`2h`",
        Measure::SlaMisses => "`1%` or 0.01",
        Measure::Share => "0.8 (80% of a fair share)",
        Measure::Jain => "0.9",
        Measure::Gini => "0.2",
        Measure::Utilization => "`80%` or 0.8",
        Measure::Rejected | Measure::Deferred => "0",
    }
}

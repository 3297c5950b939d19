//! Policy entries: `- fifo` or `- {policy: drr, cost: work, label: drr-work}`.
//!
//! Besides `policy`, `label` and `spare`, every key of an entry is a
//! parameter of that policy, parsed against its schema (the `INFO` of its
//! file, see [`crate::policy::registry`]); a key the policy does not take,
//! or a value of the wrong shape, is an error at its line and column.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use serde_saphyr::Spanned;

use super::{pos, Builder};
use crate::error::Result;
use crate::model::*;
use crate::policy::{self, PolicyInfo};
use crate::scenario::raw::*;
use crate::time::{parse_duration, to_secs_f64, Time};

/// File names a results folder holds beside the policies' folders; a label
/// may not take one of them (compared without case, for file systems that
/// ignore it).
pub const RESERVED_LABELS: [&str; 25] = [
    "charts",
    "report.html",
    "comparison.csv",
    "scenario.yaml",
    "fairsim-results.json",
    "summary.csv",
    "resources.csv",
    "scorecard.csv",
    "tenant_classes.csv",
    // the scorecard's figures per seed and its paired differences (`run --seeds`)
    "seeds.csv",
    "seeds_paired.csv",
    // the top-level long tables (crate::output::combined)
    "tenants.csv",
    "classes.csv",
    "fairness.csv",
    "queues.csv",
    "queue_totals.csv",
    "pools.csv",
    "pool_queues.csv",
    "routes.csv",
    "planner.csv",
    "jobs.csv",
    "dispatches.csv",
    "skips.csv",
    "ticks.csv",
    "refusals.csv",
];

/// Longest label: a folder name must fit the usual 255-byte limit with room
/// for the staging suffixes.
const MAX_LABEL_BYTES: usize = 200;

/// The keys every entry may have besides its policy's parameters.
const COMMON_KEYS: [&str; 9] =
    ["policy", "label", "spare", "topology", "slice", "resume_overhead", "on_cap", "admission", "tenants"];

type Entries = [(Spanned<String>, Spanned<RawValue>)];

impl Builder<'_> {
    pub(super) fn build_policies(
        &self,
        raw: Option<&Spanned<Vec<Spanned<RawPolicy>>>>,
    ) -> Result<Vec<PolicySpec>> {
        let Some(raw) = raw else {
            return Ok(vec![PolicySpec::named("fifo")]);
        };
        if raw.value.is_empty() {
            return Err(self.err_at(
                raw,
                "`policies` is empty; list at least one, e.g. `policies: [fifo]`, or remove the key",
            ));
        }
        // Explicit labels first, so generated labels avoid them.
        let mut used: HashSet<String> = HashSet::new();
        for p in &raw.value {
            if let RawPolicy::Map(m) = &p.value {
                if let Some((_, l)) = m.iter().find(|(k, _)| k.value == "label") {
                    let label = self.label(l)?;
                    if !used.insert(label.to_lowercase()) {
                        return Err(self.err_at(
                            l,
                            format!("label `{label}` is used twice (letter case aside); give each policy a different label"),
                        ));
                    }
                }
            }
        }
        let mut out = Vec::with_capacity(raw.value.len());
        let mut suffix: HashMap<String, u32> = HashMap::new();
        for p in &raw.value {
            let (line, col) = pos(p);
            let mut spec = match &p.value {
                RawPolicy::Kind(k) => self.policy_entry(Form::Kind(k), line, col)?,
                RawPolicy::Map(m) => self.policy_entry(Form::Map(m), line, col)?,
            };
            if spec.label.is_empty() {
                // an entry that runs a preset's own order is named after its topology
                let base = match (&p.value, spec.topology) {
                    (RawPolicy::Map(m), Some(t)) if !m.iter().any(|(k, _)| k.value == "policy") => {
                        self.topologies[t].name.clone()
                    }
                    _ => spec.kind.clone(),
                };
                // each kind resumes its numbering where it stopped, so many
                // unlabelled entries of one kind take linear time
                let next = suffix.entry(base.clone()).or_insert(2);
                let mut label = base.clone();
                while used.contains(&label.to_lowercase()) {
                    label = format!("{base}-{next}");
                    *next += 1;
                }
                used.insert(label.to_lowercase());
                spec.label = label;
            }
            out.push(spec);
        }
        Ok(out)
    }

    /// An entry given on the command line, `--policy '{policy: wfq, cost:
    /// work}'`, checked like one in the file (against this scenario's
    /// tenants, classes, topologies and admission sets); its errors name the
    /// option and the column in its text. Without `label:` the label is
    /// left empty for the caller to choose.
    pub(super) fn inline_policy(
        &mut self,
        text: &str,
        workload: &[EntrySpec],
        capacity_changes: bool,
    ) -> Result<PolicySpec> {
        let source = inline_source(text);
        let raw: Spanned<RawPolicy> =
            serde_saphyr::from_str(text).map_err(|e| super::yaml_error(&source, &e))?;
        self.errors_in = Some(source);
        let spec = self.inline_entry(&raw, workload, capacity_changes);
        self.errors_in = None;
        spec
    }

    fn inline_entry(
        &self,
        raw: &Spanned<RawPolicy>,
        workload: &[EntrySpec],
        capacity_changes: bool,
    ) -> Result<PolicySpec> {
        let (line, col) = pos(raw);
        let spec = match &raw.value {
            RawPolicy::Kind(k) => self.policy_entry(Form::Kind(k), line, col)?,
            RawPolicy::Map(m) => self.policy_entry(Form::Map(m), line, col)?,
        };
        self.check_slice(&spec, workload)?;
        if capacity_changes && spec.topology.is_some() {
            return Err(self.err_line(
                line,
                col,
                "this entry runs on a topology, whose pools keep their size, and the scenario has `capacity:` changes; drop `topology:`",
            ));
        }
        Ok(spec)
    }

    /// A label: text that can name a folder inside the results folder.
    fn label<'v>(&self, l: &'v Spanned<RawValue>) -> Result<&'v str> {
        let RawValue::Scalar(t) = &l.value else {
            return Err(self.err_at(l, "`label` must be a name such as drr-work"));
        };
        let v = t.text.as_str();
        let bad = v.is_empty()
            || v.starts_with('.')
            || v.contains(['/', '\\', '\0'])
            || v.chars().any(char::is_control)
            || v.trim() != v;
        if bad {
            return Err(self.err_at(
                l,
                format!("label `{}` cannot be used as a folder name; use letters, digits, - and _ (not starting with .)", v.escape_debug()),
            ));
        }
        if v.len() > MAX_LABEL_BYTES {
            return Err(self.err_at(
                l,
                format!("label is {} bytes long; folder names allow about 255, so keep labels under {MAX_LABEL_BYTES}", v.len()),
            ));
        }
        if let Some(r) = RESERVED_LABELS.iter().find(|r| r.eq_ignore_ascii_case(v)) {
            return Err(self.err_at(
                l,
                format!("label `{v}` would clash with the results folder's own `{r}`; choose another label"),
            ));
        }
        Ok(v)
    }

    /// One policy entry at (line, col).
    fn policy_entry(&self, form: Form, line: usize, col: usize) -> Result<PolicySpec> {
        let mut spec = PolicySpec { line, column: col, ..Default::default() };
        let entries: &Entries = match form {
            Form::Kind(k) => {
                spec.kind = k.trim().to_string();
                &[]
            }
            Form::Map(m) => {
                let Some((_, kind)) = m.iter().find(|(k, _)| k.value == "policy") else {
                    if let Some(order) = self.preset_order(m) {
                        // a preset's topology runs the processor's own order
                        spec.kind = order.to_string();
                        return self.policy_params(spec, m, line, col);
                    }
                    let hint = match m.first() {
                        Some((k, _)) if policy::find(&k.value).is_some() => format!(
                            " (`- {}: ...` reads as a map with the key `{}`; write `- {{policy: {}, ...}}`)",
                            k.value, k.value, k.value
                        ),
                        _ => String::new(),
                    };
                    return Err(self.err_line(
                        line,
                        col,
                        format!("policy entry has no `policy:` key; add the policy name, e.g. `{{policy: drr}}`{hint}"),
                    ));
                };
                let RawValue::Scalar(t) = &kind.value else {
                    return Err(self.err_at(kind, "`policy` must be a policy name such as fifo"));
                };
                spec.kind = t.text.trim().to_string();
                m
            }
        };
        if spec.kind.is_empty() {
            return Err(self.err_line(
                line,
                col,
                "policy name is empty; write a policy such as fifo (see `fairsim policies`)",
            ));
        }
        self.policy_params(spec, entries, line, col)
    }

    /// The order of the processor preset an entry's `topology:` names, if it does.
    fn preset_order(&self, m: &Entries) -> Option<&'static str> {
        let (_, v) = m.iter().find(|(k, _)| k.value == "topology")?;
        let RawValue::Scalar(t) = &v.value else { return None };
        let i = self.topologies.iter().position(|x| x.name == t.text)?;
        self.presets.iter().find(|p| p.topology == i).map(|p| p.order)
    }

    /// The rest of an entry whose policy is `spec.kind`.
    fn policy_params(
        &self,
        mut spec: PolicySpec,
        entries: &Entries,
        line: usize,
        col: usize,
    ) -> Result<PolicySpec> {
        let Some(info) = policy::find(&spec.kind) else {
            let at =
                entries.iter().find(|(k, _)| k.value == "policy").map(|(_, v)| pos(v)).unwrap_or((line, col));
            return Err(self.err_line(at.0, at.1, policy::unknown_policy(&spec.kind)));
        };
        let mut tenants_at = None;
        for (key, value) in entries {
            match key.value.as_str() {
                "policy" => {}
                "tenants" => {
                    spec.tenants = self.run_tenants(value)?;
                    tenants_at = Some(value);
                }
                "label" => spec.label = self.label(value)?.to_string(),
                "spare" => spec.spare = self.spare(value)?,
                "topology" => spec.topology = Some(self.topology_of(value)?),
                "on_cap" => (spec.cap_delay, spec.cap_refuse_each) = self.on_cap(value)?,
                "admission" => spec.admission = self.admission_of(value)?,
                "slice" => {
                    let s = self.run_duration(value, "slice", true)?;
                    spec.slice.get_or_insert(Slicing { slice: 0, resume_overhead: 0 }).slice = s;
                }
                "resume_overhead" => {
                    let o = self.run_duration(value, "resume_overhead", false)?;
                    spec.slice.get_or_insert(Slicing { slice: 0, resume_overhead: 0 }).resume_overhead = o;
                }
                name => {
                    let param = self.param_of(info, key)?;
                    let (l, c) = pos(value);
                    spec.params.set(param.name, self.param_value(param, name, value)?, l, c);
                }
            }
        }
        if spec.slice.is_some_and(|s| s.slice == 0) {
            return Err(self.err_line(
                line,
                col,
                "`resume_overhead` goes with `slice`; add `slice: 2m` or remove it",
            ));
        }
        if let Some(at) = tenants_at {
            self.check_entry_caps(&spec, at)?;
        }
        Ok(spec)
    }

    /// `on_cap: hold` (the default), `on_cap: {delay: 5s}` or `on_cap:
    /// {delay: 5s, refuse: each}`: the delay, and whether every claim at
    /// the cap is refused (`each`) or one per stretch (`first`).
    fn on_cap(&self, v: &Spanned<RawValue>) -> Result<(Option<Time>, bool)> {
        let bad = || {
            self.err_at(
                v,
                format!("`on_cap: {}` is not valid; write `hold` (wait in place until the cap frees), `{{delay: 5s}}` (the refused job back to the queue 5 s later) or `{{delay: 5s, refuse: each}}` (every claim at the cap refused, as a SQL worker's loop does)", show(&v.value)),
            )
        };
        let m = match &v.value {
            RawValue::Scalar(t) if t.text == "hold" => return Ok((None, false)),
            RawValue::Map(m) => m,
            _ => return Err(bad()),
        };
        let (mut delay, mut each) = (None, false);
        for (k, value) in m {
            match k.value.as_str() {
                "delay" => delay = Some(self.run_duration(value, "on_cap.delay", true)?),
                "refuse" => {
                    each = match &value.value {
                        RawValue::Scalar(t) if t.text == "each" => true,
                        RawValue::Scalar(t) if t.text == "first" => false,
                        _ => {
                            return Err(self.err_at(
                                value,
                                format!("`on_cap.refuse: {}` is not valid; write `first` (one refused claim per stretch at the cap, the default) or `each` (every claim of a capped tenant's job refused in turn)", show(&value.value)),
                            ))
                        }
                    }
                }
                other => {
                    return Err(self.err_at(
                        k,
                        format!("unknown key `{other}` in `on_cap`; expected `delay` and optionally `refuse` (e.g. `{{delay: 500ms, refuse: each}}`)"),
                    ))
                }
            }
        }
        match delay {
            Some(d) => Ok((Some(d), each)),
            None => Err(bad()),
        }
    }

    /// A duration given on a policy entry (`slice`, `resume_overhead`).
    fn run_duration(&self, v: &Spanned<RawValue>, key: &str, positive: bool) -> Result<Time> {
        let RawValue::Scalar(t) = &v.value else {
            return Err(self.err_at(v, format!("`{key}` is a duration such as 2m")));
        };
        match parse_duration(&t.text) {
            Ok(0) if positive => {
                Err(self.err_at(v, format!("`{key}` must be greater than zero; write e.g. 2m")))
            }
            Ok(d) => Ok(d),
            Err(m) => Err(self.err_at(v, format!("`{key}`: {m}"))),
        }
    }

    /// `topology: NAME`: the index of a topology declared under `topologies:`.
    fn topology_of(&self, v: &Spanned<RawValue>) -> Result<usize> {
        let names: Vec<&str> = self.topologies.iter().map(|t| t.name.as_str()).collect();
        if let RawValue::Scalar(t) = &v.value {
            if let Some(i) = names.iter().position(|n| *n == t.text) {
                return Ok(i);
            }
        }
        let declared = if names.is_empty() {
            "none are declared".to_string()
        } else {
            format!("declared: {}", names.join(", "))
        };
        Err(self.err_at(
            v,
            format!("`topology: {}` names no topology under `topologies:` ({declared}); declare it or fix the name", show(&v.value)),
        ))
    }

    /// `admission: none` or the name of a set under `admission_sets:`. A
    /// set is named rather than written inline so several entries (fifo,
    /// drr, wfq) share one, and its rules are read by the same typed loader
    /// as the top-level list.
    fn admission_of(&self, v: &Spanned<RawValue>) -> Result<AdmissionChoice> {
        if let RawValue::Scalar(t) = &v.value {
            if t.text == "none" {
                return Ok(AdmissionChoice::Off);
            }
            if let Some(i) = self.admission_sets.iter().position(|n| *n == t.text) {
                return Ok(AdmissionChoice::Set(i));
            }
        }
        let declared = if self.admission_sets.is_empty() {
            "none are declared".to_string()
        } else {
            format!("declared: {}", self.admission_sets.join(", "))
        };
        Err(self.err_at(
            v,
            format!("`admission: {}` on a policy is `none` or the name of a rule set under `admission_sets:` ({declared}); declare the rules there and name the set", show(&v.value)),
        ))
    }

    fn spare(&self, v: &Spanned<RawValue>) -> Result<Spare> {
        match &v.value {
            RawValue::Scalar(t) if t.text == "lend" => Ok(Spare::Lend),
            RawValue::Scalar(t) if t.text == "hold" => Ok(Spare::Hold),
            _ => Err(self.err_at(
                v,
                format!(
                    "`spare: {}` is not valid; use `lend` (work-conserving) or `hold` (strict cap)",
                    show(&v.value)
                ),
            )),
        }
    }

    /// The schema entry for `key`, or an error naming the keys the policy takes.
    fn param_of(&self, info: &PolicyInfo, key: &Spanned<String>) -> Result<&'static Param> {
        if let Some(p) = info.param(&key.value) {
            return Ok(p);
        }
        let mut valid: Vec<&str> = info.params.iter().map(|p| p.name).collect();
        let hint = match policy::closest(&key.value, &valid) {
            Some(n) => format!("did you mean `{n}`? "),
            None => String::new(),
        };
        valid.extend(COMMON_KEYS.iter().skip(1));
        Err(self.err_at(
            key,
            format!(
                "policy `{}` does not take `{}`; {hint}its keys are: {} (see `fairsim policies`)",
                info.name,
                key.value,
                valid.join(", ")
            ),
        ))
    }

    /// Parses the value of parameter `name` by its kind.
    fn param_value(&self, param: &Param, name: &str, v: &Spanned<RawValue>) -> Result<Value> {
        let wrong = || {
            self.err_at(
                v,
                format!("`{name}: {}` is not valid: expected {}", show(&v.value), param.kind.describe()),
            )
        };
        match (param.kind, &v.value) {
            (ParamKind::Duration, RawValue::Scalar(t)) => {
                let d = parse_duration(&t.text).map_err(|m| self.err_at(v, format!("`{name}`: {m}")))?;
                if d == 0 {
                    return Err(self.err_at(v, format!("`{name}` must be longer than 0, e.g. 1m")));
                }
                Ok(Value::Duration(d))
            }
            (ParamKind::Amount, RawValue::Scalar(t)) => {
                let x = if t.numeric {
                    t.text.parse::<f64>().ok()
                } else {
                    parse_duration(&t.text).ok().map(to_secs_f64)
                };
                match x {
                    Some(x) if x.is_finite() && x > 0.0 => Ok(Value::Number(x)),
                    _ => Err(self.err_at(
                        v,
                        format!("`{name}: {}` must be a positive number (jobs, or seconds for cost: work) or a duration such as 2s", t.text),
                    )),
                }
            }
            (ParamKind::Count { min }, RawValue::Scalar(t)) => match t.text.parse::<u64>() {
                Ok(n) if t.numeric && n >= u64::from(min) && n <= u64::from(u32::MAX) => {
                    Ok(Value::Count(n as u32))
                }
                _ => Err(wrong()),
            },
            (ParamKind::Word(words), RawValue::Scalar(t)) => match words.iter().find(|w| **w == t.text) {
                Some(w) => Ok(Value::Word(w)),
                None => Err(wrong()),
            },
            (ParamKind::Tenants, RawValue::List(items)) => self.tenant_list(name, items).map(Value::Tenants),
            (ParamKind::Class, RawValue::Scalar(t)) => {
                let s = Spanned { value: t.text.clone(), referenced: v.referenced, defined: v.defined };
                self.class_ref(&s).map(Value::Class)
            }
            (ParamKind::ClassFractions, RawValue::Map(m)) => {
                self.class_fractions(name, m).map(Value::ClassFractions)
            }
            (ParamKind::Policy, RawValue::Scalar(t)) => self.inner_policy(Form::Kind(&t.text), v),
            (ParamKind::Policy, RawValue::Map(m)) => self.inner_policy(Form::Map(m), v),
            _ => Err(wrong()),
        }
    }

    fn inner_policy(&self, form: Form, at: &Spanned<RawValue>) -> Result<Value> {
        let (line, col) = pos(at);
        let mut inner = self.policy_entry(form, line, col)?;
        if inner.topology.is_some()
            || inner.slice.is_some()
            || inner.cap_delay.is_some()
            || !inner.tenants.is_empty()
        {
            return Err(self.err_line(
                line,
                col,
                "`topology`, `slice`, `on_cap` and `tenants` belong to the outer policy entry (a wrapped policy only orders jobs); move them out",
            ));
        }
        if inner.label.is_empty() {
            inner.label = inner.kind.clone();
        }
        Ok(Value::Policy(Box::new(inner)))
    }

    fn tenant_list(&self, name: &str, items: &[Spanned<RawValue>]) -> Result<Vec<TenantId>> {
        let mut ids = Vec::with_capacity(items.len());
        for item in items {
            let RawValue::Scalar(t) = &item.value else {
                return Err(
                    self.err_at(item, format!("`{name}` lists tenant names; this item is not a name"))
                );
            };
            let Some(id) = self.tenants.id_of(&t.text) else {
                return Err(self.err_at(
                    item,
                    format!(
                        "`{name}` names tenant `{}`, which is not in the scenario; use a tenant declared under `tenants:` or used in `workload:`",
                        t.text
                    ),
                ));
            };
            if ids.contains(&id) {
                return Err(self.err_at(
                    item,
                    format!("`{name}` lists tenant `{}` twice; list each tenant once", t.text),
                ));
            }
            ids.push(id);
        }
        Ok(ids)
    }

    fn class_fractions(&self, name: &str, m: &Entries) -> Result<Vec<(ClassId, f64)>> {
        let mut out = Vec::with_capacity(m.len());
        for (cname, frac) in m {
            let id = self.class_ref(cname)?;
            let x = match &frac.value {
                RawValue::Scalar(t) if t.numeric => t.text.parse::<f64>().ok(),
                _ => None,
            };
            match x {
                Some(x) if x.is_finite() && (0.0..=1.0).contains(&x) => out.push((id, x)),
                _ => {
                    return Err(self.err_at(
                        frac,
                        format!(
                        "`{name}` fraction `{}` for class `{}` must be a number between 0 and 1, e.g. 0.2",
                        show(&frac.value),
                        cname.value
                    ),
                    ))
                }
            }
        }
        Ok(out)
    }
}

/// A policy entry as written: a bare name or a map.
#[derive(Clone, Copy)]
enum Form<'a> {
    Kind(&'a str),
    Map(&'a Entries),
}

/// A raw value as the user wrote it, roughly, for messages.
fn show(v: &RawValue) -> String {
    match v {
        RawValue::Null => "(nothing)".into(),
        RawValue::Scalar(t) => t.text.clone(),
        RawValue::List(items) => {
            format!("[{}]", items.iter().map(|i| show(&i.value)).collect::<Vec<_>>().join(", "))
        }
        RawValue::Map(m) => format!(
            "{{{}}}",
            m.iter().map(|(k, v)| format!("{}: {}", k.value, show(&v.value))).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// What errors in an inline `--policy` entry name instead of a file.
pub(super) fn inline_source(text: &str) -> PathBuf {
    PathBuf::from(format!("--policy '{text}'"))
}

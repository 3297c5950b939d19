//! Loading a scenario file: YAML -> [`RawScenario`] -> validated [`Scenario`].
//!
//! Every error is an [`Error::Input`] naming the file, the 1-based line and
//! column of the offending value (when known), what is wrong and what to do.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_saphyr::{MessageFormatter, Spanned, UserMessageFormatter};

use super::model::*;
use super::raw::*;
use crate::error::{Error, Result};
use crate::time::{parse_duration, parse_rate, to_secs_f64, Time, SECOND};

/// Largest number of tenants a `tenants: {count: N}` spread may generate.
pub const MAX_SPREAD: u32 = 10_000_000;

/// z-score of the 99th percentile of the standard normal distribution.
const Z_P99: f64 = 2.326_347_874_040_840_8;

/// Reads and validates a scenario file.
///
/// A missing or unreadable file is an input error at line 0.
pub fn load(path: &Path) -> Result<Scenario> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::input(
            path,
            0,
            0,
            format!("cannot read scenario file `{}`: {e}; check the path", path.display()),
        )
    })?;
    load_str(&text, path)
}

/// Validates scenario text; `path` is used for messages, the default name
/// (file stem) and [`Scenario::source`].
pub fn load_str(text: &str, path: &Path) -> Result<Scenario> {
    let mut sc = load_str_unscanned(text, path)?;
    crate::workload::trace::prepare(&mut sc)?;
    Ok(sc)
}

/// Reads and validates a scenario file without reading its traces (for
/// `--trace FILE`, which replaces them). Call
/// [`crate::workload::trace::prepare`] before simulating.
pub fn load_unscanned(path: &Path) -> Result<Scenario> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::input(
            path,
            0,
            0,
            format!("cannot read scenario file `{}`: {e}; check the path", path.display()),
        )
    })?;
    load_str_unscanned(&text, path)
}

fn load_str_unscanned(text: &str, path: &Path) -> Result<Scenario> {
    let empty = || {
        Error::input(
            path,
            0,
            0,
            "the scenario file is empty; it needs at least `workers:` and a `workload:` list (see docs/scenario.md)",
        )
    };
    if text.trim().is_empty() {
        return Err(empty());
    }
    let raw: RawScenario = serde_saphyr::from_str(text).map_err(|e| yaml_error(path, &e))?;
    if raw.is_empty() {
        return Err(empty());
    }
    Builder::new(path).build(raw)
}

/// Converts a serde-saphyr error into an input error with its location and a hint.
fn yaml_error(path: &Path, err: &serde_saphyr::Error) -> Error {
    let (line, col) = err.location().map(|l| (l.line() as usize, l.column() as usize)).unwrap_or((0, 0));
    let inner = err.without_snippet();
    let msg = UserMessageFormatter.format_message(inner).into_owned();
    let msg = strip_location_suffix(&msg);
    // serde-saphyr reports an unparsable scalar as "invalid u32", "invalid f64", ...
    let scalar = match msg.as_str() {
        "invalid u8" | "invalid u16" | "invalid u32" | "invalid u64" | "invalid usize" => {
            Some("expected a whole number of zero or more; write e.g. 4")
        }
        "invalid i8" | "invalid i16" | "invalid i32" | "invalid i64" | "invalid isize" => {
            Some("expected a whole number; write e.g. 5")
        }
        "invalid f32" | "invalid f64" => Some("expected a number; write e.g. 1 or 0.5"),
        "invalid bool" => Some("expected true or false"),
        _ => None,
    };
    let scalar = scalar.or(match msg.as_str() {
        "expected mapping start" => {
            Some("expected a map of `key: value` pairs here, e.g. `{weight: 1}` or one `key: value` per indented line")
        }
        "expected sequence start" => {
            Some("expected a list here; write one `- item` per line, or `[a, b]`")
        }
        _ => None,
    });
    if let Some(s) = scalar {
        return Error::input(path, line, col, format!("invalid value: {s}"));
    }
    let hint = if msg.contains("unknown field") {
        "remove the key or fix its spelling (see docs/scenario.md)"
    } else if msg.contains("duplicate") {
        "each key may appear only once in a map; keep one of them"
    } else if msg.contains("missing field") {
        "add the missing key (see docs/scenario.md)"
    } else if msg.contains("invalid type") || msg.contains("invalid value") {
        "write the value in the form expected above (see docs/scenario.md)"
    } else {
        "fix the YAML syntax here (check indentation, colons, quotes and brackets)"
    };
    Error::input(path, line, col, format!("{msg}; {hint}"))
}

/// Drops a trailing " at line X, column Y" if the formatter added one.
fn strip_location_suffix(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) if msg[i..].contains("column") => msg[..i].to_string(),
        _ => msg.to_string(),
    }
}

fn pos<T>(s: &Spanned<T>) -> (usize, usize) {
    (s.referenced.line() as usize, s.referenced.column() as usize)
}

/// Collects the validated pieces while walking the raw model.
struct Builder<'a> {
    path: &'a Path,
    resources: Vec<(String, u64)>,
    tenants: Vec<TenantSpec>,
    tenant_ids: HashMap<String, TenantId>,
    classes: Vec<ClassSpec>,
}

impl<'a> Builder<'a> {
    fn new(path: &'a Path) -> Self {
        Builder {
            path,
            resources: Vec::new(),
            tenants: Vec::new(),
            tenant_ids: HashMap::new(),
            classes: Vec::new(),
        }
    }

    fn err_at<T>(&self, at: &Spanned<T>, msg: impl Into<String>) -> Error {
        let (l, c) = pos(at);
        Error::input(self.path, l, c, msg)
    }

    fn err_line(&self, line: usize, col: usize, msg: impl Into<String>) -> Error {
        Error::input(self.path, line, col, msg)
    }

    /// Parses a duration, with the error at the value.
    fn dur(&self, d: &Spanned<Dur>, key: &str) -> Result<Time> {
        parse_duration(&d.value.0.text).map_err(|m| self.err_at(d, format!("`{key}`: {m}")))
    }

    /// Parses a strictly positive duration.
    fn pos_dur(&self, d: &Spanned<Dur>, key: &str) -> Result<Time> {
        let t = self.dur(d, key)?;
        if t == 0 {
            return Err(self.err_at(d, format!("`{key}` must be greater than zero; write e.g. 1s")));
        }
        Ok(t)
    }

    fn build(mut self, raw: RawScenario) -> Result<Scenario> {
        let name = match &raw.name {
            Some(n) => {
                let v = n.value.trim();
                if v.is_empty() || v == "." || v == ".." || v.contains(['/', '\\']) {
                    return Err(self.err_at(
                        n,
                        format!(
                            "`name: {}` cannot be used as a folder name; use letters, digits, - and _",
                            n.value
                        ),
                    ));
                }
                v.to_string()
            }
            None => self
                .path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "scenario".to_string()),
        };
        let seed = raw.seed.as_ref().map(|s| s.value).unwrap_or(1);

        if let Some(res) = &raw.resources {
            self.resources = self.build_resources(res)?;
        }

        let workers = match &raw.workers {
            Some(w) if w.value == 0 => {
                return Err(self.err_at(w, "`workers` must be at least 1 (the number of jobs that may run at once)"))
            }
            Some(w) => w.value,
            None if !self.resources.is_empty() => u32::MAX,
            None => {
                return Err(self.err_line(
                    0,
                    0,
                    "missing `workers:`; add e.g. `workers: 4` (the number of jobs that may run at once), or declare `resources:`",
                ))
            }
        };

        let tick = match raw.log.as_ref().and_then(|l| l.value.tick.as_ref()) {
            Some(t) => self.pos_dur(t, "log.tick")?,
            None => SECOND,
        };

        if let Some(tenants) = &raw.tenants {
            for (tname, props) in &tenants.value.0 {
                self.declare_tenant(tname, props)?;
            }
        }

        self.build_classes(raw.classes.as_ref())?;

        let mut traces = Vec::new();
        let workload = match &raw.workload {
            None => {
                return Err(self.err_line(
                    0,
                    0,
                    "missing `workload:`; add a list of generators, e.g. `workload: [{tenant: A, count: 10, service: 1s}]`",
                ))
            }
            Some(w) if w.value.is_empty() => {
                return Err(self.err_at(
                    w,
                    "`workload` is empty; add at least one entry, e.g. `- {tenant: A, count: 10, service: 1s}`",
                ))
            }
            Some(w) => {
                let mut out = Vec::with_capacity(w.value.len());
                for e in &w.value {
                    match &e.value.trace {
                        Some(t) => traces.push(self.build_trace(e, t)?),
                        None => out.push(self.build_entry(e)?),
                    }
                }
                out
            }
        };

        let policies = self.build_policies(raw.policies.as_ref())?;

        Ok(Scenario {
            name,
            source: self.path.to_path_buf(),
            seed,
            workers,
            resources: self.resources,
            tick,
            tenants: self.tenants,
            classes: self.classes,
            workload,
            traces,
            policies,
        })
    }

    /// A `- trace: {...}` entry (see docs/scenario.md, "Trace replay").
    fn build_trace(&self, e: &Spanned<RawEntry>, t: &Spanned<RawTrace>) -> Result<TraceSpec> {
        let r = &e.value;
        let others = [
            ("tenant", r.tenant.is_some()),
            ("tenants", r.tenants.is_some()),
            ("class", r.class.is_some()),
            ("count", r.count.is_some()),
            ("at", r.at.is_some()),
            ("arrivals", r.arrivals.is_some()),
            ("service", r.service.is_some()),
            ("deadline", r.deadline.is_some()),
            ("cost", r.cost.is_some()),
            ("failure", r.failure.is_some()),
        ];
        if let Some((k, _)) = others.iter().find(|(_, set)| *set) {
            return Err(self.err_at(
                e,
                format!("a `trace` entry takes no `{k}`: the trace gives every job's tenant, class and service; put trace options inside `trace: {{...}}`"),
            ));
        }
        let t = &t.value;
        if t.path.value.trim().is_empty() {
            return Err(
                self.err_at(&t.path, "`trace.path` is empty; give the trace file, relative to this scenario")
            );
        }
        let rel = Path::new(&t.path.value);
        let path = match self.path.parent() {
            Some(dir) if rel.is_relative() => dir.join(rel),
            _ => rel.to_path_buf(),
        };
        let ext = rel.extension().and_then(|x| x.to_str()).map(|x| x.to_ascii_lowercase());
        let format = match (&t.format, ext.as_deref()) {
            (Some(f), _) => f.value.to_ascii_lowercase(),
            (None, Some(x)) => x.to_string(),
            (None, None) => String::new(),
        };
        let word = |s: &Option<Spanned<String>>| s.as_ref().map(|v| v.value.clone());
        let time_format = match t.time_format.as_ref().map(|f| (f, f.value.as_str())) {
            None | Some((_, "auto")) => TimeFormat::Auto,
            Some((_, "rfc3339")) => TimeFormat::Rfc3339,
            Some((_, "epoch_s")) => TimeFormat::EpochSeconds,
            Some((_, "epoch_ms")) => TimeFormat::EpochMillis,
            Some((_, "epoch_us")) => TimeFormat::EpochMicros,
            Some((f, other)) => {
                return Err(self.err_at(
                    f,
                    format!(
                    "`time_format: {other}` is not known; use auto, rfc3339, epoch_s, epoch_ms or epoch_us"
                ),
                ))
            }
        };
        let skip_bad_rows = match t.on_error.as_ref().map(|f| (f, f.value.as_str())) {
            None | Some((_, "error")) => false,
            Some((_, "skip")) => true,
            Some((f, other)) => {
                return Err(self.err_at(f, format!("`on_error: {other}` is not known; use error or skip")))
            }
        };
        let fmt = match format.as_str() {
            "csv" => {
                let mut cols = crate::workload::trace::csv::default_columns();
                if let Some(u) = &t.service_unit {
                    cols.service_unit = match u.value.as_str() {
                        "us" => 1,
                        "ms" => 1000,
                        "s" => SECOND,
                        other => {
                            return Err(self
                                .err_at(u, format!("`service_unit: {other}` is not known; use us, ms or s")))
                        }
                    };
                }
                if let Some(c) = &t.columns {
                    let c = &c.value;
                    if let Some(a) = &c.arrival {
                        cols.arrival = a.value.clone();
                    }
                    if let Some(a) = &c.tenant {
                        cols.tenant = a.value.clone();
                    }
                    cols.class = word(&c.class);
                    cols.service = word(&c.service);
                    cols.started = word(&c.started);
                    cols.finished = word(&c.finished);
                    cols.priority = word(&c.priority);
                    cols.deadline = word(&c.deadline);
                    if let Some(cost) = &c.cost {
                        for (rname, col) in &cost.value.0 {
                            let Some(i) = self.resources.iter().position(|(n, _)| n == rname) else {
                                return Err(self.err_at(
                                    col,
                                    format!("`columns.cost` names resource `{rname}`, which is not declared under `resources:`"),
                                ));
                            };
                            cols.cost.push((i, col.value.clone()));
                        }
                    }
                }
                TraceFormat::Csv(Box::new(cols))
            }
            "swf" => {
                if t.columns.is_some() || t.service_unit.is_some() || t.time_format.is_some() {
                    return Err(self.err_at(
                        e,
                        "an SWF trace has fixed fields; remove `columns`, `service_unit` and `time_format`",
                    ));
                }
                let slots = match &t.slots {
                    Some(s) if s.value == "none" => None,
                    Some(s) => match self.resources.iter().position(|(n, _)| *n == s.value) {
                        Some(i) => Some(i),
                        None => {
                            return Err(self.err_at(
                                s,
                                format!("`slots: {}` is not a resource declared under `resources:`; declare it (e.g. `resources: {{{}: 64}}`) or write `slots: none`", s.value, s.value),
                            ))
                        }
                    },
                    None => self.resources.iter().position(|(n, _)| n == "procs" || n == "slots"),
                };
                TraceFormat::Swf { slots }
            }
            other => {
                let at = t.format.as_ref().map(pos).unwrap_or_else(|| pos(&t.path));
                return Err(self.err_line(
                    at.0,
                    at.1,
                    format!(
                        "cannot tell the trace format{}; add `format: csv` or `format: swf`",
                        if other.is_empty() { String::new() } else { format!(" from `{other}`") }
                    ),
                ));
            }
        };
        if t.slots.is_some() && matches!(fmt, TraceFormat::Csv(_)) {
            return Err(self.err_at(e, "`slots` is for SWF traces; for CSV map resource columns with `columns: {cost: {procs: COLUMN}}`"));
        }
        Ok(TraceSpec {
            line: pos(e).0,
            path,
            format: fmt,
            time_format,
            keep_time: t.keep_time.as_ref().is_some_and(|k| k.value),
            skip_bad_rows,
            scan: TraceScan::default(),
        })
    }

    fn build_resources(&self, res: &Spanned<NamedMap<Spanned<u64>>>) -> Result<Vec<(String, u64)>> {
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

    fn declare_tenant(&mut self, name: &str, props: &Spanned<Option<RawTenant>>) -> Result<()> {
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
    fn reference_tenant(&mut self, name: &Spanned<String>) -> Result<TenantId> {
        if let Some(&id) = self.tenant_ids.get(&name.value) {
            return Ok(id);
        }
        if name.value.is_empty() {
            return Err(self.err_at(name, "`tenant` is empty; write the tenant's name"));
        }
        self.add_tenant(&name.value)
    }

    fn add_tenant(&mut self, name: &str) -> Result<TenantId> {
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
    fn spread_tenants(&mut self, spread: &Spanned<RawSpread>) -> Result<(TenantId, u32)> {
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

    fn build_classes(&mut self, raw: Option<&Spanned<NamedMap<Spanned<Option<RawClass>>>>>) -> Result<()> {
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

    fn class_names(&self) -> String {
        self.classes.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
    }

    fn class_ref(&self, name: &Spanned<String>) -> Result<ClassId> {
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

    fn build_entry(&mut self, e: &Spanned<RawEntry>) -> Result<EntrySpec> {
        let (line, col) = pos(e);
        let r = &e.value;
        let (tenant, spread) =
            match (&r.tenant, &r.tenants) {
                (Some(_), Some(s)) => {
                    return Err(self.err_at(s, "an entry has both `tenant` and `tenants`; keep only one"))
                }
                (Some(t), None) => (self.reference_tenant(t)?, 1),
                (None, Some(s)) => self.spread_tenants(s)?,
                (None, None) => return Err(self.err_line(
                    line,
                    col,
                    "workload entry has no tenant; add `tenant: NAME` or `tenants: {count: N, prefix: t}`",
                )),
            };
        let class = match &r.class {
            Some(c) => self.class_ref(c)?,
            None => 0,
        };
        let arrivals = self.build_arrivals(r, line, col)?;
        let service =
            match &r.service {
                Some(s) => self.build_service(s)?,
                None => return Err(self.err_line(
                    line,
                    col,
                    "workload entry has no `service`; add e.g. `service: 1s` or `service: {exponential: 2s}`",
                )),
            };
        let deadline = match &r.deadline {
            Some(d) => Some(self.pos_dur(d, "deadline")?),
            None => None,
        };
        let mut cost: Res = [0; MAX_RESOURCES];
        if let Some(c) = &r.cost {
            for (rname, amount) in &c.value.0 {
                let Some(i) = self.resources.iter().position(|(n, _)| n == rname) else {
                    let declared = if self.resources.is_empty() {
                        "none; declare them with `resources: {cpu: 8}`".to_string()
                    } else {
                        self.resources.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")
                    };
                    return Err(self.err_at(
                        amount,
                        format!("cost names resource `{rname}`, which is not declared; declared resources: {declared}"),
                    ));
                };
                let capacity = self.resources[i].1;
                if amount.value > capacity {
                    return Err(self.err_at(
                        amount,
                        format!(
                            "cost {rname}: {} exceeds the capacity {rname}: {capacity}, so these jobs can never fit; lower the cost or raise the capacity",
                            amount.value
                        ),
                    ));
                }
                cost[i] = amount.value;
            }
        }
        let failure = match &r.failure {
            Some(f) => {
                let p = &f.value.probability;
                if !(p.value.is_finite() && (0.0..1.0).contains(&p.value)) {
                    return Err(self.err_at(
                        p,
                        format!("failure probability {} must be at least 0 and below 1, e.g. 0.1", p.value),
                    ));
                }
                let max_attempts = match &f.value.max_attempts {
                    Some(m) if m.value == 0 => {
                        return Err(self.err_at(m, "`max_attempts` must be at least 1 (1 means no retry)"))
                    }
                    Some(m) => m.value,
                    None => 3,
                };
                Some(FailureSpec { probability: p.value, max_attempts })
            }
            None => None,
        };
        Ok(EntrySpec { line, tenant, spread, class, arrivals, service, deadline, cost, failure })
    }

    fn build_arrivals(&self, r: &RawEntry, line: usize, col: usize) -> Result<ArrivalSpec> {
        let Some(a) = &r.arrivals else {
            let Some(count) = &r.count else {
                if let Some(at) = &r.at {
                    return Err(self.err_at(at, "`at` needs `count: N` (how many jobs arrive at that time)"));
                }
                return Err(self.err_line(
                    line,
                    col,
                    "workload entry has no arrivals; add `count: N` (a batch at time `at`, default 0) or `arrivals: {poisson: 2/s, stop: 10m}`",
                ));
            };
            if count.value == 0 {
                return Err(self.err_at(count, "`count` must be at least 1"));
            }
            let at = match &r.at {
                Some(t) => self.dur(t, "at")?,
                None => 0,
            };
            return Ok(ArrivalSpec::Batch { count: count.value, at });
        };
        if let Some(c) = &r.count {
            return Err(self.err_at(
                c,
                "`count` at the entry level is the batch shorthand and cannot be combined with `arrivals:`; move it inside `arrivals:`",
            ));
        }
        if let Some(t) = &r.at {
            return Err(self.err_at(
                t,
                "`at` at the entry level cannot be combined with `arrivals:`; move it inside `arrivals:`",
            ));
        }
        let m = &a.value;
        let kinds = [m.poisson.is_some(), m.every.is_some(), m.batch.is_some()];
        let n_kinds = kinds.iter().filter(|k| **k).count();
        if n_kinds != 1 {
            return Err(self.err_at(
                a,
                "`arrivals` needs exactly one of `poisson: RATE`, `every: DURATION` or `batch: COUNT`",
            ));
        }
        let start = match &m.start {
            Some(s) => self.dur(s, "start")?,
            None => 0,
        };
        if let Some(b) = &m.batch {
            if b.value == 0 {
                return Err(self.err_at(b, "`batch` must be at least 1 (the number of jobs)"));
            }
            for (key, bad) in [("stop", m.stop.as_ref().map(pos)), ("count", m.count.as_ref().map(pos))] {
                if let Some((l, c)) = bad {
                    return Err(self.err_line(
                        l,
                        c,
                        format!(
                            "`{key}` does not apply to `batch` arrivals (all jobs arrive at once); remove it"
                        ),
                    ));
                }
            }
            let at = match (&m.at, &m.start) {
                (Some(t), Some(_)) => {
                    return Err(self.err_at(t, "give either `at` or `start` for a batch, not both"))
                }
                (Some(t), None) => self.dur(t, "at")?,
                (None, _) => start,
            };
            return Ok(ArrivalSpec::Batch { count: b.value, at });
        }
        if let Some(t) = &m.at {
            return Err(
                self.err_at(t, "`at` applies to `batch` arrivals only; use `start` for poisson and every")
            );
        }
        let stop = match &m.stop {
            Some(s) => {
                let t = self.dur(s, "stop")?;
                if t <= start {
                    return Err(self.err_at(s, "`stop` must be later than `start`"));
                }
                Some(t)
            }
            None => None,
        };
        let count = match &m.count {
            Some(c) if c.value == 0 => return Err(self.err_at(c, "`count` must be at least 1")),
            Some(c) => Some(c.value),
            None => None,
        };
        if stop.is_none() && count.is_none() {
            return Err(self.err_at(
                a,
                "these arrivals would never end; add `stop: DURATION` (e.g. stop: 10m) or `count: N`",
            ));
        }
        if let Some(p) = &m.poisson {
            let rate = parse_rate(&p.value.0.text).map_err(|msg| {
                let hint = if msg.ends_with("greater than zero") {
                    "; write a positive rate such as 2/s, or remove the entry"
                } else {
                    ""
                };
                self.err_at(p, format!("`poisson`: {msg}{hint}"))
            })?;
            return Ok(ArrivalSpec::Poisson { rate, start, stop, count });
        }
        match &m.every {
            Some(e) => {
                let every = self.pos_dur(e, "every")?;
                Ok(ArrivalSpec::Every { every, start, stop, count })
            }
            None => Err(self.err_at(a, "`arrivals` needs one of poisson, every or batch")),
        }
    }

    fn build_service(&self, s: &Spanned<RawService>) -> Result<ServiceSpec> {
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
        ]
        .iter()
        .filter(|k| **k)
        .count();
        if n != 1 {
            return Err(self.err_at(
                s,
                "`service` needs exactly one of `constant: D`, `exponential: MEAN`, `uniform: {min, max}` or `lognormal: {median, p99}`",
            ));
        }
        if let Some(c) = &map.constant {
            return Ok(ServiceSpec::Constant(self.dur(c, "constant")?));
        }
        if let Some(e) = &map.exponential {
            return Ok(ServiceSpec::Exponential { mean: self.pos_dur(e, "exponential")? });
        }
        if let Some(u) = &map.uniform {
            let min = self.dur(&u.value.min, "min")?;
            let max = self.dur(&u.value.max, "max")?;
            if min > max {
                return Err(self.err_at(&u.value.max, "uniform `max` must be at least `min`; swap them"));
            }
            return Ok(ServiceSpec::Uniform { min, max });
        }
        let Some(l) = &map.lognormal else {
            return Err(self.err_at(s, "`service` needs a distribution"));
        };
        let v = &l.value;
        match (&v.median, &v.p99, &v.mu, &v.sigma) {
            (Some(med), Some(p99), None, None) => {
                let m = self.pos_dur(med, "median")?;
                let p = self.dur(p99, "p99")?;
                if p <= m {
                    return Err(self.err_at(p99, "lognormal `p99` must be greater than `median`"));
                }
                let (ms, ps) = (to_secs_f64(m), to_secs_f64(p));
                Ok(ServiceSpec::LogNormal { mu: ms.ln(), sigma: (ps.ln() - ms.ln()) / Z_P99 })
            }
            (None, None, Some(mu), Some(sigma)) => {
                if !mu.value.is_finite() {
                    return Err(self.err_at(mu, "lognormal `mu` must be a finite number (log-seconds)"));
                }
                if !(sigma.value.is_finite() && sigma.value >= 0.0) {
                    return Err(self.err_at(sigma, "lognormal `sigma` must be zero or positive (log-seconds)"));
                }
                Ok(ServiceSpec::LogNormal { mu: mu.value, sigma: sigma.value })
            }
            _ => Err(self.err_at(
                l,
                "`lognormal` needs either `{median: D, p99: D}` or `{mu: F, sigma: F}` (both keys of one pair, nothing else)",
            )),
        }
    }

    fn build_policies(&self, raw: Option<&Spanned<Vec<Spanned<RawPolicy>>>>) -> Result<Vec<PolicySpec>> {
        let Some(raw) = raw else {
            let spec = PolicySpec { kind: "fifo".into(), label: "fifo".into(), ..Default::default() };
            return Ok(vec![spec]);
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
                if let Some(l) = &m.label {
                    self.check_label(l)?;
                    if !used.insert(l.value.clone()) {
                        return Err(self.err_at(
                            l,
                            format!("label `{}` is used twice; give each policy a different label", l.value),
                        ));
                    }
                }
            }
        }
        let mut out = Vec::with_capacity(raw.value.len());
        for p in &raw.value {
            let mut spec = self.build_policy(p)?;
            let explicit = matches!(&p.value, RawPolicy::Map(m) if m.label.is_some());
            if !explicit {
                let mut label = spec.kind.clone();
                let mut k = 2;
                while used.contains(&label) {
                    label = format!("{}-{k}", spec.kind);
                    k += 1;
                }
                used.insert(label.clone());
                spec.label = label;
            }
            out.push(spec);
        }
        Ok(out)
    }

    fn check_label(&self, l: &Spanned<String>) -> Result<()> {
        let v = l.value.as_str();
        if v.is_empty() || v == "." || v == ".." || v.contains(['/', '\\']) {
            return Err(self.err_at(
                l,
                format!("label `{v}` cannot be used as a folder name; use letters, digits, - and _"),
            ));
        }
        Ok(())
    }

    /// Builds one policy entry (label = kind or the explicit label) and validates its parameters.
    fn build_policy(&self, p: &Spanned<RawPolicy>) -> Result<PolicySpec> {
        let (line, col) = pos(p);
        let mut spec = PolicySpec { line, ..Default::default() };
        match &p.value {
            RawPolicy::Kind(k) => {
                spec.kind = k.trim().to_string();
            }
            RawPolicy::Map(m) => {
                let Some(kind) = &m.policy else {
                    return Err(self.err_line(
                        line,
                        col,
                        "policy entry has no `policy:` key; add the policy name, e.g. `{policy: drr}`",
                    ));
                };
                spec.kind = kind.value.trim().to_string();
                if let Some(l) = &m.label {
                    spec.label = l.value.clone();
                }
                if let Some(s) = &m.spare {
                    spec.spare = match s.value.as_str() {
                        "lend" => Spare::Lend,
                        "hold" => Spare::Hold,
                        other => {
                            return Err(self.err_at(
                                s,
                                format!("`spare: {other}` is not valid; use `lend` (work-conserving) or `hold` (strict cap)"),
                            ))
                        }
                    };
                }
                let pp = &mut spec.params;
                if let Some(o) = &m.order {
                    match &o.value {
                        RawOrder::Tenants(names) => {
                            let mut ids = Vec::with_capacity(names.len());
                            for n in names {
                                match self.tenant_ids.get(&n.value) {
                                    Some(&id) => ids.push(id),
                                    None => {
                                        return Err(self.err_at(
                                            n,
                                            format!(
                                                "`order` names tenant `{}`, which is not in the scenario; use a tenant declared under `tenants:` or used in `workload:`",
                                                n.value
                                            ),
                                        ))
                                    }
                                }
                            }
                            pp.order = Some(ids);
                        }
                        RawOrder::Word(w) => pp.edf_order = Some(w.clone()),
                    }
                }
                pp.over = m.over.as_ref().map(|s| s.value.clone());
                pp.cost = m.cost.as_ref().map(|s| s.value.clone());
                pp.late = m.late.as_ref().map(|s| s.value.clone());
                if let Some(q) = &m.quantum {
                    let t = &q.value.0;
                    let v = if t.numeric {
                        t.text.parse::<f64>().ok()
                    } else {
                        parse_duration(&t.text).ok().map(to_secs_f64)
                    };
                    match v {
                        Some(v) if v.is_finite() && v > 0.0 => pp.quantum = Some(v),
                        _ => {
                            return Err(self.err_at(
                                q,
                                format!("`quantum: {}` must be a positive number (jobs, or seconds for cost: work) or a duration such as 2s", t.text),
                            ))
                        }
                    }
                }
                if let Some(s) = &m.step {
                    pp.step = Some(self.pos_dur(s, "step")?);
                }
                pp.max_boost = m.max_boost.as_ref().map(|s| s.value);
                if let Some(w) = &m.window {
                    pp.window = Some(self.pos_dur(w, "window")?);
                }
                if let Some(f) = &m.floor {
                    let mut floors = Vec::new();
                    for (cname, frac) in &f.value.0 {
                        let id = match self.classes.iter().position(|c| &c.name == cname) {
                            Some(i) => i as ClassId,
                            None => {
                                return Err(self.err_at(
                                    frac,
                                    format!(
                                        "`floor` names class `{cname}`, which is not declared; declared classes: {}",
                                        self.class_names()
                                    ),
                                ))
                            }
                        };
                        if !(frac.value.is_finite() && (0.0..=1.0).contains(&frac.value)) {
                            return Err(self.err_at(
                                frac,
                                format!(
                                    "floor fraction {} for class `{cname}` must be between 0 and 1, e.g. 0.2",
                                    frac.value
                                ),
                            ));
                        }
                        floors.push((id, frac.value));
                    }
                    pp.floors = Some(floors);
                }
                if let Some(c) = &m.class {
                    pp.class = Some(self.class_ref(c)?);
                }
                pp.workers = m.workers.as_ref().map(|w| w.value);
                if let Some(t) = &m.then {
                    let mut inner = self.build_policy(t)?;
                    if inner.label.is_empty() {
                        inner.label = inner.kind.clone();
                    }
                    pp.then = Some(Box::new(inner));
                }
            }
        }
        if spec.kind.is_empty() {
            return Err(self.err_line(
                line,
                col,
                "policy name is empty; write a policy such as fifo (see `fairsim policies`)",
            ));
        }
        crate::policy::validate_params(&spec)
            .map_err(|m| self.err_line(line, col, format!("policy `{}`: {m}", spec.kind)))?;
        Ok(spec)
    }
}

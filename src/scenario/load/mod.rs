//! Loading a scenario file: YAML -> [`RawScenario`] -> validated [`Scenario`].
//!
//! Every error is an [`Error::Input`] naming the file, the 1-based line and
//! column of the offending value (when known), what is wrong and what to do.

mod admission;
mod costs;
mod entries;
mod entry_tenants;
mod faults;
mod gate;
mod objectives;
mod policies;
mod prefetch;
mod presets;
mod profile;
mod service;
mod tenants;
mod topology;
mod traces;

use std::path::{Path, PathBuf};

use serde_saphyr::{MessageFormatter, Spanned, UserMessageFormatter};

use super::raw::*;
use crate::error::{Error, Result};
use crate::model::*;
use crate::time::{parse_duration, to_secs_f64, Time, SECOND};

pub use gate::{is_inline, select_policies};
pub use policies::RESERVED_LABELS;

/// Largest number of tenants a `tenants: {count: N}` spread may generate.
pub const MAX_SPREAD: u32 = 10_000_000;

/// Bounds of a tenant's or class's weight: a ratio of at most 10^6 keeps
/// the fixed-point and floating sums of the fairness windows well inside
/// their precision.
pub const MIN_WEIGHT: f64 = 0.001;
pub const MAX_WEIGHT: f64 = 1000.0;

/// Most jobs a scenario's generators may describe (expected count for
/// Poisson arrivals), and most arrivals in one batch: a batch is queued at
/// once, about 150 bytes per queued job (docs/performance.md).
pub const MAX_JOBS: u64 = 200_000_000;
pub const MAX_BATCH: u64 = 10_000_000;

/// Most attempts a job may get under failure injection.
pub const MAX_ATTEMPTS: u32 = 100;

/// Reads and validates a scenario file.
///
/// A missing or unreadable file is an input error at line 0.
pub fn load(path: &Path) -> Result<Scenario> {
    load_str(&read_text(path)?, path)
}

/// Validates scenario text; `path` is used for messages, the default name
/// (file stem) and [`Scenario::source`].
pub fn load_str(text: &str, path: &Path) -> Result<Scenario> {
    let mut sc = load_str_unscanned(text, path, false)?;
    crate::workload::trace::prepare(&mut sc)?;
    Ok(sc)
}

/// Reads and validates a scenario file without reading its traces (for
/// `--trace FILE`, which replaces them). Call
/// [`crate::workload::trace::prepare`] before simulating.
pub fn load_unscanned(path: &Path) -> Result<Scenario> {
    load_str_unscanned(&read_text(path)?, path, false)
}

/// Validates scenario text without reading its traces (`fairsim check`
/// reads an echoed scenario whose trace paths are relative to elsewhere).
pub fn load_unscanned_str(text: &str, path: &Path) -> Result<Scenario> {
    load_str_unscanned(text, path, false)
}

/// Like [`load_unscanned`], for a run whose workload is `--trace FILE`: the
/// file then needs no `workload:` of its own (one it has is replaced).
pub fn load_for_trace(path: &Path) -> Result<Scenario> {
    load_str_unscanned(&read_text(path)?, path, true)
}

/// [`load_for_trace`] of scenario text (`fairsim check --jobs` without a
/// scenario file describes the pool in a line of its own).
pub fn load_for_trace_str(text: &str, path: &Path) -> Result<Scenario> {
    load_str_unscanned(text, path, true)
}

/// The scenario file's text; a file that is not UTF-8 is an error at its
/// first bad byte.
fn read_text(path: &Path) -> Result<String> {
    let meta = std::fs::metadata(path).map_err(|e| {
        Error::input(
            path,
            0,
            0,
            format!("cannot read scenario file `{}`: {e}; check the path", path.display()),
        )
    })?;
    if !meta.is_file() {
        return Err(Error::input(path, 0, 0, "not a regular file; give the path of a YAML scenario file"));
    }
    if meta.len() > 64 << 20 {
        return Err(Error::input(
            path,
            0,
            0,
            "over 64 MB: not a scenario file (put large workloads in a trace)",
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| {
        Error::input(
            path,
            0,
            0,
            format!("cannot read scenario file `{}`: {e}; check its permissions", path.display()),
        )
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&good[start..]).chars().count() + 1;
        Error::input(path, line, column, "this byte is not UTF-8 text; save the scenario as UTF-8")
    })
}

/// Like [`load_unscanned`] (or [`load_for_trace`] when `trace_given`), also
/// building the inline policy entries given on the command line
/// (`--policy '{policy: wfq, cost: work}'`) against the scenario's tenants,
/// classes, topologies and admission sets. Their errors name the option.
pub fn load_with_inline_policies(
    path: &Path,
    trace_given: bool,
    inline: &[String],
) -> Result<(Scenario, Vec<PolicySpec>)> {
    let text = read_text(path)?;
    let mut specs = Vec::new();
    let sc = load_inner(&text, path, trace_given, |b, workload, capacity| {
        for entry in inline {
            specs.push(b.inline_policy(entry, workload, capacity)?);
        }
        Ok(())
    })?;
    gate::check_inline(&sc, inline, &specs)?;
    Ok((sc, specs))
}

fn load_str_unscanned(text: &str, path: &Path, trace_given: bool) -> Result<Scenario> {
    load_inner(text, path, trace_given, |_, _, _| Ok(()))
}

fn load_inner(
    text: &str,
    path: &Path,
    trace_given: bool,
    extra: impl FnOnce(&mut Builder, &[EntrySpec], bool) -> Result<()>,
) -> Result<Scenario> {
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
    let mut b = Builder::new(path);
    b.workload_optional = trace_given;
    let sc = b.build(raw, extra)?;
    gate::check_policies(&sc)?;
    gate::check_makespan(&sc)?;
    Ok(sc)
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
    if let Some(guess) = misspelt_key(&msg) {
        return Error::input(
            path,
            line,
            col,
            format!("{msg}; did you mean `{guess}`? (see docs/scenario.md)"),
        );
    }
    let hint = if msg.contains("unknown field") {
        "remove the key or fix its spelling (see docs/scenario.md)"
    } else if msg.contains("duplicate") {
        "each key may appear only once in a map; keep one of them"
    } else if msg.contains("missing field") {
        "add the missing key (see docs/scenario.md)"
    } else if msg.contains("invalid type") || msg.contains("invalid value") {
        "write the value in the form expected above (see docs/scenario.md)"
    } else if msg.contains("anchor or alias") {
        "a bare `*` (or `&`) starts a YAML alias; to mean \"each tenant\" or a name with it, quote it: \"*\""
    } else {
        "fix the YAML syntax here (check indentation, colons, quotes and brackets)"
    };
    Error::input(path, line, col, format!("{msg}; {hint}"))
}

/// For "unknown field `servce`, expected one of tenant, ..., service, ...":
/// the expected key one or two typos away, if there is one.
fn misspelt_key(msg: &str) -> Option<&str> {
    let rest = msg.strip_prefix("unknown field `")?;
    let (key, rest) = rest.split_once('`')?;
    let expected: Vec<&str> = rest.split_once("expected one of ")?.1.split(", ").map(str::trim).collect();
    crate::policy::closest(key, &expected)
}

/// Drops a trailing " at line X, column Y" if the formatter added one.
fn strip_location_suffix(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) if msg[i..].contains("column") => msg[..i].to_string(),
        _ => msg.to_string(),
    }
}

/// The `tenants: {count, prefix}` sets of the workload's entries.
fn spreads_of(workload: Option<&Spanned<Vec<Spanned<Box<RawEntry>>>>>) -> Vec<GeneratedSet> {
    let entries = workload.map(|w| w.value.as_slice()).unwrap_or_default();
    entries
        .iter()
        .filter_map(|e| e.value.tenants.as_ref())
        .map(|s| GeneratedSet {
            prefix: s.value.prefix.value.clone(),
            count: s.value.count.value,
            weight: 1.0,
            cap: None,
        })
        .collect()
}

fn pos<T>(s: &Spanned<T>) -> (usize, usize) {
    (s.referenced.line() as usize, s.referenced.column() as usize)
}

/// Collects the validated pieces while walking the raw model.
struct Builder<'a> {
    path: &'a Path,
    resources: Vec<(String, u64)>,
    tenants: Tenants,
    classes: Vec<ClassSpec>,
    topologies: Vec<TopologySpec>,
    /// Names of `admission_sets:`, for policy entries' `admission: NAME`.
    admission_sets: Vec<String>,
    /// `--trace FILE` gives the workload: `workload:` may be absent.
    workload_optional: bool,
    /// Where errors point instead of `path` (an inline `--policy` entry).
    errors_in: Option<PathBuf>,
    /// The generated sets the workload will declare, (prefix, count), so a
    /// name of one declared under `tenants:` is an override, not a clash.
    spreads: Vec<GeneratedSet>,
    /// Such overrides, applied when their set is generated.
    pending: Vec<tenants::Override>,
    /// The top-level `costs:`, every pool's default.
    costs: Costs,
    /// The topologies processor presets wrote.
    presets: Vec<PresetNote>,
    /// Whether a generator entry has no class (its jobs are in `default`).
    classless: bool,
}

impl<'a> Builder<'a> {
    fn new(path: &'a Path) -> Self {
        Builder {
            path,
            resources: Vec::new(),
            tenants: Tenants::default(),
            classes: Vec::new(),
            topologies: Vec::new(),
            admission_sets: Vec::new(),
            workload_optional: false,
            errors_in: None,
            spreads: Vec::new(),
            pending: Vec::new(),
            costs: Costs::default(),
            presets: Vec::new(),
            classless: false,
        }
    }

    /// The file (or option) errors name.
    fn error_path(&self) -> &Path {
        self.errors_in.as_deref().unwrap_or(self.path)
    }

    fn err_at<T>(&self, at: &Spanned<T>, msg: impl Into<String>) -> Error {
        let (l, c) = pos(at);
        Error::input(self.error_path(), l, c, msg)
    }

    fn err_line(&self, line: usize, col: usize, msg: impl Into<String>) -> Error {
        Error::input(self.error_path(), line, col, msg)
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

    fn build(
        mut self,
        raw: RawScenario,
        extra: impl FnOnce(&mut Self, &[EntrySpec], bool) -> Result<()>,
    ) -> Result<Scenario> {
        let name = self.name(raw.name.as_ref())?;
        let seed = raw.seed.as_ref().map(|s| s.value).unwrap_or(1);
        if let Some(res) = &raw.resources {
            self.resources = self.build_resources(res)?;
        }
        let workers = self.workers(raw.workers.as_ref())?;
        let (tick, window) = self.log(raw.log.as_ref())?;
        self.spreads = spreads_of(raw.workload.as_ref());
        if let Some(tenants) = &raw.tenants {
            for (tname, props) in &tenants.value.0 {
                self.declare_tenant(tname, props)?;
            }
        }
        self.build_classes(raw.classes.as_ref())?;
        let (workload, traces) = self.workload(raw.workload.as_ref())?;
        self.declare_unmatched_overrides();
        self.costs = self.build_costs(raw.costs.as_ref(), Costs::default())?;
        (self.topologies, self.presets) = self.build_topologies(raw.topologies.as_ref(), workers)?;
        let limiter = self.build_limiter(raw.limiter.as_ref(), 1)?;
        let start_limits = self.build_start_groups(raw.start_limits.as_ref())?;
        let admission = self.build_admission(raw.admission.as_ref(), workers)?;
        let admission_sets = self.build_admission_sets(raw.admission_sets.as_ref(), workers)?;
        self.admission_sets = admission_sets.iter().map(|s| s.name.clone()).collect();
        let policies = self.build_policies(raw.policies.as_ref())?;
        let capacity = self.build_capacity(raw.capacity.as_ref(), workers, &policies)?;
        let slowdowns = self.build_slowdowns(raw.slowdowns.as_ref())?;
        let retry = raw.retry.as_ref().map(|r| self.build_retry(r)).transpose()?;
        self.check_costs(raw.costs.as_ref(), self.costs, !capacity.is_empty(), &policies)?;
        for p in &policies {
            self.check_slice(p, &workload)?;
        }
        let objectives = self.build_objectives(raw.objectives.as_ref())?;
        extra(&mut self, &workload, !capacity.is_empty())?;
        Ok(Scenario {
            name,
            source: self.path.to_path_buf(),
            seed,
            workers,
            resources: self.resources,
            tick,
            window,
            tenants: self.tenants,
            classes: self.classes,
            workload,
            traces,
            policies,
            topologies: self.topologies,
            presets: self.presets,
            topology: None,
            admission,
            capacity,
            slowdowns,
            retry,
            admission_sets,
            objectives,
            costs: self.costs,
            limiter,
            start_limits,
            features: None,
        })
    }

    /// A policy entry's `slice` must not cut a job of mean size into more
    /// than a million slices: each slice is an event.
    fn check_slice(&self, p: &PolicySpec, workload: &[EntrySpec]) -> Result<()> {
        let Some(s) = p.slice else { return Ok(()) };
        if workload.iter().any(|e| e.slice.is_none() && e.service.mean_secs() > 1e6 * to_secs_f64(s.slice)) {
            return Err(self.err_line(
                p.line,
                p.column,
                format!("`slice` of `{}` cuts a job of mean size into more than a million slices; use a longer slice", p.label),
            ));
        }
        let starts: f64 = workload.iter().map(|e| e.expected_starts(Some(s))).sum();
        if starts > MAX_JOBS as f64 {
            return Err(self.err_line(
                p.line,
                p.column,
                format!("`slice` of `{}` makes about {starts:.3e} starts on a worker (each slice starts like a job); fairsim simulates at most {MAX_JOBS} per run, so use a longer slice", p.label),
            ));
        }
        Ok(())
    }

    /// `name:`, or the file's stem: the default results folder's name.
    fn name(&self, name: Option<&Spanned<String>>) -> Result<String> {
        let Some(n) = name else {
            return Ok(self
                .path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "scenario".to_string()));
        };
        let v = n.value.trim();
        if v.is_empty() || v == "." || v == ".." || v.contains(['/', '\\']) {
            return Err(self.err_at(
                n,
                format!("`name: {}` cannot be used as a folder name; use letters, digits, - and _", n.value),
            ));
        }
        Ok(v.to_string())
    }

    fn workers(&self, w: Option<&Spanned<u32>>) -> Result<u32> {
        match w {
            Some(w) if w.value == 0 => {
                Err(self.err_at(w, "`workers` must be at least 1 (the number of jobs that may run at once)"))
            }
            Some(w) => Ok(w.value),
            None if !self.resources.is_empty() => Ok(u32::MAX),
            None => Err(self.err_line(
                0,
                0,
                "missing `workers:`; add e.g. `workers: 4` (the number of jobs that may run at once), or declare `resources:`",
            )),
        }
    }

    /// `log: {tick, window}`: the observation log's tick (default 1s) and the
    /// fairness window (default: the tick).
    fn log(&self, log: Option<&Spanned<RawLog>>) -> Result<(Time, Time)> {
        let log = log.map(|l| &l.value);
        let tick = match log.and_then(|l| l.tick.as_ref()) {
            Some(t) => self.pos_dur(t, "log.tick")?,
            None => SECOND,
        };
        let window = match log.and_then(|l| l.window.as_ref()) {
            Some(w) => self.pos_dur(w, "log.window")?,
            None => tick,
        };
        Ok((tick, window))
    }

    /// The generator entries and the trace entries of `workload:`.
    fn workload(
        &mut self,
        raw: Option<&Spanned<Vec<Spanned<Box<RawEntry>>>>>,
    ) -> Result<(Vec<EntrySpec>, Vec<TraceSpec>)> {
        let Some(w) = raw else {
            if self.workload_optional {
                return Ok((Vec::new(), Vec::new()));
            }
            return Err(self.err_line(
                0,
                0,
                "missing `workload:`; add a list of generators, e.g. `workload: [{tenant: A, count: 10, service: 1s}]`, or give the workload as `fairsim run FILE --trace TRACE`",
            ));
        };
        if w.value.is_empty() {
            return Err(self.err_at(
                w,
                "`workload` is empty; add at least one entry, e.g. `- {tenant: A, count: 10, service: 1s}`",
            ));
        }
        let (mut entries, mut traces) = (Vec::with_capacity(w.value.len()), Vec::new());
        let mut jobs = 0.0;
        for e in &w.value {
            match &e.value.trace {
                Some(t) => traces.push(self.build_trace(e, t)?),
                None => {
                    let entry = self.build_entry(e)?;
                    if entry.slice.is_some() && entries.len() >= u16::MAX as usize - 1 {
                        return Err(self.err_at(e, "`slice` is supported on the first 65,534 generator entries only; move this entry up"));
                    }
                    if entry.declared.is_some() && entries.len() >= u16::MAX as usize - 1 {
                        return Err(self.err_at(e, "`declared` is supported on the first 65,534 generator entries only; move this entry up"));
                    }
                    jobs += entry.arrivals.expected_count();
                    self.classless |= entry.class == 0;
                    entries.push(entry);
                }
            }
        }
        if jobs > MAX_JOBS as f64 {
            return Err(self.err_at(
                w,
                format!("the workload describes about {jobs:.3e} jobs; fairsim simulates at most {MAX_JOBS} per run, so lower counts, rates or stop times"),
            ));
        }
        // a slice starts like a job (an event, a dispatch row): slices count
        // in the same limit, or a tiny slice makes the run endless
        let starts: f64 = entries.iter().map(|e| e.expected_starts(None)).sum();
        if starts > MAX_JOBS as f64 {
            return Err(self.err_at(
                w,
                format!("the workload's slices make about {starts:.3e} starts on a worker (each slice starts like a job); fairsim simulates at most {MAX_JOBS} per run, so use longer slices or fewer jobs"),
            ));
        }
        Ok((entries, traces))
    }
}

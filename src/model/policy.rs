//! Policy entries: which policy, its output label, and its parameters.
//!
//! Each policy declares its parameters as a schema of [`Param`]s (name,
//! [`ParamKind`], [`ParamDefault`], meaning) in its own file; the loader
//! parses a scenario's policy entry against that schema into typed
//! [`Value`]s, and the policy's builder reads them back with
//! [`Params::get`] (the value set, else the schema's default) or
//! [`Params::opt`] (the value set, if any).

use super::{ClassId, TenantId};
use crate::time::Time;

/// What a policy does with spare capacity when its caps bind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Spare {
    /// Work-conserving: a tenant may exceed its cap only while no other tenant
    /// has claimable work.
    #[default]
    Lend,
    /// Strict: a cap is never exceeded, even if workers idle.
    Hold,
}

/// A policy entry: its kind, its output label, and its parameters.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolicySpec {
    /// Registered policy name (`fifo`, `round_robin`, ...).
    pub kind: String,
    /// Output folder name; defaults to the kind, made unique with `-2`, `-3`.
    pub label: String,
    /// 1-based line and column of the entry in the scenario file (0 when
    /// given on the command line).
    pub line: usize,
    pub column: usize,
    pub spare: Spare,
    pub params: Params,
    /// Index in [`super::Scenario::topologies`] of the queues and pools this
    /// run uses; `None` for one queue served by all `workers`.
    pub topology: Option<usize>,
    /// Interruptible iteration for this run (`slice`, `resume_overhead` on
    /// the entry): every job longer than the slice yields after each slice,
    /// unless its workload entry sets its own.
    pub slice: Option<super::Slicing>,
    /// `on_cap: {delay}`: a job refused because its tenant is at its cap is
    /// not claimable again for this long (the priority-classes article's
    /// SQL), instead of the moment a running job of its tenant ends.
    pub cap_delay: Option<Time>,
    /// `on_cap: {delay, refuse: each}`: every claim of a job whose tenant
    /// is at its cap is refused and delays that job (a SQL worker's loop,
    /// which refuses each capped row in turn until it finds one it may
    /// run); `false` (`refuse: first`): one refusal per stretch at the cap.
    pub cap_refuse_each: bool,
    /// The admission rules of this run (`admission:` on the entry): the
    /// scenario's, none, or a named set.
    pub admission: super::AdmissionChoice,
    /// This run's own tenant weights and caps (`tenants:` on the entry),
    /// applied by [`super::Scenario::for_run`]; empty: the scenario's.
    pub tenants: Vec<super::TenantChange>,
}

impl PolicySpec {
    /// A policy with default parameters, labelled by its kind.
    pub fn named(kind: &str) -> Self {
        PolicySpec { kind: kind.to_string(), label: kind.to_string(), ..Default::default() }
    }
}

/// One parameter a policy accepts.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub kind: ParamKind,
    pub default: ParamDefault,
    /// What it means, in one line (for `fairsim policies` and the docs).
    pub doc: &'static str,
}

/// The type of a parameter's value, and what the loader accepts for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    /// A duration greater than zero: `500ms`, `10s`, `1m`.
    Duration,
    /// A number greater than zero, or a duration (read in seconds).
    Amount,
    /// A whole number, at least `min`.
    Count { min: u32 },
    /// One of these words.
    Word(&'static [&'static str]),
    /// A list of distinct tenant names.
    Tenants,
    /// The name of a declared class.
    Class,
    /// A map from declared class names to fractions between 0 and 1.
    ClassFractions,
    /// A policy: a name, or a map such as `{policy: drr, cost: work}`.
    Policy,
}

impl ParamKind {
    /// How a value is written, for messages and docs.
    pub fn describe(&self) -> String {
        match self {
            ParamKind::Duration => "a duration such as 30s or 1m".into(),
            ParamKind::Amount => "a positive number, or a duration such as 2s".into(),
            ParamKind::Count { min } => format!("a whole number of at least {min}"),
            ParamKind::Word(words) => format!("one of {}", words.join(", ")),
            ParamKind::Tenants => "a list of tenant names, each once, e.g. [A, B, C]".into(),
            ParamKind::Class => "a declared class name".into(),
            ParamKind::ClassFractions => "a map of class: fraction, e.g. {bulk: 0.1}".into(),
            ParamKind::Policy => "a policy, e.g. round_robin or {policy: drr, cost: work}".into(),
        }
    }
}

/// What a parameter is when the entry does not set it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamDefault {
    Duration(Time),
    Count(u32),
    Word(&'static str),
    /// Worked out by the builder from the scenario; the text says how.
    Derived(&'static str),
    /// The entry must set it.
    Required,
}

impl ParamDefault {
    /// The default as the docs show it.
    pub fn describe(&self) -> String {
        match self {
            ParamDefault::Duration(t) => crate::time::fmt_duration(*t),
            ParamDefault::Count(n) => n.to_string(),
            ParamDefault::Word(w) => w.to_string(),
            ParamDefault::Derived(s) => s.to_string(),
            ParamDefault::Required => "required".into(),
        }
    }
}

/// A parameter value, typed by its [`ParamKind`].
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Duration(Time),
    Number(f64),
    Count(u32),
    /// The word as the kind lists it.
    Word(&'static str),
    Tenants(Vec<TenantId>),
    Class(ClassId),
    ClassFractions(Vec<(ClassId, f64)>),
    Policy(Box<PolicySpec>),
}

/// The parameters an entry sets, with where each was written.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Params {
    set: Vec<SetParam>,
}

#[derive(Debug, Clone, PartialEq)]
struct SetParam {
    name: &'static str,
    value: Value,
    line: usize,
    column: usize,
}

/// A problem with a policy's parameters found while building the policy;
/// `param` names the parameter it concerns, so the message can point at it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamError {
    pub param: Option<&'static str>,
    pub message: String,
}

impl ParamError {
    pub fn at(param: &Param, message: impl Into<String>) -> Self {
        ParamError { param: Some(param.name), message: message.into() }
    }
}

impl From<String> for ParamError {
    fn from(message: String) -> Self {
        ParamError { param: None, message }
    }
}

impl From<&str> for ParamError {
    fn from(message: &str) -> Self {
        ParamError { param: None, message: message.to_string() }
    }
}

/// Values a parameter of some kind reads as (see [`Params::get`]).
pub trait FromValue<'a>: Sized {
    fn from_value(v: &'a Value) -> Option<Self>;
    fn from_default(_d: &ParamDefault) -> Option<Self> {
        None
    }
}

impl FromValue<'_> for Time {
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Duration(t) => Some(*t),
            _ => None,
        }
    }
    fn from_default(d: &ParamDefault) -> Option<Self> {
        match d {
            ParamDefault::Duration(t) => Some(*t),
            _ => None,
        }
    }
}

impl FromValue<'_> for f64 {
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Number(x) => Some(*x),
            _ => None,
        }
    }
}

impl FromValue<'_> for u32 {
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Count(n) => Some(*n),
            _ => None,
        }
    }
    fn from_default(d: &ParamDefault) -> Option<Self> {
        match d {
            ParamDefault::Count(n) => Some(*n),
            _ => None,
        }
    }
}

impl FromValue<'_> for &'static str {
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Word(w) => Some(w),
            _ => None,
        }
    }
    fn from_default(d: &ParamDefault) -> Option<Self> {
        match d {
            ParamDefault::Word(w) => Some(w),
            _ => None,
        }
    }
}

impl<'a> FromValue<'a> for &'a [TenantId] {
    fn from_value(v: &'a Value) -> Option<Self> {
        match v {
            Value::Tenants(t) => Some(t),
            _ => None,
        }
    }
}

impl FromValue<'_> for ClassId {
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Class(c) => Some(*c),
            _ => None,
        }
    }
}

impl<'a> FromValue<'a> for &'a [(ClassId, f64)] {
    fn from_value(v: &'a Value) -> Option<Self> {
        match v {
            Value::ClassFractions(f) => Some(f),
            _ => None,
        }
    }
}

impl<'a> FromValue<'a> for &'a PolicySpec {
    fn from_value(v: &'a Value) -> Option<Self> {
        match v {
            Value::Policy(p) => Some(p),
            _ => None,
        }
    }
}

impl Params {
    /// Records a parameter the entry sets (the loader has checked its kind).
    pub fn set(&mut self, name: &'static str, value: Value, line: usize, column: usize) {
        self.set.retain(|p| p.name != name);
        self.set.push(SetParam { name, value, line, column });
    }

    /// The value the entry sets for `param`, if any.
    pub fn opt<'a, T: FromValue<'a>>(&'a self, param: &Param) -> Option<T> {
        self.set.iter().find(|p| p.name == param.name).and_then(|p| T::from_value(&p.value))
    }

    /// The value the entry sets for `param`, else the schema's default; an
    /// error for a required parameter the entry leaves out.
    pub fn get<'a, T: FromValue<'a>>(&'a self, param: &Param) -> Result<T, ParamError> {
        self.opt(param).or_else(|| T::from_default(&param.default)).ok_or_else(|| {
            ParamError::at(
                param,
                format!("`{}` is required: {} ({})", param.name, param.doc, param.kind.describe()),
            )
        })
    }

    /// The value the entry sets for the parameter called `name`, if any.
    pub fn value(&self, name: &str) -> Option<&Value> {
        self.set.iter().find(|p| p.name == name).map(|p| &p.value)
    }

    /// Where the entry sets `name`: (line, column), if it does.
    pub fn place(&self, name: &str) -> Option<(usize, usize)> {
        self.set.iter().find(|p| p.name == name).map(|p| (p.line, p.column))
    }

    /// Names of the parameters set, in the order they were written.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.set.iter().map(|p| p.name)
    }
}

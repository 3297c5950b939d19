//! The validated, typed scenario: every name resolved to an index, every
//! duration in microseconds. Nothing downstream of the loader sees YAML.

use std::path::PathBuf;

use crate::time::Time;

/// Index of a tenant in [`Scenario::tenants`] (declaration order).
pub type TenantId = u32;
/// Index of a class in [`Scenario::classes`]; class 0 is always `default`.
pub type ClassId = u16;

/// Maximum number of resource dimensions a pool may declare (besides workers).
pub const MAX_RESOURCES: usize = 4;
/// A resource vector: one amount per dimension in [`Scenario::resources`];
/// unused dimensions are 0.
pub type Res = [u64; MAX_RESOURCES];

/// A whole scenario, ready to simulate.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Output folder name (`output/<name>/`).
    pub name: String,
    /// The file it was loaded from (for messages and the report).
    pub source: PathBuf,
    /// Root seed; each workload entry derives its own stream from (seed, entry index).
    pub seed: u64,
    /// Number of workers: the maximum number of jobs running at once.
    /// `u32::MAX` when the scenario declares only resource `capacity`.
    pub workers: u32,
    /// Named resource dimensions and their capacity (e.g. cpu 9, mem 18); empty by default.
    pub resources: Vec<(String, u64)>,
    /// Observation-log granularity.
    pub tick: Time,
    /// Tenants in declaration order; tenants referenced only by the workload are
    /// appended in order of first reference (weight 1, no cap).
    pub tenants: Vec<TenantSpec>,
    /// Classes; index 0 is `default` (priority 5, weight 1) unless the scenario
    /// declares `default` itself.
    pub classes: Vec<ClassSpec>,
    /// Workload entries in file order.
    pub workload: Vec<EntrySpec>,
    /// Trace-replay entries (`- trace: {...}` in `workload`, or `--trace FILE`),
    /// in file order. Merged with the generators; at one instant generator
    /// arrivals come first, then traces in this order.
    pub traces: Vec<TraceSpec>,
    /// Policies in file order (labels unique).
    pub policies: Vec<PolicySpec>,
}

/// One tenant.
#[derive(Debug, Clone, PartialEq)]
pub struct TenantSpec {
    pub name: String,
    /// Relative share for weighted policies (> 0).
    pub weight: f64,
    /// Maximum jobs running at once, enforced by the engine at claim time.
    pub cap: Option<u32>,
}

/// One job class.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassSpec {
    pub name: String,
    /// Lower number runs first (1 before 5), as in Solid Queue.
    pub priority: i32,
    /// Relative share for class-level weighted policies (> 0).
    pub weight: f64,
    /// Wait beyond which a job counts as a starvation event (optional).
    pub sla: Option<Time>,
}

/// One workload generator entry.
#[derive(Debug, Clone, PartialEq)]
pub struct EntrySpec {
    /// 1-based line of the entry in the scenario file (for messages).
    pub line: usize,
    /// The tenant of every job, or the first of `spread` consecutive tenants.
    pub tenant: TenantId,
    /// Number of consecutive tenants (from `tenant`) the arrivals are spread
    /// over, uniformly at random; 1 for an ordinary entry.
    pub spread: u32,
    pub class: ClassId,
    pub arrivals: ArrivalSpec,
    pub service: ServiceSpec,
    /// Relative deadline: a job arriving at `a` is due at `a + deadline`.
    pub deadline: Option<Time>,
    /// Resource vector each job of this entry holds while running.
    pub cost: Res,
    /// Failure injection: each attempt fails with this probability; a job is
    /// tried at most `max_attempts` times in all.
    pub failure: Option<FailureSpec>,
}

/// Failure injection for one entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FailureSpec {
    pub probability: f64,
    pub max_attempts: u32,
}

/// When the jobs of an entry arrive.
#[derive(Debug, Clone, PartialEq)]
pub enum ArrivalSpec {
    /// `count` jobs all at time `at`.
    Batch { count: u64, at: Time },
    /// Poisson process of `rate` per second from `start`, until `stop` and/or `count` jobs.
    Poisson { rate: f64, start: Time, stop: Option<Time>, count: Option<u64> },
    /// One job every `every`, starting at `start`, until `stop` and/or `count` jobs.
    Every { every: Time, start: Time, stop: Option<Time>, count: Option<u64> },
}

/// How long each job runs.
#[derive(Debug, Clone, PartialEq)]
pub enum ServiceSpec {
    Constant(Time),
    /// Exponential with this mean.
    Exponential {
        mean: Time,
    },
    /// Uniform on [min, max].
    Uniform {
        min: Time,
        max: Time,
    },
    /// Lognormal with ln(service in seconds) ~ Normal(mu, sigma).
    LogNormal {
        mu: f64,
        sigma: f64,
    },
}

/// A trace to replay: where it is, how to read it, and what a first pass
/// over it found (see `crate::workload::trace`).
#[derive(Debug, Clone, PartialEq)]
pub struct TraceSpec {
    /// 1-based line of the entry in the scenario file (0 for `--trace`).
    pub line: usize,
    pub path: PathBuf,
    pub format: TraceFormat,
    /// How timestamps (arrival, start, finish, deadline) are written.
    pub time_format: TimeFormat,
    /// Keep absolute times instead of shifting the first arrival to 0.
    pub keep_time: bool,
    /// Skip and count broken rows instead of failing (`on_error: skip`).
    pub skip_bad_rows: bool,
    /// Filled by the first pass (`trace::prepare`).
    pub scan: TraceScan,
}

/// Trace file format.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceFormat {
    Csv(Box<CsvColumns>),
    /// Standard Workload Format; `slots` is the resource dimension that
    /// receives each job's processor count (`None`: one worker per job).
    Swf {
        slots: Option<usize>,
    },
}

/// Column names of a CSV trace (header names).
#[derive(Debug, Clone, PartialEq)]
pub struct CsvColumns {
    pub arrival: String,
    pub tenant: String,
    pub class: Option<String>,
    /// Service as a duration column, in units of `service_unit` microseconds.
    pub service: Option<String>,
    pub service_unit: Time,
    /// Service as `finished - started` (used when `service` is not given).
    pub started: Option<String>,
    pub finished: Option<String>,
    pub priority: Option<String>,
    /// Absolute deadline (a timestamp, same format as arrival).
    pub deadline: Option<String>,
    /// Resource dimension index -> column holding the amount.
    pub cost: Vec<(usize, String)>,
}

/// How trace timestamps are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeFormat {
    /// RFC 3339 when the value looks like a date (`2026-11-28...`), else epoch seconds.
    Auto,
    Rfc3339,
    EpochSeconds,
    EpochMillis,
    EpochMicros,
}

/// What the first pass over a trace found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TraceScan {
    /// Raw time (microseconds) of the first arrival; subtracted from every
    /// time unless `keep_time`.
    pub origin: i64,
    /// Rows replayed.
    pub rows: u64,
    /// Broken rows skipped (`on_error: skip`).
    pub bad_rows: u64,
    /// SWF rows skipped because run time or processor count is missing (-1 or 0).
    pub missing_rows: u64,
}

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
    /// 1-based line in the scenario file (0 when given on the command line).
    pub line: usize,
    pub spare: Spare,
    pub params: PolicyParams,
}

/// Every policy parameter the format knows. Each policy accepts a subset (see
/// `fairsim policies`); the loader rejects the others for that policy.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolicyParams {
    /// round_robin: rotation order (tenant indices); default declaration order.
    pub order: Option<Vec<TenantId>>,
    /// drr, wfq, lottery, share: schedule over tenants or classes.
    pub over: Option<String>,
    /// drr, wfq: `jobs` or `work`.
    pub cost: Option<String>,
    /// drr: quantum, in the cost unit: jobs for cost=jobs, seconds for cost=work.
    pub quantum: Option<f64>,
    /// aging: wait per priority level of boost.
    pub step: Option<Time>,
    /// aging: maximum boost in levels.
    pub max_boost: Option<i32>,
    /// bands, share: measurement window.
    pub window: Option<Time>,
    /// bands: per-class floor fraction, by class index.
    pub floors: Option<Vec<(ClassId, f64)>>,
    /// reserve: the class that owns the reserve.
    pub class: Option<ClassId>,
    /// reserve: how many workers are reserved.
    pub workers: Option<u32>,
    /// edf: `deadline` or `slack`.
    pub edf_order: Option<String>,
    /// edf: `run` or `drop`.
    pub late: Option<String>,
    /// hierarchical composition: the tenant-level policy within a class.
    pub then: Option<Box<PolicySpec>>,
}

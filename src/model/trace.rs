//! Trace-replay entries: a file of recorded jobs and how to read it.

use std::path::PathBuf;

use crate::time::Time;

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
    /// A processor's event log (one JSON object per line, several per
    /// job), joined into one row per job (`crate::workload::trace::events`).
    Events(Box<EventLog>),
}

/// Which event log, and the fields that name a job's tenant and class.
#[derive(Debug, Clone, PartialEq)]
pub struct EventLog {
    pub kind: EventKind,
    /// The field holding the tenant (for Celery also a key of `kwargs`).
    pub tenant: String,
    /// The field holding the class (the job's queue).
    pub class: String,
}

/// The event logs fairsim reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// Celery's task events (`task-sent`, `task-received`, `task-started`,
    /// `task-succeeded`, `task-failed`), as a receiver dumps them as JSON.
    Celery,
    /// Sidekiq's JSON log (`Sidekiq::Logger::Formatters::JSON`): a job's
    /// `start` and `done` (or `fail`) lines, its attributes under `ctx`.
    SidekiqLog,
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
    /// The job's own id in the source system, shown in `jobs.csv` as `trace_id`.
    pub id: Option<String>,
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
    /// Arrival of the last row replayed, after the shift to the origin.
    pub last_arrival: Time,
    /// Service of the rows replayed, summed (microseconds).
    pub work: u128,
    /// The rows replayed, parsed, in a binary file that each policy run
    /// streams back instead of parsing the text again (`None`: the file
    /// could not be written, and runs read the text).
    pub spill: Option<std::sync::Arc<Spill>>,
}

/// A temporary file of parsed trace rows, removed when the last scenario
/// holding it is dropped.
#[derive(Debug)]
pub struct Spill {
    pub path: PathBuf,
}

impl Drop for Spill {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A spill is a cache of what the trace file says: two scans of the same
/// trace are equal whatever their spill files are called.
impl PartialEq for Spill {
    fn eq(&self, _: &Spill) -> bool {
        true
    }
}

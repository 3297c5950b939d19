//! Trace replay: CSV job-table exports and SWF logs as a stream of arrivals.
//!
//! # Two passes, both streaming
//! Tenants and classes met in a trace are not known before it is read, and
//! the engine sizes its per-tenant state from [`Scenario::tenants`]. Rather
//! than make every per-tenant vector grow on demand, [`prepare`] (called by
//! the scenario loader) makes one cheap first pass: it parses and checks
//! every row, declares the tenants and classes it meets (in order of first
//! appearance, weight 1, no cap, unless the scenario declares them), and
//! records the first arrival and the row counts in [`TraceScan`]. Memory is
//! O(distinct names). So a broken row is reported before anything runs or
//! any output folder is touched.
//!
//! The first pass also writes the rows it accepted, parsed and resolved to
//! ids, to a binary spill file in the temporary folder ([`spill`], removed
//! with the last scenario holding it); each policy run streams that back
//! through [`TraceSource`], so the text is parsed once however many
//! policies run. Without a spill (no writable temporary folder) a run
//! re-opens the trace and parses it again, names resolved through a map
//! built from the scenario. Either way one row is in memory at a time:
//! memory never grows with the trace length.
//!
//! # Rows
//! Rows must be in non-decreasing arrival order (export with
//! `ORDER BY created_at`); a row earlier than the one before it is a broken
//! row. A broken row is an input error naming the file, the line and the
//! column (the 1-based field position), unless the entry says
//! `on_error: skip` (or `--skip-bad-rows`), in which case it is skipped and
//! counted. Arrivals are shifted so the first one is at 0 unless `keep_time`.

pub mod csv;
pub mod events;
mod ids;
mod names;
pub mod recorded;
pub mod rfc3339;
mod spill;
mod split;
pub mod swf;
pub mod tables;

pub use ids::TraceIds;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::{
    ClassId, ClassSpec, Res, Scenario, TenantId, TenantSpec, Tenants, TimeFormat, TraceFormat, TraceScan,
    TraceSpec, MAX_RESOURCES,
};
use crate::time::{Time, HORIZON, HORIZON_TEXT};

use crate::core::Arrival;
use names::KnownNames;
use spill::{SpillReader, SpillWriter};

/// One parsed row, before shifting and name resolution. Reused between rows.
#[derive(Debug, Clone, Default)]
pub struct Row {
    /// 1-based line in the trace file.
    pub line: u64,
    /// Arrival, microseconds in the trace's own clock (epoch or log start).
    pub time: i64,
    pub tenant: String,
    /// Class name; empty for the `default` class.
    pub class: String,
    /// Priority of an auto-declared class (lower runs first).
    pub priority: Option<i32>,
    pub service: Time,
    /// Absolute deadline in the trace's clock.
    pub deadline: Option<i64>,
    pub cost: Res,
    /// Column (1-based field) of the arrival and of each cost dimension, for messages.
    pub arrival_col: usize,
    pub cost_cols: [usize; MAX_RESOURCES],
    /// The job's own id in the trace (SWF field 1, the CSV `id` column); empty when none.
    pub id: String,
    /// When production started it, in the trace's clock (`None`: never
    /// started). Read only by readers made with `recording` on (calibrate).
    pub started: Option<i64>,
}

/// A row-level problem: where, and what.
#[derive(Debug, Clone, PartialEq)]
pub struct RowError {
    pub line: u64,
    pub column: usize,
    pub message: String,
}

/// What a reader produced.
pub enum Read {
    /// `row` holds the next row.
    Row,
    /// A row with missing data that the format says to skip (SWF run time -1).
    Missing,
    /// A broken row.
    Bad(RowError),
}

/// A format's row reader.
pub trait RowReader {
    /// Reads the next row into `row`; `Ok(None)` at the end of the file.
    fn next_row(&mut self, row: &mut Row) -> Result<Option<Read>>;
}

/// Opens the row reader for `spec`.
fn open_rows(spec: &TraceSpec, sc: &Scenario) -> Result<Box<dyn RowReader>> {
    open_rows_of(spec, &sc.source, sc.resources.len())
}

/// Opens the row reader for `spec` of the scenario file `source`, which
/// declares `resources` resources.
fn open_rows_of(spec: &TraceSpec, source: &Path, resources: usize) -> Result<Box<dyn RowReader>> {
    // the error points at the trace entry of the scenario, or at --trace
    let place = |msg: String| match spec.line {
        0 => Error::Usage(format!("--trace {}: {msg}", spec.path.display())),
        line => Error::input(source, line, 0, format!("trace `{}`: {msg}", spec.path.display())),
    };
    let meta = std::fs::metadata(&spec.path)
        .map_err(|e| place(format!("cannot read it: {e}; check the path (relative to the scenario file)")))?;
    if !meta.is_file() {
        // a directory, a device such as /dev/zero or a pipe: not a trace file,
        // and a device may never end
        return Err(place("not a regular file; give the path of a CSV or SWF file".into()));
    }
    let file = std::fs::File::open(&spec.path)
        .map_err(|e| place(format!("cannot read it: {e}; check the path and its permissions")))?;
    Ok(match &spec.format {
        TraceFormat::Csv(cols) => {
            // a header that lacks a mapped column is fixed in the scenario's
            // `columns:`, so the error points there; the CSV reader buffers
            // the file itself
            let rows = csv::CsvRows::new(&spec.path, file, cols, spec.time_format, resources).map_err(
                |e| match e {
                    Error::Input { line: 1, message, .. } => place(format!("its header (line 1): {message}")),
                    other => other,
                },
            )?;
            Box::new(rows)
        }
        TraceFormat::Swf { slots } => {
            let reader = std::io::BufReader::with_capacity(1 << 16, file);
            Box::new(swf::SwfRows::new(&spec.path, reader, *slots))
        }
        TraceFormat::Events(log) => {
            let reader = std::io::BufReader::with_capacity(1 << 16, file);
            Box::new(events::EventRows::new(&spec.path, reader, log)?)
        }
    })
}

/// The service of every row of `spec` (a trace of the scenario file
/// `source`), in file order, for an empirical service law: rows the format
/// marks missing are left out, broken rows are an error unless the trace
/// says `on_error: skip`. At most `limit` rows; one past it is an error.
pub fn recorded_services(
    spec: &TraceSpec,
    source: &Path,
    resources: usize,
    limit: usize,
) -> Result<Vec<Time>> {
    let mut rows = open_rows_of(spec, source, resources)?;
    let mut row = Row::default();
    let mut out = Vec::new();
    while let Some(r) = rows.next_row(&mut row)? {
        match r {
            Read::Missing => continue,
            Read::Bad(_) if spec.skip_bad_rows => continue,
            Read::Bad(e) => return Err(row_error(&spec.path, e)),
            Read::Row => {}
        }
        if row.service > HORIZON {
            let e = RowError {
                line: row.line,
                column: 0,
                message: format!("this job's service is past {HORIZON_TEXT}; check the service column's unit (`service_unit`)"),
            };
            if spec.skip_bad_rows {
                continue;
            }
            return Err(row_error(&spec.path, e));
        }
        if out.len() == limit {
            return Err(Error::input(
                &spec.path,
                row.line as usize,
                0,
                format!("more than {limit} recorded service times (8 bytes each, held for the whole run); summarise them as `histogram: {{edges, counts}}`, or sample the trace"),
            ));
        }
        out.push(row.service);
    }
    Ok(out)
}

/// Checks a parsed row against the previous one and the scenario; returns
/// its arrival and deadline in simulation time.
pub(crate) fn check_row(
    row: &Row,
    last: Option<(i64, u64)>,
    origin: i64,
    keep_time: bool,
    capacity: &Res,
) -> Result<(Time, Option<Time>), RowError> {
    let bad = |column: usize, message: String| RowError { line: row.line, column, message };
    if let Some((t, line)) = last {
        if row.time < t {
            return Err(bad(
                row.arrival_col,
                format!(
                    "this arrival is earlier than the one on line {line}; a trace must be in arrival order (export with ORDER BY the arrival column)"
                ),
            ));
        }
    }
    for (d, &amount) in row.cost.iter().enumerate() {
        if amount > capacity[d] {
            return Err(bad(
                row.cost_cols[d],
                format!(
                    "this job needs {amount} of resource {} but the capacity is {}, so it could never run; raise the capacity in `resources:`",
                    d + 1,
                    capacity[d]
                ),
            ));
        }
    }
    let base = if keep_time { 0 } else { origin };
    let arrival = row.time - base;
    if arrival < 0 {
        return Err(bad(
            row.arrival_col,
            "this arrival is before 1970-01-01 (time 0); drop `keep_time: true` to shift the trace to start at 0".into(),
        ));
    }
    if arrival as u64 > HORIZON {
        return Err(bad(
            row.arrival_col,
            format!("this arrival is {arrival} us after the trace's start, past {HORIZON_TEXT}; check the time format (`time_format`) or drop `keep_time`"),
        ));
    }
    if row.service > HORIZON {
        return Err(bad(
            0,
            format!(
                "this job's service is past {HORIZON_TEXT}; check the service column's unit (`service_unit`)"
            ),
        ));
    }
    let deadline = row.deadline.map(|d| (d - base).clamp(0, HORIZON as i64) as Time);
    Ok((arrival as Time, deadline))
}

pub(crate) fn capacity(sc: &Scenario) -> Res {
    let mut cap = [u64::MAX; MAX_RESOURCES];
    for (i, (_, c)) in sc.resources.iter().enumerate() {
        cap[i] = *c;
    }
    cap
}

pub(crate) fn row_error(path: &Path, e: RowError) -> Error {
    Error::input(
        path,
        e.line as usize,
        e.column,
        format!(
            "{}; or skip broken rows with `on_error: skip` in the trace entry (--skip-bad-rows)",
            e.message
        ),
    )
}

/// The arrival of a checked row.
fn replayed(row: &Row, time: Time, deadline: Option<Time>, tenant: TenantId, class: ClassId) -> Arrival {
    Arrival {
        time,
        tenant,
        class,
        service: row.service,
        deadline,
        cost: row.cost,
        failures: 0,
        max_attempts: 1,
        slicing: 0,
        declared_entry: 0,
    }
}

/// The class name a row maps to: the queue, `p<N>` for a priority alone,
/// `<queue>/p<N>` for both (a class has one priority).
fn class_name(row: &Row) -> String {
    match (row.class.is_empty(), row.priority) {
        (true, None) => String::new(),
        (false, None) => row.class.clone(),
        (true, Some(p)) => format!("p{p}"),
        (false, Some(p)) => format!("{}/p{p}", row.class),
    }
}

/// First pass over every trace of `sc`: checks every row, declares the
/// tenants and classes met, and fills each [`TraceSpec::scan`].
pub fn prepare(sc: &mut Scenario) -> Result<()> {
    let mut class_ids: HashMap<String, ClassId> =
        sc.classes.iter().enumerate().map(|(i, c)| (c.name.clone(), i as ClassId)).collect();
    let cap = capacity(sc);
    // names met in the traces, for the rows after the first of each
    let mut known = KnownNames::default();
    for i in 0..sc.traces.len() {
        let spec = sc.traces[i].clone();
        let mut rows = open_rows(&spec, sc)?;
        let mut row = Row::default();
        let mut scan = TraceScan::default();
        let mut last: Option<(i64, u64)> = None;
        let mut spill = SpillWriter::create(sc.resources.len());
        let mut last_class: Option<(String, Option<i32>, ClassId)> = None;
        // the first classes met, searched before the map
        let mut few_classes: Vec<(String, Option<i32>, ClassId)> = Vec::new();
        while let Some(r) = rows.next_row(&mut row)? {
            match r {
                Read::Missing => {
                    scan.missing_rows += 1;
                    continue;
                }
                Read::Bad(e) if spec.skip_bad_rows => {
                    let _ = e;
                    scan.bad_rows += 1;
                    continue;
                }
                Read::Bad(e) => return Err(row_error(&spec.path, e)),
                Read::Row => {}
            }
            let origin = last.map(|_| scan.origin).unwrap_or(row.time);
            let (arrival, deadline) = match check_row(&row, last, origin, spec.keep_time, &cap) {
                Ok(x) => x,
                Err(_) if spec.skip_bad_rows => {
                    scan.bad_rows += 1;
                    continue;
                }
                Err(e) => return Err(row_error(&spec.path, e)),
            };
            scan.last_arrival = arrival;
            scan.work += u128::from(row.service);
            if last.is_none() {
                scan.origin = row.time;
            }
            last = Some((row.time, row.line));
            scan.rows += 1;
            let tenant = match known.get(&row.tenant) {
                Some(t) => t,
                None => {
                    let t = match sc.tenants.id_of(&row.tenant) {
                        Some(t) => t,
                        None if sc.tenants.len() >= crate::model::MAX_TENANTS as usize => {
                            return Err(Error::input(
                                &spec.path,
                                row.line as usize,
                                0,
                                format!(
                                    "more than {} tenants in all; fairsim's limit",
                                    crate::model::MAX_TENANTS
                                ),
                            ));
                        }
                        None => sc.tenants.push_named(TenantSpec {
                            name: row.tenant.clone(),
                            weight: 1.0,
                            cap: None,
                        }),
                    };
                    known.insert(&row.tenant, t);
                    t
                }
            };
            // most rows repeat the class of the row before, or one of the
            // few a trace has (queues interleaved): no name built and hashed
            let recent = match &last_class {
                Some((c, p, id)) if *c == row.class && *p == row.priority => Some(*id),
                _ => few_classes.iter().find(|(c, p, _)| *c == row.class && *p == row.priority).map(|x| x.2),
            };
            let class = match recent {
                Some(id) => id,
                None => {
                    let cname = class_name(&row);
                    let id = match class_ids.get(&cname) {
                        _ if cname.is_empty() => 0,
                        Some(&id) => id,
                        None => {
                            if sc.classes.len() >= ClassId::MAX as usize {
                                return Err(Error::input(
                                    &spec.path,
                                    row.line as usize,
                                    0,
                                    "too many classes",
                                ));
                            }
                            let id = sc.classes.len() as ClassId;
                            class_ids.insert(cname.clone(), id);
                            sc.classes.push(ClassSpec {
                                name: cname,
                                priority: row.priority.unwrap_or(5),
                                weight: 1.0,
                                sla: None,
                            });
                            id
                        }
                    };
                    last_class = Some((row.class.clone(), row.priority, id));
                    if few_classes.len() < 16 {
                        few_classes.push((row.class.clone(), row.priority, id));
                    }
                    id
                }
            };
            if let Some(w) = spill.as_mut() {
                w.push(&replayed(&row, arrival, deadline, tenant, class), &row.id);
            }
        }
        scan.spill = spill.and_then(SpillWriter::finish);
        if scan.rows == 0 {
            let skipped = scan.bad_rows + scan.missing_rows;
            let msg = format!(
                "trace `{}` has no job to replay ({skipped} rows skipped); check the file and its format",
                spec.path.display()
            );
            return Err(match spec.line {
                0 => Error::Usage(format!("--trace: {msg}")),
                line => Error::input(&sc.source, line, 0, msg),
            });
        }
        sc.traces[i].scan = scan;
    }
    Ok(())
}

/// The default-column trace for `fairsim run --trace FILE`: the format from
/// `format` (`csv`, `swf`) or the file extension; options and the CSV column
/// mapping from the scenario's first trace entry of the same format, if any.
pub fn from_cli(sc: &Scenario, path: &Path, format: Option<&str>, skip_bad_rows: bool) -> Result<TraceSpec> {
    let ext = path.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase());
    let named = format.map(str::to_ascii_lowercase);
    let logged = sc.traces.iter().any(|t| matches!(t.format, TraceFormat::Events(_)));
    let fmt = match named.clone().or(ext) {
        Some(f) if f == "csv" || f == "swf" || tables::find(&f).is_some() => f,
        // a JSON log replayed as the scenario's event log entry reads it
        Some(f) if logged && matches!(f.as_str(), "json" | "jsonl" | "ndjson") => "events".into(),
        other => {
            return Err(Error::Usage(format!(
                "--trace {}: cannot tell the format from {}; add --trace-format with csv, swf or a job table's name ({})",
                path.display(),
                other.map(|o| format!("`{o}`")).unwrap_or_else(|| "a file without extension".into()),
                tables::NAMES.join(", ")
            )))
        }
    };
    // a job table named on the command line brings its own mapping; a
    // plain csv or swf takes the scenario's entry of the same kind
    let family = |f: &TraceFormat| match f {
        TraceFormat::Csv(_) => "csv",
        TraceFormat::Swf { .. } => "swf",
        TraceFormat::Events(_) => "events",
    };
    let fresh = |format: TraceFormat, time_format: TimeFormat| TraceSpec {
        line: 0,
        path: PathBuf::new(),
        format,
        time_format,
        keep_time: false,
        skip_bad_rows: false,
        scan: TraceScan::default(),
    };
    let mut spec = match tables::find(&fmt).filter(|_| named.is_some()) {
        Some(t) => fresh(t.format(), t.time_format),
        None => match sc.traces.iter().find(|t| family(&t.format) == fmt) {
            Some(t) => t.clone(),
            None if fmt == "csv" => {
                fresh(TraceFormat::Csv(Box::new(csv::default_columns())), TimeFormat::Auto)
            }
            None => fresh(TraceFormat::Swf { slots: swf::default_slots(sc) }, TimeFormat::Auto),
        },
    };
    spec.path = path.to_path_buf();
    spec.skip_bad_rows |= skip_bad_rows;
    spec.scan = TraceScan::default();
    Ok(spec)
}

/// Replays one prepared trace as arrivals, streaming: from its spill when
/// the first pass wrote one, else from the text.
pub struct TraceSource {
    path: PathBuf,
    spill: Option<SpillReader>,
    rows: Option<Box<dyn RowReader>>,
    row: Row,
    origin: i64,
    keep_time: bool,
    skip_bad_rows: bool,
    capacity: Res,
    last: Option<(i64, u64)>,
    tenants: Tenants,
    class_ids: HashMap<String, ClassId>,
    error: Option<Error>,
}

impl TraceSource {
    /// Re-opens the trace of a prepared `spec` (see [`prepare`]).
    pub fn open(spec: &TraceSpec, sc: &Scenario) -> Result<Self> {
        let spill = match &spec.scan.spill {
            Some(s) => Some(SpillReader::open(&s.path, sc.resources.len()).map_err(|e| {
                Error::io(
                    format!(
                        "cannot read back {} (the parsed rows of {})",
                        s.path.display(),
                        spec.path.display()
                    ),
                    e,
                )
            })?),
            None => None,
        };
        Ok(TraceSource {
            path: spec.path.clone(),
            rows: if spill.is_some() { None } else { Some(open_rows(spec, sc)?) },
            spill,
            row: Row::default(),
            origin: spec.scan.origin,
            keep_time: spec.keep_time,
            skip_bad_rows: spec.skip_bad_rows,
            capacity: capacity(sc),
            last: None,
            tenants: sc.tenants.clone(),
            class_ids: sc.classes.iter().enumerate().map(|(i, c)| (c.name.clone(), i as ClassId)).collect(),
            error: None,
        })
    }

    /// The error that stopped the replay early, if any (the file changed
    /// since the first pass, or could not be read).
    pub fn take_error(&mut self) -> Option<Error> {
        self.error.take()
    }

    fn fail(&mut self, e: Error) -> Option<Arrival> {
        self.error.get_or_insert(e);
        None
    }

    /// The trace's own id of the arrival last returned; empty when it has none.
    pub fn id(&self) -> &str {
        match &self.spill {
            Some(s) => s.id(),
            None => &self.row.id,
        }
    }

    /// The next arrival, or `None` at the end (or on an error, kept for [`Self::take_error`]).
    pub fn next_arrival(&mut self) -> Option<Arrival> {
        if self.error.is_some() {
            return None;
        }
        if let Some(s) = self.spill.as_mut() {
            return match s.next() {
                Ok(a) => a,
                Err(e) => {
                    let e =
                        Error::io(format!("cannot read back the parsed rows of {}", self.path.display()), e);
                    self.fail(e)
                }
            };
        }
        let rows = self.rows.as_mut()?;
        loop {
            let r = match rows.next_row(&mut self.row) {
                Ok(None) => return None,
                Ok(Some(r)) => r,
                Err(e) => return self.fail(e),
            };
            match r {
                Read::Missing => continue,
                Read::Bad(_) if self.skip_bad_rows => continue,
                Read::Bad(e) => {
                    let e = row_error(&self.path, e);
                    return self.fail(e);
                }
                Read::Row => {}
            }
            let (time, deadline) =
                match check_row(&self.row, self.last, self.origin, self.keep_time, &self.capacity) {
                    Ok(x) => x,
                    Err(_) if self.skip_bad_rows => continue,
                    Err(e) => {
                        let e = row_error(&self.path, e);
                        return self.fail(e);
                    }
                };
            self.last = Some((self.row.time, self.row.line));
            let row = &self.row;
            let tenant = self.tenants.id_of(&row.tenant);
            let cname = class_name(row);
            let class = if cname.is_empty() { Some(0) } else { self.class_ids.get(&cname).copied() };
            let (Some(tenant), Some(class)) = (tenant, class) else {
                let e = Error::input(
                    &self.path,
                    row.line as usize,
                    0,
                    "the trace changed since it was first read (unknown tenant or class); run again",
                );
                return self.fail(e);
            };
            return Some(replayed(row, time, deadline, tenant, class));
        }
    }
}

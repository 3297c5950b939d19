//! jobs.csv read into job lives: when each job became claimable (admission's
//! re-sends and deferrals replayed from the scenario's rules), and the
//! intervals it surely held a worker or waited, as far as one row per job
//! can tell (it gives the first start and the last end only).

use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::{Action, Scenario};

use super::table::{micros, Row, Table};

/// A name cell of jobs.csv (tenant, class, outcome, pool), one allocation
/// shared by every row that names it: a million rows name a handful of
/// each, and a `String` per cell was most of `fairsim check`'s memory.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(Arc<str>);

impl Name {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for Name {
    fn default() -> Self {
        Name(Arc::from(""))
    }
}

impl std::ops::Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name(Arc::from(s))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        Name(Arc::from(s))
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        **self == *other.0
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        *self == *other.0
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        **self == *other.0
    }
}

impl serde::Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

/// The distinct names seen so far.
#[derive(Default)]
struct Names(HashSet<Name>);

impl Names {
    fn get(&mut self, s: &str) -> Name {
        if let Some(n) = self.0.get(s) {
            return n.clone();
        }
        let n = Name::from(s);
        self.0.insert(n.clone());
        n
    }
}

/// One row of jobs.csv, times in µs.
#[derive(Debug, Clone)]
pub struct JobRow {
    /// Index of the row in the table (for [`Table::show`]).
    pub row: usize,
    pub id: u64,
    pub tenant: Name,
    pub class: Name,
    pub arrival: i64,
    pub start: Option<i64>,
    pub finish: Option<i64>,
    /// One attempt's service (slices and resumes included).
    pub service: i64,
    pub attempts: i64,
    pub outcome: Name,
    pub pool: Name,
    pub slices: i64,
    pub deferred: bool,
    /// Times the producer sent it again.
    pub resends: i64,
    /// The rule that last refused or deferred it (0-based), when named `rule N`.
    pub rule: Option<usize>,
}

impl JobRow {
    /// Cut into slices: started more often than attempted.
    pub fn sliced(&self) -> bool {
        self.slices > self.attempts
    }

    /// Ran in one attempt of one slice, so `[start, finish)` is its whole run.
    pub fn single(&self) -> bool {
        self.attempts == 1 && self.slices == 1 && self.outcome != "expired"
    }
}

/// Parses every row of jobs.csv; a malformed cell is an input error at its line.
pub fn read(t: &Table) -> Result<Vec<JobRow>> {
    let mut r = Reader::new(t)?;
    let mut out = Vec::with_capacity(t.rows.len());
    for (i, row) in t.rows.iter().enumerate() {
        out.push(r.row(t, i, row)?);
    }
    Ok(out)
}

/// Reads `dir/rel` (jobs.csv, called `name` in messages) row by row into
/// typed rows, keeping of the file only what shows a row in a message;
/// `Ok(None)` when it is missing.
pub fn read_file(dir: &std::path::Path, rel: &str, name: &str) -> Result<Option<(Table, Vec<JobRow>)>> {
    let mut reader: Option<Reader> = None;
    let mut out = Vec::new();
    let table = Table::read_each(dir, rel, name, &mut |t, i, row| {
        let r = match reader.as_mut() {
            Some(r) => r,
            None => reader.insert(Reader::new(t)?),
        };
        out.push(r.row(t, i, &row)?);
        Ok(())
    })?;
    let Some(table) = table else { return Ok(None) };
    if reader.is_none() {
        // a header alone still has to name the columns
        Reader::new(&table)?;
    }
    Ok(Some((table, out)))
}

/// jobs.csv's column indices, and the names read so far.
struct Reader {
    job: usize,
    tenant: usize,
    class: usize,
    arrival: usize,
    start: usize,
    finish: usize,
    service: usize,
    attempts: usize,
    outcome: usize,
    slices: usize,
    pool: Option<usize>,
    admission: Option<usize>,
    rule: Option<usize>,
    names: Names,
}

impl Reader {
    fn new(t: &Table) -> Result<Reader> {
        let c = |n: &str| t.col(n);
        Ok(Reader {
            job: c("job")?,
            tenant: c("tenant")?,
            class: c("class")?,
            arrival: c("arrival")?,
            start: c("start")?,
            finish: c("finish")?,
            service: c("service")?,
            attempts: c("attempts")?,
            outcome: c("outcome")?,
            slices: c("slices")?,
            pool: t.col("pool").ok(),
            admission: t.col("admission").ok(),
            rule: t.col("admission_rule").ok(),
            names: Names::default(),
        })
    }

    /// Row `i` of `t`, whose cells are `r`.
    fn row(&mut self, t: &Table, i: usize, r: &Row) -> Result<JobRow> {
        let bad = |col: &str, v: &str| {
            Error::Usage(format!("{}: `{col}` is `{v}`, not what fairsim writes\n  {}", t.name, t.show(i)))
        };
        let time = |k: usize, name: &str| micros(&r[k]).ok_or_else(|| bad(name, &r[k]));
        let opt_time = |k: usize, name: &str| -> Result<Option<i64>> {
            if r[k].is_empty() {
                Ok(None)
            } else {
                time(k, name).map(Some)
            }
        };
        let int = |k: usize, name: &str| r[k].parse::<i64>().map_err(|_| bad(name, &r[k]));
        let adm = self.admission.map_or("", |k| &r[k]);
        let resends = adm
            .split(", ")
            .find_map(|p| p.strip_prefix("retried "))
            .map_or(Ok(0), |n| n.parse::<i64>().map_err(|_| bad("admission", adm)))?;
        let names = &mut self.names;
        Ok(JobRow {
            row: i,
            id: r[self.job].parse().map_err(|_| bad("job", &r[self.job]))?,
            tenant: names.get(&r[self.tenant]),
            class: names.get(&r[self.class]),
            arrival: time(self.arrival, "arrival")?,
            start: opt_time(self.start, "start")?,
            finish: opt_time(self.finish, "finish")?,
            service: time(self.service, "service")?,
            attempts: int(self.attempts, "attempts")?,
            outcome: names.get(&r[self.outcome]),
            pool: self.pool.map_or_else(Name::default, |k| names.get(&r[k])),
            slices: int(self.slices, "slices")?,
            deferred: adm.starts_with("deferred"),
            resends,
            rule: self
                .rule
                .and_then(|k| r[k].strip_prefix("rule "))
                .and_then(|n| n.parse::<usize>().ok()?.checked_sub(1)),
        })
    }
}

/// The claim cost the job's pool pays before each of its starts: under
/// one the worker (and the tenant's cap) is taken a claim before jobs.csv's
/// `start`, when the job leaves its queue.
pub fn claim_of(sc: &crate::model::Scenario, j: &JobRow) -> i64 {
    let claim = match sc.run_topology() {
        Some(t) => t.pools.iter().find(|p| p.name == j.pool.as_str()).map_or(0, |p| p.costs.claim),
        None => sc.costs.claim,
    };
    claim as i64
}

/// The claim cost before a job's first start, as sure bounds `(least,
/// most)`. jobs.csv names the pool of the last start only, so a job started
/// more than once may have made its first in any pool: the bounds are then
/// the pools' smallest and largest claims (a worker surely held from
/// `start - least`; the job surely waited until `start - most`).
pub fn first_claim_bounds(sc: &crate::model::Scenario, j: &JobRow) -> (i64, i64) {
    match sc.run_topology() {
        Some(t) if j.slices > 1 => {
            let claims = t.pools.iter().map(|p| p.costs.claim as i64);
            (claims.clone().min().unwrap_or(0), claims.max().unwrap_or(0))
        }
        _ => {
            let c = claim_of(sc, j);
            (c, c)
        }
    }
}

/// The `after` shared by every `retry` rule (then the n-th re-send of a
/// job is at arrival + n x after); `Some(0)` without retry rules, `None`
/// when they differ (a re-sent job's claimable instant is then unknown).
pub fn common_after(sc: &Scenario) -> Option<i64> {
    let afters: Vec<i64> = sc
        .admission
        .iter()
        .filter_map(|r| match r.action {
            Action::Retry { after, .. } => Some(after as i64),
            _ => None,
        })
        .collect();
    match afters.first() {
        None => Some(0),
        Some(&a) => afters.iter().all(|&b| b == a).then_some(a),
    }
}

/// When an admitted job became claimable: its last admission decision
/// (arrival, or its last re-send), plus the deferring rule's `by`; `None`
/// when the rules do not say.
pub fn claimable(sc: &Scenario, j: &JobRow, after: Option<i64>) -> Option<i64> {
    let at = if j.resends > 0 { j.arrival + j.resends * after? } else { j.arrival };
    if !j.deferred {
        return Some(at);
    }
    match sc.admission.get(j.rule?)?.action {
        Action::Defer { by } => Some(at + by as i64),
        _ => None,
    }
}

/// The one slice length of the run, if every sliced entry shares it and no
/// policy slices the whole run (0 when nothing is sliced).
fn common_slice(sc: &Scenario) -> Option<i64> {
    if sc.policies.iter().any(|p| p.slice.is_some()) {
        return None;
    }
    let slices: Vec<i64> = sc.workload.iter().filter_map(|e| e.slice.map(|s| s.slice as i64)).collect();
    match slices.first() {
        None => Some(0),
        Some(&s) => slices.iter().all(|&x| x == s).then_some(s),
    }
}

/// Whether a policy of the scenario may stop running attempts (`preempt`).
fn may_stop(sc: &Scenario) -> bool {
    sc.policies.iter().any(|p| p.params.value("preempt").is_some())
}

/// The intervals `[a, b)` the job surely held a worker, and whether they
/// are all of them. An unsliced job's attempts each last `service`: the
/// first starts at `start`, the last ends at `finish`; a third attempt or
/// more leaves ones in between unknown. A sliced job's first slice is
/// `[start, start + slice)` (no resume overhead on the first). An expired
/// job's `finish` is its expiry while queued: only its first run is known.
pub fn busy(sc: &Scenario, j: &JobRow) -> (Vec<(i64, i64)>, bool) {
    let (Some(s), Some(f)) = (j.start, j.finish) else {
        return (Vec::new(), j.attempts == 0);
    };
    if j.outcome == "expired" {
        let first = match common_slice(sc) {
            None => return (Vec::new(), false),
            Some(0) => j.service,
            Some(slice) => j.service.min(slice),
        };
        return (vec![(s, s + first.min(f - s))], false);
    }
    if j.sliced() {
        // a preempting policy may have stopped the first slice early (the
        // extra start is all jobs.csv shows of it)
        return match common_slice(sc) {
            Some(slice) if slice > 0 && !may_stop(sc) => (vec![(s, s + slice)], false),
            _ => (Vec::new(), false),
        };
    }
    // a slowdown stretches an attempt past `service`: one attempt is
    // `[start, finish)` whatever its length, two are known only as at least
    // `service` each
    let exact = sc.slowdowns.is_empty();
    match j.attempts {
        1 => (vec![(s, f)], true),
        2 => (vec![(s, s + j.service), (f - j.service, f)], exact),
        _ => (vec![(s, s + j.service), (f - j.service, f)], false),
    }
}

/// The intervals the job waited to be claimed, when all are known (never
/// started and not expired: none; one or two unsliced attempts): from
/// claimable to its start, and between a failed first attempt and the second.
pub fn waiting(j: &JobRow, claimable: i64) -> Option<Vec<(i64, i64)>> {
    if j.outcome == "rejected" {
        return Some(Vec::new());
    }
    let (s, f) = (j.start?, j.finish?);
    match j.attempts {
        1 if !j.sliced() && j.outcome != "expired" => Some(vec![(claimable, s)]),
        2 if !j.sliced() && j.outcome != "expired" => {
            Some(vec![(claimable, s), (s + j.service, f - j.service)])
        }
        _ => None,
    }
}

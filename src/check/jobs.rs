//! jobs.csv read into job lives: when each job became claimable (admission's
//! re-sends and deferrals replayed from the scenario's rules), and the
//! intervals it surely held a worker or waited, as far as one row per job
//! can tell (it gives the first start and the last end only).

use crate::error::{Error, Result};
use crate::model::{Action, Scenario};

use super::table::{micros, Table};

/// One row of jobs.csv, times in µs.
#[derive(Debug, Clone)]
pub struct JobRow {
    /// Index of the row in the table (for [`Table::show`]).
    pub row: usize,
    pub id: u64,
    pub tenant: String,
    pub class: String,
    pub arrival: i64,
    pub start: Option<i64>,
    pub finish: Option<i64>,
    /// One attempt's service (slices and resumes included).
    pub service: i64,
    pub attempts: i64,
    pub outcome: String,
    pub pool: String,
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
    let c = |n: &str| t.col(n);
    let (job, tenant, class, arrival, start, finish) =
        (c("job")?, c("tenant")?, c("class")?, c("arrival")?, c("start")?, c("finish")?);
    let (service, attempts, outcome, slices) = (c("service")?, c("attempts")?, c("outcome")?, c("slices")?);
    let pool = t.col("pool").ok();
    let admission = t.col("admission").ok();
    let rule = t.col("admission_rule").ok();
    let mut out = Vec::with_capacity(t.rows.len());
    for (i, r) in t.rows.iter().enumerate() {
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
        let adm = admission.map_or("", |k| r[k].as_str());
        let resends = adm
            .split(", ")
            .find_map(|p| p.strip_prefix("retried "))
            .map_or(Ok(0), |n| n.parse::<i64>().map_err(|_| bad("admission", adm)))?;
        out.push(JobRow {
            row: i,
            id: r[job].parse().map_err(|_| bad("job", &r[job]))?,
            tenant: r[tenant].clone(),
            class: r[class].clone(),
            arrival: time(arrival, "arrival")?,
            start: opt_time(start, "start")?,
            finish: opt_time(finish, "finish")?,
            service: time(service, "service")?,
            attempts: int(attempts, "attempts")?,
            outcome: r[outcome].clone(),
            pool: pool.map_or(String::new(), |k| r[k].clone()),
            slices: int(slices, "slices")?,
            deferred: adm.starts_with("deferred"),
            resends,
            rule: rule
                .and_then(|k| r[k].strip_prefix("rule "))
                .and_then(|n| n.parse::<usize>().ok()?.checked_sub(1)),
        });
    }
    Ok(out)
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

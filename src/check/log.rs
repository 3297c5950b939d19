//! `log-agrees`: the observation log (ticks.csv, and dispatches.csv and
//! skips.csv when the folder has them) tells the same story as jobs.csv;
//! and the fairness-log article's first stop condition, every skip with a reason.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet};

use super::jobs::{claim_of, claimable, common_after};
use super::observed::{self, Sources};
use super::table::{micros, secs, Table};
use super::{RuleResult, Run, Verdict, Violation};

const RULE: &str = "log-agrees";

/// A violation shown by rows of the log (and optionally one job's row).
fn in_log(t: &Table, rows: &[usize], time: i64, job: Option<u64>, what: String) -> Violation {
    let mut shown = vec![t.show_header()];
    shown.extend(rows.iter().map(|&r| t.show(r)));
    Violation { rule: RULE, time: Some(time), job, what, rows: shown }
}

/// A completion as (finish, whether its last attempt ran no time).
type Done = (i64, bool);

/// Whether `x` completed by the end of the tick ending at `t`. A tick
/// closes after the completions at its end and before the starts there, so
/// an attempt of no service that ends at `t` started at `t`, in the next
/// tick, and completes in it.
fn done_by(x: Done, t: i64) -> bool {
    x <= (t, false)
}

/// A tenant's queue as its jobs' sorted entry instants and sorted exit instants.
type Sides = (Upto<i64>, Upto<i64>);

/// A sorted list and how many of it are below a bound that only grows (the
/// ticks are read in time order): each list is walked once, where a binary
/// search per tick and tenant missed the cache at every probe.
struct Upto<T> {
    v: Vec<T>,
    n: usize,
}

impl<T: Copy + Ord> Upto<T> {
    fn new(mut v: Vec<T>) -> Self {
        v.sort_unstable();
        Upto { v, n: 0 }
    }

    /// How many are `below`, a predicate that holds for a prefix of the
    /// list and for a longer one at each call.
    fn count(&mut self, below: impl Fn(T) -> bool) -> i64 {
        while self.v.get(self.n).is_some_and(|&x| below(x)) {
            self.n += 1;
        }
        self.n as i64
    }
}

pub fn log_agrees(run: &Run) -> RuleResult {
    let t = &run.ticks;
    let tick = run.sc.tick as i64;
    let src = Sources {
        ticks: t,
        tenants: run.tenants.as_ref(),
        refusals: run.refusals.as_ref(),
        tick,
        dispatches: run.dispatches.as_ref(),
        skips: run.skips.as_ref(),
    };
    let rows = observed::read(&src, &|t, rows, time, what| in_log(t, rows, time, None, what))?;
    // cumulative completions: jobs completed by the tick's end
    let mut finished: HashMap<&str, Vec<Done>> = HashMap::default();
    for j in run.jobs.iter().filter(|j| j.outcome == "completed") {
        finished.entry(j.tenant.as_str()).or_default().push((j.finish.unwrap_or(i64::MAX), j.service == 0));
    }
    let mut done: HashMap<&str, Upto<Done>> = finished.into_iter().map(|(t, v)| (t, Upto::new(v))).collect();
    // queue lengths, for tenants whose every job waited once, in one piece
    let after = common_after(&run.sc);
    let mut queue: HashMap<&str, Option<Vec<(i64, i64)>>> = HashMap::default();
    // under `on_cap: {delay}` a job refused at its tenant's cap leaves the
    // queue for the delay, which jobs.csv does not show
    let delays = run.spec.as_ref().is_some_and(|s| s.cap_delay.is_some());
    let capped = |t: &str| run.sc.tenants.id_of(t).and_then(|id| run.sc.tenants.cap(id)).is_some();
    for j in run.jobs.iter().filter(|j| j.outcome != "rejected") {
        let e = queue.entry(j.tenant.as_str()).or_insert(Some(Vec::new()));
        if delays && capped(&j.tenant) {
            *e = None;
            continue;
        }
        // a job that expired unstarted has no finish: when it left the queue is unknown
        let known_end = j.start.is_some() || j.finish.is_some();
        // one that started and then expired was stopped (a capacity loss,
        // a preemption) and waited again: its waits are two pieces
        let restarted = j.outcome == "expired" && j.start.is_some();
        let simple = j.attempts <= 1 && j.slices <= 1 && j.outcome != "unfinished" && known_end && !restarted;
        match (e.as_mut(), claimable(&run.sc, j, after)) {
            (Some(v), Some(c)) if simple => {
                // under a claim cost the job left its queue a claim before its `start`
                let left = j.start.map(|s| s - claim_of(&run.sc, j)).or(j.finish).unwrap_or(i64::MAX);
                v.push((c, left))
            }
            _ => *e = None,
        }
    }
    // as sorted entries and exits, so a queue length is two counts
    // (an exit is never before its entry: start-after-arrival held)
    let mut queue: HashMap<&str, Option<Sides>> = queue
        .into_iter()
        .map(|(t, v)| {
            let sides = v.map(|v| {
                let (a, b): (Vec<i64>, Vec<i64>) = v.into_iter().unzip();
                (Upto::new(a), Upto::new(b))
            });
            (t, sides)
        })
        .collect();
    // first starts per (tick, tenant): a start at a tick boundary opens the next tick
    let mut starts: BTreeMap<(i64, &str), i64> = BTreeMap::new();
    for j in &run.jobs {
        if let Some(s) = j.start {
            *starts.entry((s / tick + 1, j.tenant.as_str())).or_default() += 1;
        }
    }
    let (mut cells, mut queues) = (0u64, 0u64);
    let mut last = 0;
    // each tenant's cumulative completions as the log has them so far
    let mut state: HashMap<&str, i64> = HashMap::default();
    for r in &rows {
        let index = r.index;
        if index <= last || r.time != index * tick {
            return Err(in_log(
                t,
                &[r.row],
                r.time,
                None,
                format!(
                    "tick {index} after tick {last}, or its time is not {index} x the tick ({})",
                    secs(tick)
                ),
            ));
        }
        last = index;
        for &(tenant, n) in &r.completed {
            let want = done.get_mut(tenant).map_or(0, |u| u.count(|x| done_by(x, r.time)));
            cells += 1;
            if n.parse::<i64>().ok() != Some(want) {
                return Err(in_log(
                    t,
                    &[r.row],
                    r.time,
                    None,
                    format!("tick {index}: completed {tenant}:{n}, but jobs.csv has {want} of {tenant}'s jobs completed by {}", secs(r.time)),
                ));
            }
            state.insert(tenant, want);
        }
        // a tenant without an entry in the tick keeps its count: the total
        // catches one whose jobs completed unlisted
        let total: i64 = state.values().sum();
        let all: i64 = done.values_mut().map(|u| u.count(|x| done_by(x, r.time))).sum();
        if all != total {
            return Err(in_log(
                t,
                &[r.row],
                r.time,
                None,
                format!(
                "tick {index}: the completed counts sum to {total}, jobs.csv has {all} jobs completed by {}",
                secs(r.time)
            ),
            ));
        }
        let waiting: HashMap<&str, &str> = r.waiting.iter().copied().collect();
        for (tenant, spans) in queue.iter_mut() {
            let Some((entries, exits)) = spans else { continue };
            // claimable before the tick's end, not started before it
            let want = entries.count(|x| x < r.time) - exits.count(|x| x < r.time);
            let got = waiting.get(tenant).map_or(Some(0), |v| v.parse().ok());
            queues += 1;
            if got != Some(want) {
                return Err(in_log(t, &[r.row], r.time, None, format!(
                    "tick {index}: {tenant} has {} waiting in the log, jobs.csv has {want} claimable and not started at {}",
                    got.map_or("?".into(), |g: i64| g.to_string()),
                    secs(r.time)
                )));
            }
        }
        let mut chosen: HashMap<&str, i64> = HashMap::default();
        r.chosen.iter().for_each(|c| *chosen.entry(c).or_default() += 1);
        for (&(_, tenant), &n) in starts.range((index, "")..(index + 1, "")) {
            let got = chosen.get(tenant).copied().unwrap_or(0);
            if got < n {
                return Err(in_log(t, &[r.row], r.time, None, format!(
                    "tick {index}: {tenant} chosen {got} times, but {n} of its jobs first started in the tick (jobs.csv)"
                )));
            }
        }
    }
    let listed: FxHashSet<i64> = rows.iter().map(|r| r.index).collect();
    if let Some(((index, tenant), _)) = starts.iter().find(|((i, _), _)| !listed.contains(i)) {
        return Err(in_log(
            t,
            &[],
            index * tick,
            None,
            format!("a job of {tenant} first started in tick {index}, which ticks.csv lacks"),
        ));
    }
    let mut what =
        format!("{} ticks: {cells} completed counts, {queues} queue lengths, chosen tenants", rows.len());
    if let Some(d) = &run.dispatches {
        let n = dispatches(run, d, tick)?;
        what.push_str(&format!(", {n} dispatches.csv rows"));
    }
    if let Some(s) = &run.skips {
        what.push_str(&format!(", {} skips.csv rows", s.rows.len()));
    }
    for (file, table) in [("tenants.csv", &run.tenants), ("refusals.csv", &run.refusals)] {
        if let Some(s) = table {
            what.push_str(&format!(", {} {file} rows", s.rows.len()));
        }
    }
    Ok(Verdict::Checked(what))
}

/// dispatches.csv: each row in the tick its time falls in, the ticks'
/// `chosen` cells in order, and per job one row per start (`slices`), the
/// first at its `start`, for its tenant.
fn dispatches(run: &Run, d: &Table, tick: i64) -> Result<usize, Violation> {
    let cols = (d.col("tick"), d.col("time"), d.col("tenant"), d.col("job"));
    let (c_tick, c_time, c_tenant, c_job) = match cols {
        (Ok(a), Ok(b), Ok(c), Ok(e)) => (a, b, c, e),
        _ => return Err(in_log(d, &[], 0, None, "dispatches.csv lacks a column".into())),
    };
    let by_id: HashMap<u64, &super::JobRow> = run.jobs.iter().map(|j| (j.id, j)).collect();
    let mut per_job: HashMap<u64, (usize, i64, usize)> = HashMap::default();
    for (i, r) in d.rows.iter().enumerate() {
        let bad = || in_log(d, &[i], 0, None, "malformed row".into());
        let time = micros(&r[c_time]).ok_or_else(bad)?;
        let index: i64 = r[c_tick].parse().map_err(|_| bad())?;
        let id: u64 = r[c_job].parse().map_err(|_| bad())?;
        if index != time / tick + 1 {
            return Err(in_log(
                d,
                &[i],
                time,
                Some(id),
                format!("a start at {} belongs to tick {}, not {index}", secs(time), time / tick + 1),
            ));
        }
        let Some(j) = by_id.get(&id) else {
            return Err(in_log(
                d,
                &[i],
                time,
                Some(id),
                format!("job {id} started but has no row in jobs.csv"),
            ));
        };
        if j.tenant != r[c_tenant] {
            return Err(in_log(d, &[i], time, Some(id), format!("job {id} is {}'s in jobs.csv", j.tenant)));
        }
        let e = per_job.entry(id).or_insert((i, time, 0));
        e.2 += 1;
    }
    for j in &run.jobs {
        let (first, time, n) = per_job.get(&j.id).copied().unwrap_or((0, -1, 0));
        let wrong = match j.start {
            Some(s) => time != s || n as i64 != j.slices,
            None => n != 0,
        };
        if wrong {
            let shown: Vec<usize> = if n > 0 { vec![first] } else { Vec::new() };
            let mut v = in_log(d, &shown, j.start.unwrap_or(j.arrival), Some(j.id), format!(
                "job {} has {n} rows in dispatches.csv, the first at {}; jobs.csv says {} starts, the first at {}",
                j.id,
                if n > 0 { secs(time) } else { "-".into() },
                j.slices,
                j.start.map_or("-".into(), secs)
            ));
            v.rows.push(run.jobs_table.show(j.row));
            return Err(v);
        }
    }
    Ok(d.rows.len())
}

/// `stop-unexplained-skip` (the fairness-log article: "any tenant with waiting work and
/// below its cap is skipped ... without a recorded reason"): every entry
/// of every `skipped` cell names a tenant and a reason.
pub fn unexplained_skip(run: &Run) -> RuleResult {
    if let Some(s) = &run.skips {
        return skips_with_reasons(s);
    }
    let t = &run.ticks;
    let col = t.col("skipped").map_err(|_| in_log(t, &[], 0, None, "no `skipped` column".into()))?;
    let mut n = 0;
    for (i, r) in t.rows.iter().enumerate() {
        for entry in r[col].split_whitespace() {
            n += 1;
            let ok = entry.rsplit_once(':').is_some_and(|(a, b)| !a.is_empty() && !b.is_empty());
            if !ok {
                let time = t.col("time").ok().and_then(|c| micros(&r[c])).unwrap_or(0);
                let mut v = in_log(t, &[i], time, None, format!("skip `{entry}` has no reason"));
                v.rule = "stop-unexplained-skip";
                return Err(v);
            }
        }
    }
    Ok(Verdict::Checked(format!("{n} skips, each with a reason")))
}

/// skips.csv, in which a tenant's name may hold spaces: every row has a
/// tenant and a reason.
fn skips_with_reasons(s: &Table) -> RuleResult {
    let (Ok(c_tenant), Ok(c_reason)) = (s.col("tenant"), s.col("reason")) else {
        return Err(in_log(s, &[], 0, None, "skips.csv lacks a column".into()));
    };
    for (i, r) in s.rows.iter().enumerate() {
        if r[c_tenant].is_empty() || r[c_reason].is_empty() {
            let time = s.col("time").ok().and_then(|c| micros(&r[c])).unwrap_or(0);
            let entry = format!("{}:{}", &r[c_tenant], &r[c_reason]);
            let mut v = in_log(s, &[i], time, None, format!("skip `{entry}` has no tenant or no reason"));
            v.rule = "stop-unexplained-skip";
            return Err(v);
        }
    }
    Ok(Verdict::Checked(format!("{} skips, each with a reason", s.rows.len())))
}

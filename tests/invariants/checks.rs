//! The invariants of one run, each from its output files, each returning
//! the first violation as text. Which checks apply depends on the scenario
//! (work conservation only without caps, resources or topology, ...);
//! [`Coverage`] counts how often each one really ran, so that a generator
//! change that starves a check fails the test instead of passing it empty.

use std::collections::HashMap;

use fairsim::model::{ArrivalSpec, Scenario, Spare, Value};

use crate::admission_replay::{self, ids};
use crate::common::pairs;
use crate::lives::JobRow;
use crate::lives::{busy, claimable, common_after, is_sliced, peak, waiting};
use crate::outputs::{us, Run};

#[derive(Debug, Default, Clone, Copy)]
pub struct Coverage {
    pub cases: u64,
    pub rejected: u64,
    pub deferred: u64,
    pub resent: u64,
    pub expired: u64,
    pub failed_retried: u64,
    pub sliced: u64,
    pub admission: admission_replay::Seen,
    /// Cases where some tenant ran exactly its cap at once under `hold`.
    pub cap_reached: u64,
    /// Cases where every worker was busy at once.
    pub workers_full: u64,
    /// Cases checked for work conservation, and of them those with a wait.
    pub conserving: u64,
    pub conserving_waits: u64,
    /// Pairs of aging jobs checked (one started first though ready later).
    pub aging_pairs: u64,
}

/// Every invariant of one run.
pub fn check_run(run: &Run, cov: &mut Coverage) -> Result<(), String> {
    cov.cases += 1;
    for j in &run.jobs {
        cov.rejected += u64::from(j.outcome == "rejected");
        cov.deferred += u64::from(j.deferred);
        cov.resent += u64::from(j.resends > 0);
        cov.expired += u64::from(j.outcome == "expired");
        cov.failed_retried += u64::from(j.attempts > 1);
        cov.sliced += u64::from(is_sliced(j));
    }
    ends_once(run)?;
    counts_agree(run)?;
    charge_conserved(run)?;
    admission_replay::check(run, &mut cov.admission)?;
    timing(run, cov)?;
    work_conserving(run, cov)?;
    aging_order(run, cov)?;
    Ok(())
}

/// Arrivals the scenario makes, when every entry gives an exact count.
fn arrivals(sc: &Scenario) -> Option<u64> {
    sc.workload
        .iter()
        .map(|e| match e.arrivals {
            ArrivalSpec::Batch { count, .. } => Some(count),
            ArrivalSpec::Poisson { stop: None, count, .. } | ArrivalSpec::Every { stop: None, count, .. } => {
                count
            }
            _ => None,
        })
        .sum()
}

/// Each arrival ends exactly once: one row per job id 0..n, with a final
/// outcome whose cells agree with it.
fn ends_once(run: &Run) -> Result<(), String> {
    let mut ids: Vec<u64> = run.jobs.iter().map(|j| j.id).collect();
    ids.sort_unstable();
    if ids.iter().enumerate().any(|(i, &id)| id != i as u64) {
        return Err(format!("job ids are not 0..{} each once: {ids:?}", ids.len()));
    }
    if let Some(n) = arrivals(&run.sc) {
        if n != ids.len() as u64 {
            return Err(format!("{n} arrivals but {} rows in jobs.csv", ids.len()));
        }
    }
    for j in &run.jobs {
        let ok = match j.outcome.as_str() {
            "completed" | "failed" => j.start.is_some() && j.finish.is_some() && j.attempts >= 1,
            "rejected" => j.start.is_none() && j.attempts == 0 && !j.deferred,
            // expired while queued, possibly after failed attempts
            "expired" => (j.attempts == 0) == j.start.is_none() && j.start.is_some() == j.finish.is_some(),
            _ => false,
        };
        if !ok {
            return Err(format!("job {} does not end once, cleanly: {j:?}", j.id));
        }
    }
    Ok(())
}

/// summary.csv counts each tenant's, class's and the run's jobs by outcome
/// as jobs.csv lists them; ticks.csv's `refused` and `deferred` cells add
/// up to the refusals each job went through (one per re-send, one for a
/// final rejection) and to its deferrals.
fn counts_agree(run: &Run) -> Result<(), String> {
    let mut by: HashMap<(String, String), [i64; 7]> = HashMap::new();
    let mut refusals: HashMap<String, [i64; 2]> = HashMap::new();
    for j in &run.jobs {
        let outcome = ["completed", "rejected", "failed", "expired"]
            .iter()
            .position(|o| *o == j.outcome)
            .expect("checked outcome");
        for key in [("all", "all"), ("tenant", j.tenant.as_str()), ("class", j.class.as_str())] {
            let c = by.entry((key.0.to_string(), key.1.to_string())).or_default();
            c[0] += 1;
            c[1 + outcome] += 1;
            c[6] += i64::from(j.deferred);
        }
        let r = refusals.entry(j.tenant.to_string()).or_default();
        r[0] += j.resends + i64::from(j.outcome == "rejected");
        r[1] += i64::from(j.deferred);
    }
    let cols = ["jobs", "completed", "rejected", "failed", "expired", "unfinished", "deferred"];
    for row in run.csv("summary.csv") {
        let key = (row["scope"].clone(), row["name"].clone());
        let want = by.get(&key).copied().unwrap_or_default();
        for (i, col) in cols.iter().enumerate() {
            let got: i64 = row[*col].parse().map_err(|e| format!("{col}: {e}"))?;
            if got != want[i] {
                return Err(format!("summary.csv {key:?} {col} = {got}, jobs.csv says {}", want[i]));
            }
        }
    }
    let mut logged: HashMap<String, [i64; 2]> = HashMap::new();
    for row in run.csv("ticks.csv") {
        for (i, col) in ["refused", "deferred"].iter().enumerate() {
            for (t, n) in pairs(&row[*col]) {
                logged.entry(t).or_default()[i] += n.parse::<i64>().expect("count");
            }
        }
    }
    refusals.retain(|_, r| *r != [0, 0]);
    if logged != refusals {
        return Err(format!("ticks.csv refused/deferred {logged:?}, jobs.csv {refusals:?}"));
    }
    Ok(())
}

/// Retries and slices are charged to the job's own tenant and class: the
/// `service` of each summary.csv row is the sum over its jobs of attempts x
/// one attempt's service, exactly (both in µs).
fn charge_conserved(run: &Run) -> Result<(), String> {
    let slicing = run.sc.workload.iter().any(|e| e.slice.is_some());
    if slicing && run.jobs.iter().any(|j| j.outcome == "expired" && j.start.is_some()) {
        // its `service` cell is the slice it was waiting for, not the work it did
        return Ok(());
    }
    let mut charged: HashMap<(String, String), i64> = HashMap::new();
    for j in &run.jobs {
        for key in [("all", "all"), ("tenant", j.tenant.as_str()), ("class", j.class.as_str())] {
            *charged.entry((key.0.to_string(), key.1.to_string())).or_default() += j.attempts * j.service;
        }
    }
    for row in run.csv("summary.csv") {
        let key = (row["scope"].clone(), row["name"].clone());
        let want = charged.get(&key).copied().unwrap_or_default();
        if us(&row["service"]) != want {
            return Err(format!("summary.csv {key:?} service {} s, jobs.csv {want} us", row["service"]));
        }
    }
    Ok(())
}

/// Start after claimable, attempts lasting their service, at most `workers`
/// attempts at once and, under `hold`, at most the cap per tenant, over
/// every interval jobs.csv fixes.
fn timing(run: &Run, cov: &mut Coverage) -> Result<(), String> {
    let sc = &run.sc;
    let after = common_after(sc);
    let mut all = Vec::new();
    let mut per_tenant: HashMap<&str, Vec<(i64, i64)>> = HashMap::new();
    for j in &run.jobs {
        let Some(s) = j.start else { continue };
        let ready = after.map_or(j.arrival, |a| claimable(sc, j, a));
        let f = j.finish.expect("a started job has a finish");
        let lasts = f - s;
        // an expired job's `finish` is its expiry, and its `service` the
        // slice it waited for if it ran in slices
        let ok = s >= ready
            && if j.outcome == "expired" {
                lasts > 0
            } else if is_sliced(j) || j.attempts > 1 {
                lasts >= j.attempts * j.service
            } else {
                lasts == j.service
            };
        if !ok {
            return Err(format!("job {} claimable at {ready} us: wrong start or length: {j:?}", j.id));
        }
        let (iv, _) = busy(sc, j);
        all.extend(iv.iter().copied());
        per_tenant.entry(&j.tenant).or_default().extend(iv);
    }
    let workers = i64::from(run.run_sc.workers);
    let most = peak(all);
    if most > workers {
        return Err(format!("{most} attempts ran at once on {workers} workers"));
    }
    cov.workers_full += u64::from(most == workers);
    if run.sc.policies[0].spare == Spare::Hold {
        let mut reached = false;
        for (t, iv) in per_tenant {
            let Some(cap) = sc.tenants.cap(sc.tenants.id_of(t).expect("tenant")) else { continue };
            let most = peak(iv);
            if most > i64::from(cap) {
                return Err(format!("tenant {t} ran {most} at once, over its cap {cap}, under hold"));
            }
            reached |= most == i64::from(cap);
        }
        cov.cap_reached += u64::from(reached);
    }
    Ok(())
}

/// Whether the run's policy promises that no worker idles while a job it
/// may claim waits: every policy but `reserve`, when neither caps nor
/// resources nor a topology can hold a job back.
fn promises_conservation(run: &Run) -> bool {
    let sc = &run.sc;
    let spec = &sc.policies[0];
    spec.kind != "reserve"
        && spec.topology.is_none()
        && spec.cap_delay.is_none()
        && sc.resources.is_empty()
        && !sc.tenants.any_cap()
}

/// Work conservation: at no instant is a worker idle while a job waits.
/// Checked when every busy and waiting interval is known (one or two
/// attempts, unsliced, nothing expired): between two consecutive events
/// both counts are constant, so each such stretch of positive length is
/// checked once.
fn work_conserving(run: &Run, cov: &mut Coverage) -> Result<(), String> {
    if !promises_conservation(run) {
        return Ok(());
    }
    let Some(after) = common_after(&run.sc) else { return Ok(()) };
    if run.jobs.iter().any(|j| j.outcome == "expired") {
        // it waited until an instant jobs.csv does not give
        return Ok(());
    }
    let mut ev: Vec<(i64, i64, i64)> = Vec::new(); // (time, busy delta, waiting delta)
    for j in &run.jobs {
        if j.outcome == "rejected" {
            continue;
        }
        let Some(wait) = waiting(j, claimable(&run.sc, j, after)) else { return Ok(()) };
        let (iv, complete) = busy(&run.sc, j);
        if !complete {
            return Ok(());
        }
        for (a, b) in iv {
            ev.extend([(a, 1, 0), (b, -1, 0)]);
        }
        for (a, b) in wait.into_iter().filter(|(a, b)| b > a) {
            ev.extend([(a, 0, 1), (b, 0, -1)]);
        }
    }
    ev.sort_unstable();
    cov.conserving += 1;
    let workers = i64::from(run.run_sc.workers);
    let (mut running, mut waiting_now, mut waited) = (0, 0, false);
    for (i, &(t, db, dw)) in ev.iter().enumerate() {
        running += db;
        waiting_now += dw;
        let next = ev.get(i + 1).map_or(t, |e| e.0);
        if next > t && waiting_now > 0 {
            waited = true;
            if running < workers {
                return Err(format!(
                    "from {t} to {next} us, {waiting_now} jobs waited while {running} of {workers} workers ran"
                ));
            }
        }
    }
    cov.conserving_waits += u64::from(waited);
    Ok(())
}

fn duration_param(run: &Run, name: &str) -> Option<Value> {
    run.sc.policies[0].params.value(name).cloned()
}

/// No unbounded starvation under `aging` (src/policy/aging.rs): a job's
/// level is its class priority minus min(floor(wait / step), max_boost),
/// lowest first, ties to the earlier ready time, then the lower id.
///
/// Take x ready at r_x and y ready at r_y >= r_x, and an instant t when y
/// is picked while x waits. While x's boost is not capped (floor((t - r_x)
/// / step) <= max_boost), boost_x - boost_y >= floor(w_x / step) -
/// floor(w_y / step) >= floor((r_y - r_x) / step) =: d, so
/// level_y - level_x >= p_y - p_x + d. Hence y can go first only if
/// d < p_x - p_y, or d = p_x - p_y with r_y = r_x and y's id lower: no job
/// that became ready (p_x - p_y) x step or more after x overtakes it. So
/// x waits at most for the jobs ready before r_x + (p_x - p_min) x step
/// (a finite set) once boosts are uncapped: the starvation bound. Checked
/// over every pair without caps, resources or topology (which may hold x
/// back for other reasons).
fn aging_order(run: &Run, cov: &mut Coverage) -> Result<(), String> {
    let sc = &run.sc;
    if sc.policies[0].kind != "aging" || !promises_conservation(run) {
        return Ok(());
    }
    let Some(after) = common_after(sc) else { return Ok(()) };
    let step = match duration_param(run, "step") {
        Some(Value::Duration(d)) => d as i64,
        _ => 60_000_000,
    };
    let boost = match duration_param(run, "max_boost") {
        Some(Value::Count(b)) => i64::from(b),
        _ => 3,
    };
    let started: Vec<(&JobRow, i64, i64, i32)> = run
        .jobs
        .iter()
        .filter_map(|j| {
            let class = ids(sc, &j.tenant, &j.class).1 as usize;
            Some((j, claimable(sc, j, after), j.start?, sc.classes[class].priority))
        })
        .collect();
    for &(x, rx, sx, px) in &started {
        for &(y, ry, sy, py) in &started {
            if ry < rx || sy >= sx || sy < rx || (sy - rx) / step > boost {
                continue;
            }
            cov.aging_pairs += 1;
            let d = (ry - rx) / step;
            let gap = i64::from(px - py);
            if !(d < gap || (d == gap && ry == rx && y.id < x.id)) {
                return Err(format!(
                    "aging: job {} (priority {py}, ready {ry}) started at {sy} before job {} \
                     (priority {px}, ready {rx}, started {sx}), {d} steps later",
                    y.id, x.id
                ));
            }
        }
    }
    Ok(())
}

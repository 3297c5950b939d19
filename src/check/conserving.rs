//! `work-conserving`: no worker idles while a job it may claim waits, for
//! the policies that promise it, over every stretch of time jobs.csv fixes.

use crate::model::Spare;

use super::jobs::{busy, claimable, common_after, waiting};
use super::table::secs;
use super::{RuleResult, Run, Verdict};

/// Why the run cannot be checked, or `None` when it can.
fn why_not(run: &Run) -> Option<String> {
    let sc = &run.sc;
    let Some(spec) = &run.spec else {
        return Some(format!("`{}` is not a policy label of scenario.yaml", run.label));
    };
    if spec.kind == "reserve" {
        return Some("reserve keeps workers for its class: it may hold work".into());
    }
    if let Some(t) = sc.run_topology() {
        return Some(match t.planner {
            Some(_) => "a planner topology holds jobs in its ledger between plans".into(),
            None => "under a topology a worker polls only its pool's queues".into(),
        });
    }
    if sc.uses_costs() {
        return Some("dispatch costs occupy workers between jobs and a poll interval idles them: jobs.csv does not give those stretches".into());
    }
    if spec.cap_delay.is_some() {
        return Some("on_cap delays a capped tenant's jobs".into());
    }
    if sc.limits_starts() {
        return Some("a start limit holds claimable jobs back while workers idle".into());
    }
    if sc.tenants.any_cap() && spec.spare == Spare::Hold {
        return Some("caps with spare: hold may hold work".into());
    }
    if !sc.resources.is_empty() {
        return Some("with resources a waiting job may not fit (jobs.csv has no costs)".into());
    }
    if sc.workers == u32::MAX {
        return Some("no worker count".into());
    }
    if !sc.capacity.is_empty() || !sc.slowdowns.is_empty() {
        return Some("capacity changes or slowdowns: busy intervals are not all known".into());
    }
    None
}

/// Work conservation: at no instant is a worker idle while a job waits.
/// Between two consecutive events both counts are constant, so each such
/// stretch of positive length is checked once.
pub fn work_conserving(run: &Run) -> RuleResult {
    const RULE: &str = "work-conserving";
    if let Some(why) = why_not(run) {
        return Ok(Verdict::Skipped(why));
    }
    let sc = &run.sc;
    let after = common_after(sc);
    let backoff = sc.retry.is_some();
    // (time, busy delta, waiting delta, job): 16 bytes, as there are up to
    // four per job
    let mut ev: Vec<(i64, i8, i8, u32)> = Vec::new();
    for (k, j) in run.jobs.iter().enumerate() {
        let unknown = |why: &str| Ok(Verdict::Skipped(format!("job {} {why}", j.id)));
        if j.outcome == "rejected" {
            continue;
        }
        let Some(c) = claimable(sc, j, after) else {
            return unknown("became claimable at an instant the admission rules do not fix");
        };
        let wait =
            match (j.outcome.as_str(), j.attempts) {
                ("expired", 0) => vec![(c, j.finish.unwrap_or(c))],
                ("unfinished", _) => return unknown("was unfinished when the run stopped"),
                (_, 2) if backoff => return unknown("was retried after a backoff jobs.csv does not give"),
                _ => match waiting(j, c) {
                    Some(w) => w,
                    None => return unknown(
                        "ran in slices, 3+ attempts or expired after running: its waits are not all known",
                    ),
                },
            };
        let (iv, complete) = busy(sc, j);
        if !complete {
            return unknown("has busy intervals jobs.csv does not give");
        }
        let k = k as u32;
        for (a, b) in iv {
            ev.extend([(a, 1, 0, k), (b, -1, 0, k)]);
        }
        for (a, b) in wait.into_iter().filter(|(a, b)| b > a) {
            ev.extend([(a, 0, 1, k), (b, 0, -1, k)]);
        }
    }
    ev.sort_unstable();
    let workers = i64::from(sc.workers);
    let (mut running, mut waiting_now, mut stretches) = (0i64, 0i64, 0u64);
    for (i, &(t, db, dw, _)) in ev.iter().enumerate() {
        running += i64::from(db);
        waiting_now += i64::from(dw);
        let next = ev.get(i + 1).map_or(t, |e| e.0);
        if next > t && waiting_now > 0 {
            stretches += 1;
            if running < workers {
                // the job that waited longest through the stretch
                let j = run
                    .jobs
                    .iter()
                    .filter(|j| {
                        j.outcome != "rejected"
                            && claimable(sc, j, after).is_some_and(|c| c <= t)
                            && j.start.or(j.finish).is_some_and(|s| s >= next)
                    })
                    .min_by_key(|j| (claimable(sc, j, after), j.id))
                    .or_else(|| run.jobs.get(ev[i].3 as usize));
                let rows: Vec<_> = j.into_iter().collect();
                return Err(run.violation(
                    RULE,
                    t,
                    j,
                    format!(
                        "from {} to {}, {waiting_now} jobs waited while {running} of {workers} workers ran",
                        secs(t),
                        secs(next)
                    ),
                    &rows,
                ));
            }
        }
    }
    Ok(Verdict::Checked(format!("{stretches} stretches with jobs waiting, each with every worker busy")))
}

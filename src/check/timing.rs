//! Rules on each job's own row: it ends once, starts after it became
//! claimable, runs for its service, and names a tenant.

use rustc_hash::FxHashMap as HashMap;

use super::jobs::{claimable, common_after, JobRow};
use super::table::secs;
use super::{RuleResult, Run, Verdict};

/// `ends-once`: one row per job id 0..n, each with an outcome whose cells
/// agree with it (a started job has a finish, a rejected one no start).
pub fn ends_once(run: &Run) -> RuleResult {
    const RULE: &str = "ends-once";
    let mut seen: HashMap<u64, &JobRow> = HashMap::default();
    for j in &run.jobs {
        if let Some(first) = seen.insert(j.id, j) {
            return Err(run.violation(
                RULE,
                j.arrival,
                Some(j),
                format!("job {} has two rows: it ended twice", j.id),
                &[first, j],
            ));
        }
        let ok = match j.outcome.as_str() {
            "completed" | "failed" => j.start.is_some() && j.finish.is_some() && j.attempts >= 1,
            "rejected" => j.start.is_none() && j.finish.is_none() && j.attempts == 0,
            // started is `slices` (every start), not `attempts`: a start a
            // capacity loss or preemption stopped is no attempt
            "expired" => (j.slices == 0) == j.start.is_none() && j.start.is_some() == j.finish.is_some(),
            // still queued or running when the run stopped
            "unfinished" => j.finish.is_none(),
            _ => false,
        };
        if !ok {
            return Err(run.violation(
                RULE,
                j.finish.or(j.start).unwrap_or(j.arrival),
                Some(j),
                format!(
                    "outcome `{}` with start `{}`, finish `{}` and {} attempts is not one clean end",
                    j.outcome,
                    j.start.map_or("-".into(), secs),
                    j.finish.map_or("-".into(), secs),
                    j.attempts
                ),
                &[j],
            ));
        }
    }
    let n = run.jobs.len() as u64;
    if let Some(j) = run.jobs.iter().find(|j| j.id >= n) {
        // n rows, n distinct ids, one of them >= n: some id below n is missing
        let gap = (0..n).find(|i| !seen.contains_key(i)).unwrap_or(0);
        return Err(run.violation(
            RULE,
            j.arrival,
            Some(j),
            format!("job {gap} has no row (ids run to {}): a job that never ended", j.id),
            &[j],
        ));
    }
    Ok(Verdict::Checked(format!("{n} jobs, ids 0..{n} each once")))
}

/// `start-after-arrival`: no job starts before it arrived, nor before
/// admission made it claimable (a re-send or a deferral, replayed from the
/// scenario's rules when they say when).
pub fn start_after_arrival(run: &Run) -> RuleResult {
    const RULE: &str = "start-after-arrival";
    let after = common_after(&run.sc);
    let (mut n, mut replayed) = (0, 0);
    for j in &run.jobs {
        let Some(s) = j.start else { continue };
        n += 1;
        if s < j.arrival {
            return Err(run.violation(
                RULE,
                s,
                Some(j),
                format!("started at {} before its arrival at {}", secs(s), secs(j.arrival)),
                &[j],
            ));
        }
        if j.resends > 0 || j.deferred {
            if let Some(c) = claimable(&run.sc, j, after) {
                replayed += 1;
                if s < c {
                    return Err(run.violation(
                        RULE,
                        s,
                        Some(j),
                        format!("started at {} before admission made it claimable at {}", secs(s), secs(c)),
                        &[j],
                    ));
                }
            }
        }
    }
    Ok(Verdict::Checked(format!(
        "{n} started jobs ({replayed} re-sent or deferred, from their admission rule)"
    )))
}

/// `finish`: a job run in one attempt of one slice finishes at start +
/// service exactly; one with several attempts or slices no earlier than
/// start + attempts x service (what happened in between is not in jobs.csv).
pub fn finish(run: &Run) -> RuleResult {
    const RULE: &str = "finish";
    let sc = &run.sc;
    // a slowdown stretches an attempt past its service, by a factor the
    // row does not give; a capacity loss may cut one short
    let stretched = !sc.slowdowns.is_empty();
    let shrinks = sc.slowdowns.iter().any(|s| s.factor < 1.0) || !sc.capacity.is_empty();
    let (mut exact, mut bounded) = (0, 0);
    for j in &run.jobs {
        let (Some(s), Some(f)) = (j.start, j.finish) else { continue };
        if j.outcome == "expired" {
            if f < s {
                return Err(run.violation(
                    RULE,
                    f,
                    Some(j),
                    format!("expired at {} before its start", secs(f)),
                    &[j],
                ));
            }
            continue;
        }
        if j.single() && !stretched && sc.capacity.is_empty() {
            exact += 1;
            if f != s + j.service {
                return Err(run.violation(
                    RULE,
                    f,
                    Some(j),
                    format!(
                        "one attempt, one slice: finish {} should be start {} + service {} = {}",
                        secs(f),
                        secs(s),
                        secs(j.service),
                        secs(s + j.service)
                    ),
                    &[j],
                ));
            }
        } else if !shrinks {
            bounded += 1;
            let least = s + j.attempts * j.service;
            if f < least {
                return Err(run.violation(
                    RULE,
                    f,
                    Some(j),
                    format!(
                        "{} attempts of {} each cannot finish at {}, before {}",
                        j.attempts,
                        secs(j.service),
                        secs(f),
                        secs(least)
                    ),
                    &[j],
                ));
            }
        }
    }
    let mut what = format!("{exact} single runs exactly, {bounded} retried or sliced as a lower bound");
    if stretched || shrinks {
        what.push_str(" (slowdowns or capacity changes: lengths not exact)");
    }
    Ok(Verdict::Checked(what))
}

/// `stop-tenant-identity` (the fairness-log article: "tenant identity on jobs is missing"):
/// every job names a tenant the scenario declares (or, with a trace, any
/// non-empty tenant: the trace declares its own).
pub fn tenant_identity(run: &Run) -> RuleResult {
    const RULE: &str = "stop-tenant-identity";
    let traced = !run.sc.traces.is_empty();
    for j in &run.jobs {
        let known = !j.tenant.is_empty() && (traced || run.sc.tenants.id_of(&j.tenant).is_some());
        if !known {
            return Err(run.violation(
                RULE,
                j.arrival,
                Some(j),
                format!("tenant `{}` is missing or not declared in scenario.yaml", j.tenant),
                &[j],
            ));
        }
    }
    Ok(Verdict::Checked(format!("{} jobs name a known tenant", run.jobs.len())))
}

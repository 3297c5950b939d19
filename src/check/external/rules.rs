//! The rules whose fairsim form reads what only fairsim's jobs.csv has
//! (ids 0..n, outcomes, one attempt's service), restated for a table from
//! production: ids once, finish not before start, resource amounts summed,
//! a tenant on every row.

use std::collections::{BTreeSet, HashMap};

use super::super::table::secs;
use super::super::{RuleResult, Run, Verdict};
use super::read::External;

/// `ends-once`: no job id on two rows, and no row finished without a start.
pub fn ends_once(run: &Run, ext: &External) -> RuleResult {
    const RULE: &str = "ends-once";
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (k, j) in run.jobs.iter().enumerate() {
        let id = ext.ids[k].as_str();
        if !id.is_empty() {
            if let Some(first) = seen.insert(id, k) {
                return Err(run.violation(
                    RULE,
                    j.arrival,
                    Some(j),
                    format!("job id `{id}` is on two rows: it ended twice"),
                    &[&run.jobs[first], j],
                ));
            }
        }
        if let ("completed", None, Some(f)) = (j.outcome.as_str(), j.start, j.finish) {
            return Err(run.violation(RULE, f, Some(j), "finished without a start".into(), &[j]));
        }
    }
    let with_ids = seen.len();
    let mut what = format!("{} rows ({with_ids} with an id, each once)", run.jobs.len());
    if ext.queued + ext.running > 0 {
        what.push_str(&format!(
            "; {} queued and {} running at the table's last instant {}, taken to wait or run until then",
            ext.queued,
            ext.running,
            secs(ext.horizon)
        ));
    }
    Ok(Verdict::Checked(what))
}

/// `finish`: no job finishes before it started.
pub fn finish(run: &Run) -> RuleResult {
    let mut n = 0;
    for j in &run.jobs {
        let (Some(s), Some(f)) = (j.start, j.finish) else { continue };
        n += 1;
        if f < s {
            return Err(run.violation(
                "finish",
                f,
                Some(j),
                format!("finished at {} before its start at {}", secs(f), secs(s)),
                &[j],
            ));
        }
    }
    Ok(Verdict::Checked(format!("{n} finished jobs end at or after their start")))
}

/// `resources`: the amounts of the jobs running at once never exceed a
/// resource's capacity (SWF processors against `procs`/`slots`, CSV
/// `cost` columns), over `[start, finish)` of each finished job.
pub fn resources(run: &Run, ext: &External) -> RuleResult {
    const RULE: &str = "resources";
    if ext.costs.is_empty() {
        return Ok(Verdict::Skipped(
            "no resource amounts: the scenario (--scenario) has no `resources:` the table's columns fill"
                .into(),
        ));
    }
    let mut what = Vec::new();
    for (d, amounts) in &ext.costs {
        let (name, cap) = &run.sc.resources[*d];
        // (time, 0 = end before 1 = start at one instant, job)
        let mut ev: Vec<(i64, u8, usize)> = Vec::new();
        for (k, j) in run.jobs.iter().enumerate() {
            if let (Some(s), Some(f)) = (j.start, j.finish) {
                if f > s {
                    ev.extend([(s, 1, k), (f, 0, k)]);
                }
            }
        }
        ev.sort_unstable();
        // summed in u128: no sum of u64 amounts overflows it
        let (mut used, mut open) = (0u128, BTreeSet::new());
        for (t, kind, k) in ev {
            if kind == 0 {
                used -= u128::from(amounts[k]);
                open.remove(&k);
                continue;
            }
            used += u128::from(amounts[k]);
            open.insert(k);
            if used > u128::from(*cap) {
                // the rows that show it: the job that went over, then the others (at most 10)
                let rows: Vec<_> = std::iter::once(k)
                    .chain(open.iter().copied().filter(|&o| o != k))
                    .take(10)
                    .map(|o| &run.jobs[o])
                    .collect();
                return Err(run.violation(
                    RULE,
                    t,
                    Some(&run.jobs[k]),
                    format!(
                        "{used} of {name} in use by {} jobs at once, over its capacity {cap}",
                        open.len()
                    ),
                    &rows,
                ));
            }
        }
        what.push(format!("{name} (capacity {cap})"));
    }
    Ok(Verdict::Checked(what.join(", ")))
}

/// `stop-tenant-identity` (the fairness-log article): every row names a tenant.
pub fn tenant_identity(run: &Run) -> RuleResult {
    if let Some(j) = run.jobs.iter().find(|j| j.tenant.is_empty()) {
        return Err(run.violation(
            "stop-tenant-identity",
            j.arrival,
            Some(j),
            "the tenant is empty".into(),
            &[j],
        ));
    }
    Ok(Verdict::Checked(format!("{} rows name a tenant", run.jobs.len())))
}

//! Rules on how many jobs ran at once: in all (workers, and each pool's
//! workers under a topology), per tenant (caps), and the fairness-log article's "a single
//! tenant occupies every worker while another tenant is waiting".

use rustc_hash::FxHashMap as HashMap;

use crate::model::Spare;

use super::jobs::{busy, claim_of, claimable, common_after, first_claim_bounds};
use super::sweep::{first_over, Span, Steps};
use super::{RuleResult, Run, Verdict, Violation};

/// Every interval jobs.csv fixes as surely held, and whether each job's are
/// all of its intervals.
fn spans(run: &Run) -> (Vec<Span>, Vec<bool>) {
    let mut out = Vec::new();
    let mut complete = Vec::with_capacity(run.jobs.len());
    for (k, j) in run.jobs.iter().enumerate() {
        let (iv, all) = busy(&run.sc, j);
        complete.push(all);
        // a claim cost takes the worker a claim before each start; the
        // intervals after the first begin at the last start, in jobs.csv's pool
        let (first, last) = (first_claim_bounds(&run.sc, j).0, claim_of(&run.sc, j));
        out.extend(iv.into_iter().enumerate().map(|(n, (from, to))| Span {
            from: from - if n == 0 { first } else { last },
            to,
            job: k,
        }));
    }
    (out, complete)
}

/// Why the intervals of this run are not sure, if they are not.
fn unsure(run: &Run) -> Option<&'static str> {
    if !run.sc.capacity.is_empty() {
        return Some("`capacity:` changes the worker count over time and may cut attempts short");
    }
    if run.sc.slowdowns.iter().any(|s| s.factor < 1.0) {
        return Some("a slowdown factor below 1 shortens attempts by an amount jobs.csv does not give");
    }
    None
}

fn over(run: &Run, rule: &'static str, t: i64, culprit: Span, open: &[Span], what: String) -> Violation {
    let mut rows: Vec<&super::JobRow> = open.iter().map(|s| &run.jobs[s.job]).collect();
    rows.dedup_by_key(|j| j.id);
    run.violation(rule, t, Some(&run.jobs[culprit.job]), what, &rows)
}

/// `workers`: never more attempts at once than workers, nor than a pool's
/// workers under a topology (over every interval jobs.csv fixes: an
/// attempt lasts its service; the first starts at `start`, the last ends
/// at `finish`; a sliced job's first slice).
pub fn workers(run: &Run) -> RuleResult {
    const RULE: &str = "workers";
    if let Some(why) = unsure(run) {
        return Ok(Verdict::Skipped(why.into()));
    }
    let (all, _) = spans(run);
    let w = i64::from(run.sc.workers);
    let mut what = format!("{} attempt intervals", all.len());
    if run.sc.workers != u32::MAX {
        if let Some((t, culprit, open)) = first_over(&all, w) {
            return Err(over(
                run,
                RULE,
                t,
                culprit,
                &open,
                format!("{} jobs ran at once on {w} workers", open.len()),
            ));
        }
        what.push_str(&format!(" against {w} workers"));
    } else {
        what.push_str(" (no worker count: resources alone bound the pool)");
    }
    if let Some(topo) = run.sc.run_topology() {
        let mut by_pool: HashMap<&str, Vec<Span>> = HashMap::default();
        // jobs.csv names the pool of a job's last start: only a job started
        // once surely ran there
        for s in all.iter().filter(|s| run.jobs[s.job].slices == 1) {
            by_pool.entry(run.jobs[s.job].pool.as_str()).or_default().push(*s);
        }
        for p in &topo.pools {
            let Some(sp) = by_pool.get(p.name.as_str()) else { continue };
            if let Some((t, culprit, open)) = first_over(sp, i64::from(p.workers)) {
                return Err(over(
                    run,
                    RULE,
                    t,
                    culprit,
                    &open,
                    format!("{} jobs ran at once in pool {} of {} workers", open.len(), p.name, p.workers),
                ));
            }
        }
        what.push_str(&format!(", and each of {} pools (jobs started once)", topo.pools.len()));
    }
    Ok(Verdict::Checked(what))
}

/// `resources`: per-resource capacity needs each job's cost, which
/// jobs.csv does not carry.
pub fn resources(run: &Run) -> RuleResult {
    if run.sc.resources.is_empty() {
        return Ok(Verdict::Skipped("the scenario has no `resources:`".into()));
    }
    Ok(Verdict::Skipped(
        "jobs.csv has no cost column: resource capacity cannot be summed from the files".into(),
    ))
}

/// Per tenant: the step function of its sure running intervals, whether
/// they are all of them, and its waiting intervals (claimable to start).
struct Tenants<'r> {
    running: HashMap<&'r str, Steps>,
    complete: HashMap<&'r str, bool>,
    waiting: HashMap<&'r str, Steps>,
    /// Each tenant's own spans (for starts and violations).
    spans: HashMap<&'r str, Vec<Span>>,
}

fn tenants(run: &Run) -> Tenants<'_> {
    let (all, complete) = spans(run);
    let after = common_after(&run.sc);
    let mut t = Tenants {
        running: HashMap::default(),
        complete: HashMap::default(),
        waiting: HashMap::default(),
        spans: HashMap::default(),
    };
    let mut waits: HashMap<&str, Vec<(i64, i64)>> = HashMap::default();
    for (k, j) in run.jobs.iter().enumerate() {
        let ok = t.complete.entry(j.tenant.as_str()).or_insert(true);
        *ok &= complete[k];
        if j.outcome == "rejected" {
            continue;
        }
        // the first wait is always known: claimable until the first start,
        // the expiry, or the end of the run
        let Some(c) = claimable(&run.sc, j, after) else { continue };
        let end =
            match (j.start.map(|s| s - first_claim_bounds(&run.sc, j).1).or(j.finish), j.outcome.as_str()) {
                (Some(e), _) => e,
                (None, "unfinished") => i64::MAX,
                // expired unstarted: jobs.csv does not say when it left
                (None, _) => continue,
            };
        waits.entry(j.tenant.as_str()).or_default().push((c, end));
    }
    for s in all {
        t.spans.entry(run.jobs[s.job].tenant.as_str()).or_default().push(s);
    }
    for (name, sp) in &t.spans {
        t.running.insert(name, Steps::new(sp.iter().map(|s| (s.from, s.to))));
    }
    for (name, w) in waits {
        t.waiting.insert(name, Steps::new(w));
    }
    t
}

fn cap_of(run: &Run, tenant: &str) -> Option<i64> {
    run.sc.tenants.id_of(tenant).and_then(|id| run.sc.tenants.cap(id)).map(i64::from)
}

/// A tenant other than `t` that was claimable just after the dispatch at
/// `at`: a job waiting across it, and fewer running than its cap (known
/// only when all its intervals are).
fn claimable_other<'r>(run: &Run, ts: &Tenants<'r>, t: &str, at: i64) -> Option<&'r str> {
    ts.waiting.iter().find_map(|(&u, w)| {
        if u == t || w.count(at) == 0 || !ts.complete.get(u).copied().unwrap_or(true) {
            return None;
        }
        let running = ts.running.get(u).map_or(0, |r| r.count(at));
        (running < cap_of(run, u).unwrap_or(i64::MAX)).then_some(u)
    })
}

/// `caps`: under `spare: hold` a tenant never runs more jobs than its cap;
/// under `lend` it goes over its cap only while no other tenant is
/// claimable (has a job waiting and is below its own cap).
pub fn caps(run: &Run) -> RuleResult {
    const RULE: &str = "caps";
    let Some(spec) = &run.spec else {
        return Ok(Verdict::Skipped(format!(
            "`{}` is not a policy label of scenario.yaml (a --policy override)",
            run.label
        )));
    };
    if !run.sc.tenants.any_cap() {
        return Ok(Verdict::Skipped("no tenant has a cap".into()));
    }
    if let Some(why) = unsure(run) {
        return Ok(Verdict::Skipped(why.into()));
    }
    let ts = tenants(run);
    let mut checked = 0;
    for (&t, sp) in &ts.spans {
        let Some(cap) = cap_of(run, t) else { continue };
        checked += 1;
        match spec.spare {
            Spare::Hold => {
                if let Some((at, culprit, open)) = first_over(sp, cap) {
                    return Err(over(
                        run,
                        RULE,
                        at,
                        culprit,
                        &open,
                        format!(
                            "tenant {t} ran {} jobs at once, over its cap {cap}, under spare: hold",
                            open.len()
                        ),
                    ));
                }
            }
            Spare::Lend => {
                if run.sc.run_topology().is_some()
                    || !run.sc.resources.is_empty()
                    || spec.cap_delay.is_some()
                    || run.sc.limits_starts()
                {
                    return Ok(Verdict::Skipped(
                        "spare: lend with a topology, resources, on_cap or start limits: whether another tenant was claimable depends on state jobs.csv does not give".into(),
                    ));
                }
                let running = &ts.running[t];
                for s in sp {
                    if running.count(s.from) <= cap {
                        continue;
                    }
                    if let Some(u) = claimable_other(run, &ts, t, s.from) {
                        let j = &run.jobs[s.job];
                        let w = run.jobs.iter().find(|o| {
                            o.tenant == u && o.start.is_none_or(|st| st > s.from) && o.arrival <= s.from
                        });
                        let rows: Vec<_> = std::iter::once(j).chain(w).collect();
                        return Err(run.violation(
                            RULE,
                            s.from,
                            Some(j),
                            format!(
                                "tenant {t} ran {} jobs, over its cap {cap}, while tenant {u} had a job waiting below its cap (spare: lend lends only when no other tenant is claimable)",
                                running.count(s.from)
                            ),
                            &rows,
                        ));
                    }
                }
            }
        }
    }
    let mode = match spec.spare {
        Spare::Hold => "hold",
        Spare::Lend => "lend",
    };
    Ok(Verdict::Checked(format!("{checked} capped tenants under spare: {mode}")))
}

/// `stop-one-tenant-holds-all` (the fairness-log article): no dispatch leaves one capped
/// tenant holding every worker while another tenant is claimable. As the
/// engine's audit, for round_robin with caps only: without a cap a tenant
/// may hold every worker (round robin counts jobs, not service), and other
/// policies promise no rotation.
pub fn one_tenant_holds_all(run: &Run) -> RuleResult {
    const RULE: &str = "stop-one-tenant-holds-all";
    let Some(spec) = &run.spec else {
        return Ok(Verdict::Skipped(format!("`{}` is not a policy label of scenario.yaml", run.label)));
    };
    if spec.kind != "round_robin" || !run.sc.tenants.any_cap() {
        return Ok(Verdict::Skipped(
            "round_robin with caps only (other policies promise no rotation)".into(),
        ));
    }
    if run.sc.workers < 2 {
        return Ok(Verdict::Skipped("one worker: whoever runs holds every worker".into()));
    }
    if run.sc.workers == u32::MAX || run.sc.run_topology().is_some() || !run.sc.resources.is_empty() {
        return Ok(Verdict::Skipped("needs one pool of a fixed worker count".into()));
    }
    if let Some(why) = unsure(run) {
        return Ok(Verdict::Skipped(why.into()));
    }
    let ts = tenants(run);
    let w = i64::from(run.sc.workers);
    let mut starts = 0;
    for (&t, sp) in &ts.spans {
        // a cap of at least every worker lets a tenant hold them all by right
        if cap_of(run, t).is_none_or(|c| c >= w) {
            continue;
        }
        for s in sp {
            starts += 1;
            if ts.running[t].count(s.from) < w {
                continue;
            }
            if let Some(u) = claimable_other(run, &ts, t, s.from) {
                let j = &run.jobs[s.job];
                return Err(run.violation(
                    RULE,
                    s.from,
                    Some(j),
                    format!("tenant {t} was given the last of {w} workers, holding them all, while tenant {u} was claimable"),
                    &[j],
                ));
            }
        }
    }
    Ok(Verdict::Checked(format!("{starts} starts of capped tenants")))
}

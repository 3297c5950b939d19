//! The one validation gate for policy entries: every entry of a scenario,
//! every inline `--policy` entry and every policy `--policy NAME` picks
//! with default parameters is built here once, against the scenario as its
//! run sees it, so what a policy's builder refuses (checks between its
//! parameters, or against its topology's pool) is refused when the scenario
//! is loaded, at the parameter's line and column. `validate`, `run`,
//! `sweep` and `tune` then refuse the same things at the same place.

use std::path::Path;

use crate::error::{Error, Result};
use crate::model::policy::ParamError;
use crate::model::{PolicySpec, Poll, Scenario, TopologySpec};
use crate::policy;
use crate::time::Time;
use crate::topology::planner::Planner;

use super::policies::inline_source;

/// Builds each of the scenario's policy entries once; the first refusal is
/// an input error at its place in the file.
pub(super) fn check_policies(sc: &Scenario) -> Result<()> {
    for spec in &sc.policies {
        check(sc, spec).map_err(|e| policy_error(&sc.source, spec, e))?;
    }
    Ok(())
}

/// [`check_policies`] for entries given inline as `--policy TEXT`; errors
/// name the option.
pub(super) fn check_inline(sc: &Scenario, inline: &[String], specs: &[PolicySpec]) -> Result<()> {
    for (text, spec) in inline.iter().zip(specs) {
        check(sc, spec).map_err(|e| policy_error(&inline_source(text), spec, e))?;
    }
    Ok(())
}

/// Builds `spec` as the run will: over its topology's workers and
/// admission rules ([`Scenario::for_run`]), with a planner's ledger policy
/// too. A topology's dispatcher builds the same entry once per queue
/// against the same scenario, so one build answers for every queue (and
/// costs nothing per queue).
fn check(sc: &Scenario, spec: &PolicySpec) -> std::result::Result<(), ParamError> {
    let run_sc = sc.for_run(spec);
    let sc: &Scenario = &run_sc;
    // each refused claim is an event, as a start is: they count in the same limit
    let refusals = sc.expected_refusals(spec);
    if refusals > super::MAX_JOBS as f64 {
        return Err(ParamError {
            param: None,
            message: format!(
                "`on_cap: {{refuse: each}}` would refuse about {refusals:.3e} claims (each capped job once per delay while it waits); fairsim simulates at most {} events of a kind per run, so use a longer `delay`, `refuse: first`, or fewer capped jobs",
                super::MAX_JOBS
            ),
        });
    }
    merged_order(sc.run_topology(), spec)?;
    match sc.run_topology() {
        Some(TopologySpec { planner: Some(p), .. }) => {
            Planner::build(sc, spec, p, Default::default()).map(drop)
        }
        _ => policy::build(spec, sc).map(drop),
    }
}

/// A pool polling `merged` tries its queues by their first job in the
/// policy's order, which only `fifo` and plain `priority` define by a key
/// the queues can compare.
fn merged_order(t: Option<&TopologySpec>, spec: &PolicySpec) -> std::result::Result<(), ParamError> {
    let Some(pool) = t.and_then(|t| t.pools.iter().find(|p| p.poll == Poll::Merged)) else { return Ok(()) };
    let ordered = spec.kind == "fifo" || (spec.kind == "priority" && spec.params.value("then").is_none());
    if ordered {
        return Ok(());
    }
    Err(ParamError {
        param: None,
        message: format!(
            "pool `{}` polls its queues merged (as one queue, in the order of fifo or priority), which `{}` does not define; use `policy: fifo` or `policy: priority` with this topology",
            pool.name, spec.kind
        ),
    })
}

/// Maps a builder's complaint about a policy's parameters to an input error
/// at the parameter's place (or the entry's).
fn policy_error(source: &Path, spec: &PolicySpec, e: ParamError) -> Error {
    let (line, col) = e.param.and_then(|p| spec.params.place(p)).unwrap_or((spec.line, spec.column));
    Error::input(source, line, col, format!("policy `{}`: {}", spec.kind, e.message))
}

/// Whether a `--policy` value is an inline entry rather than a name.
pub fn is_inline(value: &str) -> bool {
    value.trim_start().starts_with('{')
}

/// Keeps the policies `--policy` names, in the order given: labels of the
/// scenario, policy names with default parameters, and the inline entries
/// (`inline`, built by [`super::load_with_inline_policies`], in their order
/// among the values). An inline entry without `label:` is labelled by its
/// policy, numbered when taken. A policy named with default parameters is
/// checked here, the other entries were when loaded.
pub fn select_policies(sc: &mut Scenario, names: &[String], inline: Vec<PolicySpec>) -> Result<()> {
    if names.is_empty() {
        return Ok(());
    }
    let mut inline = inline.into_iter();
    let mut chosen: Vec<PolicySpec> = Vec::new();
    for name in names {
        let spec = if is_inline(name) {
            let Some(mut spec) = inline.next() else {
                return Err(Error::Usage(format!(
                    "--policy {name}: inline entries are not taken here; name a label of the scenario or a policy"
                )));
            };
            if spec.label.is_empty() {
                let taken = |l: &str| chosen.iter().any(|c| c.label.eq_ignore_ascii_case(l));
                let mut label = spec.kind.clone();
                let mut n = 2;
                while taken(&label) || names.iter().any(|other| !is_inline(other) && other == &label) {
                    label = format!("{}-{n}", spec.kind);
                    n += 1;
                }
                spec.label = label;
            }
            spec
        } else {
            match sc.policies.iter().find(|p| &p.label == name) {
                Some(p) => p.clone(),
                None if policy::find(name).is_some() => {
                    let spec = PolicySpec::named(name);
                    check(sc, &spec).map_err(|e| policy_error(&sc.source, &spec, e))?;
                    spec
                }
                None => {
                    let labels: Vec<&str> = sc.policies.iter().map(|p| p.label.as_str()).collect();
                    return Err(Error::Usage(format!(
                        "--policy {name}: not a label in {} ({}) and {}; or give an entry inline, e.g. --policy '{{policy: wfq, cost: work}}'",
                        sc.source.display(),
                        labels.join(", "),
                        policy::unknown_policy(name)
                    )));
                }
            }
        };
        if chosen.iter().any(|c| c.label.eq_ignore_ascii_case(&spec.label)) {
            return Err(Error::Usage(format!(
                "--policy {name}: the label `{}` is given twice; add a `label:` to tell them apart",
                spec.label
            )));
        }
        chosen.push(spec);
    }
    sc.policies = chosen;
    Ok(())
}

/// Refuses a workload whose fixed work cannot end inside simulated time:
/// the jobs of known count and constant service add up to more than the
/// most workers the run ever has could finish before the horizon, so the
/// run would stop at a start past it. Decided by the scenario alone, so
/// `validate` says it where `run` would fail mid-way. A lower bound only:
/// drawn services, retries and slowdowns are left out, a Poisson entry with
/// a `stop` counts n - 7 sqrt(n) of its expected n jobs (fewer come with a
/// chance of about 1e-12), and
/// nothing is judged where work may not run at all (admission rules, jobs
/// with deadlines) or run shorter (a slowdown below 1).
pub(super) fn check_makespan(sc: &Scenario) -> Result<()> {
    use crate::model::{ArrivalSpec, ServiceSpec};
    use crate::time::{HORIZON, HORIZON_TEXT};
    // admission may reject jobs, so their work may never run
    let admits = !sc.admission.is_empty() || !sc.admission_sets.is_empty();
    if sc.workers == u32::MAX || admits || sc.slowdowns.iter().any(|s| s.factor < 1.0) {
        return Ok(());
    }
    let pools = sc.topologies.iter().map(|t| t.pools.iter().map(|p| u64::from(p.workers)).sum::<u64>());
    let most =
        sc.capacity.iter().map(|c| u64::from(c.workers)).chain(pools).fold(u64::from(sc.workers), u64::max);
    let (mut work, mut first, mut biggest) = (0u128, Time::MAX, None::<(u128, usize)>);
    for e in &sc.workload {
        // a job with a deadline may be dropped unstarted
        let (ServiceSpec::Constant(s), None) = (&e.service, e.deadline) else { continue };
        let s = *s;
        let (n, start) = match e.arrivals {
            ArrivalSpec::Batch { count, at } => (count, at),
            ArrivalSpec::Every { every, start, stop, count } if stop.is_some() || count.is_some() => {
                let by_time = stop.map_or(u64::MAX, |t| t.saturating_sub(start) / every.max(1) + 1);
                (count.unwrap_or(u64::MAX).min(by_time), start)
            }
            // bursts make the count vary more than a Poisson count's
            ArrivalSpec::Poisson { ref profile, .. }
                if profile.as_ref().is_some_and(|p| p.bursts.is_some()) =>
            {
                continue
            }
            ArrivalSpec::Poisson { start, stop, count, .. } if stop.is_some() || count.is_some() => {
                // a count is exact; a stop draws Poisson(n) jobs (n the rate
                // integrated over the profile), at least n - 7 sqrt(n) but
                // with a chance of about 1e-12
                let by_time = match stop {
                    None => u64::MAX,
                    Some(_) => {
                        let n = e.arrivals.expected_count();
                        (n - 7.0 * n.sqrt()).max(0.0) as u64
                    }
                };
                (count.unwrap_or(u64::MAX).min(by_time), start)
            }
            _ => continue,
        };
        let w = u128::from(n) * u128::from(s);
        work += w;
        first = first.min(start);
        if biggest.is_none_or(|(b, _)| w > b) {
            biggest = Some((w, e.line));
        }
    }
    let Some((_, line)) = biggest else { return Ok(()) };
    let end = u128::from(first) + work / u128::from(most.max(1));
    if end <= u128::from(HORIZON) {
        return Ok(());
    }
    Err(Error::input(
        &sc.source,
        line,
        0,
        format!(
            "the jobs of fixed service add up to {} s of work for at most {most} workers: the last cannot finish before {} s, past {HORIZON_TEXT}; lower the counts or service times",
            work / 1_000_000,
            end / 1_000_000
        ),
    ))
}

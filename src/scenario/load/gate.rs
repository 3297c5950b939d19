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
use crate::model::{PolicySpec, Scenario, TopologySpec};
use crate::policy;
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
    match sc.run_topology() {
        Some(TopologySpec { planner: Some(p), .. }) => {
            Planner::build(sc, spec, p, Default::default()).map(drop)
        }
        _ => policy::build(spec, sc).map(drop),
    }
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

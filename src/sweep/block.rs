//! The scenario's `sweep:` block as `fairsim sweep`'s options: what the
//! command line leaves out is taken from the block. Each option given on
//! the command line replaces the block's whole entry (`--set` replaces the
//! block's grid, `--policy` its policies), so the command line alone says
//! what a run covers when it gives an option.
//!
//! A value the block gives is judged here, against the scenario, so its
//! error names the file, line and column rather than an option never typed.

use std::path::Path;

use serde_saphyr::Spanned;

use super::grid::Axis;
use super::SweepArgs;
use crate::error::{Error, Result};
use crate::model::Scenario;
use crate::scenario::raw_sweep::{RawSet, SweepOnly};

/// Seeds per point when neither `--seeds` nor the block gives them.
pub const DEFAULT_SEEDS: u64 = 30;

fn at<T>(path: &Path, s: &Spanned<T>, msg: impl Into<String>) -> Error {
    Error::input(path, s.referenced.line() as usize, s.referenced.column() as usize, msg)
}

/// `args` completed from the scenario's `sweep:` block; `select` keeps the
/// named policies of a scenario (the command line's rules), used to judge
/// the block's `policies` and `baseline`.
pub fn apply(
    mut args: SweepArgs,
    select: &dyn Fn(&mut Scenario, &[String]) -> Result<()>,
) -> Result<SweepArgs> {
    let path = args.scenario.clone();
    let Ok(text) = std::fs::read_to_string(&path) else {
        // the scenario's loader reports an unreadable file, with its advice
        return Ok(args);
    };
    let block = match serde_saphyr::from_str::<SweepOnly>(&text) {
        Ok(SweepOnly { sweep: Some(b) }) => b.value,
        // no block; or a file the loader will refuse with its own message
        _ => return Ok(args),
    };
    if args.seeds.is_none() {
        if let Some(s) = &block.seeds {
            if s.value == 0 {
                return Err(at(
                    &path,
                    s,
                    "sweep: seeds: 0: a sweep needs at least one seed per point; write e.g. `seeds: 30`",
                ));
            }
            args.seeds = Some(s.value);
        }
    }
    if args.sets.is_empty() {
        if let Some(set) = &block.set {
            args.axes = axes(&path, set)?;
        }
    }
    let from_block = args.policies.is_empty() && block.policies.is_some();
    let needs_scenario = from_block || (args.baseline.is_none() && block.baseline.is_some());
    if !needs_scenario {
        return Ok(args);
    }
    // the policies and baseline are names in the scenario: judge them there
    // (an unloadable scenario is left to the sweep, which reports it)
    let Ok(base) = crate::scenario::load_unscanned(&path) else {
        return Ok(args);
    };
    if let (true, Some(list)) = (from_block, &block.policies) {
        if list.value.is_empty() {
            return Err(at(
                &path,
                list,
                "sweep: policies: an empty list; name at least one policy, or leave the key out to run all",
            ));
        }
        for name in &list.value {
            select(&mut base.clone(), std::slice::from_ref(&name.value)).map_err(|e| {
                let why = match e {
                    Error::Usage(m) | Error::Input { message: m, .. } => m,
                    other => other.to_string(),
                };
                // the command line's message names an option the block did not type
                let why = why
                    .strip_prefix(&format!("--policy {}: ", name.value))
                    .map_or(why.clone(), str::to_string);
                at(&path, name, format!("sweep: policies: {why}"))
            })?;
        }
        args.policies = list.value.iter().map(|n| n.value.clone()).collect();
    }
    if let (None, Some(b)) = (&args.baseline, &block.baseline) {
        let mut sc = base.clone();
        select(&mut sc, &args.policies)?;
        let labels: Vec<&str> = sc.policies.iter().map(|p| p.label.as_str()).collect();
        if !labels.contains(&b.value.as_str()) {
            return Err(at(
                &path,
                b,
                format!(
                    "sweep: baseline: `{}` is not among the sweep's policies ({})",
                    b.value,
                    labels.join(", ")
                ),
            ));
        }
        args.baseline = Some(b.value.clone());
    }
    Ok(args)
}

/// The block's `set:` as the grid's axes, in the block's order.
fn axes(path: &Path, set: &Spanned<RawSet>) -> Result<Vec<Axis>> {
    let mut out = Vec::new();
    for (key, values) in &set.value.0 {
        if key.trim().is_empty() || key.split('.').any(|p| p.trim().is_empty()) {
            return Err(at(
                path,
                values,
                format!("sweep: set: `{key}`: the key is empty or has an empty part; write a path such as tenants.A.cap"),
            ));
        }
        if values.value.is_empty() {
            return Err(at(
                path,
                values,
                format!("sweep: set: {key}: an empty list; give at least one value, e.g. [8, 16]"),
            ));
        }
        let mut texts = Vec::new();
        for v in &values.value {
            if v.value.0.trim().is_empty() {
                return Err(at(
                    path,
                    v,
                    format!("sweep: set: {key}: an empty value; write a value such as 8 or 1/s"),
                ));
            }
            texts.push(v.value.0.trim().to_string());
        }
        let origin = format!(
            "{}:{}:{}: sweep: set: {key}",
            path.display(),
            values.referenced.line(),
            values.referenced.column()
        );
        out.push(Axis { key: key.trim().to_string(), values: texts, origin: Some(origin) });
    }
    Ok(out)
}

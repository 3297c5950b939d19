//! Bad `objectives:` and bad per-entry `tenants:`: `validate` and `run`
//! refuse them alike, exit code 2, at the line and column counted by hand
//! in each comment, with what to write instead.

mod common;

use common::*;

/// Lines 1-7; `objectives:` or `policies:` is line 8 and the item under
/// test line 9, its `{` at
/// column 5.
const HEAD: &str = "\
name: t
workers: 2
classes: {critical: {sla: 5s}, bulk: {}}
tenants: {flood: {}, A: {}}
workload:
  - {tenant: A, class: critical, count: 1, service: 1s}
  - {tenant: flood, class: bulk, count: 1, service: 1s}
";

/// The error line of `validate` (`bad.yaml:LINE:COL: message`), after
/// checking that `run` refuses the same with the same line.
fn refused(tail: &str) -> String {
    let text = format!("{HEAD}{tail}");
    let dir = tempdir();
    let (code, validate) = validate_text(dir.path(), &text);
    assert_eq!(code, Some(2), "{validate}");
    assert!(!validate.contains("panicked"), "{validate}");
    let out = dir.path().join("out");
    let o = fairsim().arg("run").arg(dir.path().join("bad.yaml")).arg("--out").arg(&out).output().unwrap();
    let run = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{run}");
    assert!(!out.exists(), "run wrote results for a refused scenario");
    let line = |s: &str| {
        let l = s.lines().find(|l| l.starts_with("error: ")).unwrap_or_else(|| panic!("{s}")).to_string();
        l[l.find("bad.yaml").unwrap_or_else(|| panic!("{l}"))..].to_string()
    };
    assert_eq!(line(&validate), line(&run), "validate and run must agree");
    line(&validate)
}

fn objective(item: &str) -> String {
    refused(&format!("objectives:\n  - {item}\n"))
}

#[test]
fn an_unknown_class_is_refused_with_the_closest() {
    // `  - {class: critcal, ...`: `{` 5, `class` 6-10, `: ` 11-12, `critcal` 13
    assert_eq!(
        objective("{class: critcal, wait_p99: 5s}"),
        "bad.yaml:9:13: an objective names class `critcal`, which is not declared; did you mean `critical`? declared classes: default, critical, bulk"
    );
}

#[test]
fn an_unknown_tenant_is_refused_with_the_closest() {
    // `{` 5, `tenant` 6-11, `: ` 12-13, `flod` 14
    assert_eq!(
        objective("{tenant: flod, wait_p99: 5s}"),
        "bad.yaml:9:14: an objective names tenant `flod`, which is not in the scenario; did you mean `flood`? tenants: flood, A (declare it under `tenants:` or use it in `workload:`)"
    );
    // in an all_but list: `{tenants: {all_but: [` is 5-25, `A` 26, `, ` 27-28, `flod` 29
    assert_eq!(
        objective("{tenants: {all_but: [A, flod]}, wait_p99: 5s}"),
        "bad.yaml:9:29: an objective names tenant `flod`, which is not in the scenario; did you mean `flood`? tenants: flood, A (declare it under `tenants:` or use it in `workload:`)"
    );
}

#[test]
fn an_unknown_measure_is_refused_with_the_closest() {
    // `{` 5, `class: critical, ` 6-22, `wait_p99x` 23
    assert_eq!(
        objective("{class: critical, wait_p99x: 5s}"),
        "bad.yaml:9:23: unknown objective key `wait_p99x`; did you mean `wait_p99`? an objective takes one measure (wait_pNN such as wait_p99 or wait_p99.9, wait_max, wait_mean, sla_misses, share, jain, gini, utilization, makespan, rejected, deferred) and optionally class, tenant or tenants, name, cost"
    );
}

#[test]
fn a_percentile_outside_0_100_is_refused() {
    for (item, p) in [("{wait_p0: 5s}", "0"), ("{wait_p100.5: 5s}", "100.5"), ("{wait_p0.0: 5s}", "0.0")] {
        let key = item[1..].split(':').next().unwrap();
        assert_eq!(
            objective(item),
            format!("bad.yaml:9:6: `{key}`: the percentile {p} is outside (0, 100]; write e.g. wait_p99, wait_p99.9, or wait_max for the largest wait")
        );
    }
}

#[test]
fn an_objective_has_exactly_one_measure() {
    // `{` 5, `wait_p99: 5s, ` 6-19, `wait_mean` 20
    assert_eq!(
        objective("{wait_p99: 5s, wait_mean: 1s}"),
        "bad.yaml:9:20: an objective has one measure, and this one has `wait_p99` and `wait_mean`; write each as an objective of its own"
    );
    assert_eq!(
        objective("{class: critical}"),
        "bad.yaml:9:5: this objective has no measure; add one, e.g. `wait_p99: 5s`, `sla_misses: 1%` or `utilization: 80%`"
    );
}

#[test]
fn a_run_wide_measure_takes_no_scope() {
    // `{` 5, `class` 6
    assert_eq!(
        objective("{class: critical, utilization: 80%}"),
        "bad.yaml:9:6: `utilization` is a figure of the whole run, not of a class or tenant; drop `class`"
    );
    assert_eq!(
        objective("{tenant: A, jain: 0.9}"),
        "bad.yaml:9:6: `jain` is a figure of the whole run, not of a class or tenant; drop `tenant`"
    );
}

#[test]
fn two_objectives_of_one_name_are_refused() {
    // the second item, line 10, `{` at 5: its default name is the first's
    assert_eq!(
        refused("objectives:\n  - {class: critical, wait_p99: 5s}\n  - {class: critical, wait_p99: 9s}\n"),
        "bad.yaml:10:5: two objectives are named `critical wait_p99`; give this one a `name:` of its own"
    );
}

#[test]
fn a_bound_of_the_wrong_unit_is_refused() {
    // `{` 5, `wait_p99: ` 6-15, `80%` 16
    assert_eq!(
        objective("{wait_p99: 80%}"),
        "bad.yaml:9:16: `wait_p99: 80%`: a wait is a time, not a fraction; write e.g. `5s` or `2m`"
    );
    // `{` 5, `utilization: ` 6-18, `5s` 19
    assert_eq!(
        objective("{utilization: 5s}"),
        "bad.yaml:9:19: `utilization: 5s` must be a fraction from 0 to 1, written 0.8 or 80%; e.g. `80%` or 0.8"
    );
    // `{` 5, `rejected: ` 6-15, `1.5` 16
    assert_eq!(
        objective("{rejected: 1.5}"),
        "bad.yaml:9:16: `rejected: 1.5` is a number of jobs at most; write a whole number such as 0 or 100"
    );
}

#[test]
fn sla_misses_needs_the_class_sla() {
    // `{` 5, `class: ` 6-12: the key `class` at 6
    assert_eq!(
        objective("{class: bulk, sla_misses: 1%}"),
        "bad.yaml:9:6: class `bulk` has no `sla:`, and `sla_misses` counts the jobs that waited past their class's sla; add `sla:` to the class or bound a wait (e.g. `wait_p99: 5s`)"
    );
}

#[test]
fn an_entry_override_of_an_unknown_tenant_is_refused_with_the_closest() {
    // `  - {policy: fifo, tenants: {flod: ...`: `{` 5, `policy: fifo, ` 6-19,
    // `tenants: ` 20-28, `{` 29, `flod` 30
    assert_eq!(
        refused("policies:\n  - {policy: fifo, tenants: {flod: {cap: 3}}}\n"),
        "bad.yaml:9:30: `tenants` on a policy entry names tenant `flod`, which is not in the scenario; did you mean `flood`? tenants: flood, A (declare it under `tenants:` or use it in `workload:`)"
    );
}

#[test]
fn an_entry_override_is_checked_as_the_top_level_tenants() {
    // `{` 29, `flood` 30-34, `: ` 35-36, `{` 37, `cpa` 38
    assert_eq!(
        refused("policies:\n  - {policy: fifo, tenants: {flood: {cpa: 3}}}\n"),
        "bad.yaml:9:38: unknown key `cpa` for tenant `flood`; did you mean `cap`? a tenant takes `weight` and `cap`"
    );
    // `cap: ` 38-42, `0` 43
    assert_eq!(
        refused("policies:\n  - {policy: fifo, tenants: {flood: {cap: 0}}}\n"),
        "bad.yaml:9:43: tenant `flood`: cap 0 must be a whole number of at least 1 (jobs running at once); remove it for no cap"
    );
    // `policy: wfq, ` 6-18, `tenants: ` 19-27, `{` 28, `A: ` 29-31, `{` 32, `weight: ` 33-40, `0` 41
    assert_eq!(
        refused("policies:\n  - {policy: wfq, tenants: {A: {weight: 0}}}\n"),
        "bad.yaml:9:41: tenant `A`: weight 0 must be between 0.001 and 1000 (a ratio of a million at most keeps the fair-share arithmetic exact enough), e.g. 1"
    );
}

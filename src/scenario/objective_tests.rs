//! Loader tests of `objectives:` and of a policy entry's `tenants:`: each
//! key reads into the typed value written by hand beside it.

use std::path::Path;

use super::*;
use crate::model::*;
use crate::time::SECOND;

const HEAD: &str = "\
workers: 2
classes: {critical: {sla: 5s}, bulk: {}}
tenants: {flood: {cap: 2}, A: {weight: 2}}
workload:
  - {tenant: A, class: critical, count: 1, service: 1s}
  - {tenants: {count: 12, prefix: g}, count: 12, service: 1s}
";

fn load(tail: &str) -> Scenario {
    let text = format!("{HEAD}{tail}");
    load_str(&text, Path::new("t.yaml")).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn objectives(items: &str) -> Vec<Objective> {
    load(&format!("objectives:\n{items}")).objectives
}

#[test]
fn each_measure_reads_its_bound_in_its_own_unit() {
    let o = objectives(
        "  - {class: critical, wait_p99: 5s}
  - {wait_p99.9: 2m}
  - {wait_max: 1h}
  - {wait_mean: 500ms}
  - {class: critical, sla_misses: 1%}
  - {sla_misses: 0.02}
  - {share: 0.8}
  - {jain: 0.9}
  - {gini: 20%}
  - {utilization: 80%}
  - {makespan: 2h}
  - {rejected: 0}
  - {deferred: 100}
",
    );
    let got: Vec<(Measure, ObjectiveLimit)> = o.iter().map(|o| (o.measure, o.limit)).collect();
    assert_eq!(
        got,
        [
            (Measure::Wait { percentile: 99.0 }, ObjectiveLimit::Time(5 * SECOND)),
            (Measure::Wait { percentile: 99.9 }, ObjectiveLimit::Time(120 * SECOND)),
            (Measure::Wait { percentile: 100.0 }, ObjectiveLimit::Time(3600 * SECOND)),
            (Measure::WaitMean, ObjectiveLimit::Time(SECOND / 2)),
            (Measure::SlaMisses, ObjectiveLimit::Ratio(0.01)),
            (Measure::SlaMisses, ObjectiveLimit::Ratio(0.02)),
            (Measure::Share, ObjectiveLimit::Ratio(0.8)),
            (Measure::Jain, ObjectiveLimit::Ratio(0.9)),
            (Measure::Gini, ObjectiveLimit::Ratio(0.2)),
            (Measure::Utilization, ObjectiveLimit::Ratio(0.8)),
            (Measure::Makespan, ObjectiveLimit::Time(7200 * SECOND)),
            (Measure::Rejected, ObjectiveLimit::Count(0)),
            (Measure::Deferred, ObjectiveLimit::Count(100)),
        ]
    );
    // the costs are the pool's figures; protections are the waits, misses, shares
    let costs: Vec<bool> = o.iter().map(|o| o.cost).collect();
    assert_eq!(
        costs,
        [false, false, false, false, false, false, false, false, false, true, true, true, true]
    );
    // declared on lines 8 .. 20 (HEAD is 6 lines, then `objectives:`)
    assert_eq!(o.iter().map(|o| o.line).collect::<Vec<_>>(), (8..=20).collect::<Vec<_>>());
}

#[test]
fn scopes_resolve_to_ids_and_name_the_objective() {
    // ids: flood 0, A 1, g00..g11 2..13
    let o = objectives(
        "  - {class: critical, wait_p99: 5s}
  - {tenants: {all_but: [flood]}, wait_p99: 60s}
  - {tenant: flood, wait_p99: 4h, cost: true}
  - {tenants: [A, g03], class: critical, wait_mean: 1s, name: picked}
  - {tenants: each, wait_max: 1h}
  - {share: 0.5}
  - {utilization: 0.8}
",
    );
    let got: Vec<(&str, Option<ClassId>, TenantScope, bool)> =
        o.iter().map(|o| (o.name.as_str(), o.class, o.tenants.clone(), o.cost)).collect();
    assert_eq!(
        got,
        [
            ("critical wait_p99", Some(1), TenantScope::All, false),
            ("all but flood wait_p99", None, TenantScope::AllBut(vec![0]), false),
            ("flood wait_p99", None, TenantScope::Each(vec![0]), true),
            ("picked", Some(1), TenantScope::Each(vec![1, 5]), false),
            ("each tenant wait_max", None, TenantScope::AllBut(vec![]), false),
            // a share is each tenant's: unscoped, every tenant on its own
            ("each tenant share", None, TenantScope::AllBut(vec![]), false),
            ("utilization", None, TenantScope::All, true),
        ]
    );
}

#[test]
fn without_objectives_the_list_is_empty() {
    assert!(load("").objectives.is_empty());
}

#[test]
fn an_entry_override_changes_only_its_runs_tenants() {
    let sc = load(
        "policies:
  - fifo
  - {policy: wfq, label: over, tenants: {flood: {cap: 3}, A: {weight: 5}, g07: {cap: 1, weight: 4}}}
",
    );
    let (plain, over) = (&sc.policies[0], &sc.policies[1]);
    assert!(plain.tenants.is_empty());
    assert_eq!(
        over.tenants,
        [
            TenantChange { id: 0, weight: None, cap: Some(3) },
            TenantChange { id: 1, weight: Some(5.0), cap: None },
            TenantChange { id: 9, weight: Some(4.0), cap: Some(1) },
        ]
    );
    let run = sc.for_run(over);
    // flood keeps its weight 1 and takes cap 3; A keeps no cap and takes weight 5
    let shares = |s: &Scenario, id| (s.tenants.weight(id), s.tenants.cap(id));
    assert_eq!(shares(&run, 0), (1.0, Some(3)));
    assert_eq!(shares(&run, 1), (5.0, None));
    assert_eq!(shares(&run, 9), (4.0, Some(1)));
    assert_eq!(shares(&run, 8), (1.0, None), "g06, beside it, is untouched");
    // the loaded scenario and the plain entry's run keep the file's values
    assert_eq!(shares(&sc, 0), (1.0, Some(2)));
    assert_eq!(shares(&sc.for_run(plain), 1), (2.0, None));
    assert!(matches!(sc.for_run(plain), std::borrow::Cow::Borrowed(_)));
}

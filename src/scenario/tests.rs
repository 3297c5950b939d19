//! Loader tests: every key parses into the expected typed value, and every
//! class of error names the right line (counted by hand in each YAML).

use std::path::Path;

use super::*;
use crate::error::Error;
use crate::model::*;
use crate::time::SECOND;

fn ok(yaml: &str) -> Scenario {
    match load_str(yaml, Path::new("dir/my-scenario.yaml")) {
        Ok(s) => s,
        Err(e) => panic!("expected success, got: {e}"),
    }
}

/// Returns (line, column, message) of the input error.
fn fail(yaml: &str) -> (usize, usize, String) {
    match load_str(yaml, Path::new("s.yaml")) {
        Ok(s) => panic!("expected an error, got {s:?}"),
        Err(Error::Input { line, column, message, file }) => {
            assert_eq!(file, Path::new("s.yaml"));
            (line, column, message)
        }
        Err(e) => panic!("expected an input error, got {e:?}"),
    }
}

const FULL: &str = "\
name: abc-rotation
seed: 7
workers: 2
log: {tick: 500ms}
tenants:
  A: {weight: 1, cap: 1}
  B: {}
  C:
classes:
  interactive: {priority: 1, weight: 4, sla: 30s}
  bulk: {priority: 9}
workload:
  - {tenant: A, count: 40, at: 0s, service: 1s}
  - {tenant: B, class: interactive, arrivals: {poisson: 2/s, start: 0s, stop: 10m}, service: {lognormal: {median: 200ms, p99: 2s}}}
  - {tenant: C, arrivals: {every: 5s, count: 100}, service: {exponential: 3s}}
policies:
  - fifo
  - {policy: round_robin, order: [C, A, B], spare: hold}
  - {policy: drr, cost: work, label: drr-work}
";

#[test]
fn full_example_parses() {
    let s = ok(FULL);
    assert_eq!(s.name, "abc-rotation");
    assert_eq!(s.seed, 7);
    assert_eq!(s.workers, 2);
    assert_eq!(s.tick, 500_000);
    assert_eq!(s.source, Path::new("dir/my-scenario.yaml"));
    assert!(s.resources.is_empty());
    let names: Vec<_> = s.tenants.names().collect();
    assert_eq!(names, ["A", "B", "C"]);
    assert_eq!(
        s.tenants.named(0).cloned().expect("named"),
        TenantSpec { name: "A".into(), weight: 1.0, cap: Some(1) }
    );
    assert_eq!(
        s.tenants.named(1).cloned().expect("named"),
        TenantSpec { name: "B".into(), weight: 1.0, cap: None }
    );
    assert_eq!(
        s.tenants.named(2).cloned().expect("named"),
        TenantSpec { name: "C".into(), weight: 1.0, cap: None }
    );

    let classes: Vec<_> = s.classes.iter().map(|c| (c.name.as_str(), c.priority, c.weight, c.sla)).collect();
    assert_eq!(
        classes,
        [("default", 5, 1.0, None), ("interactive", 1, 4.0, Some(30 * SECOND)), ("bulk", 9, 1.0, None)]
    );

    assert_eq!(s.workload.len(), 3);
    let e0 = &s.workload[0];
    assert_eq!(e0.line, 13);
    assert_eq!((e0.tenant, e0.spread, e0.class), (0, 1, 0));
    assert_eq!(e0.arrivals, ArrivalSpec::Batch { count: 40, at: 0 });
    assert_eq!(e0.service, ServiceSpec::Constant(SECOND));
    assert_eq!(e0.cost, [0; MAX_RESOURCES]);
    assert_eq!((e0.deadline, e0.failure), (None, None));

    let e1 = &s.workload[1];
    assert_eq!(e1.line, 14);
    assert_eq!((e1.tenant, e1.class), (1, 1));
    assert_eq!(
        e1.arrivals,
        ArrivalSpec::Poisson { rate: 2.0, start: 0, stop: Some(600 * SECOND), count: None, profile: None }
    );
    let ServiceSpec::LogNormal { mu, sigma } = e1.service else { panic!("{:?}", e1.service) };
    assert!((mu - 0.2f64.ln()).abs() < 1e-12, "mu {mu}");
    assert!((sigma - 10f64.ln() / 2.326_347_874_040_840_8).abs() < 1e-12, "sigma {sigma}");
    assert!((sigma - 0.989_785_370_747).abs() < 1e-9);

    let e2 = &s.workload[2];
    assert_eq!(e2.tenant, 2);
    assert_eq!(e2.arrivals, ArrivalSpec::Every { every: 5 * SECOND, start: 0, stop: None, count: Some(100) });
    assert_eq!(e2.service, ServiceSpec::Exponential { mean: 3 * SECOND });

    assert_eq!(s.policies.len(), 3);
    assert_eq!(s.policies[0].kind, "fifo");
    assert_eq!(s.policies[0].label, "fifo");
    assert_eq!(s.policies[0].line, 17);
    assert_eq!(s.policies[0].spare, Spare::Lend);
    assert_eq!(s.policies[1].kind, "round_robin");
    assert_eq!(s.policies[1].label, "round_robin");
    assert_eq!(s.policies[1].spare, Spare::Hold);
    assert_eq!(s.policies[1].params.value("order"), Some(&Value::Tenants(vec![2, 0, 1])));
    assert_eq!(s.policies[2].label, "drr-work");
    assert_eq!(s.policies[2].params.value("cost"), Some(&Value::Word("work")));
    assert_eq!(s.policies[2].line, 19);
}

#[test]
fn defaults_apply() {
    let s = ok("workers: 1\nworkload:\n  - {tenant: X, count: 1, service: 2}\n");
    assert_eq!(s.name, "my-scenario");
    assert_eq!(s.seed, 1);
    assert_eq!(s.tick, SECOND);
    assert_eq!(s.workload[0].service, ServiceSpec::Constant(2 * SECOND));
    assert_eq!(s.classes.len(), 1);
    assert_eq!(s.classes[0], ClassSpec { name: "default".into(), priority: 5, weight: 1.0, sla: None });
    assert_eq!(s.policies.len(), 1);
    assert_eq!(s.policies[0], PolicySpec::named("fifo"));
}

#[test]
fn rates_and_bare_numbers() {
    let s = ok("workers: 1\nworkload:\n  \
        - {tenant: A, arrivals: {poisson: 120/m, stop: 1m}, service: 1s}\n  \
        - {tenant: A, arrivals: {poisson: 0.5, count: 10, start: 1.5}, service: 250ms}\n");
    assert_eq!(
        s.workload[0].arrivals,
        ArrivalSpec::Poisson { rate: 2.0, start: 0, stop: Some(60 * SECOND), count: None, profile: None }
    );
    assert_eq!(
        s.workload[1].arrivals,
        ArrivalSpec::Poisson { rate: 0.5, start: 1_500_000, stop: None, count: Some(10), profile: None }
    );
    assert_eq!(s.workload[1].service, ServiceSpec::Constant(250_000));
}

#[test]
fn auto_declares_referenced_tenants_in_order() {
    let s = ok("workers: 1\ntenants:\n  B: {weight: 2}\nworkload:\n  \
        - {tenant: Z, count: 1, service: 1s}\n  \
        - {tenant: B, count: 1, service: 1s}\n  \
        - {tenant: Y, count: 1, service: 1s}\n  \
        - {tenant: Z, count: 1, service: 1s}\n");
    let names: Vec<_> = (0..s.tenants.len() as u32)
        .map(|t| (s.tenants.name(t).into_owned(), s.tenants.weight(t), s.tenants.cap(t)))
        .collect();
    assert_eq!(
        names,
        [("B".to_string(), 2.0, None), ("Z".to_string(), 1.0, None), ("Y".to_string(), 1.0, None)]
    );
    let ids: Vec<_> = s.workload.iter().map(|e| e.tenant).collect();
    assert_eq!(ids, [1, 0, 2, 1]);
}

#[test]
fn spread_generates_padded_tenants() {
    let s = ok("workers: 4\ntenants:\n  A: {}\nworkload:\n  \
        - {tenants: {count: 10000, prefix: t}, arrivals: {poisson: 14.4/s, count: 1000000}, service: {exponential: 1s}}\n  \
        - {tenant: B, count: 1, service: 1s}\n");
    assert_eq!(s.tenants.len(), 10_002);
    assert_eq!(s.tenants.name(0), "A");
    assert_eq!(s.tenants.name(1), "t0000");
    assert_eq!(s.tenants.name(10_000), "t9999");
    assert_eq!(s.tenants.name(10_001), "B");
    assert_eq!((s.workload[0].tenant, s.workload[0].spread), (1, 10_000));
    assert_eq!(s.workload[1].tenant, 10_001);
    assert_eq!(
        s.workload[0].arrivals,
        ArrivalSpec::Poisson { rate: 14.4, start: 0, stop: None, count: Some(1_000_000), profile: None }
    );
    let one = ok("workers: 1\nworkload:\n  - {tenants: {count: 1, prefix: u}, count: 3, service: 1s}\n");
    assert_eq!(one.tenants.name(0), "u0");
}

#[test]
fn service_forms() {
    let s = ok("workers: 1\nworkload:\n  \
        - {tenant: A, count: 1, service: {constant: 2s}}\n  \
        - {tenant: A, count: 1, service: {uniform: {min: 1s, max: 3s}}}\n  \
        - {tenant: A, count: 1, service: {lognormal: {mu: 0.5, sigma: 0}}}\n  \
        - {tenant: A, count: 1, service: 1.5}\n");
    assert_eq!(s.workload[0].service, ServiceSpec::Constant(2 * SECOND));
    assert_eq!(s.workload[1].service, ServiceSpec::Uniform { min: SECOND, max: 3 * SECOND });
    assert_eq!(s.workload[2].service, ServiceSpec::LogNormal { mu: 0.5, sigma: 0.0 });
    assert_eq!(s.workload[3].service, ServiceSpec::Constant(1_500_000));
}

#[test]
fn arrivals_batch_and_every_forms() {
    let s = ok("workers: 1\nworkload:\n  \
        - {tenant: A, arrivals: {batch: 5, at: 2s}, service: 1s}\n  \
        - {tenant: A, arrivals: {every: 100ms, start: 1s, stop: 2s}, service: 1s}\n  \
        - {tenant: A, count: 3, at: 1m, service: 1s}\n");
    assert_eq!(s.workload[0].arrivals, ArrivalSpec::Batch { count: 5, at: 2 * SECOND });
    assert_eq!(
        s.workload[1].arrivals,
        ArrivalSpec::Every { every: 100_000, start: SECOND, stop: Some(2 * SECOND), count: None }
    );
    assert_eq!(s.workload[2].arrivals, ArrivalSpec::Batch { count: 3, at: 60 * SECOND });
}

#[test]
fn resources_cost_deadline_failure() {
    let s = ok("resources: {cpu: 9, mem: 18}\nclasses:\n  x: {}\nworkload:\n  \
        - {tenant: A, class: x, count: 1, service: 1s, deadline: 30s, cost: {mem: 4, cpu: 1}, failure: {probability: 0.25}}\n  \
        - {tenant: A, class: default, count: 1, service: 1s, failure: {probability: 0, max_attempts: 1}}\n");
    assert_eq!(s.workers, u32::MAX);
    assert_eq!(s.resources, vec![("cpu".to_string(), 9), ("mem".to_string(), 18)]);
    let e = &s.workload[0];
    assert_eq!(e.class, 1);
    assert_eq!(e.cost, [1, 4, 0, 0]);
    assert_eq!(e.deadline, Some(30 * SECOND));
    assert_eq!(e.failure, Some(FailureSpec { probability: 0.25, max_attempts: 3 }));
    assert_eq!(s.workload[1].class, 0);
    assert_eq!(s.workload[1].failure, Some(FailureSpec { probability: 0.0, max_attempts: 1 }));
}

#[test]
fn declared_default_class_stays_at_index_zero() {
    let s = ok("workers: 1\nclasses:\n  hi: {priority: 1}\n  default: {priority: 3, weight: 2}\n\
        workload:\n  - {tenant: A, count: 1, service: 1s}\n");
    assert_eq!(s.classes[0], ClassSpec { name: "default".into(), priority: 3, weight: 2.0, sla: None });
    assert_eq!(s.classes[1].name, "hi");
    assert_eq!(s.classes.len(), 2);
}

#[test]
fn policy_parameters_and_labels() {
    let s = ok("workers: 2\nclasses:\n  hi: {priority: 1}\n  lo: {}\nworkload:\n  \
        - {tenant: A, count: 1, service: 1s}\n\
policies:
  - fifo
  - fifo
  - {policy: fifo, label: fifo-3}
  - {policy: drr, cost: work, quantum: 500ms, over: tenants}
  - {policy: drr, quantum: 3}
  - {policy: aging, step: 10s, max_boost: 2}
  - {policy: bands, window: 1m, floor: {lo: 0.2, hi: 0.5}}
  - {policy: reserve, class: hi, workers: 1}
  - {policy: edf, order: slack, late: drop}
  - {policy: hierarchical, over: classes, then: {policy: drr, quantum: 2}}
  - {policy: priority, then: wfq}
");
    let labels: Vec<_> = s.policies.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "fifo",
            "fifo-2",
            "fifo-3",
            "drr",
            "drr-2",
            "aging",
            "bands",
            "reserve",
            "edf",
            "hierarchical",
            "priority"
        ]
    );
    // The auto label skipped `fifo-3` because an explicit label holds it.
    let p = |i: usize, name: &str| s.policies[i].params.value(name).cloned();
    assert_eq!(p(3, "quantum"), Some(Value::Number(0.5)));
    assert_eq!(p(3, "over"), Some(Value::Word("tenants")));
    assert_eq!(p(4, "quantum"), Some(Value::Number(3.0)));
    assert_eq!(
        (p(5, "step"), p(5, "max_boost")),
        (Some(Value::Duration(10 * SECOND)), Some(Value::Count(2)))
    );
    assert_eq!(p(6, "window"), Some(Value::Duration(60 * SECOND)));
    assert_eq!(p(6, "floor"), Some(Value::ClassFractions(vec![(2, 0.2), (1, 0.5)])));
    assert_eq!((p(7, "class"), p(7, "workers")), (Some(Value::Class(1)), Some(Value::Count(1))));
    assert_eq!(p(8, "order"), Some(Value::Word("slack")));
    assert_eq!(p(8, "late"), Some(Value::Word("drop")));
    let Some(Value::Policy(then)) = p(9, "then") else { panic!("then: {:?}", p(9, "then")) };
    assert_eq!(
        (then.kind.as_str(), then.params.value("quantum"), then.line),
        ("drr", Some(&Value::Number(2.0)), 17)
    );
    assert!(matches!(p(10, "then"), Some(Value::Policy(t)) if t.kind == "wfq"));
    assert_eq!(s.policies[3].line, 11);
}

#[test]
fn auto_label_never_collides_with_later_explicit_label() {
    let s = ok("workers: 1\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n\
        policies:\n  - fifo\n  - {policy: drr, label: fifo}\n");
    assert_eq!(s.policies[0].label, "fifo-2");
    assert_eq!(s.policies[1].label, "fifo");
}

// ---------------------------------------------------------------- errors

#[test]
fn error_malformed_yaml() {
    let (line, col, msg) = fail("workers: 1\nworkload: [\n  {tenant: A\n");
    assert!(line >= 2, "line {line}");
    assert!(col > 0);
    assert!(msg.contains("fix the YAML syntax"), "{msg}");
}

#[test]
fn error_malformed_indentation() {
    let (line, _, msg) = fail("workers: 1\nworkload:\n  - tenant: A\n   count: 1\n");
    assert_eq!(line, 4, "{msg}");
}

#[test]
fn error_unknown_key_lists_valid_keys() {
    let (line, col, msg) = fail("workers: 1\nworkload:\n  - tenant: A\n    count: 1\n    sevice: 1s\n");
    assert_eq!((line, col), (5, 5), "{msg}");
    assert!(msg.contains("unknown field `sevice`"), "{msg}");
    assert!(
        msg.contains("tenant, tenants, class, count, at, arrivals, service, deadline, cost, failure"),
        "{msg}"
    );
    // one letter from `service`: the closest expected key is named
    assert!(msg.contains("did you mean `service`?"), "{msg}");
    // nothing near `zzz` (more than a third of its letters off): no guess
    let (_, _, msg) =
        fail("workers: 1\nworkload:\n  - tenant: A\n    count: 1\n    service: 1s\n    zzz: 1\n");
    assert!(msg.contains("remove the key or fix its spelling") && !msg.contains("did you mean"), "{msg}");
}

#[test]
fn error_unknown_top_level_key() {
    let (line, _, msg) = fail("workers: 1\nworkerz: 2\nworkload: []\n");
    assert_eq!(line, 2);
    assert!(
        msg.contains("name, seed, workers, resources, log, tenants, classes, workload, policies"),
        "{msg}"
    );
}

#[test]
fn error_unknown_policy_key() {
    let (line, _, msg) =
        fail("workers: 1\nworkload:\n  - {tenant: A, count: 1, service: 1s}\npolicies:\n  - {policy: drr, quantom: 2}\n");
    assert_eq!(line, 5);
    assert!(msg.contains("policy `drr` does not take `quantom`; did you mean `quantum`?"), "{msg}");
    assert!(msg.contains("its keys are: over, cost, quantum, charge, quantile, label, spare"), "{msg}");
}

#[test]
fn error_wrong_type() {
    let (line, col, msg) = fail("workers: many\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n");
    assert_eq!((line, col), (1, 10));
    assert!(msg.contains("whole number"), "{msg}");
    let (line, _, msg) = fail("workers: 1\nworkload:\n  - tenant: A\n    count: 1\n    service: [1s]\n");
    assert_eq!(line, 5);
    assert!(msg.contains("invalid type: sequence"), "{msg}");
    assert!(msg.contains("expected a duration"), "{msg}");
}

#[test]
fn error_zero_rate() {
    let (line, col, msg) = fail(
        "workers: 1\nworkload:\n  - tenant: A\n    arrivals: {poisson: 0/s, count: 3}\n    service: 1s\n",
    );
    assert_eq!((line, col), (4, 25));
    assert!(msg.contains("must be greater than zero"), "{msg}");
}

#[test]
fn error_negative_duration() {
    let (line, _, msg) = fail("workers: 1\nworkload:\n  - tenant: A\n    count: 1\n    service: -2s\n");
    assert_eq!(line, 5);
    assert!(msg.contains("must be zero or positive"), "{msg}");
    let (line, _, msg) =
        fail("workers: 1\nlog:\n  tick: -1\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n");
    assert_eq!(line, 3);
    assert!(msg.contains("log.tick"), "{msg}");
}

#[test]
fn error_undeclared_class() {
    let (line, col, msg) = fail(
        "workers: 1\nclasses:\n  hi: {}\n  lo: {}\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n  - {tenant: A, class: mid, count: 1, service: 1s}\n",
    );
    assert_eq!((line, col), (7, 24));
    assert!(msg.contains("class `mid` is not declared"), "{msg}");
    assert!(msg.contains("default, hi, lo"), "{msg}");
}

#[test]
fn error_cost_exceeds_capacity() {
    let (line, _, msg) = fail(
        "resources: {cpu: 9, mem: 18}\nworkload:\n  - tenant: A\n    count: 1\n    service: 1s\n    cost: {cpu: 1, mem: 20}\n",
    );
    assert_eq!(line, 6);
    assert!(msg.contains("can never fit"), "{msg}");
    let (line, _, msg) = fail(
        "resources: {cpu: 9}\nworkload:\n  - tenant: A\n    count: 1\n    service: 1s\n    cost: {gpu: 1}\n",
    );
    assert_eq!(line, 6);
    assert!(msg.contains("`gpu`, which is not declared; declared resources: cpu"), "{msg}");
}

#[test]
fn error_empty_workload() {
    let (line, _, msg) = fail("workers: 1\nworkload: []\n");
    assert_eq!(line, 2);
    assert!(msg.contains("`workload` is empty"), "{msg}");
    let (_, _, msg) = fail("workers: 1\n");
    assert!(msg.contains("missing `workload:`"), "{msg}");
    let (line, _, msg) = fail("\n# nothing\n");
    assert_eq!(line, 0, "{msg}");
    assert!(msg.contains("empty"), "{msg}");
}

#[test]
fn error_missing_file() {
    let e = load(Path::new("/nonexistent/fairsim/none.yaml")).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    let Error::Input { line, column, message, .. } = &e else { panic!("{e:?}") };
    assert_eq!((*line, *column), (0, 0));
    assert!(message.starts_with("cannot read scenario file"), "{message}");
    assert!(message.ends_with("check the path"), "{message}");
    assert!(e.to_string().starts_with("/nonexistent/fairsim/none.yaml: cannot read"), "{e}");
}

#[test]
fn load_reads_a_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("noisy.yaml");
    std::fs::write(&path, "workers: 3\nworkload:\n  - {tenant: A, count: 2, service: 1s}\n").expect("write");
    let s = load(&path).expect("load");
    assert_eq!((s.name.as_str(), s.workers), ("noisy", 3));
}

#[test]
fn error_unknown_policy_order_tenant() {
    let (line, col, msg) = fail(
        "workers: 1\ntenants:\n  A: {}\n  B: {}\nworkload:\n  - {tenant: A, count: 1, service: 1s}\npolicies:\n  - {policy: round_robin, order: [A, Q]}\n",
    );
    assert_eq!((line, col), (8, 38));
    assert!(msg.contains("tenant `Q`"), "{msg}");
}

#[test]
fn error_poisson_without_stop_or_count() {
    let (line, _, msg) =
        fail("workers: 1\nworkload:\n  - tenant: A\n    arrivals: {poisson: 2/s}\n    service: 1s\n");
    assert_eq!(line, 4);
    assert!(msg.contains("would never end"), "{msg}");
    assert!(msg.contains("stop") && msg.contains("count"), "{msg}");
}

#[test]
fn error_duplicate_key() {
    let (line, _, msg) = fail(
        "workers: 1\ntenants:\n  A: {}\n  A: {cap: 2}\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n",
    );
    assert_eq!(line, 4);
    assert!(msg.contains("duplicate"), "{msg}");
    assert!(msg.contains("keep one of them"), "{msg}");
}

#[test]
fn error_duplicate_explicit_label() {
    let (line, _, msg) = fail(
        "workers: 1\nworkload:\n  - {tenant: A, count: 1, service: 1s}\npolicies:\n  - {policy: drr, label: x}\n  - {policy: fifo, label: x}\n",
    );
    assert_eq!(line, 6);
    assert!(msg.contains("label `x` is used twice"), "{msg}");
}

#[test]
fn error_semantic_checks_name_their_line() {
    let w = "workload:\n  - {tenant: A, count: 1, service: 1s}\n";
    let cases: &[(&str, usize, &str)] = &[
        ("workers: 0\n", 1, "at least 1"),
        ("tenants:\n  A: {cap: 0}\n", 2, "cap 0"),
        ("classes:\n  x: {weight: -1}\n", 2, "weight -1"),
        ("resources: {a: 1, b: 1, c: 1, d: 1, e: 1}\n", 1, "at most 4"),
        ("log: {tick: 0s}\n", 1, "greater than zero"),
        ("policies: [{policy: fifo, spare: maybe}]\n", 1, "lend"),
        ("policies: [{label: x}]\n", 1, "no `policy:` key"),
    ];
    for (head, line, needle) in cases {
        let yaml =
            if head.starts_with("workers") { format!("{head}{w}") } else { format!("workers: 1\n{head}{w}") };
        let want = if head.starts_with("workers") { *line } else { line + 1 };
        let (l, _, msg) = fail(&yaml);
        assert_eq!(l, want, "{yaml} -> {msg}");
        assert!(msg.contains(needle), "{yaml} -> {msg}");
    }
    let entries: &[(&str, &str)] = &[
        ("{tenant: A, service: 1s}", "no arrivals"),
        ("{tenant: A, count: 1}", "no `service`"),
        ("{count: 1, service: 1s}", "no tenant"),
        ("{tenant: A, tenants: {count: 2, prefix: t}, count: 1, service: 1s}", "both"),
        ("{tenant: A, arrivals: {poisson: 1/s, every: 1s, count: 1}, service: 1s}", "exactly one"),
        ("{tenant: A, arrivals: {every: 1s, start: 5s, stop: 2s}, service: 1s}", "later than"),
        ("{tenant: A, count: 1, service: {uniform: {min: 3s, max: 1s}}}", "swap"),
        ("{tenant: A, count: 1, service: {lognormal: {median: 2s, p99: 1s}}}", "greater than `median`"),
        ("{tenant: A, count: 1, service: {lognormal: {median: 2s, sigma: 1}}}", "either"),
        ("{tenant: A, count: 1, service: {lognormal: {mu: 0, sigma: -1}}}", "sigma"),
        ("{tenant: A, count: 1, service: {exponential: 0s}}", "greater than zero"),
        ("{tenant: A, count: 1, service: 1s, failure: {probability: 1}}", "below 1"),
        ("{tenant: A, count: 1, service: 1s, cost: {cpu: 1}}", "declare them"),
        ("{tenant: A, count: 0, service: 1s}", "at least 1"),
        ("{tenant: A, count: 1, service: 5 parsecs}", "unknown duration unit"),
        ("{tenant: A, arrivals: {poisson: 2/fortnight, count: 1}, service: 1s}", "unknown rate unit"),
    ];
    for (entry, needle) in entries {
        let yaml = format!("workers: 1\nworkload:\n  - {{tenant: B, count: 1, service: 1s}}\n  - {entry}\n");
        let (l, _, msg) = fail(&yaml);
        assert_eq!(l, 4, "{yaml} -> {msg}");
        assert!(msg.contains(needle), "{yaml} -> {msg}");
    }
}

#[test]
fn rendered_error_names_file_line_column() {
    let e = load_str(
        "workers: 1\nworkload:\n  - {tenant: A, count: 1, service: 1s, bogus: 2}\n",
        Path::new("x.yaml"),
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("x.yaml:3:40: unknown field `bogus`"), "{e}");
    assert_eq!(e.exit_code(), 2);
}

#[test]
fn error_wrong_shape_and_missing_keys() {
    let (line, _, msg) = fail("workers: 1\nworkload:\n  tenant: A\n");
    assert_eq!(line, 3);
    assert!(msg.contains("expected a list here"), "{msg}");
    let (line, _, msg) =
        fail("workers: 1\ntenants: [A, B]\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n");
    assert_eq!(line, 2);
    assert!(msg.contains("expected a map"), "{msg}");
    let (line, _, msg) = fail("workload:\n  - {tenant: A, count: 1, service: 1s}\n");
    assert_eq!(line, 0);
    assert!(msg.contains("missing `workers:`"), "{msg}");
    let (line, _, msg) =
        fail("workers: 1\nworkload:\n  - {tenant: A, count: 1, service: 1s, failure: {max_attempts: 2}}\n");
    assert_eq!(line, 3);
    assert!(msg.contains("missing field `probability`"), "{msg}");
    let (line, _, msg) = fail("workers: -3\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n");
    assert_eq!(line, 1);
    assert!(msg.contains("whole number"), "{msg}");
}

#[test]
fn documented_example_loads() {
    let doc = include_str!("../../docs/scenario.md");
    let start = doc.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    let len = doc[start..].find("```").expect("end of block");
    let s = ok(&doc[start..start + len]);
    assert_eq!(s.name, "abc-rotation");
    assert_eq!(s.tenants.len(), 3);
    assert_eq!(s.classes.len(), 3);
    assert_eq!(s.workload.len(), 3);
    let labels: Vec<_> = s.policies.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels, ["fifo", "round_robin", "drr-work"]);
}

/// Mutated versions of a valid file must give a result or an input error, never a panic.
#[test]
fn mutations_never_panic() {
    let chars: Vec<char> = FULL.chars().collect();
    let mut errors = 0;
    for i in 0..chars.len() {
        for repl in [None, Some(':'), Some('-'), Some('{'), Some(' '), Some('0'), Some('\n')] {
            let mut m = chars.clone();
            match repl {
                None => {
                    m.remove(i);
                }
                Some(c) => m[i] = c,
            }
            let text: String = m.into_iter().collect();
            if let Err(e) = load_str(&text, Path::new("m.yaml")) {
                assert_eq!(e.exit_code(), 2, "{e}");
                errors += 1;
            }
        }
    }
    assert!(errors > 0);
}

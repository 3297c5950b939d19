//! Bad input: exit code 2, a message that names the place and the fix, no
//! panic text, and an existing output folder left untouched.

mod common;

use common::*;

/// Runs `fairsim run` on `yaml` into an output folder that already holds a
/// sentinel file; returns stderr after checking exit code 2, no panic, and
/// that the folder was not touched.
fn bad_run(yaml: &str) -> String {
    let dir = tempdir();
    let file = dir.path().join("bad.yaml");
    std::fs::write(&file, yaml).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("keep.txt"), "previous results").unwrap();
    let assert = fairsim().arg("run").arg(&file).arg("--out").arg(&out).assert().code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("bad.yaml"), "message must name the file: {stderr}");
    assert_eq!(std::fs::read_to_string(out.join("keep.txt")).unwrap(), "previous results");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1, "output folder changed");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "stray files left behind");
    stderr
}

const OK_HEAD: &str = "name: t\nworkers: 1\n";

/// The one error line: `error: bad.yaml:LINE:COL: EXPLANATION`, with the
/// directory part of the path dropped.
fn error_line(stderr: &str) -> String {
    let line = stderr.lines().find(|l| l.starts_with("error: ")).unwrap_or_else(|| panic!("{stderr}"));
    let at = line.find("bad.yaml").unwrap_or_else(|| panic!("{line}"));
    line[at..].to_string()
}

// Columns are 1-based and point at the offending token; every expected place
// below is counted by hand on the line shown in its comment.

#[test]
fn malformed_yaml_names_line_and_column() {
    // line 4 `  - {tenant: A, count: 1, service: 1s` never closes the `{` at column 5
    let e = bad_run(&format!("{OK_HEAD}workload:\n  - {{tenant: A, count: 1, service: 1s\n"));
    assert_eq!(
        error_line(&e),
        "bad.yaml:4:5: unclosed bracket '{'; fix the YAML syntax here (check indentation, colons, quotes and brackets)"
    );
}

#[test]
fn unknown_key_lists_valid_keys() {
    // line 4 `  - {tenant: A, count: 1, sevice: 1s}`: `{` at 5, `tenant: A, ` 6-16,
    // `count: 1, ` 17-26, `sevice` at 27
    let e = bad_run(&format!("{OK_HEAD}workload:\n  - {{tenant: A, count: 1, sevice: 1s}}\n"));
    assert_eq!(
        error_line(&e),
        "bad.yaml:4:27: unknown field `sevice`, expected one of tenant, tenants, class, count, at, arrivals, service, deadline, cost, failure, slice, resume_overhead, declared, trace; did you mean `service`? (see docs/scenario.md)"
    );
}

#[test]
fn wrong_type_is_explained() {
    // line 2 `workers: many`: the value starts at column 10
    let e = bad_run("name: t\nworkers: many\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n");
    assert_eq!(
        error_line(&e),
        "bad.yaml:2:10: invalid value: expected a whole number of zero or more; write e.g. 4"
    );
}

#[test]
fn negative_or_zero_rates_are_rejected() {
    // line 4 `  - {tenant: A, arrivals: {poisson: RATE, count: 5}, ...`: `{` at 5,
    // `tenant: A, ` 6-16, `arrivals: ` 17-26, `{` 27, `poisson: ` 28-36, the rate at 37
    for rate in ["0/s", "-2/s"] {
        let e = bad_run(&format!(
            "{OK_HEAD}workload:\n  - {{tenant: A, arrivals: {{poisson: {rate}, count: 5}}, service: 1s}}\n"
        ));
        assert_eq!(
            error_line(&e),
            format!("bad.yaml:4:37: `poisson`: rate `{rate}` must be greater than zero; write a positive rate such as 2/s, or remove the entry")
        );
    }
}

#[test]
fn negative_duration_is_rejected() {
    // line 4 `  - {tenant: A, count: 1, service: -1s}`: `service: ` 27-35, value at 36
    let e = bad_run(&format!("{OK_HEAD}workload:\n  - {{tenant: A, count: 1, service: -1s}}\n"));
    assert_eq!(error_line(&e), "bad.yaml:4:36: `service`: duration `-1s` must be zero or positive");
}

#[test]
fn undeclared_class_is_an_error_listing_the_declared_ones() {
    // line 6 `  - {tenant: A, class: low, ...`: `class: ` 17-23, `low` at 24
    let e = bad_run(&format!(
        "{OK_HEAD}classes:\n  hi: {{priority: 1}}\nworkload:\n  - {{tenant: A, class: low, count: 1, service: 1s}}\n"
    ));
    assert_eq!(
        error_line(&e),
        "bad.yaml:6:24: class `low` is not declared; declared classes: default, hi; add it under `classes:` or use one of these"
    );
}

#[test]
fn empty_workload_is_an_error() {
    // line 3 `workload: []`: the empty list at column 11
    let e = bad_run(&format!("{OK_HEAD}workload: []\n"));
    assert_eq!(
        error_line(&e),
        "bad.yaml:3:11: `workload` is empty; add at least one entry, e.g. `- {tenant: A, count: 10, service: 1s}`"
    );
}

#[test]
fn unknown_policy_is_an_error_naming_the_choices() {
    // line 5 `policies: [fifo, fastest]`: `[` at 11, `fifo, ` 12-17, `fastest` at 18
    let e = bad_run(&format!(
        "{OK_HEAD}workload:\n  - {{tenant: A, count: 1, service: 1s}}\npolicies: [fifo, fastest]\n"
    ));
    assert_eq!(
        error_line(&e),
        "bad.yaml:5:18: unknown policy `fastest`; choose one of: fifo, priority, round_robin, aging, bands, reserve, edf, hierarchical, drr, wfq, lottery, share, drf (see `fairsim policies`)"
    );
}

#[test]
fn missing_scenario_file_exits_2() {
    let dir = tempdir();
    let assert = fairsim().arg("run").arg(dir.path().join("nope.yaml")).assert().code(2);
    let e = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(e.contains("nope.yaml") && !e.contains("panicked"), "{e}");
}

#[test]
fn unknown_policy_on_the_command_line_exits_2() {
    let dir = tempdir();
    let assert = fairsim()
        .arg("run")
        .arg(scenario("abc-rotation.yaml"))
        .args(["--policy", "nonesuch", "--out"])
        .arg(dir.path().join("o"))
        .assert()
        .code(2);
    let e = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(e.contains("nonesuch") && e.contains("fifo"), "{e}");
    assert!(!dir.path().join("o").exists());
}

/// Every `.yaml` file under `dir`, recursively.
fn yaml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "yaml") {
            out.push(p);
        }
    }
}

#[test]
fn validate_accepts_every_shipped_scenario() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files = Vec::new();
    yaml_files(&root, &mut files);
    files.sort();
    // the benchmark scenarios in scenarios/bench/ are shipped scenarios too
    let names: Vec<String> =
        files.iter().map(|p| p.strip_prefix(&root).unwrap().display().to_string()).collect();
    for expected in
        ["abc-rotation.yaml", "noisy-neighbor.yaml", "bench/tenants-10k.yaml", "bench/summary-10m.yaml"]
    {
        assert!(names.iter().any(|n| n == expected), "{expected} not found in {names:?}");
    }
    for p in &files {
        fairsim().arg("validate").arg(p).assert().success();
    }
}

#[test]
fn policies_lists_every_registered_policy() {
    let out = fairsim().arg("policies").assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    for p in fairsim::policy::registry() {
        assert!(text.contains(p.name), "{} missing", p.name);
    }
}

#[test]
fn a_class_yaml_reads_as_a_boolean_gets_a_hint_to_quote_it() {
    // line 8 `    route: [{class: y, to: slow}, {to: main}]`: YAML 1.1 reads the
    // unquoted y as true; `y` is at column 21 (4 spaces, `route: [{class: `)
    let e = bad_run(&format!(
        "{OK_HEAD}classes: {{x: {{}}, y: {{}}}}\nworkload: [{{tenant: A, count: 1, service: 1s}}]\ntopologies:\n  t:\n    queues: [main, slow]\n    route: [{{class: y, to: slow}}, {{to: main}}]\n    pools: [{{name: w, workers: 1, queues: [main, slow]}}]\n"
    ));
    assert_eq!(
        error_line(&e),
        "bad.yaml:8:21: class `true` is not declared; declared classes: default, x, y; add it under `classes:` or use one of these (YAML reads y, n, yes, no, on and off as true or false: quote the name, e.g. \"y\")"
    );
}

#[test]
fn a_bare_star_gets_a_hint_to_quote_it() {
    // line 4 `admission: [{tenant: *, max_queued: 1}]`: YAML reads `*` as the
    // start of an alias; the error points at it, column 22 (`admission: [{`
    // is 13 characters, `tenant: ` 8 more)
    let e = bad_run(&format!("{OK_HEAD}workload: [{{tenant: A, count: 1, service: 1s}}]\nadmission: [{{tenant: *, max_queued: 1}}]\n"));
    let line = error_line(&e);
    assert!(line.starts_with("bad.yaml:4:22: ") && line.ends_with("quote it: \"*\""), "{line}");
}

/// `validate` on `yaml`: exit 2, no panic; the error line as [`error_line`] gives it.
fn bad_validate(yaml: &str) -> String {
    let dir = tempdir();
    let file = dir.path().join("bad.yaml");
    std::fs::write(&file, yaml).unwrap();
    let assert = fairsim().arg("validate").arg(&file).assert().code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(!stderr.contains("panicked"), "{stderr}");
    error_line(&stderr)
}

// What run refuses for a reason the scenario alone decides, validate refuses
// with the same message at the same line and column.

#[test]
fn validate_refuses_reserve_workers_past_its_topology_pool() {
    // line 11 `  - {policy: reserve, class: hi, workers: 4, topology: t}`: `{` at 5,
    // `policy: reserve, ` 6-22, `class: hi, ` 23-33, `workers: ` 34-42, `4` at 43;
    // the topology's one pool has 3 workers, the scenario's `workers` 4
    let yaml = "workers: 4\nclasses: {hi: {priority: 1}}\nworkload:\n  - {tenant: A, class: hi, count: 2, service: 1s}\n  - {tenant: B, count: 2, service: 1s}\ntopologies:\n  t:\n    queues: [main]\n    pools: [{name: p, workers: 3, queues: [main]}]\npolicies:\n  - {policy: reserve, class: hi, workers: 4, topology: t}\n";
    let expected =
        "bad.yaml:11:43: policy `reserve`: `workers: 4` must be between 1 and the pool's 3 workers";
    assert_eq!(bad_validate(yaml), expected);
    assert_eq!(error_line(&bad_run(yaml)), expected);
    // the loader is the gate for every command: the entry is refused at
    // its place even when `--policy` picks another, and by sweep
    let dir = tempdir();
    let file = dir.path().join("bad.yaml");
    std::fs::write(&file, yaml).unwrap();
    let out = dir.path().join("out");
    for args in [&["run", "--policy", "fifo"][..], &["sweep", "--set", "workers=4,5", "--seeds", "2"][..]] {
        let assert =
            fairsim().arg(args[0]).arg(&file).args(&args[1..]).arg("--out").arg(&out).assert().code(2);
        assert_eq!(error_line(&String::from_utf8_lossy(&assert.get_output().stderr)), expected, "{args:?}");
    }
    assert!(!out.exists());
    // 3 reserved workers fit the pool of 3
    let file = dir.path().join("ok.yaml");
    std::fs::write(&file, yaml.replace("workers: 4, topology", "workers: 3, topology")).unwrap();
    fairsim().arg("validate").arg(&file).assert().success();
}

#[test]
fn validate_refuses_every_arrivals_past_the_horizon() {
    // arrivals at 0, 100000 d = 8.64e9 s and 2 x 8.64e9 = 1.728e10 s; the
    // horizon is 2^53 us = 9.007e9 s, so the third is past it. The place is
    // the entry's line (3), as the generator's error in run gives it.
    let yaml = "workers: 1\nworkload:\n  - {tenant: A, arrivals: {every: 100000d, count: 3}, service: 1s}\n";
    let expected = "bad.yaml:3: this workload entry drew an arrival time of 17280000000 s, past fairsim's horizon of 2^53 us (about 285 years); lower its rate gaps or service times";
    assert_eq!(bad_validate(yaml), expected);
    assert_eq!(error_line(&bad_run(yaml)), expected);
    // two arrivals (0 and 8.64e9 s) stay inside the horizon: validate accepts them
    let dir = tempdir();
    let file = dir.path().join("ok.yaml");
    std::fs::write(&file, yaml.replace("count: 3", "count: 2")).unwrap();
    fairsim().arg("validate").arg(&file).assert().success();
    // a `stop` (a duration, at most the horizon) ends the entry first
    std::fs::write(&file, yaml.replace("count: 3", "count: 3, stop: 100001d")).unwrap();
    fairsim().arg("validate").arg(&file).assert().success();
}

#[test]
fn a_scenario_that_is_not_utf8_is_an_error_at_its_first_bad_byte() {
    // Latin-1 "é" (0xE9) as the 4th character of line 3's tenant name.
    let dir = tempdir();
    let sc = dir.path().join("bad.yaml");
    let mut text = b"workers: 1\nworkload:\n  - {tenant: Ren".to_vec();
    text.push(0xE9);
    text.extend_from_slice(b", count: 1, service: 1s}\n");
    std::fs::write(&sc, text).expect("write");
    let o = fairsim().arg("validate").arg(&sc).output().expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("bad.yaml:3:17:") && err.contains("not UTF-8"), "{err}");
}

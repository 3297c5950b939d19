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

#[test]
fn malformed_yaml_names_line_and_column() {
    let e = bad_run("name: t\nworkers: [1\nworkload: []\n");
    assert!(e.contains("bad.yaml:"), "{e}");
}

#[test]
fn unknown_key_lists_valid_keys() {
    let e = bad_run(&format!("{OK_HEAD}workload:\n  - {{tenant: A, count: 1, sevice: 1s}}\n"));
    assert!(e.contains("bad.yaml:4:"), "line 4: {e}");
    assert!(e.contains("sevice") && e.contains("service"), "{e}");
}

#[test]
fn wrong_type_is_explained() {
    let e = bad_run("name: t\nworkers: many\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n");
    assert!(e.contains("bad.yaml:2:"), "{e}");
}

#[test]
fn negative_or_zero_rates_are_rejected() {
    for rate in ["0/s", "-2/s"] {
        let e = bad_run(&format!(
            "{OK_HEAD}workload:\n  - {{tenant: A, arrivals: {{poisson: {rate}, count: 5}}, service: 1s}}\n"
        ));
        assert!(e.contains("bad.yaml:4:"), "{e}");
        assert!(e.contains("greater than zero"), "{e}");
    }
}

#[test]
fn negative_duration_is_rejected() {
    let e = bad_run(&format!("{OK_HEAD}workload:\n  - {{tenant: A, count: 1, service: -1s}}\n"));
    assert!(e.contains("bad.yaml:4:"), "{e}");
}

#[test]
fn undeclared_class_is_an_error_listing_the_declared_ones() {
    let e = bad_run(&format!(
        "{OK_HEAD}classes:\n  hi: {{priority: 1}}\nworkload:\n  - {{tenant: A, class: low, count: 1, service: 1s}}\n"
    ));
    assert!(e.contains("bad.yaml:6:"), "{e}");
    assert!(e.contains("hi"), "{e}");
}

#[test]
fn empty_workload_is_an_error() {
    let e = bad_run(&format!("{OK_HEAD}workload: []\n"));
    assert!(e.contains("workload"), "{e}");
}

#[test]
fn unknown_policy_is_an_error_naming_the_choices() {
    let e = bad_run(&format!(
        "{OK_HEAD}workload:\n  - {{tenant: A, count: 1, service: 1s}}\npolicies: [fifo, fastest]\n"
    ));
    assert!(e.contains("bad.yaml:5:"), "{e}");
    assert!(e.contains("round_robin"), "{e}");
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

#[test]
fn validate_accepts_every_shipped_scenario() {
    for entry in
        std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")).unwrap()
    {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "yaml") {
            fairsim().arg("validate").arg(&p).assert().success();
        }
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

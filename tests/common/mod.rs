//! Shared helpers for the CLI-level tests.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// Path of a shipped scenario.
pub fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios").join(name)
}

/// `fairsim` with the given arguments.
pub fn fairsim() -> Command {
    Command::cargo_bin("fairsim").expect("binary built")
}

/// Runs `fairsim run SCENARIO --out OUT --quiet --audit EXTRA...` and asserts success.
pub fn run(scenario: &Path, out: &Path, extra: &[&str]) {
    fairsim()
        .arg("run")
        .arg(scenario)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .arg("--audit")
        .args(extra)
        .assert()
        .success();
}

/// Writes `text` as `t.yaml` in a new temporary folder and runs it into
/// its `out` folder with `extra` options; the folder and `out`.
pub fn run_yaml(text: &str, extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    let sc = dir.path().join("t.yaml");
    std::fs::write(&sc, text).expect("write scenario");
    let out = dir.path().join("out");
    run(&sc, &out, extra);
    (dir, out)
}

/// `fairsim validate` of `text` written as `name`: asserts exit code 2 and
/// returns the error output.
pub fn validate_error(text: &str, name: &str) -> String {
    let dir = tempdir();
    let sc = dir.path().join(name);
    std::fs::write(&sc, text).expect("write scenario");
    let out = fairsim().arg("validate").arg(&sc).output().expect("run fairsim");
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A CSV file as a list of header -> value maps.
pub fn read_csv(path: &Path) -> Vec<HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let headers = r.headers().expect("header").clone();
    r.records()
        .map(|rec| {
            let rec = rec.expect("row");
            headers.iter().zip(rec.iter()).map(|(h, v)| (h.to_string(), v.to_string())).collect()
        })
        .collect()
}

/// Parses `A:1 B:2` into pairs.
pub fn pairs(cell: &str) -> Vec<(String, String)> {
    cell.split_whitespace()
        .map(|p| {
            let (a, b) = p.rsplit_once(':').expect("tenant:value");
            (a.to_string(), b.to_string())
        })
        .collect()
}

/// Seconds as f64 from a CSV cell.
pub fn secs(cell: &str) -> f64 {
    cell.parse().unwrap_or_else(|_| panic!("not a number: {cell:?}"))
}

/// A temporary directory.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

/// Every file under `dir` (the charts in `charts/` too) with its bytes, by relative path.
pub fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((
                    p.strip_prefix(dir).unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

/// Writes a scenario (or any file) `name` holding `text` into `dir`.
pub fn write_scenario(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write scenario");
    p
}

/// Start times of each tenant's jobs, in job id order, from `jobs.csv`
/// (whose rows come in the order jobs end).
pub fn tenant_starts(out: &Path, label: &str) -> HashMap<String, Vec<f64>> {
    let mut rows = read_csv(&out.join(label).join("jobs.csv"));
    rows.sort_by_key(|r| r["job"].parse::<u64>().expect("job id"));
    let mut m: HashMap<String, Vec<f64>> = HashMap::new();
    for r in rows {
        m.entry(r["tenant"].clone()).or_default().push(secs(&r["start"]));
    }
    m
}

/// `fairsim validate` of this scenario text written as `dir/bad.yaml`:
/// (exit code, stderr).
pub fn validate_text(dir: &Path, text: &str) -> (Option<i32>, String) {
    let sc = write_scenario(dir, "bad.yaml", text);
    let o = fairsim().arg("validate").arg(&sc).output().expect("runs");
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

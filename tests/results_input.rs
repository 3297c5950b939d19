//! A results folder that cannot be read as fairsim writes it is bad input
//! (exit code 2, naming file, line and column), never a violation (exit
//! code 1): the one results reader (`results::read`) refuses text that is
//! not UTF-8, and `check` reads the observation log's cells before any rule
//! runs; `report` reads through the same reader.

mod common;

use std::path::{Path, PathBuf};

use common::{fairsim, run_yaml};

/// Two tenants on two workers, full logs: jobs.csv, ticks.csv and the rest.
const SMALL: &str = "\
name: small
workers: 2
workload:
  - {tenant: A, count: 4, service: 1s}
  - {tenant: B, count: 2, service: 2s}
policies: [fifo]
";

/// `fairsim CMD DIR`: exit code and stderr.
fn on(cmd: &str, dir: &Path) -> (i32, String) {
    let out = fairsim().arg(cmd).arg(dir).output().expect("run fairsim");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A fresh results folder, with `file`'s line `line` (1-based) passed
/// through `edit` as bytes.
fn tampered(file: &str, line: usize, edit: impl Fn(&[u8]) -> Vec<u8>) -> (tempfile::TempDir, PathBuf) {
    let (tmp, out) = run_yaml(SMALL, &["--logs", "full"]);
    let path = out.join(file);
    let text = std::fs::read(&path).expect("read");
    let mut lines: Vec<Vec<u8>> = text.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    lines[line - 1] = edit(&lines[line - 1]);
    std::fs::write(&path, lines.join(&b'\n')).expect("write");
    (tmp, out)
}

/// Asserts exit code 2, no violation and no panic, and each of `says`.
fn refused(cmd: &str, dir: &Path, says: &[&str]) {
    let (code, err) = on(cmd, dir);
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("VIOLATED") && !err.contains("panicked") && !err.contains("rule"), "{err}");
    for s in says {
        assert!(err.contains(s), "{s:?} not in: {err}");
    }
}

/// Replaces the first `from` of a line with `to`.
fn swap(from: &'static [u8], to: &'static [u8]) -> impl Fn(&[u8]) -> Vec<u8> {
    move |l: &[u8]| {
        let i = l.windows(from.len()).position(|w| w == from).expect("the text is on the line");
        [&l[..i], to, &l[i + from.len()..]].concat()
    }
}

#[test]
fn an_untouched_folder_checks() {
    let (_tmp, out) = run_yaml(SMALL, &["--logs", "full"]);
    assert_eq!(on("check", &out).0, 0);
}

#[test]
fn a_jobs_csv_that_is_not_utf8_is_bad_input_at_its_line_and_column() {
    // row 2: `1,A,default,...`; the tenant `A` (column 3 from the start of
    // the line, after `1,`) becomes byte 0xff
    let (_tmp, out) = tampered("fifo/jobs.csv", 3, swap(b",A,", b",\xff,"));
    refused("check", &out, &["fifo/jobs.csv:3:3: not UTF-8 text (byte 0xff)", "rerun"]);
}

#[test]
fn a_ticks_csv_that_is_not_utf8_is_bad_input() {
    // `2,2,2,B:2,A A,,A:4 B:0,,`: the `4` is the line's 18th character
    let (_tmp, out) = tampered("fifo/ticks.csv", 3, swap(b"A:4", b"A:\xff"));
    refused("check", &out, &["fifo/ticks.csv:3:18: not UTF-8 text"]);
}

#[test]
fn a_ticks_time_of_zz_is_bad_input_naming_row_and_column() {
    let (_tmp, out) = tampered("fifo/ticks.csv", 2, swap(b"1,1,", b"1,zz,"));
    refused(
        "check",
        &out,
        &["fifo/ticks.csv:2:2: column 2 (`time`): `zz` is not a time in seconds", "rerun"],
    );
}

#[test]
fn a_tick_of_1e20_is_bad_input_naming_row_and_column() {
    let (_tmp, out) = tampered("fifo/ticks.csv", 2, swap(b"1,1,", b"1e20,1,"));
    refused("check", &out, &["fifo/ticks.csv:2:1: column 1 (`tick`): `1e20` is not a tick number"]);
    // a whole number whose end overflows the clock is no tick either
    let (_tmp, out) = tampered("fifo/ticks.csv", 2, swap(b"1,1,", b"99999999999999999,1,"));
    refused("check", &out, &["fifo/ticks.csv:2:1: column 1 (`tick`)"]);
}

#[test]
fn a_scenario_yaml_that_is_not_utf8_is_reported_as_such_not_as_missing() {
    let (_tmp, out) = run_yaml(SMALL, &["--logs", "full"]);
    let path = out.join("scenario.yaml");
    let mut text = std::fs::read(&path).expect("read");
    text.extend_from_slice(b"# \xff\n");
    std::fs::write(&path, text).expect("write");
    // scenario.yaml has 6 lines; the comment is the 7th, its byte the 3rd
    refused("check", &out, &["scenario.yaml:7:3: not UTF-8 text (byte 0xff)"]);
    let (_, err) = on("check", &out);
    assert!(!err.contains("no scenario.yaml"), "{err}");
}

#[test]
fn report_reads_through_the_same_reader() {
    let (_tmp, out) = tampered("fifo/summary.csv", 2, swap(b"all,all", b"all,\xff"));
    refused("report", &out, &["fifo/summary.csv:2:5: not UTF-8 text"]);
}

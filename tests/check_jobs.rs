//! `fairsim check --jobs FILE`: production's own jobs table (CSV mapped
//! like a replayed trace, or SWF) against the rules a table alone can
//! decide. A clean table passes and says which rules ran and which were
//! skipped; each hand-made table below breaks one rule, found by name.

mod common;

use std::path::Path;

use common::{fairsim, tempdir};

/// Writes `files` into a new folder; returns it.
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempdir();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    dir
}

/// `fairsim check --jobs dir/jobs_name ARGS` (paths in ARGS relative to dir): (exit code, stdout).
fn check(dir: &Path, jobs: &str, args: &[&str]) -> (i32, String, String) {
    let mut cmd = fairsim();
    cmd.current_dir(dir).arg("check").arg("--jobs").arg(jobs).args(args);
    let o = cmd.output().expect("run fairsim");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Asserts exit 1 with `rule` reported VIOLATED; returns stdout.
fn violated(dir: &Path, jobs: &str, args: &[&str], rule: &str) -> String {
    let (code, out, err) = check(dir, jobs, args);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(&format!(": {rule}: VIOLATED")), "{out}");
    out
}

// A production export: two workers, tenants A and B. By hand: A1 runs
// [10, 40), A2 [20, 50), B1 waits from 30 to 40 and runs [40, 60); at most
// two run at once, and no worker idles while B1 waits (both busy 30..40).
const CLEAN: &str = "\
id,created_at,tenant,queue,started_at,finished_at
a1,2026-11-28T10:00:10Z,A,web,2026-11-28T10:00:10Z,2026-11-28T10:00:40Z
a2,2026-11-28T10:00:20Z,A,web,2026-11-28T10:00:20Z,2026-11-28T10:00:50Z
b1,2026-11-28T10:00:30Z,B,batch,2026-11-28T10:00:40Z,2026-11-28T10:01:00Z
q1,2026-11-28T10:01:00Z,B,batch,,
";

#[test]
fn a_clean_table_passes_and_names_the_rules_skipped() {
    let dir = folder(&[("jobs.csv", CLEAN)]);
    let (code, out, err) = check(dir.path(), "jobs.csv", &["--workers", "2", "--work-conserving"]);
    assert_eq!(code, 0, "{out}{err}");
    for ok in ["ends-once: ok", "start-after-arrival: ok", "finish: ok", "workers: ok", "work-conserving: ok"]
    {
        assert!(out.contains(ok), "{ok}: {out}");
    }
    // 4 rows, all with an id; q1 is still queued (no start, no finish)
    assert!(out.contains("ends-once: ok, checked 4 rows (4 with an id, each once); 1 queued and 0 running at the table's last instant 1795860060s"), "{out}");
    assert!(out.contains("against 2 workers"), "{out}");
    for skipped in ["log-agrees: skipped: no observation log", "caps: skipped: no tenant has a cap"] {
        assert!(out.contains(skipped), "{skipped}: {out}");
    }
    // without --workers the worker rules cannot run, and say so
    let (code, out, _) = check(dir.path(), "jobs.csv", &[]);
    assert_eq!(code, 0);
    assert!(out.contains("workers: skipped: no worker count"), "{out}");
    assert!(out.contains("work-conserving: skipped: not asked"), "{out}");
}

/// CLEAN with row `i` (1-based, after the header) replaced.
fn with_row(i: usize, row: &str) -> String {
    let mut lines: Vec<&str> = CLEAN.lines().collect();
    lines[i] = row;
    lines.join("\n") + "\n"
}

#[test]
fn a_job_id_on_two_rows_breaks_ends_once() {
    let t = with_row(2, "a1,2026-11-28T10:00:20Z,A,web,2026-11-28T10:00:20Z,2026-11-28T10:00:50Z");
    let dir = folder(&[("jobs.csv", &t)]);
    let out = violated(dir.path(), "jobs.csv", &[], "ends-once");
    assert!(out.contains("job id `a1` is on two rows") && out.contains("jobs.csv:3:"), "{out}");
}

#[test]
fn a_start_before_the_arrival_breaks_start_after_arrival() {
    // b1 arrives at :30 and starts at :25
    let t = with_row(3, "b1,2026-11-28T10:00:30Z,B,batch,2026-11-28T10:00:25Z,2026-11-28T10:01:00Z");
    let dir = folder(&[("jobs.csv", &t)]);
    let out = violated(dir.path(), "jobs.csv", &[], "start-after-arrival");
    assert!(out.contains("job `b1` (line 4)"), "{out}");
}

#[test]
fn a_finish_before_the_start_breaks_finish() {
    let t = with_row(3, "b1,2026-11-28T10:00:30Z,B,batch,2026-11-28T10:00:40Z,2026-11-28T10:00:35Z");
    let dir = folder(&[("jobs.csv", &t)]);
    violated(dir.path(), "jobs.csv", &[], "finish");
}

#[test]
fn three_jobs_at_once_on_two_workers_break_workers() {
    // b1 starting at :35 overlaps a1 [10, 40) and a2 [20, 50): 3 at :35
    let t = with_row(3, "b1,2026-11-28T10:00:30Z,B,batch,2026-11-28T10:00:35Z,2026-11-28T10:01:00Z");
    let dir = folder(&[("jobs.csv", &t)]);
    let out = violated(dir.path(), "jobs.csv", &["--workers", "2"], "workers");
    assert!(out.contains("3 jobs ran at once on 2 workers"), "{out}");
    // on three workers the same table holds
    assert_eq!(check(dir.path(), "jobs.csv", &["--workers", "3"]).0, 0);
}

#[test]
fn an_idle_worker_while_a_job_waits_breaks_work_conserving() {
    // on 3 workers, b1 waits 30..40 while only two run
    let dir = folder(&[("jobs.csv", CLEAN)]);
    let out = violated(dir.path(), "jobs.csv", &["--workers", "3", "--work-conserving"], "work-conserving");
    assert!(out.contains("from 1795860030s to 1795860040s, 1 jobs waited while 2 of 3 workers ran"), "{out}");
}

#[test]
fn a_tenant_over_its_cap_under_hold_breaks_caps() {
    // A runs two at once ([20, 40)) with cap 1 under spare: hold
    let sc = "workers: 2\ntenants: {A: {cap: 1}}\npolicies: [{policy: fifo, spare: hold}]\n";
    let dir = folder(&[("jobs.csv", CLEAN), ("prod.yaml", sc)]);
    let out = violated(dir.path(), "jobs.csv", &["--scenario", "prod.yaml", "--policy", "fifo"], "caps");
    assert!(out.contains("tenant A ran 2 jobs at once, over its cap 1"), "{out}");
    // without --policy the rule cannot tell hold from lend, and says so
    let (code, out, _) = check(dir.path(), "jobs.csv", &["--scenario", "prod.yaml"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("caps: skipped: give --policy"), "{out}");
}

#[test]
fn a_row_without_a_tenant_breaks_tenant_identity() {
    let t = with_row(4, "q1,2026-11-28T10:01:00Z,,batch,,");
    let dir = folder(&[("jobs.csv", &t)]);
    violated(dir.path(), "jobs.csv", &[], "stop-tenant-identity");
}

#[test]
fn a_mapping_from_the_scenario_reads_other_column_names() {
    // epoch seconds, columns named as a Rails export would
    let csv = "job_id,enqueued,account,began,ended\n7,100,A,100,130\n8,101,A,105,120\n";
    let sc = "workers: 1\nworkload:\n  - trace: {path: x.csv, columns: {id: job_id, arrival: enqueued, tenant: account, started: began, finished: ended}}\npolicies: [fifo]\n";
    let dir = folder(&[("prod.csv", csv), ("prod.yaml", sc)]);
    // job 8 starts at 105 while job 7 runs [100, 130): two at once on one worker
    let out = violated(dir.path(), "prod.csv", &["--scenario", "prod.yaml"], "workers");
    assert!(out.contains("job `8` (line 3)") || out.contains("job `7` (line 2)"), "{out}");
}

// SWF: start = submit + wait (field 3), finish = start + run time (field 4).
// Job 1: submit 0, wait 10 -> [10, 110) on 4 processors; job 2: submit 5,
// wait 50 -> [55, 155) on 6; job 3: cancelled (run -1), left out.
// At 55 they hold 4 + 6 = 10 processors.
const SWF: &str = "; hand-made\n\
1 0 10 100 4 -1 -1 4 -1 -1 1 1 1 -1 1 -1 -1 -1\n\
2 5 50 100 6 -1 -1 6 -1 -1 1 2 1 -1 1 -1 -1 -1\n\
3 6 -1 -1 -1 -1 -1 2 -1 -1 5 2 1 -1 1 -1 -1 -1\n";

#[test]
fn an_swf_log_over_its_processors_breaks_resources() {
    let dir = folder(&[
        ("log.swf", SWF),
        ("ten.yaml", "resources: {procs: 10}\n"),
        ("nine.yaml", "resources: {procs: 9}\n"),
    ]);
    let (code, out, err) = check(dir.path(), "log.swf", &["--scenario", "ten.yaml"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 rows left out: without a run time or processor count (cancelled)"), "{out}");
    assert!(out.contains("resources: ok, checked procs (capacity 10)"), "{out}");
    let out = violated(dir.path(), "log.swf", &["--scenario", "nine.yaml"], "resources");
    assert!(out.contains("at 55s") && out.contains("10 of procs in use by 2 jobs"), "{out}");
    assert!(out.contains("job `2` (line 3)"), "{out}");
    // two jobs at once on one worker: [10, 110) and [55, 155)
    let out = violated(dir.path(), "log.swf", &["--workers", "1"], "workers");
    assert!(out.contains("at 55s"), "{out}");
}

#[test]
fn a_bad_cell_is_an_input_error_at_its_line_and_column() {
    let t = with_row(2, "a2,yesterday,A,web,2026-11-28T10:00:20Z,2026-11-28T10:00:50Z");
    let dir = folder(&[("jobs.csv", &t)]);
    let (code, _, err) = check(dir.path(), "jobs.csv", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("jobs.csv:3:2") && err.contains("yesterday"), "{err}");
    // a folder and --jobs together are a usage error
    let o = fairsim().arg("check").arg(dir.path()).arg("--jobs").arg("x.csv").output().expect("run");
    assert_eq!(o.status.code(), Some(2));
}

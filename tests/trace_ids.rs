//! Trace job ids in `jobs.csv` (`trace_id`), and the parsed-rows spill that
//! lets every policy replay a trace without parsing its text again.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::{read_csv, run, tempdir};

/// Writes `files` into a new folder beside `t.yaml` = `scenario`, runs it,
/// and returns jobs.csv of `policy` keyed by the job's arrival cell.
fn replay(scenario: &str, files: &[(&str, &str)], policy: &str) -> Vec<HashMap<String, String>> {
    let dir = tempdir();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("write trace");
    }
    let sc = dir.path().join("t.yaml");
    std::fs::write(&sc, scenario).expect("write scenario");
    let out = dir.path().join("out");
    run(&sc, &out, &[]);
    read_csv(&out.join(policy).join("jobs.csv"))
}

/// (job, trace_id) of every row, by job id.
fn ids(jobs: &[HashMap<String, String>]) -> Vec<(u64, String)> {
    let mut v: Vec<(u64, String)> =
        jobs.iter().map(|j| (j["job"].parse().expect("job id"), j["trace_id"].clone())).collect();
    v.sort();
    v
}

/// SWF job lines: job number, submit s, wait, run s, procs, ..., user in field 12.
const SWF: &str = "; three jobs whose numbers are not 1..3
101 0 -1 5 1 -1 -1 1 -1 -1 1 7 -1 -1 -1 -1 -1 -1
205 2 -1 5 1 -1 -1 1 -1 -1 1 8 -1 -1 -1 -1 -1 -1
317 3 -1 5 1 -1 -1 1 -1 -1 1 7 -1 -1 -1 -1 -1 -1
";

#[test]
fn swf_job_numbers_show_in_jobs_csv() {
    let sc = "workers: 1\nworkload:\n  - trace: {path: log.swf}\npolicies: [fifo, round_robin]\n";
    for policy in ["fifo", "round_robin"] {
        let jobs = replay(sc, &[("log.swf", SWF)], policy);
        // the engine numbers jobs in arrival order (submit 0, 2, 3 s): job 0
        // is SWF job 101, job 1 is 205, job 2 is 317, whatever ran first
        assert_eq!(ids(&jobs), vec![(0, "101".into()), (1, "205".into()), (2, "317".into())], "{policy}");
    }
}

#[test]
fn csv_id_column_mapped_under_another_name_shows_in_jobs_csv() {
    let csv = "job_uuid,created_at,tenant,service\n\
               a-7,2026-11-28T10:00:00Z,acme,1\n\
               \"b,9\",2026-11-28T10:00:01Z,beta,1\n\
               c-2,2026-11-28T10:00:02Z,acme,1\n";
    let sc =
        "workers: 1\nworkload:\n  - trace: {path: jobs.csv, columns: {id: job_uuid}}\npolicies: [fifo]\n";
    let jobs = replay(sc, &[("jobs.csv", csv)], "fifo");
    // rows 1-3 arrive at 0, 1 and 2 s: jobs 0, 1, 2; the quoted id keeps its comma
    assert_eq!(ids(&jobs), vec![(0, "a-7".into()), (1, "b,9".into()), (2, "c-2".into())]);
}

#[test]
fn trace_without_ids_and_generated_jobs_leave_the_column_empty() {
    let csv = "created_at,tenant,service\n2026-11-28T10:00:00Z,acme,1\n2026-11-28T10:00:01Z,beta,1\n";
    // one generated job at 0.5 s between the two trace rows (0 and 1 s)
    let sc = "workers: 1\nworkload:\n  - trace: {path: jobs.csv}\n  - {tenant: gen, count: 1, at: 500ms, service: 1s}\npolicies: [fifo]\n";
    let jobs = replay(sc, &[("jobs.csv", csv)], "fifo");
    assert_eq!(jobs.len(), 3);
    assert!(jobs.iter().all(|j| j["trace_id"].is_empty()), "{jobs:?}");
}

#[test]
fn generated_and_trace_jobs_interleave_with_the_right_ids() {
    let csv =
        "id,created_at,tenant,service\n11,2026-11-28T10:00:00Z,acme,1\n12,2026-11-28T10:00:02Z,beta,1\n";
    // the generated job (1 s) arrives between the trace rows (0 s and 2 s):
    // job 0 = trace id 11, job 1 = generated (no id), job 2 = trace id 12
    let sc = "workers: 2\nworkload:\n  - trace: {path: jobs.csv}\n  - {tenant: gen, count: 1, at: 1s, service: 1s}\npolicies: [fifo]\n";
    let jobs = replay(sc, &[("jobs.csv", csv)], "fifo");
    assert_eq!(ids(&jobs), vec![(0, "11".into()), (1, String::new()), (2, "12".into())]);
}

#[test]
fn policies_replay_the_parsed_rows_not_the_text() {
    let dir = tempdir();
    let trace = dir.path().join("jobs.csv");
    // two tenants, 1 s jobs arriving every 0.25 s: 8 rows, 8 s of work
    let mut csv = String::from("id,created_at,tenant,service\n");
    for i in 0..8 {
        csv += &format!("{},{}.{:02},t{},1\n", 100 + i, 1_795_860_000 + i / 4, (i % 4) * 25, i % 2);
    }
    std::fs::write(&trace, csv).expect("write");
    let sc_path = dir.path().join("t.yaml");
    std::fs::write(
        &sc_path,
        "workers: 1\nworkload:\n  - trace: {path: jobs.csv}\npolicies: [fifo, round_robin]\n",
    )
    .expect("write");
    let sc = fairsim::scenario::load(&sc_path).expect("loads");
    // the first pass has read the file; from here on it is never opened again
    std::fs::remove_file(&trace).expect("remove");
    for spec in &sc.policies {
        let stats = fairsim::run::simulate(&sc, spec, None, None, true).expect("replays from the spill");
        // one worker, 8 jobs of 1 s arriving by 1.75 s: busy from 0 to 8 s
        assert_eq!(stats.all.jobs, 8, "{}", spec.label);
        assert_eq!(stats.makespan, 8_000_000, "{}", spec.label);
    }
    let spill = sc.traces[0].scan.spill.as_ref().expect("a spill").path.clone();
    assert!(spill.exists());
    drop(sc);
    assert!(!Path::new(&spill).exists(), "the spill is removed with the scenario");
}

//! Job-table formats (`format: good_jobs | bullmq | postgres |
//! celery_events | sidekiq_log` in a trace entry, `--trace-format` on the
//! command line): each reads a small file in its processor's documented
//! schema (tests/data/, see its README), every figure below read off the
//! file by hand; two are calibrated against their processor's preset.

mod common;

use std::path::{Path, PathBuf};

use common::*;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// (tenant, class, arrival, service, trace_id) of each replayed job, by
/// job id, from `run` on one worker.
fn replayed(file: &str, format: &str) -> Vec<(String, String, f64, f64, String)> {
    let text =
        format!("workers: 1\nworkload:\n  - trace: {{path: {}, format: {format}}}\n", data(file).display());
    let (_d, out) = run_yaml(&text, &["--no-plots"]);
    let mut rows = read_csv(&out.join("fifo/jobs.csv"));
    rows.sort_by_key(|r| r["job"].parse::<u64>().unwrap());
    rows.iter()
        .map(|r| {
            (
                r["tenant"].clone(),
                r["class"].clone(),
                secs(&r["arrival"]),
                secs(&r["service"]),
                r["trace_id"].clone(),
            )
        })
        .collect()
}

fn row(t: &str, c: &str, a: f64, s: f64, id: &str) -> (String, String, f64, f64, String) {
    (t.into(), c.into(), a, s, id.into())
}

#[test]
fn good_jobs_rows_arrive_when_scheduled_and_run_performed_to_finished() {
    // good_jobs.csv: scheduled_at 10:00:00, .2, .3 (the first is the
    // origin); performed_at to finished_at 0.01 to 1.01, 1.02 to 1.52,
    // 1.53 to 2.03 (1, 0.5, 0.5 s); queue_name default, default, mailers
    // with priority 0, 0, 5: classes p0 (the default queue's), p0,
    // mailers/p5; ids from `id`
    assert_eq!(
        replayed("good_jobs.csv", "good_jobs"),
        [
            row("acme", "p0", 0.0, 1.0, "6b1f0c2e-0d6a-4c59-9a51-0c7e2f6f6a01"),
            row("beta", "p0", 0.2, 0.5, "7c2a1d3f-1e7b-4d6a-8b62-1d8f3a7a7b02"),
            row("acme", "mailers/p5", 0.3, 0.5, "8d3b2e40-2f8c-4e7b-9c73-2e904b8b8c03"),
        ]
    );
}

#[test]
fn bullmq_hashes_are_read_in_milliseconds() {
    // timestamp ...000000, ...000100, ...000150 ms: arrivals 0, 0.1,
    // 0.15; processedOn to finishedOn 400 ms each; priority 0, 5, 1
    assert_eq!(
        replayed("bullmq_jobs.csv", "bullmq"),
        [
            row("acme", "emails/p0", 0.0, 0.4, "1"),
            row("beta", "emails/p5", 0.1, 0.4, "2"),
            row("acme", "emails/p1", 0.15, 0.4, "3"),
        ]
    );
}

#[test]
fn a_postgres_jobs_table_reads_created_started_finished() {
    // created_at 10:00:00, :00.5, :01; started to finished 2 s, 1 s, 0.5 s
    assert_eq!(
        replayed("postgres_jobs.csv", "postgres"),
        [
            row("acme", "p1", 0.0, 2.0, "101"),
            row("beta", "bulk/p5", 0.5, 1.0, "102"),
            row("acme", "p1", 1.0, 0.5, "103")
        ]
    );
}

#[test]
fn celery_task_events_are_joined_per_task() {
    // task 1 and 2 sent at .0 and .1 (queue celery, tenant from kwargs'
    // repr), runtime 1.0 and 0.5; task 3 has no task-sent: it arrives at
    // its task-received (.2), queue unknown (default), runtime 0.2; the
    // worker events are not tasks
    assert_eq!(
        replayed("celery_events.jsonl", "celery_events"),
        [
            row("acme", "celery", 0.0, 1.0, "5a0c0f4e-0001-4c1e-9d2a-000000000001"),
            row("beta", "celery", 0.1, 0.5, "5a0c0f4e-0002-4c1e-9d2a-000000000002"),
            row("acme", "default", 0.2, 0.2, "5a0c0f4e-0003-4c1e-9d2a-000000000003"),
        ]
    );
}

#[test]
fn sidekiqs_json_log_is_joined_and_put_in_arrival_order() {
    // enqueued_at 1795860000000 (Sidekiq 8's milliseconds), 1795860000300
    // ms and 1795860000.2 (an older Sidekiq's seconds): arrivals 0, 0.3,
    // 0.2, so the job logged last (line 6) is the second row; elapsed
    // 1.001, 0.1 (a `fail`), 0.5; the boot line is no job
    assert_eq!(
        replayed("sidekiq_log.jsonl", "sidekiq_log"),
        [
            row("acme", "critical", 0.0, 1.001, "b4a577edbccf1d805744efa9"),
            row("beta", "default", 0.2, 0.5, "c5b688fecddf2e916855fb10"),
            row("acme", "critical", 0.3, 0.1, "d6c799a0def03fa27966ac21"),
        ]
    );
}

/// `calibrate SCENARIO --trace FILE --trace-format FORMAT --policy
/// production`: (recorded start, simulated start) by job, and the
/// discordant pairs.
fn calibrated(scenario: &str, file: &str, format: &str) -> (Vec<(f64, f64)>, String) {
    let dir = tempdir();
    let sc = write_scenario(dir.path(), "s.yaml", scenario);
    let out = dir.path().join("out");
    let o = fairsim()
        .arg("calibrate")
        .arg(&sc)
        .arg("--trace")
        .arg(data(file))
        .args(["--trace-format", format, "--policy", "production", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut rows = read_csv(&out.join("calibration/errors.csv"));
    rows.sort_by_key(|r| r["job"].parse::<u64>().unwrap());
    let starts = rows.iter().map(|r| (secs(&r["recorded_start"]), secs(&r["simulated_start"]))).collect();
    let m = read_csv(&out.join("calibration/calibration.csv"));
    let discordant = m.iter().find(|r| r["metric"] == "discordant_pairs").expect("metric")["value"].clone();
    (starts, discordant)
}

#[test]
fn a_bullmq_table_calibrates_against_the_bullmq_preset() {
    // one worker of concurrency 1 on `emails`, BullMQ's order: job 1 runs
    // 0 to 0.4; then job 3 (priority 1) before job 2 (priority 5) though
    // it came later: 0.4 to 0.8, then job 2 at 0.8. Recorded (processedOn
    // less the origin): 0.005, 0.81, 0.405: the same order, no pair the
    // other way round
    let (s, discordant) = calibrated(
        "workers: 1\ntopologies:\n  bq: {bullmq: {workers: [{queue: emails}]}}\npolicies: [{topology: bq, label: production}]\n",
        "bullmq_jobs.csv",
        "bullmq",
    );
    assert_eq!(s, [(0.005, 0.0), (0.81, 0.8), (0.405, 0.4)]);
    assert_eq!(discordant, "0");
}

#[test]
fn a_sidekiq_log_calibrates_against_strict_queues_and_not_fifo() {
    // `-q critical -q default`, one thread: the first job runs 0 to 1.001;
    // at 1.001 the critical job (0.3) goes before the default one (0.2):
    // 1.001 to 1.101, then the default at 1.101. Recorded: 0.01, 1.113,
    // 1.012 (the log's start lines): no pair the other way round. One fifo
    // queue runs the default job first (1.001, then 1.501): one pair.
    let strict = "workers: 1\nclasses: {critical: {}, default: {}}\ntopologies:\n  sk: {sidekiq: {concurrency: 1, queues: [critical, default]}}\npolicies: [{topology: sk, label: production}]\n";
    let (s, discordant) = calibrated(strict, "sidekiq_log.jsonl", "sidekiq_log");
    assert_eq!(s, [(0.01, 0.0), (1.113, 1.101), (1.012, 1.001)]);
    assert_eq!(discordant, "0");
    let fifo = "workers: 1\npolicies: [{policy: fifo, label: production}]\n";
    let (s, discordant) = calibrated(fifo, "sidekiq_log.jsonl", "sidekiq_log");
    assert_eq!(s, [(0.01, 0.0), (1.113, 1.001), (1.012, 1.501)]);
    assert_eq!(discordant, "1");
}

#[test]
fn bad_table_entries_are_errors_at_their_place() {
    let cases = [
        (
            "{path: x.csv, format: good_job}",
            "s.yaml:3:34: cannot tell the trace format from `good_job`; did you mean `good_jobs`?",
        ),
        ("{path: x.jsonl}", "s.yaml:3:19: cannot tell the trace format from `jsonl`"),
        (
            "{path: x.jsonl, format: celery_events, columns: {started: t}}",
            "may name only the `tenant` and `class` fields, not `started`",
        ),
    ];
    for (entry, want) in cases {
        let err = validate_error(&format!("workers: 1\nworkload:\n  - trace: {entry}\n"), "s.yaml");
        assert!(err.contains(want), "{entry}:\nwant {want}\ngot  {err}");
    }
    // a Sidekiq log without enqueued_at in its context: an error at the line
    let dir = tempdir();
    std::fs::write(
        dir.path().join("l.jsonl"),
        "{\"ts\":\"2026-11-28T10:00:00.010Z\",\"msg\":\"start\",\"ctx\":{\"jid\":\"a\",\"tenant\":\"x\"}}\n",
    )
    .unwrap();
    let sc = write_scenario(
        dir.path(),
        "s.yaml",
        "workers: 1\nworkload:\n  - trace: {path: l.jsonl, format: sidekiq_log}\n",
    );
    let o = fairsim().arg("validate").arg(&sc).output().unwrap();
    let (code, err) = (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned());
    assert_eq!(code, Some(2));
    assert!(err.contains("l.jsonl:1: the job's `start` line has no `ctx.enqueued_at`: add `enqueued_at` to Sidekiq's `logged_job_attributes`"), "{err}");
}

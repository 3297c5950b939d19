//! `fairsim check` accepts fairsim's own correct output:
//! runs the checker misread (names that hold the list cells' delimiters among them), each with the engine's figures derived
//! by hand, so that it is the checker, not the engine, that was wrong.

mod common;

use common::*;

/// Runs `text` with full logs, then `fairsim check` on the folder; the
/// jobs.csv rows of `label` by job id and check's exit code and output.
fn run_and_check(
    text: &str,
    label: &str,
) -> (Vec<std::collections::HashMap<String, String>>, Option<i32>, String) {
    let (dir, out) = run_yaml(text, &["--no-plots", "--logs", "full"]);
    let mut jobs = read_csv(&out.join(label).join("jobs.csv"));
    jobs.sort_by_key(|j| j["job"].parse::<u64>().expect("job id"));
    let o = fairsim().arg("check").arg(&out).output().expect("run check");
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    drop(dir);
    (jobs, o.status.code(), text)
}

fn cell<'a>(j: &'a std::collections::HashMap<String, String>, k: &str) -> &'a str {
    j[k].as_str()
}

#[test]
fn caps_under_lend_read_a_slowed_attempt_to_its_recorded_finish() {
    // 3 workers, A and B capped at 1, spare: lend. A's job 0 starts at 0
    // inside a 10x slowdown of A: its 1 s runs 10 s, to 10. B's six 2 s jobs
    // arrive at 1 ms: one starts below B's cap, and with A at its cap (job
    // 0) and B at its, the third worker is lent to B. A's job at 0.5 s waits:
    // A runs job 0 until 10. B's pairs run 0.001-2.001, 2.001-4.001,
    // 4.001-6.001; at 6.001 only A waits and is lent a worker. The checker
    // took job 0 to end at start + service = 1 and saw A claimable below its
    // cap at 2.001 while B ran 2: a false violation.
    let (jobs, code, out) = run_and_check(
        "workers: 3
tenants: {A: {cap: 1}, B: {cap: 1}}
workload:
  - {tenant: A, count: 1, at: 0s, service: 1s}
  - {tenant: A, count: 1, at: 500ms, service: 1s}
  - {tenant: B, count: 6, at: 1ms, service: 2s}
slowdowns: [{from: 0s, to: 1ms, factor: 10, tenant: A}]
policies: [{policy: fifo, spare: lend}]
",
        "fifo",
    );
    assert_eq!((cell(&jobs[0], "start"), cell(&jobs[0], "finish")), ("0", "10"));
    let b: Vec<&str> = jobs[1..7].iter().map(|j| cell(j, "start")).collect();
    assert_eq!(b, ["0.001", "0.001", "2.001", "2.001", "4.001", "4.001"]);
    assert_eq!(cell(&jobs[7], "start"), "6.001");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("caps: ok"), "{out}");
}

#[test]
fn workers_rule_allows_for_a_preempted_first_slice() {
    // 2 workers; B's two 10 s jobs in 5 s slices start at 0. A's hi job at
    // 1 s finds no worker, and the reserve of 1 worker for hi stops the
    // latest-started borrower (a tie at 0: the higher id, job 1). A runs
    // 1-2. Job 0: slices 0-5, 5-10. Job 1: its first slice ran 0-1 only and
    // restarts whole: 2-7, 7-12, so 3 starts. At most 2 ran at once; the
    // checker took job 1's first slice for a full 0-5 and counted 3 at 1 s.
    for preempt in ["checkpoint", "restart"] {
        let (jobs, code, out) = run_and_check(
            &format!(
                "workers: 2
classes: {{hi: {{priority: 1}}}}
workload:
  - {{tenant: B, count: 2, service: 10s, slice: 5s}}
  - {{tenant: A, class: hi, count: 1, at: 1s, service: 1s}}
policies: [{{policy: reserve, class: hi, workers: 1, preempt: {preempt}}}]
"
            ),
            "reserve",
        );
        let got: Vec<(&str, &str, &str)> =
            jobs.iter().map(|j| (cell(j, "start"), cell(j, "finish"), cell(j, "slices"))).collect();
        assert_eq!(got, [("0", "10", "2"), ("0", "12", "3"), ("1", "2", "1")], "{preempt}");
        assert_eq!(code, Some(0), "{preempt}: {out}");
        assert!(out.contains("workers: ok"), "{out}");
    }
}

#[test]
fn ends_once_accepts_a_killed_job_that_then_expired() {
    // 2 workers, two 5 s jobs of A at 0 with a 6 s deadline, edf dropping
    // late jobs. Both start at 0; at 1 s the pool loses a worker and kills
    // the latest started (a tie: job 1), which goes back to the queue with
    // its attempt not counted (0 attempts, 1 start). Job 0 ends at 5; job 1
    // could end at 10 at the earliest, past 6: dropped at 5. Its row: start
    // 0, finish 5, 0 attempts, 1 slice, expired: it started (slices), so a
    // start and a finish are a clean end.
    let (jobs, code, out) = run_and_check(
        "workers: 2
capacity: [{at: 1s, workers: 1, loss: kill}]
workload: [{tenant: A, count: 2, service: 5s, deadline: 6s}]
policies: [{policy: edf, late: drop}]
",
        "edf",
    );
    let got: Vec<(&str, &str, &str, &str)> = jobs
        .iter()
        .map(|j| (cell(j, "finish"), cell(j, "attempts"), cell(j, "slices"), cell(j, "outcome")))
        .collect();
    assert_eq!(got, [("5", "1", "1", "completed"), ("5", "0", "1", "expired")]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("ends-once: ok"), "{out}");
}

/// Tenant names holding the characters that delimit ticks.csv's list cells
/// (spaces, colons) and CSV's own (commas, quotes).
const AWKWARD_NAMES: &str = "workers: 2
log: {tick: 1s}
tenants:
  \"a b\": {cap: 1}
  \"c:d\": {}
  \"e,f\": {}
  'g \"h\" i:2': {}
workload:
  - {tenant: \"a b\", count: 3, service: 2s}
  - {tenant: \"c:d\", count: 2, at: 500ms, service: 1s}
  - {tenant: \"e,f\", count: 2, at: 1s, service: 3s}
  - {tenant: 'g \"h\" i:2', count: 2, at: 1500ms, service: 1s}
policies: [fifo]
";

#[test]
fn tenant_names_with_spaces_colons_commas_and_quotes_pass_the_check() {
    // fifo, 2 workers, `a b` capped at 1 but lent the idle worker (spare:
    // lend): its jobs 0 and 1 run 0-2. At 2 its job 2 (oldest) and c:d's
    // job 3 start; job 3 ends at 3 and c:d's job 4 starts; at 4 jobs 2 and
    // 4 end and e,f's two 3 s jobs run 4-7; then g's two 1 s jobs 7-8.
    let (jobs, code, out) = run_and_check(AWKWARD_NAMES, "fifo");
    let got: Vec<(&str, &str)> = jobs.iter().map(|j| (cell(j, "tenant"), cell(j, "start"))).collect();
    let g = "g \"h\" i:2";
    assert_eq!(
        got,
        [
            ("a b", "0"),
            ("a b", "0"),
            ("a b", "2"),
            ("c:d", "2"),
            ("c:d", "3"),
            ("e,f", "4"),
            ("e,f", "4"),
            (g, "7"),
            (g, "7")
        ]
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("log-agrees: ok") && out.contains("tenants.csv rows"), "{out}");
    assert!(out.contains("stop-unexplained-skip: ok"), "{out}");
}

#[test]
fn the_check_reads_the_long_form_of_the_tick_cells() {
    // the same run with one count of tenants.csv changed: `a b` has
    // completed 3 jobs by 4 s (jobs 0 and 1 at 2, job 2 at 4), not 2
    let (dir, out) = run_yaml(AWKWARD_NAMES, &["--no-plots", "--logs", "full"]);
    let path = out.join("fifo").join("tenants.csv");
    let text = std::fs::read_to_string(&path).expect("tenants.csv");
    assert!(text.contains("\n4,a b,0,0,3,\n"), "{text}");
    std::fs::write(&path, text.replace("\n4,a b,0,0,3,\n", "\n4,a b,0,0,2,\n")).expect("write");
    let o = fairsim().arg("check").arg(&out).output().expect("run check");
    let said = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(said.contains("log-agrees: VIOLATED") && said.contains("tick 4"), "{said}");
    drop(dir);
}

#[test]
fn a_job_of_no_service_at_a_ticks_end_has_its_tick_written() {
    // 1 worker, 1 s ticks. A's 0.5 s job runs 0-0.5. B's job of no service
    // arrives at 1 s, the end of tick 1: tick 1 closes first (it holds what
    // ended by 1 s), so B arrives, starts and ends at 1 in tick 2, the run's
    // last instant. Tick 1: 1 worker free at its start, nothing waiting at
    // its end, A chosen, A:1 completed (B not arrived yet, so not listed).
    // Tick 2 (ending at 2): 1 worker free at its start (A ended at 0.5), B
    // chosen, A:1 B:1 completed. The writer wrote only tick 1, as no time
    // passed in tick 2, and check found dispatches.csv's row of tick 2
    // without its tick.
    let (dir, out) = run_yaml(
        "workers: 1
log: {tick: 1s}
workload:
  - {tenant: A, count: 1, at: 0s, service: 500ms}
  - {tenant: B, count: 1, at: 1s, service: 0s}
policies: [fifo]
",
        &["--no-plots", "--logs", "full"],
    );
    let ticks = std::fs::read_to_string(out.join("fifo/ticks.csv")).expect("ticks.csv");
    let rows: Vec<&str> = ticks.lines().skip(1).collect();
    assert_eq!(rows, ["1,1,1,,A,,A:1,,", "2,2,1,,B,,A:1 B:1,,"], "{ticks}");
    let dispatches = std::fs::read_to_string(out.join("fifo/dispatches.csv")).expect("dispatches.csv");
    // no topology in the run: no `queue`, `pool` columns
    assert!(dispatches.ends_with("\n2,1,B,default,1\n"), "{dispatches}");
    let o = fairsim().arg("check").arg(&out).output().expect("run check");
    let said = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{said}");
    assert!(said.contains("log-agrees: ok"), "{said}");
    drop(dir);
}

#[test]
fn a_job_of_no_service_started_at_a_ticks_end_completes_in_the_next_tick() {
    // 1 worker, 1 s ticks, fifo. A's job 0 runs 0-1; B's job 1 of no
    // service arrives at 0.5 and waits; A's job 2 arrives at 1.5. At 1 s
    // job 0 completes, tick 1 closes (B:1 waiting, A:1 B:0 completed), and
    // only then job 1 starts and ends at 1, in tick 2. Job 2 runs 1.5-2.5.
    // Tick 2: 1 worker free at its start, B then A chosen, A:1 B:1; tick 3:
    // none free, A:2 B:1. The checker counted job 1's finish at 1 s as
    // completed by tick 1's end and reported tick 1's B:0 as wrong.
    let (dir, out) = run_yaml(
        "workers: 1
log: {tick: 1s}
workload:
  - {tenant: A, count: 1, at: 0s, service: 1s}
  - {tenant: B, count: 1, at: 500ms, service: 0s}
  - {tenant: A, count: 1, at: 1500ms, service: 1s}
policies: [fifo]
",
        &["--no-plots", "--logs", "full"],
    );
    let jobs = read_csv(&out.join("fifo/jobs.csv"));
    let got: Vec<(&str, &str)> = jobs.iter().map(|j| (cell(j, "start"), cell(j, "finish"))).collect();
    assert_eq!(got, [("0", "1"), ("1", "1"), ("1.5", "2.5")]);
    let ticks = std::fs::read_to_string(out.join("fifo/ticks.csv")).expect("ticks.csv");
    let rows: Vec<&str> = ticks.lines().skip(1).collect();
    assert_eq!(rows, ["1,1,1,B:1,A,,A:1 B:0,,", "2,2,1,,B A,,A:1 B:1,,", "3,3,0,,,,A:2 B:1,,"]);
    let o = fairsim().arg("check").arg(&out).output().expect("run check");
    let said = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{said}");
    assert!(said.contains("log-agrees: ok, checked 3 ticks"), "{said}");
    drop(dir);
}

#[test]
fn queue_lengths_of_a_tenant_whose_refused_jobs_wait_out_an_on_cap_delay_are_not_checked() {
    // 2 workers, F capped at 1, fifo with `on_cap: {delay: 3s}`, 1 s jobs
    // at 0, 0.2, 1.6 and 4.5 (a PostgreSQL 15 SKIP LOCKED queue's recorded run). Job 0 runs 0-1;
    // job 1 is refused at F's cap at 0.2 and leaves the queue until 3.2;
    // job 2 runs 1.6-2.6; job 1 3.2-4.2; job 3 4.5-5.5. So at the ends of
    // ticks 1 to 3 nothing of F waits (job 1 is out of the queue), which the
    // log says, while jobs.csv shows job 1 claimable from 0.2 to 3.2: the
    // checker took it for waiting and reported tick 1's empty `waiting`.
    let (dir, out) = run_yaml(
        "workers: 2
log: {tick: 1s}
tenants: {F: {cap: 1}}
workload:
  - {tenant: F, count: 1, at: 0s, service: 1s}
  - {tenant: F, count: 1, at: 200ms, service: 1s}
  - {tenant: F, count: 1, at: 1600ms, service: 1s}
  - {tenant: F, count: 1, at: 4500ms, service: 1s}
policies:
  - {policy: fifo, on_cap: {delay: 3s}}
",
        &["--no-plots", "--logs", "full"],
    );
    let ticks = std::fs::read_to_string(out.join("fifo/ticks.csv")).expect("ticks.csv");
    let rows: Vec<&str> = ticks.lines().skip(1).collect();
    assert_eq!(
        rows,
        [
            "1,1,2,,F,F:at_cap,F:1,,",
            "2,2,2,,F,F:delayed,F:1,,",
            "3,3,1,,,,F:2,,",
            "4,4,2,,F,,F:2,,",
            "5,5,1,,F,,F:3,,",
            "6,6,1,,,,F:4,,"
        ]
    );
    let o = fairsim().arg("check").arg(&out).output().expect("run check");
    let said = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{said}");
    assert!(said.contains("log-agrees: ok"), "{said}");
    drop(dir);
}

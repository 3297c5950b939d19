//! Capacity over time (`capacity:`) and dependency slowdowns (`slowdowns:`),
//! each against an answer derived in the test's comment: the backlog growth
//! after capacity is halved, the work a kill loses against a drain, a killed
//! slice resuming from its last checkpoint, and stretched attempts.

mod common;

use std::collections::HashMap;

use common::*;

type Rows = Vec<HashMap<String, String>>;

/// Runs `text` under fifo; (comparison.csv, summary.csv, jobs.csv) rows.
fn run_fifo(text: &str) -> (Rows, Rows, Rows) {
    let (_dir, out) = run_yaml(text, &["--no-plots", "--policy", "fifo"]);
    let read = |f: &str| read_csv(&out.join(f));
    (read("comparison.csv"), read("fifo/summary.csv"), read("fifo/jobs.csv"))
}

fn col(rows: &Rows, i: usize, c: &str) -> f64 {
    secs(&rows[i][c])
}

#[test]
fn halving_capacity_grows_the_backlog_at_arrival_rate_minus_service_rate() {
    // One job every 250 ms (lambda = 4/s) of 1 s on 4 workers: rho = 1, every
    // job starts on arrival. At 100 s the pool drops to 2 workers (drain):
    // service rate mu = 2/s, so the backlog grows lambda - mu = 2 jobs/s and
    // a job arriving at a > 100 waits for the 2 (a - 100) jobs ahead of it at
    // 2 per second: its wait grows 1 s per second of arrival time.
    // Exactly: the job arriving at 99 s ends at 100 s and its worker is the
    // idle one removed; the one of 99.25 s retires at 100.25 s; from 100.5 s
    // the two workers start job k (arriving at 100 + k/4) at 100.5 + floor(k/2)
    // + (k mod 2)/4, a wait of 0.5 + floor(k/2)/2: 0.5 s for k = 0, 50.5 s
    // for k = 200 (arrival 150 s), 100.5 s for k = 400 (arrival 200 s).
    let (cmp, _, jobs) = run_fifo(
        "workers: 4
capacity: [{at: 100s, workers: 2}]
workload:
  - {tenant: A, arrivals: {every: 250ms, count: 1000}, service: 1s}
",
    );
    let wait_of = |arrival: f64| {
        let j = jobs.iter().find(|j| secs(&j["arrival"]) == arrival).expect("a job arrives then");
        secs(&j["wait"])
    };
    assert_eq!(wait_of(99.75), 0.0);
    assert_eq!(wait_of(100.0), 0.5);
    assert_eq!(wait_of(100.25), 0.5);
    assert_eq!(wait_of(150.0), 50.5);
    assert_eq!(wait_of(200.0), 100.5);
    // the last job (k = 599, arriving at 249.75 s) starts at 100.5 + 299 +
    // 0.25 = 399.75 s and ends at 400.75 s
    assert_eq!(col(&cmp, 0, "makespan"), 400.75);
    assert_eq!(col(&cmp, 0, "lost_work"), 0.0);
    // utilization against the worker time offered: 4 x 100 s, then the
    // pool is 3 workers (2 and the retiring one) until 100.25 s, then 2:
    // 400 + 0.75 + 2 x 300.5 = 1001.75 worker-seconds for 1000 s of work
    let util = col(&cmp, 0, "utilization");
    assert!((util - 1000.0 / 1001.75).abs() < 1e-4, "{util}");
}

#[test]
fn a_kill_loses_the_work_done_and_a_drain_loses_none() {
    // Two jobs of 10 s start at 0 on 2 workers; at 4 s the pool drops to 1.
    // drain: both finish at 10 s, then the second worker leaves: nothing
    // lost, makespan 10 s. kill: the newest attempt (both started at 0: the
    // higher job id, job 1) stops; its 4 s are lost and charged to A, it
    // waits for job 0 and runs again 10 s to 20 s. Service held 10 + 4 + 10
    // = 24 s, goodput 20 s either way.
    let text = |loss: &str| {
        format!(
            "workers: 2
capacity: [{{at: 4s, workers: 1, loss: {loss}}}]
workload:
  - {{tenant: A, count: 2, service: 10s}}
"
        )
    };
    let (cmp, sum, jobs) = run_fifo(&text("drain"));
    assert_eq!(
        (col(&cmp, 0, "makespan"), col(&cmp, 0, "lost_work"), col(&cmp, 0, "goodput")),
        (10.0, 0.0, 20.0)
    );
    assert_eq!(jobs[1]["finish"], "10");
    let a = sum.iter().find(|r| r["name"] == "A").expect("tenant A row");
    assert_eq!(secs(&a["service"]), 20.0);

    let (cmp, sum, jobs) = run_fifo(&text("kill"));
    assert_eq!(
        (col(&cmp, 0, "makespan"), col(&cmp, 0, "lost_work"), col(&cmp, 0, "goodput")),
        (20.0, 4.0, 20.0)
    );
    assert_eq!((jobs[0]["finish"].as_str(), jobs[1]["finish"].as_str()), ("10", "20"));
    // the kill is a start (slices), neither an attempt nor a failure: job 1 completes
    assert_eq!(
        (jobs[1]["attempts"].as_str(), jobs[1]["slices"].as_str(), jobs[1]["outcome"].as_str()),
        ("1", "2", "completed")
    );
    let a = sum.iter().find(|r| r["name"] == "A").expect("tenant A row");
    assert_eq!((secs(&a["service"]), secs(&a["lost_work"]), secs(&a["goodput"])), (24.0, 4.0, 20.0));
    // 2 workers for 4 s, then 1 for 16 s: 24 worker-seconds, all busy
    assert_eq!(cmp[0]["utilization"], "1.0000");
}

#[test]
fn a_killed_slice_resumes_from_the_last_slice_boundary() {
    // B (10 s, whole) starts at 0; A (6 s in 2 s slices) arrives at 1 s and
    // runs 1-3, 3-5, 5-7 on the second worker. At 6 s the pool drops to one.
    // drain: A's slice ends at 7 s, its worker leaves, and A is done (3
    // slices). kill: A's slice started at 5 s is the newest attempt: 1 s
    // lost, its two finished slices kept; its last 2 s run when B ends,
    // 10-12. Goodput B's 10 s + A's 6 s either way.
    let text = |loss: &str| {
        format!(
            "workers: 2
capacity: [{{at: 6s, workers: 1, loss: {loss}}}]
workload:
  - {{tenant: B, count: 1, service: 10s}}
  - {{tenant: A, arrivals: {{batch: 1, at: 1s}}, service: 6s, slice: 2s}}
"
        )
    };
    let (cmp, _, jobs) = run_fifo(&text("drain"));
    let a = |jobs: &Rows| jobs.iter().find(|j| j["tenant"] == "A").expect("A's job").clone();
    assert_eq!((a(&jobs)["finish"].as_str(), a(&jobs)["slices"].as_str()), ("7", "3"));
    assert_eq!(col(&cmp, 0, "lost_work"), 0.0);

    let (cmp, _, jobs) = run_fifo(&text("kill"));
    // slices 1-3, 3-5, 5-6 (killed), 10-12: four starts, one attempt
    assert_eq!(
        (a(&jobs)["finish"].as_str(), a(&jobs)["slices"].as_str(), a(&jobs)["attempts"].as_str()),
        ("12", "4", "1")
    );
    assert_eq!(col(&cmp, 0, "lost_work"), 1.0);
    assert_eq!(col(&cmp, 0, "goodput"), 16.0);
}

#[test]
fn capacity_added_back_serves_the_backlog_and_a_drain_cancelled_keeps_its_workers() {
    // 1 worker, 10 jobs of 1 s at 0; at 2 s the pool grows to 3: jobs 0 and 1
    // run 0-1 and 1-2, then three at a time: 2-3 (3), 3-4 (3), 4-5 (2).
    let (cmp, _, jobs) = run_fifo(
        "workers: 1
capacity: [{at: 2s, workers: 3}]
workload:
  - {tenant: A, count: 10, service: 1s}
",
    );
    let starts: Vec<&str> = jobs.iter().map(|j| j["start"].as_str()).collect();
    assert_eq!(starts, ["0", "1", "2", "2", "2", "3", "3", "3", "4", "4"]);
    assert_eq!(col(&cmp, 0, "makespan"), 5.0);
    // 4 workers busy with 4 jobs of 10 s; at 1 s down to 2 (drain: 2
    // retiring), at 2 s back to 4: the retiring two stay, no new worker is
    // added, so the 5th job (arriving at 3 s) waits for the first end at 10 s
    let (_, _, jobs) = run_fifo(
        "workers: 4
capacity: [{at: 1s, workers: 2}, {at: 2s, workers: 4}]
workload:
  - {tenant: A, count: 4, service: 10s}
  - {tenant: A, arrivals: {batch: 1, at: 3s}, service: 1s}
",
    );
    assert_eq!(jobs[4]["start"], "10");
}

#[test]
fn a_slowdown_stretches_the_attempts_that_start_inside_its_window() {
    // One worker, an api job every 4 s (0, 4, ..., 20) of 1 s; api attempts
    // starting in [5 s, 15 s) take 3 s: the jobs of 8 s and 12 s end at 11 s
    // and 15 s. A bulk job at 9 s is not slowed (class api only) and waits
    // for the api job to 11 s: 11-12, so the api job of 12 s starts at 12 s,
    // still inside: 12-15. In job id (arrival) order the finishes are 1, 5,
    // 11, 12 (bulk), 15, 17, 21. Service held 4 x 1 + 2 x 3 + 1 = 11 s;
    // goodput 7 s.
    let (cmp, sum, jobs) = run_fifo(
        "workers: 1
classes: {api: {}, bulk: {}}
slowdowns: [{from: 5s, to: 15s, class: api, factor: 3}]
workload:
  - {tenant: A, class: api, arrivals: {every: 4s, count: 6}, service: 1s}
  - {tenant: B, class: bulk, arrivals: {batch: 1, at: 9s}, service: 1s}
",
    );
    let finish: Vec<&str> = jobs.iter().map(|j| j["finish"].as_str()).collect();
    assert_eq!(finish, ["1", "5", "11", "12", "15", "17", "21"]);
    assert_eq!(col(&cmp, 0, "goodput"), 7.0);
    let all = sum.iter().find(|r| r["scope"] == "all").expect("all row");
    assert_eq!(secs(&all["service"]), 11.0);
    let api = sum.iter().find(|r| r["name"] == "api").expect("api row");
    assert_eq!((secs(&api["service"]), secs(&api["goodput"])), (10.0, 6.0));
}

#[test]
fn goodput_is_the_service_of_completed_jobs_and_failed_attempts_are_not() {
    // 200 jobs of 2 s, each attempt failing with probability 1/2, at most 3
    // attempts: from jobs.csv alone, goodput is 2 s per completed job and
    // the service held 2 s per attempt.
    let (cmp, _, jobs) = run_fifo(
        "workers: 3
workload:
  - {tenant: A, count: 200, service: 2s, failure: {probability: 0.5, max_attempts: 3}}
",
    );
    let completed = jobs.iter().filter(|j| j["outcome"] == "completed").count() as f64;
    let attempts: f64 = jobs.iter().map(|j| secs(&j["attempts"])).sum();
    assert!(completed > 150.0 && completed < 200.0, "{completed}");
    assert_eq!(col(&cmp, 0, "goodput"), 2.0 * completed);
    let (_, sum, _) = run_fifo(
        "workers: 3
workload:
  - {tenant: A, count: 200, service: 2s, failure: {probability: 0.5, max_attempts: 3}}
",
    );
    let all = sum.iter().find(|r| r["scope"] == "all").expect("all row");
    assert_eq!(secs(&all["service"]), 2.0 * attempts);
}

#[test]
fn misuse_is_refused_at_its_place() {
    let cases = [
        ("workers: 2\ncapacity: [{at: 5s, workers: 1, loss: crash}]\nworkload: [{tenant: A, count: 1, service: 1s}]\n", "2:39", "unknown `loss: crash`"),
        ("workers: 2\ncapacity: [{at: 5s, workers: 1}, {at: 5s, workers: 3}]\nworkload: [{tenant: A, count: 1, service: 1s}]\n", "2:39", "in order of `at`"),
        // an empty list panicked in the loader (the fuzzer's `capacity: []`)
        ("workers: 2\ncapacity: []\nworkload: [{tenant: A, count: 1, service: 1s}]\n", "2:11", "`capacity` is empty"),
        ("workers: 2\ncapacity: [{at: 5s, workers: 0}]\nworkload: [{tenant: A, count: 1, service: 1s}]\n", "2:30", "leaves no worker"),
        ("resources: {cpu: 4}\ncapacity: [{at: 5s, workers: 1}]\nworkload: [{tenant: A, count: 1, service: 1s}]\n", "2:11", "declare the starting `workers:`"),
        ("workers: 2\nslowdowns: [{from: 5s, to: 5s, factor: 2}]\nworkload: [{tenant: A, count: 1, service: 1s}]\n", "2:28", "`to` must be later"),
        ("workers: 2\nslowdowns: [{from: 5s, to: 9s, factor: 0.5}]\nworkload: [{tenant: A, count: 1, service: 1s}]\n", "2:40", "`factor` must be a number from 1"),
        ("workers: 2\nslowdowns: [{from: 5s, to: 9s, factor: 2, class: api}]\nworkload: [{tenant: A, count: 1, service: 1s}]\n", "2:50", "class `api` is not declared"),
    ];
    for (text, place, msg) in cases {
        let err = validate_error(text, "f.yaml");
        assert!(err.contains(&format!("f.yaml:{place}")) && err.contains(msg), "{text}\n{err}");
    }
}

#[test]
fn admission_contracts_when_capacity_is_lost() {
    // A batch of 10 jobs of 1 s at 10 s under `predict: backlog, max_wait:
    // 2s`: job k finds k s of work ahead of it (all ten arrive before the
    // instant's dispatch) and is admitted while k / workers <= 2 s. With 2
    // workers that is k <= 4: 5 admitted; after the pool drops to 1 at 5 s,
    // k <= 2: 3 admitted.
    let text = |capacity: &str| {
        format!(
            "workers: 2
{capacity}workload:
  - {{tenant: A, arrivals: {{batch: 10, at: 10s}}, service: 1s}}
admission:
  - {{predict: backlog, max_wait: 2s}}
"
        )
    };
    let (cmp, _, _) = run_fifo(&text(""));
    assert_eq!(cmp[0]["rejected"], "5");
    let (cmp, _, _) = run_fifo(&text("capacity: [{at: 5s, workers: 1}]\n"));
    assert_eq!(cmp[0]["rejected"], "7");
}

#[test]
fn a_reserve_preempts_its_newest_borrower_and_a_checkpoint_keeps_its_progress() {
    // Two workers, one reserved for `urgent`. B's two 10 s batch jobs start
    // at 0 on both (borrowing the reserve); U's urgent 1 s job arrives at 4 s.
    // none: it waits for the first end, 10 s (wait 6 s). restart: the newest
    // borrower (both started at 0: the higher id, job 1) stops at 4 s, its
    // 4 s lost; U runs 4-5, job 1 again 5-15. checkpoint 1s: job 1 keeps 4 -
    // 1 = 3 s of progress and runs its last 7 s 5-12, losing 1 s. Goodput is
    // 21 s in every case; jobs.csv keeps job 1's whole service, 10 s.
    let text = |preempt: &str| {
        format!(
            "workers: 2
classes: {{urgent: {{}}, batch: {{}}}}
workload:
  - {{tenant: B, class: batch, count: 2, service: 10s}}
  - {{tenant: U, class: urgent, arrivals: {{batch: 1, at: 4s}}, service: 1s}}
policies: [{{policy: reserve, class: urgent, workers: 1{preempt}}}]
"
        )
    };
    let cases = [
        ("", "10", "10", 0.0),
        (", preempt: restart", "4", "15", 4.0),
        (", preempt: checkpoint, checkpoint: 1s", "4", "12", 1.0),
    ];
    for (preempt, urgent_start, job1_end, lost) in cases {
        let (_dir, out) = run_yaml(&text(preempt), &["--no-plots"]);
        let jobs = read_csv(&out.join("reserve/jobs.csv"));
        let job = |id: &str| jobs.iter().find(|j| j["job"] == id).expect("job row").clone();
        let cmp = read_csv(&out.join("comparison.csv"));
        assert_eq!(
            (job("2")["start"].as_str(), job("1")["finish"].as_str(), job("1")["service"].as_str()),
            (urgent_start, job1_end, "10"),
            "{preempt}"
        );
        assert_eq!((col(&cmp, 0, "lost_work"), col(&cmp, 0, "goodput")), (lost, 21.0), "{preempt}");
    }
    let err = validate_error(&text(", checkpoint: 1s"), "p.yaml");
    assert!(err.contains("`checkpoint` goes with `preempt: checkpoint`"), "{err}");
}

#[test]
fn a_kill_frees_the_units_of_its_attempt_for_a_job_that_did_not_fit() {
    // 2 workers, 4 cpu units, two 300 s jobs of 3 units each at 0: job 0
    // starts, job 1 does not fit (3 + 3 > 4) and its tenant waits for units.
    // At 93 s every worker is lost (kill): job 0's attempt stops and gives
    // its 3 units back, and it goes to the back of the queue, behind job 1.
    // At 112 s two workers return: job 1 starts (112 to 412), job 0 fits
    // only after it (412 to 712). Before, the kill freed the units without
    // waking the tenant parked as not fitting: both jobs stayed unfinished
    // and `check` found job 0's start in dispatches.csv but not in jobs.csv.
    let (cmp, _, jobs) = run_fifo(
        "workers: 2
resources: {cpu: 4}
capacity: [{at: 93s, workers: 0, loss: kill}, {at: 112s, workers: 2}]
workload:
  - {tenant: A, count: 2, service: 5m, cost: {cpu: 3}}
",
    );
    let job = |id: &str| jobs.iter().find(|j| j["job"] == id).expect("job row");
    assert_eq!((secs(&job("1")["start"]), secs(&job("1")["finish"])), (112.0, 412.0));
    assert_eq!((secs(&job("0")["start"]), secs(&job("0")["finish"])), (0.0, 712.0));
    assert_eq!(job("0")["slices"], "2");
    assert_eq!(col(&cmp, 0, "lost_work"), 93.0);
    assert_eq!(col(&cmp, 0, "makespan"), 712.0);
}

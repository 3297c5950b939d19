//! `fairsim check DIR` (docs/check.md): passes on the folder of
//! every shipped scenario; fails with exit code 1, naming the rule, the
//! time and the job, on folders tampered one rule at a time; exit code 2
//! for a folder that is not a full results folder. The property test over
//! generated scenarios is tests/check_generated.rs.

mod common;

use std::path::{Path, PathBuf};

use common::{fairsim, run, run_yaml, scenario, tempdir};

/// `fairsim check DIR`: exit code, stdout, stderr.
fn check(dir: &Path) -> (i32, String, String) {
    let out = fairsim().arg("check").arg(dir).output().expect("run fairsim");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A CSV file's header and rows, to edit and write back.
struct Csv {
    path: PathBuf,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Csv {
    fn open(path: PathBuf) -> Csv {
        let mut r = csv::Reader::from_path(&path).expect("csv");
        let header = r.headers().expect("header").iter().map(str::to_string).collect();
        let rows = r.records().map(|x| x.expect("row").iter().map(str::to_string).collect()).collect();
        Csv { path, header, rows }
    }
    fn col(&self, name: &str) -> usize {
        self.header.iter().position(|h| h == name).expect("column")
    }
    /// The first row whose `name` cell satisfies `f`.
    fn find(&self, name: &str, f: impl Fn(&str) -> bool) -> usize {
        let c = self.col(name);
        self.rows.iter().position(|r| f(&r[c])).expect("a matching row")
    }
    fn get(&self, row: usize, name: &str) -> &str {
        &self.rows[row][self.col(name)]
    }
    fn set(&mut self, row: usize, name: &str, v: &str) {
        let c = self.col(name);
        self.rows[row][c] = v.to_string();
    }
    fn save(&self) {
        let mut w = csv::Writer::from_path(&self.path).expect("write");
        w.write_record(&self.header).expect("header");
        for r in &self.rows {
            w.write_record(r).expect("row");
        }
        w.flush().expect("flush");
    }
}

fn num(cell: &str) -> f64 {
    cell.parse().expect("a number")
}

/// The A, B, C example (the fairness-log article) run with full logs: its folder.
fn abc() -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    let out = dir.path().join("out");
    run(&scenario("abc-rotation.yaml"), &out, &["--logs", "full", "--no-plots"]);
    (dir, out)
}

/// Asserts exit 1 and a violation line starting with `head`.
fn assert_violation(dir: &Path, head: &str) -> String {
    let (code, out, err) = check(dir);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.lines().any(|l| l.starts_with(head)), "want a line starting `{head}`:\n{out}");
    out
}

#[test]
fn every_shipped_scenario_passes() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"))
        .expect("scenarios")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    for file in files {
        let dir = tempdir();
        let out = dir.path().join("out");
        run(&file, &out, &["--logs", "full", "--no-plots"]);
        let (code, stdout, stderr) = check(&out);
        assert_eq!(code, 0, "{}:\n{stdout}{stderr}", file.display());
        for rule in
            ["ends-once", "start-after-arrival", "finish", "workers", "caps", "work-conserving", "log-agrees"]
        {
            assert!(stdout.contains(&format!(": {rule}: ")), "{}: no line for {rule}", file.display());
        }
    }
}

#[test]
fn a_start_before_arrival_is_found() {
    let (_d, out) = abc();
    let mut jobs = Csv::open(out.join("round_robin/jobs.csv"));
    // the first job that did not start at 0: move its arrival half a second past its start
    let r = jobs.find("start", |s| num(s) > 0.0);
    let (id, start) = (jobs.get(r, "job").to_string(), jobs.get(r, "start").to_string());
    jobs.set(r, "arrival", &format!("{}", num(&start) + 0.5));
    jobs.save();
    assert_violation(&out, &format!("round_robin: start-after-arrival: VIOLATED at {start}s, job {id}"));
}

#[test]
fn a_duplicated_job_row_is_found() {
    let (_d, out) = abc();
    let mut jobs = Csv::open(out.join("round_robin/jobs.csv"));
    let copy = jobs.rows[4].clone();
    jobs.rows.push(copy);
    jobs.save();
    let (id, arrival) = (jobs.get(4, "job").to_string(), jobs.get(4, "arrival").to_string());
    let out = assert_violation(&out, &format!("round_robin: ends-once: VIOLATED at {arrival}s, job {id}"));
    // both rows are shown: the original (line 6: header, then row 5) and the copy (line 47)
    assert!(out.contains("round_robin/jobs.csv:6: ") && out.contains("round_robin/jobs.csv:47: "), "{out}");
}

#[test]
fn a_finish_that_is_not_start_plus_service_is_found() {
    let (_d, out) = abc();
    let mut jobs = Csv::open(out.join("round_robin/jobs.csv"));
    // every abc job runs once for 1 s; finish 0.25 s late
    let r = jobs.find("start", |s| num(s) >= 2.0);
    let id = jobs.get(r, "job").to_string();
    let late = num(jobs.get(r, "start")) + num(jobs.get(r, "service")) + 0.25;
    jobs.set(r, "finish", &format!("{late}"));
    jobs.save();
    assert_violation(&out, &format!("round_robin: finish: VIOLATED at {late}s, job {id}"));
}

#[test]
fn more_jobs_than_workers_is_found() {
    let (_d, out) = abc();
    let mut jobs = Csv::open(out.join("round_robin/jobs.csv"));
    // two jobs (A's and B's first) hold both workers over [0, 1): a third at 0.5 s is one too many
    let busy =
        jobs.rows.iter().filter(|r| r[jobs.col("start")] == "0" && r[jobs.col("finish")] == "1").count();
    assert_eq!(busy, 2);
    let id = jobs.rows.len().to_string();
    let mut extra = jobs.rows[0].clone();
    extra[jobs.col("job")] = id.clone();
    jobs.rows.push(extra);
    let last = jobs.rows.len() - 1;
    for (col, v) in [("arrival", "0"), ("start", "0.5"), ("finish", "1.5"), ("wait", "0.5")] {
        jobs.set(last, col, v);
    }
    jobs.save();
    assert_violation(
        &out,
        &format!("round_robin: workers: VIOLATED at 0.5s, job {id}: 3 jobs ran at once on 2 workers"),
    );
}

#[test]
fn a_cap_passed_under_hold_is_found() {
    // three workers, A capped at 1 under hold: A's three 1 s jobs start at
    // 0, 1 and 2 s, B's one at 0 s; a worker idles throughout
    let (_d, out) = run_yaml(
        "name: caps-hold\nworkers: 3\ntenants: {A: {cap: 1}, B: {cap: 1}}\nworkload:\n  \
         - {tenant: A, count: 3, at: 0s, service: 1s}\n  - {tenant: B, count: 1, at: 0s, service: 1s}\n\
         policies:\n  - {policy: round_robin, spare: hold}\n",
        &["--logs", "full", "--no-plots"],
    );
    let mut jobs = Csv::open(out.join("round_robin/jobs.csv"));
    let r = jobs.find("start", |s| s == "1");
    assert_eq!(jobs.get(r, "tenant"), "A");
    let id = jobs.get(r, "job").to_string();
    // A's second job moved to [0.5, 1.5): with its first and B's, 3 jobs on 3 workers, 2 of A's
    for (col, v) in [("start", "0.5"), ("finish", "1.5"), ("wait", "0.5")] {
        jobs.set(r, col, v);
    }
    jobs.save();
    assert_violation(
        &out,
        &format!(
            "round_robin: caps: VIOLATED at 0.5s, job {id}: tenant A ran 2 jobs at once, over its cap 1"
        ),
    );
}

#[test]
fn an_idle_worker_while_a_job_waited_is_found() {
    // fifo, two workers, four 1 s jobs at 0: two start at 0, two at 1
    let (_d, out) = run_yaml(
        "name: conserving\nworkers: 2\nworkload:\n  - {tenant: A, count: 4, at: 0s, service: 1s}\npolicies: [fifo]\n",
        &["--logs", "full", "--no-plots"],
    );
    let mut jobs = Csv::open(out.join("fifo/jobs.csv"));
    let r = jobs.rows.len() - 1;
    assert_eq!(jobs.get(r, "start"), "1");
    let id = jobs.get(r, "job").to_string();
    // the last job starts half a second late: from 1 s one worker idles while it waits
    for (col, v) in [("start", "1.5"), ("finish", "2.5"), ("wait", "1.5")] {
        jobs.set(r, col, v);
    }
    jobs.save();
    assert_violation(&out, &format!("fifo: work-conserving: VIOLATED at 1s, job {id}: from 1s to 1.5s, 1 jobs waited while 1 of 2 workers ran"));
}

#[test]
fn a_completed_count_off_by_one_is_found() {
    let (_d, out) = abc();
    let mut ticks = Csv::open(out.join("round_robin/ticks.csv"));
    let r = ticks.find("tick", |t| t == "3");
    let time = ticks.get(r, "time").to_string();
    let cell = ticks.get(r, "completed").to_string();
    let (first, rest) = cell.split_once(' ').expect("several tenants");
    let (tenant, n) = first.split_once(':').expect("T:n");
    let wrong = n.parse::<u64>().expect("count") + 1;
    ticks.set(r, "completed", &format!("{tenant}:{wrong} {rest}"));
    ticks.save();
    // the cell no longer lists what tenants.csv, its long form, has
    assert_violation(
        &out,
        &format!("round_robin: log-agrees: VIOLATED at {time}s: tick 3: completed `{tenant}:{wrong} {rest}`, tenants.csv has"),
    );
}

#[test]
fn a_skip_without_reason_is_found() {
    let (_d, out) = abc();
    // tick 5: A is skipped at its cap (docs/metrics.md); erase the reason in both forms of the log
    let mut ticks = Csv::open(out.join("round_robin/ticks.csv"));
    let r = ticks.find("skipped", |s| !s.is_empty());
    let index = ticks.get(r, "tick").to_string();
    let time = ticks.get(r, "time").to_string();
    ticks.set(r, "skipped", "A:");
    ticks.save();
    let mut skips = Csv::open(out.join("round_robin/skips.csv"));
    let s = skips.find("tick", |t| t == index);
    skips.set(s, "reason", "");
    skips.save();
    assert_violation(
        &out,
        &format!(
            "round_robin: stop-unexplained-skip: VIOLATED at {time}s: skip `A:` has no tenant or no reason"
        ),
    );
}

#[test]
fn a_dispatch_missing_from_dispatches_csv_is_found() {
    let (_d, out) = abc();
    let mut d = Csv::open(out.join("round_robin/dispatches.csv"));
    let removed = d.rows.remove(2);
    d.save();
    let tick = &removed[d.col("tick")];
    assert_violation(&out, &format!("round_robin: log-agrees: VIOLATED at {tick}s: tick {tick}: chosen"));
}

#[test]
fn an_incomplete_folder_exits_2_naming_what_is_missing() {
    let (_d, out) = abc();
    std::fs::remove_file(out.join("round_robin/ticks.csv")).expect("remove");
    let (code, _, err) = check(&out);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no round_robin/ticks.csv"), "{err}");

    let empty = tempdir();
    let (code, _, err) = check(empty.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a fairsim results folder") && err.contains("fairsim-results.json"), "{err}");

    let dir = tempdir();
    let summary = dir.path().join("out");
    run(&scenario("abc-rotation.yaml"), &summary, &["--logs", "summary", "--no-plots"]);
    let (code, _, err) = check(&summary);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("jobs.csv") && err.contains("--logs full"), "{err}");
}

//! Defects reproduced from issue reports, each with its input and the answer
//! derived by hand: the engine's lending, the rotation's newcomers, the
//! observation log's skips, DRR's debt rounds.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::*;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write scenario");
    p
}

/// Start times of each tenant's jobs, in job id order, from `jobs.csv`
/// (whose rows come in the order jobs end).
fn starts(out: &Path, label: &str) -> HashMap<String, Vec<f64>> {
    let mut rows = read_csv(&out.join(label).join("jobs.csv"));
    rows.sort_by_key(|r| r["job"].parse::<u64>().expect("job id"));
    let mut m: HashMap<String, Vec<f64>> = HashMap::new();
    for r in rows {
        m.entry(r["tenant"].clone()).or_default().push(secs(&r["start"]));
    }
    m
}

#[test]
fn a_reserve_held_for_another_class_is_not_lent_over_a_cap() {
    // 3 workers, 2 reserved for class r. A (cap 1) has 4 r-jobs, B 6
    // default jobs, all 1 s at t = 0. A runs one job at a time (cap 1) on a
    // reserved worker; B takes the unreserved one; the second reserved worker
    // is held for r (A's queued jobs) and stays idle: A may not borrow it,
    // because B has claimable work (`spare: lend` lends over a cap only while
    // no other tenant has claimable work). So A starts at 0, 1, 2, 3. B starts
    // at 0, 1, 2; at 3 A's last job leaves r with nothing queued, so the
    // reserve is lent to B: two B jobs start at 3, the last at 4. (The
    // defect: A was lent the held worker and ran 2 at once from t = 0.)
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "reserve.yaml",
        "workers: 3\ntenants: {A: {cap: 1}, B: {}}\nclasses: {r: {}}\n\
         workload:\n  - {tenant: A, class: r, count: 4, service: 1s}\n  - {tenant: B, count: 6, service: 1s}\n\
         policies: [{policy: reserve, class: r, workers: 2, spare: lend}]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let s = starts(&out, "reserve");
    assert_eq!(s["A"], [0.0, 1.0, 2.0, 3.0]);
    assert_eq!(s["B"], [0.0, 1.0, 2.0, 3.0, 3.0, 4.0]);
}

#[test]
fn round_robin_newcomers_join_the_back_in_arrival_order() {
    // One worker; declaration order A, B, C. A's 10 s job starts at 1000 s;
    // C gets work at 1001 s, B at 1002 s. Each joins the back of the rotation
    // when its first job arrives, so C (earlier) goes before B: C starts
    // when A's job ends at 1010 s, B at 1011 s. Sorting newcomers by the
    // declared order instead would start B first.
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "rr.yaml",
        "workers: 1\ntenants: {A: {}, B: {}, C: {}}\nworkload:\n\
           - {tenant: A, count: 1, at: 1000s, service: 10s}\n\
           - {tenant: C, count: 1, at: 1001s, service: 1s}\n\
           - {tenant: B, count: 1, at: 1002s, service: 1s}\n\
         policies: [round_robin]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let s = starts(&out, "round_robin");
    assert_eq!((s["A"][0], s["C"][0], s["B"][0]), (1000.0, 1010.0, 1011.0));
}

#[test]
fn a_lent_worker_goes_to_the_tenant_refused_longest_ago() {
    // 3 workers; D and F capped at 1; drr over tenants, cost jobs, quantum 2,
    // spare lend. At t = 0, in this order: D 0.5 s, F 1 s, F 1 s, B 0.75 s,
    // D 1 s, D 1 s. t = 0: D, F and B each start one job; D's and F's
    // second jobs are refused at their caps (D first, then F). t = 0.5: D's
    // job ends, its next (1 s) starts, its third is refused again: D is now
    // the most recently refused. t = 0.75: B's job ends and only D and F wait,
    // both at their caps: the idle worker is lent, to F, refused at t = 0 and
    // waiting since, not to D, refused at 0.5. So F's second job starts at
    // 0.75 s and D's third when a worker frees after that, at 1 s (F's first).
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "drr.yaml",
        "workers: 3\ntenants: {D: {cap: 1}, B: {}, F: {cap: 1}}\nworkload:\n\
           - {tenant: D, count: 1, service: 500ms}\n\
           - {tenant: F, count: 2, service: 1s}\n\
           - {tenant: B, count: 1, service: 750ms}\n\
           - {tenant: D, count: 2, service: 1s}\n\
         policies: [{policy: drr, cost: jobs, quantum: 2, spare: lend}]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let s = starts(&out, "drr");
    assert_eq!(s["F"], [0.0, 0.75]);
    assert_eq!(s["D"], [0.0, 0.5, 1.0]);
}

#[test]
fn the_log_lists_a_passed_over_tenant_in_every_tick_it_waits_refused() {
    // 2 workers, A capped at 1, fifo (spare lend). At 1000 s A has a 10 s and
    // a 1 s job, B four 1 s jobs. At 1000 A's 10 s job starts, its 1 s job is
    // refused at the cap and B's first starts; B's others start at 1001, 1002
    // and 1003, each time with A's job waiting refused. What happens at an
    // instant counts in the tick that begins there (a tick closes before the
    // arrivals and dispatch of its end instant), so the ticks ending at 1001,
    // 1002, 1003 and 1004 all list A:at_cap (the defect listed it only in
    // the first, when A was first refused). At 1004 only A waits: the free
    // worker is lent and A's 1 s job starts, in the tick ending at 1005.
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "skips.yaml",
        "workers: 2\ntenants: {A: {cap: 1}, B: {}}\nworkload:\n\
           - {tenant: A, count: 1, at: 1000s, service: 10s}\n\
           - {tenant: A, count: 1, at: 1000s, service: 1s}\n\
           - {tenant: B, count: 4, at: 1000s, service: 1s}\n\
         policies: [fifo]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let ticks: HashMap<String, HashMap<String, String>> =
        read_csv(&out.join("fifo").join("ticks.csv")).into_iter().map(|r| (r["time"].clone(), r)).collect();
    for t in ["1001", "1002", "1003", "1004"] {
        assert_eq!(ticks[t]["skipped"], "A:at_cap", "tick ending at {t}");
        assert_eq!(ticks[t]["chosen"], if t == "1001" { "A B" } else { "B" }, "tick ending at {t}");
    }
    assert_eq!(ticks["1005"]["chosen"], "A");
    assert_eq!(starts(&out, "fifo")["A"], [1000.0, 1004.0]);
}

#[test]
fn drr_with_a_quantum_far_below_the_jobs_jumps_its_debt_rounds() {
    // One worker, A and B with three 1000 s jobs each, drr cost work,
    // quantum 1us. The first visits give each 1us of credit, enough to start
    // a job (credit > 0), leaving a debt of 999.999999 s: a billion visits
    // each before the next start. A is ahead in the rotation and its debt is
    // no larger, so the starts alternate A B A B A B, 1000 s apart. Visiting
    // one round at a time (with a skip record each) took 15 s and 8 GB for
    // two jobs; the debt rounds are jumped over now.
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "drr-tiny.yaml",
        "workers: 1\nworkload:\n  - {tenant: A, count: 3, service: 1000s}\n  - {tenant: B, count: 3, service: 1000s}\n\
         policies: [{policy: drr, cost: work, quantum: 1us}]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--logs", "summary"]);
    fairsim().arg("run").arg(&sc).arg("--out").arg(&out).arg("--quiet").arg("--no-plots").assert().success();
    let s = starts(&out, "drr");
    assert_eq!(s["A"], [0.0, 2000.0, 4000.0]);
    assert_eq!(s["B"], [1000.0, 3000.0, 5000.0]);
}

// ------------------------------------------------------------ results folders

const ABC: &str = "workers: 2\nworkload:\n  - {tenant: A, count: 4, service: 1s}\n  - {tenant: B, count: 2, service: 1s}\npolicies: [fifo]\n";

fn run_out(dir: &Path, out: &str, extra: &[&str]) -> std::process::Output {
    let sc = write(dir, "abc.yaml", ABC);
    fairsim()
        .current_dir(dir)
        .arg("run")
        .arg(&sc)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .arg("--no-plots")
        .args(extra)
        .output()
        .expect("runs")
}

#[test]
fn a_folder_fairsim_did_not_write_is_never_replaced_without_force() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("precious/sub")).expect("mkdir");
    std::fs::write(d.join("precious/notes.txt"), "mine").expect("write");
    std::fs::write(d.join("somefile"), "mine too").expect("write");
    for out in ["precious", "somefile"] {
        let o = run_out(d, out, &[]);
        assert_eq!(o.status.code(), Some(2), "{out}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("--out {out}:")) && err.contains("--force"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(d.join("precious/notes.txt")).expect("kept"), "mine");
    assert!(d.join("precious/sub").is_dir());
    assert_eq!(std::fs::read_to_string(d.join("somefile")).expect("kept"), "mine too");
    // nothing was staged next to them either
    let names: Vec<String> = std::fs::read_dir(d)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
    // a results folder is replaced on the next run; --force replaces the user's
    assert!(run_out(d, "results", &[]).status.success());
    assert!(d.join("results/fairsim-results.json").is_file());
    assert!(run_out(d, "results", &[]).status.success());
    assert!(run_out(d, "precious", &["--force"]).status.success());
    assert!(!d.join("precious/notes.txt").exists() && d.join("precious/comparison.csv").is_file());
}

#[test]
fn the_current_folder_and_its_parents_are_refused_before_simulating() {
    let dir = tempdir();
    std::fs::create_dir(dir.path().join("work")).expect("mkdir");
    let work = dir.path().join("work");
    let sc = write(dir.path(), "abc.yaml", ABC);
    for out in [".", "..", "/", "../work"] {
        let o = fairsim()
            .current_dir(&work)
            .args(["run", sc.to_str().expect("utf8"), "--out", out, "--quiet", "--force"])
            .output()
            .expect("runs");
        assert_eq!(o.status.code(), Some(2), "--out {out}");
    }
    assert_eq!(std::fs::read_dir(&work).expect("ls").count(), 0, "nothing written in the current folder");
}

#[test]
fn an_interrupted_run_leaves_no_partial_folder_and_exits_130() {
    // A run long enough to be interrupted while it writes (1,000,000 jobs
    // with every log), stopped with SIGINT once its staging folder exists.
    let dir = tempdir();
    let d = dir.path();
    let sc = write(
        d,
        "long.yaml",
        "workers: 16\nworkload:\n  - {tenants: {count: 100, prefix: t}, arrivals: {poisson: 14/s, count: 2000000}, service: {exponential: 1s}}\npolicies: [fifo, round_robin]\n",
    );
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("fairsim"))
        .current_dir(d)
        .args(["run", sc.to_str().expect("utf8"), "--out", "long", "--quiet", "--no-plots"])
        .spawn()
        .expect("spawn");
    let staged = || {
        std::fs::read_dir(d)
            .expect("ls")
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(".long.partial-"))
    };
    let mut waited = 0;
    while !staged() && waited < 200 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        waited += 1;
    }
    assert!(staged(), "the run started writing");
    let kill =
        std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    assert!(kill.success());
    let status = child.wait().expect("waits");
    assert_eq!(status.code(), Some(130));
    assert!(!staged() && !d.join("long").exists(), "partial results removed, nothing committed");
}

#[test]
fn leftovers_of_dead_runs_are_cleaned_and_a_folder_left_aside_is_put_back() {
    // A process that no longer runs (pid 2147483646) left a staging folder
    // and, killed between its two renames, its previous results aside.
    let dir = tempdir();
    let d = dir.path();
    for stale in [".x.partial-2147483646", ".kept.old-2147483646"] {
        std::fs::create_dir(d.join(stale)).expect("mkdir");
        std::fs::write(d.join(stale).join("fairsim-results.json"), "{}").expect("marker");
    }
    std::fs::create_dir(d.join(".mine.partial-2147483646")).expect("a folder without the marker");
    assert!(run_out(d, "results", &[]).status.success());
    assert!(!d.join(".x.partial-2147483646").exists(), "stale staging removed");
    assert!(d.join("kept/fairsim-results.json").is_file(), "results left aside put back");
    assert!(d.join(".mine.partial-2147483646").exists(), "not fairsim's: untouched");
}

#[test]
fn labels_that_would_clash_with_the_folders_own_files_are_input_errors() {
    let dir = tempdir();
    // `  - {policy: fifo, label: X}`: the value starts at column 27
    for (label, col, what) in [
        ("charts", 27, "would clash with the results folder's own `charts`"),
        ("Report.html", 27, "would clash with the results folder's own `report.html`"),
        ("comparison.csv", 27, "clash"),
        ("scenario.yaml", 27, "clash"),
        ("\".hidden\"", 27, "cannot be used as a folder name"),
        ("\"a\\0b\"", 27, "cannot be used as a folder name"),
    ] {
        let sc = write(
            dir.path(),
            "bad.yaml",
            &format!("workers: 1\nworkload:\n  - {{tenant: A, count: 1, service: 1s}}\npolicies:\n  - {{policy: fifo, label: {label}}}\n"),
        );
        let o = fairsim().arg("validate").arg(&sc).output().expect("runs");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{label}: {err}");
        assert!(err.contains(&format!("bad.yaml:5:{col}: ")) && err.contains(what), "{label}: {err}");
    }
    let long = "x".repeat(300);
    let sc = write(dir.path(), "bad.yaml", &format!("workers: 1\nworkload:\n  - {{tenant: A, count: 1, service: 1s}}\npolicies:\n  - {{policy: fifo, label: {long}}}\n"));
    let o = fairsim().arg("validate").arg(&sc).output().expect("runs");
    assert!(String::from_utf8_lossy(&o.stderr).contains("300 bytes long"));
}

#[test]
fn a_tenant_name_of_65536_characters_prints_without_a_panic() {
    // The table padded cells with a `{:>w$}` width, which panics past 65,535.
    let dir = tempdir();
    let name = "n".repeat(65_536);
    let sc = write(
        dir.path(),
        "long.yaml",
        &format!("workers: 1\nworkload:\n  - {{tenant: {name}, count: 2, service: 1s}}\n"),
    );
    let o = fairsim()
        .current_dir(dir.path())
        .args(["run", sc.to_str().expect("utf8"), "--out", "o", "--no-plots"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    // the table shows it cut to 40 characters; the CSV files keep it whole
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("({}…)", "n".repeat(39))));
    let jobs = std::fs::read_to_string(dir.path().join("o/fifo/jobs.csv")).expect("jobs");
    assert!(jobs.contains(&name));
}

// ------------------------------------------------- time, size and bad input

/// `fairsim validate` of this scenario text: (exit code, stderr).
fn validate(dir: &Path, text: &str) -> (Option<i32>, String) {
    let sc = write(dir, "bad.yaml", text);
    let o = fairsim().arg("validate").arg(&sc).output().expect("runs");
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn a_long_quiet_stretch_costs_four_log_rows_not_a_hundred_million() {
    // One job of 10^8 s at t = 0, ticks of 1 s. Tick 1 holds its start, tick
    // 10^8 its end; the ticks between have no event, so the log writes the
    // first and the last of them (2 and 99,999,999) and the fairness windows
    // between are closed in one step (closing them one by one took 18 s).
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "long.yaml",
        "workers: 1\nworkload:\n  - {tenant: A, count: 1, service: 100000000s}\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let ticks = read_csv(&out.join("fifo").join("ticks.csv"));
    let index: Vec<&str> = ticks.iter().map(|r| r["tick"].as_str()).collect();
    assert_eq!(index, ["1", "2", "99999999", "100000000"]);
    assert_eq!(ticks[3]["completed"], "A:1");
    let fairness = read_csv(&out.join("fifo").join("fairness.csv"));
    assert_eq!(fairness.len(), 4);
    let c = read_csv(&out.join("comparison.csv"));
    assert_eq!(c[0]["makespan"], "100000000");
}

#[test]
fn a_microsecond_tick_with_a_late_arrival_writes_a_handful_of_rows() {
    // log tick 1us, one 1 s job arriving at 10^6 s: 10^12 ticks, of which the
    // log writes the first, the quiet run's last before the arrival, the
    // arrival's and the start's, then the first and last quiet ones before
    // the end, and the end's (5 GB before, in 28 s).
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "us.yaml",
        "workers: 1\nlog: {tick: 1us}\nworkload:\n  - {tenant: A, count: 1, at: 1000000s, service: 1s}\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let ticks = read_csv(&out.join("fifo").join("ticks.csv"));
    assert!(ticks.len() <= 8, "{} rows", ticks.len());
    assert_eq!(ticks.last().expect("rows")["time"], "1000001");
}

#[test]
fn times_past_the_horizon_are_errors_at_their_place_not_clamps() {
    let dir = tempdir();
    let w = |e: &str| format!("workers: 1\nworkload:\n  - {e}\n");
    for (text, place, what) in [
        (
            w("{tenant: A, count: 1, at: 100000000000s, service: 1s}"),
            "bad.yaml:3:31:",
            "past fairsim's horizon",
        ),
        (
            format!(
                "workers: 1\nlog: {{tick: 999999999999s}}\n{}",
                &w("{tenant: A, count: 1, service: 1s}")[11..]
            ),
            "bad.yaml:2:13:",
            "past fairsim's horizon",
        ),
        (
            w("{tenant: A, arrivals: {poisson: 1e-300/s, count: 3}, service: 1s}"),
            "bad.yaml:3:37:",
            "mean gap between arrivals is past",
        ),
        (
            w("{tenant: A, count: 3, service: {lognormal: {mu: 100, sigma: 1}}}"),
            "bad.yaml:3:53:",
            "is past fairsim's horizon",
        ),
    ] {
        let (code, err) = validate(dir.path(), &text);
        assert_eq!(code, Some(2), "{text}: {err}");
        assert!(err.contains(place) && err.contains(what), "{text}: {err}");
    }
}

#[test]
fn limits_are_checked_at_validation() {
    let dir = tempdir();
    let w = |e: &str| format!("workers: 1\nworkload:\n  - {e}\n");
    for (text, place, what) in [
        (w("{tenant: A, arrivals: {every: 1s, count: 18446744073709551615}, service: 1s}"), "bad.yaml:3:46:", "more than the 200000000 jobs"),
        (w("{tenant: A, arrivals: {batch: 50000000}, service: 1s}"), "bad.yaml:3:35:", "more than 10000000 queued at one instant"),
        (w("{tenant: A, count: 5, service: 1s, failure: {probability: 0.999999999999, max_attempts: 4294967295}}"), "bad.yaml:3:93:", "between 1 (no retry) and 100"),
        (w("{tenant: A, arrivals: {poisson: 1000000/s, stop: 100h}, service: 1s}"), "bad.yaml:3:3:", "at most 200000000 per run"),
        ("workers: 1\ntenants: {A: {weight: 1e-100}}\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n".into(), "bad.yaml:2:23:", "between 0.001 and 1000"),
    ] {
        let (code, err) = validate(dir.path(), &text);
        assert_eq!(code, Some(2), "{text}: {err}");
        assert!(err.contains(place) && err.contains(what), "{text}: {err}");
    }
}

#[test]
fn ten_million_declared_tenants_validate_and_run() {
    // 10,000,000 generated tenants, 10 jobs: one record for the whole set
    // (it took 49 s and 1.7 GB to validate, 87 s and 6.5 GB to run).
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "many.yaml",
        "workers: 4\nworkload:\n  - {tenants: {count: 10000000, prefix: t}, count: 10, service: 1s}\n",
    );
    fairsim().arg("validate").arg(&sc).assert().success();
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots", "--logs", "summary"]);
    let summary = read_csv(&out.join("fifo").join("summary.csv"));
    let tenants: u64 =
        summary.iter().filter(|r| r["scope"] == "tenant").map(|r| r["jobs"].parse::<u64>().expect("n")).sum();
    assert_eq!(tenants, 10);
    assert!(summary.iter().all(|r| r["scope"] != "tenant" || r["name"].len() == 8), "t + 7 digits");
}

#[test]
fn a_trace_that_is_not_a_file_is_an_error_at_its_entry() {
    let dir = tempdir();
    std::fs::create_dir(dir.path().join("folder.csv")).expect("mkdir");
    for path in ["folder.csv", "/dev/zero"] {
        let (code, err) = validate(
            dir.path(),
            &format!("workers: 1\nworkload:\n  - trace: {{path: {path}, format: csv}}\n"),
        );
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("bad.yaml:3:") && err.contains("not a regular file"), "{err}");
    }
}

#[test]
fn an_swf_log_with_carriage_returns_only_replays_every_job() {
    // Two jobs, lines ended by CR alone (an old Mac export): read as two
    // lines, not one comment line (0 jobs before, exit 0).
    let dir = tempdir();
    let line = |id: u32, submit: u32| format!("{id} {submit} 0 10 1 -1 -1 1 10 -1 1 {id} 1 -1 1 -1 -1 -1");
    std::fs::write(dir.path().join("cr.swf"), format!("; header\r{}\r{}\r", line(1, 0), line(2, 5)))
        .expect("write");
    let sc = write(dir.path(), "swf.yaml", "workers: 2\nworkload:\n  - trace: {path: cr.swf}\n");
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let jobs = read_csv(&out.join("fifo").join("jobs.csv"));
    assert_eq!(jobs.len(), 2);
    assert_eq!((jobs[0]["tenant"].as_str(), jobs[1]["arrival"].as_str()), ("u1", "5"));
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

#[test]
fn a_csv_header_without_a_mapped_column_is_an_error_at_the_trace_entry() {
    // The mapping names `user`, the header has `tenant`: the fix belongs in
    // the scenario's `columns:`, so the error names the entry (line 3).
    let dir = tempdir();
    std::fs::write(dir.path().join("t.csv"), "time,tenant,service\n0,A,1\n").expect("write");
    let (code, err) = validate(
        dir.path(),
        "workers: 1\nworkload:\n  - trace: {path: t.csv, format: csv, columns: {arrival: time, tenant: user, service: service}}\n",
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("bad.yaml:3:") && err.contains("header (line 1)") && err.contains("user"), "{err}");
}

#[test]
fn a_run_whose_logs_would_pass_a_gigabyte_writes_the_summary_and_says_so() {
    // 20,000 tenants with one 1 s job each on one worker: 20,000 ticks, each
    // listing every tenant seen so far in `completed` (about 10 bytes per
    // tenant): about 2 GB of ticks.csv. Without --logs the run writes the
    // summary only and says why; validate prints the estimate.
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "wide.yaml",
        "workers: 1\nworkload:\n  - {tenants: {count: 20000, prefix: t}, count: 20000, service: 1s}\n",
    );
    let v = fairsim().arg("validate").arg(&sc).output().expect("runs");
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(text.contains("full logs: about ") && text.contains(" GB for all policies"), "{text}");
    let out = dir.path().join("out");
    let o = fairsim().args(["run", "--no-plots", "--out"]).arg(&out).arg(&sc).output().expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("writing summary.csv and comparison.csv only") && err.contains("--logs full"),
        "{err}"
    );
    assert!(out.join("fifo/summary.csv").exists());
    assert!(!out.join("fifo/ticks.csv").exists() && !out.join("fifo/jobs.csv").exists());
}

#[test]
fn a_pool_bounded_by_resources_alone_logs_no_worker_count() {
    // No `workers:`, 4 cpus, jobs of 2 cpus: two run at once. The worker
    // count is unbounded, so `workers_free` is empty (it printed 4294967295).
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "res.yaml",
        "resources: {cpu: 4}\nworkload:\n  - {tenant: A, count: 4, service: 1s, cost: {cpu: 2}}\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let ticks = read_csv(&out.join("fifo").join("ticks.csv"));
    assert!(ticks.iter().all(|r| r["workers_free"].is_empty()), "{ticks:?}");
    let starts: Vec<String> =
        read_csv(&out.join("fifo").join("jobs.csv")).iter().map(|r| r["start"].clone()).collect();
    assert_eq!(starts, ["0", "0", "1", "1"]);
}

#[test]
fn twenty_thousand_unlabelled_entries_of_one_kind_are_numbered_in_order() {
    // The loader numbered each unlabelled entry by trying fifo-2, fifo-3, ...
    // from 2 (quadratic: 10,000 entries took 14 s); each kind now resumes
    // where it stopped. With an explicit `fifo-3` the numbers skip it.
    let dir = tempdir();
    let mut text = String::from("workers: 1\nworkload:\n  - {tenant: A, count: 1, service: 1s}\npolicies:\n  - {policy: fifo, label: fifo-3}\n");
    text.push_str(&"  - fifo\n".repeat(20_000));
    let sc = write(dir.path(), "many.yaml", &text);
    let o = fairsim().arg("validate").arg(&sc).output().expect("runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    let line = out.lines().find(|l| l.trim_start().starts_with("policies:")).expect("policies line");
    assert!(line.contains("fifo-3 (fifo), fifo (fifo), fifo-2 (fifo), fifo-4 (fifo),"), "{}", &line[..200]);
    assert!(line.ends_with("fifo-20001 (fifo)"), "{}", &line[line.len() - 100..]);
}

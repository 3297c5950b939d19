//! docs/scenario.md's "Limits": inputs that once took unbounded time or
//! memory now run in time proportional to their jobs (a long quiet stretch,
//! a microsecond tick, ten million tenants, twenty thousand entries, logs
//! past a gigabyte) or are errors at their place (times past the horizon,
//! counts past the job limits).

mod common;

use common::*;

#[test]
fn a_long_quiet_stretch_costs_four_log_rows_not_a_hundred_million() {
    // One job of 10^8 s at t = 0, ticks of 1 s. Tick 1 holds its start, tick
    // 10^8 its end; the ticks between have no event, so the log writes the
    // first and the last of them (2 and 99,999,999) and the fairness windows
    // between are closed in one step (closing them one by one took 18 s).
    let dir = tempdir();
    let sc = write_scenario(
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
    let sc = write_scenario(
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
        let (code, err) = validate_text(dir.path(), &text);
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
        let (code, err) = validate_text(dir.path(), &text);
        assert_eq!(code, Some(2), "{text}: {err}");
        assert!(err.contains(place) && err.contains(what), "{text}: {err}");
    }
}

#[test]
fn ten_million_declared_tenants_validate_and_run() {
    // 10,000,000 generated tenants, 10 jobs: one record for the whole set
    // (it took 49 s and 1.7 GB to validate, 87 s and 6.5 GB to run).
    let dir = tempdir();
    let sc = write_scenario(
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
fn a_run_whose_logs_would_pass_a_gigabyte_writes_the_summary_and_says_so() {
    // 20,000 tenants with one 1 s job each on one worker: 20,000 ticks, each
    // listing every tenant seen so far in `completed` (about 10 bytes per
    // tenant): about 2 GB of ticks.csv. Without --logs the run writes the
    // summary only and says why; validate prints the estimate.
    let dir = tempdir();
    let sc = write_scenario(
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
fn twenty_thousand_unlabelled_entries_of_one_kind_are_numbered_in_order() {
    // The loader numbered each unlabelled entry by trying fifo-2, fifo-3, ...
    // from 2 (quadratic: 10,000 entries took 14 s); each kind now resumes
    // where it stopped. With an explicit `fifo-3` the numbers skip it.
    let dir = tempdir();
    let mut text = String::from("workers: 1\nworkload:\n  - {tenant: A, count: 1, service: 1s}\npolicies:\n  - {policy: fifo, label: fifo-3}\n");
    text.push_str(&"  - fifo\n".repeat(20_000));
    let sc = write_scenario(dir.path(), "many.yaml", &text);
    let o = fairsim().arg("validate").arg(&sc).output().expect("runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    let line = out.lines().find(|l| l.trim_start().starts_with("policies:")).expect("policies line");
    assert!(line.contains("fifo-3 (fifo), fifo (fifo), fifo-2 (fifo), fifo-4 (fifo),"), "{}", &line[..200]);
    assert!(line.ends_with("fifo-20001 (fifo)"), "{}", &line[line.len() - 100..]);
}

#[test]
fn fixed_work_that_cannot_end_inside_simulated_time_is_refused_by_validate_and_run() {
    // 19 jobs of 9,007,199,254 s on 2 workers: each fits under the horizon
    // of 2^53 us (9,007,199,254.74 s), but the last of them cannot finish
    // before 19 x 9,007,199,254 / 2 = 85,568,392,913 s (integer seconds of
    // the work, floor), past it. Run failed mid-way where validate said ok.
    let dir = tempdir();
    let text = "workers: 2\nworkload:\n  - {tenant: A, count: 19, service: 9007199254s}\n";
    let (code, err) = validate_text(dir.path(), text);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("bad.yaml:3") && err.contains("cannot finish before 85568392913 s"), "{err}");
    let sc = dir.path().join("bad.yaml");
    let run = fairsim().arg("run").arg(&sc).arg("--out").arg(dir.path().join("out")).output().expect("run");
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("cannot finish before 85568392913 s"));
    assert!(!dir.path().join("out").exists(), "no half-written output");
    // one such job fits: validate accepts it
    let (code, err) =
        validate_text(dir.path(), "workers: 2\nworkload:\n  - {tenant: A, count: 1, service: 9007199254s}\n");
    assert_eq!(code, Some(0), "{err}");
}

/// validate's `full logs: about N MB` line, in bytes.
fn estimated_log_bytes(validate_stdout: &str) -> f64 {
    let line =
        validate_stdout.lines().find_map(|l| l.trim().strip_prefix("full logs: about ")).expect("estimate");
    let mut w = line.split_whitespace();
    let n: f64 = w.next().and_then(|n| n.parse().ok()).expect("a number");
    n * match w.next() {
        Some("kB") => 1e3,
        Some("MB") => 1e6,
        Some("GB") => 1e9,
        u => panic!("unit {u:?}"),
    }
}

#[test]
fn a_long_tenant_name_counts_in_the_log_estimate() {
    // One tenant named with 100,000 bytes and 29 named `s00`..`s28`, 100
    // jobs of 1 s each from the long-named one and 100 from the others, on
    // one worker: the long name is written in every row of jobs.csv,
    // dispatches.csv and tenants.csv for its jobs (3 x 100 x 100 kB = 30 MB)
    // and in every tick's `completed` cell once one of its jobs has ended
    // (about 200 ticks: 20 MB more, and more in `waiting`). The estimate
    // counted 10 bytes a name (90 kB), and the names' plain mean (3.3 kB)
    // is 15x too little: half the jobs carry the long one. It must land
    // within 2x of what is written.
    let dir = tempdir();
    let name = "x".repeat(100_000);
    let text = format!(
        "workers: 1\nworkload:\n  - {{tenant: {name}, count: 100, service: 1s}}\n  - {{tenants: {{count: 29, prefix: s}}, count: 100, service: 1s}}\n"
    );
    let sc = write_scenario(dir.path(), "long.yaml", &text);
    let v = fairsim().arg("validate").arg(&sc).output().expect("runs");
    assert!(v.status.success());
    let estimate = estimated_log_bytes(&String::from_utf8_lossy(&v.stdout));
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots", "--logs", "full"]);
    let written: u64 = std::fs::read_dir(out.join("fifo"))
        .expect("folder")
        .map(|e| e.expect("entry").metadata().expect("size").len())
        .sum();
    let written = written as f64;
    assert!(written > 50e6, "{written} bytes: the name is in every row");
    assert!(estimate > written / 2.0 && estimate < written * 2.0, "estimate {estimate}, written {written}");
}

#[test]
fn validate_counts_the_starts_of_jobs_run_in_slices() {
    // 10 jobs of 1 s in slices of 1 ms: 1,000 starts each, under each of the
    // two policies: 20,000 starts, each an event (the run's time follows
    // them, not the 10 jobs). Without slices there is no such line.
    let dir = tempdir();
    let sliced = write_scenario(
        dir.path(),
        "sliced.yaml",
        "workers: 2\nworkload:\n  - {tenant: A, count: 10, service: 1s, slice: 1ms}\npolicies: [fifo, round_robin]\n",
    );
    let v = fairsim().arg("validate").arg(&sliced).output().expect("runs");
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(text.contains("starts: about 20000 for all policies"), "{text}");
    let out = dir.path().join("out");
    run(&sliced, &out, &["--no-plots", "--logs", "full"]);
    let dispatches = read_csv(&out.join("fifo/dispatches.csv")).len()
        + read_csv(&out.join("round_robin/dispatches.csv")).len();
    assert_eq!(dispatches, 20_000);
    let whole = write_scenario(
        dir.path(),
        "whole.yaml",
        "workers: 2\nworkload:\n  - {tenant: A, count: 10, service: 1s}\npolicies: [fifo, round_robin]\n",
    );
    let v = fairsim().arg("validate").arg(&whole).output().expect("runs");
    assert!(!String::from_utf8_lossy(&v.stdout).contains("starts:"));
}

#[test]
fn services_whose_draws_would_pass_the_horizon_are_refused_by_validate_and_run() {
    // The horizon is 2^53 us = 9,007,199,254.74 s. A draw past it stops the
    // run mid-way, so a service law that draws past it more often than once
    // in 10^9 jobs is refused where it is written.
    // Exponential: P(S > H) = e^(-H / mean) <= 1e-9 needs mean <= H / ln(1e9)
    // = 9,007,199,254.74 / 20.7233 = 434,641,881.5 s.
    // Lognormal: its 1 - 1e-9 quantile is e^(mu + 5.998 sigma), bounded by
    // e^(mu + 6 sigma); median 1e8 s and p99 1e9 s give sigma = ln(10) /
    // 2.3263 = 0.9898 and e^(ln 1e8 + 5.939) = 3.79e10 s, past it; p99 5e8 s
    // gives sigma 0.6918 and 6.35e9 s, inside.
    let dir = tempdir();
    let refused = [
        ("{exponential: 434641882s}", "bad.yaml:3:", "draws past"),
        ("{lognormal: {median: 100000000s, p99: 1000000000s}}", "bad.yaml:3:", "draws past"),
    ];
    for (service, place, words) in refused {
        let text = format!("workers: 1\nworkload:\n  - {{tenant: A, count: 1, service: {service}}}\n");
        let (code, err) = validate_text(dir.path(), &text);
        assert_eq!(code, Some(2), "{service}: {err}");
        assert!(err.contains(place) && err.contains(words), "{service}: {err}");
        let sc = dir.path().join("bad.yaml");
        let out = dir.path().join("out");
        let run = fairsim().arg("run").arg(&sc).arg("--out").arg(&out).output().expect("run");
        assert_eq!(run.status.code(), Some(2), "{service}");
        let run_err = String::from_utf8_lossy(&run.stderr);
        assert!(run_err.contains(place) && run_err.contains(words), "{service}: {run_err}");
        assert!(!out.exists(), "no half-written output");
    }
    for service in ["{exponential: 434641881s}", "{lognormal: {median: 100000000s, p99: 500000000s}}"] {
        let text = format!("workers: 1\nworkload:\n  - {{tenant: A, count: 1, service: {service}}}\n");
        let (code, err) = validate_text(dir.path(), &text);
        assert_eq!(code, Some(0), "{service}: {err}");
    }
}

#[test]
fn poisson_work_that_cannot_end_inside_simulated_time_is_refused_by_validate() {
    // Poisson at 1/s for 10^6 s draws n ~ Poisson(10^6) jobs; fewer than
    // n - 7 sqrt(n) = 993,000 come with a chance of about 1e-12. 993,000 jobs
    // of 10,000 s on one worker end no sooner than 9.93e9 s, past the horizon
    // (9.007e9 s): run would stop mid-way, so validate refuses it at its line.
    // Stopped at 5 x 10^5 s (about 4.95e9 s of work) it is accepted.
    let dir = tempdir();
    let text =
        "workers: 1\nworkload:\n  - {tenant: A, arrivals: {poisson: 1/s, stop: 1000000s}, service: 10000s}\n";
    let (code, err) = validate_text(dir.path(), text);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("bad.yaml:3") && err.contains("cannot finish before 9930000000 s"), "{err}");
    let ok =
        "workers: 1\nworkload:\n  - {tenant: A, arrivals: {poisson: 1/s, stop: 500000s}, service: 10000s}\n";
    let (code, err) = validate_text(dir.path(), ok);
    assert_eq!(code, Some(0), "{err}");
}

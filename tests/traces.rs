//! Trace replay: CSV job-table exports and SWF logs.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::{fairsim, read_csv, run, scenario, secs, tempdir, validate_text, write_scenario};

/// Microseconds from a CSV seconds cell (exact: at most 6 decimals).
fn us(cell: &str) -> i64 {
    let (int, frac) = cell.split_once('.').unwrap_or((cell, ""));
    let mut f = frac.to_string();
    while f.len() < 6 {
        f.push('0');
    }
    int.parse::<i64>().expect("int") * 1_000_000 + f.parse::<i64>().expect("frac")
}

fn per_tenant_counts(jobs: &[HashMap<String, String>]) -> Vec<(String, usize)> {
    let mut m: std::collections::BTreeMap<String, usize> = Default::default();
    for j in jobs {
        *m.entry(j["tenant"].clone()).or_default() += 1;
    }
    m.into_iter().collect()
}

fn service_sum_us(jobs: &[HashMap<String, String>]) -> i64 {
    jobs.iter().map(|j| us(&j["service"])).sum()
}

#[test]
fn csv_export_replays_every_job_with_its_real_service() {
    let out = tempdir();
    run(&scenario("trace-jobs-csv.yaml"), out.path(), &[]);
    for label in ["fifo", "round_robin"] {
        let jobs = read_csv(&out.path().join(label).join("jobs.csv"));
        // scenarios/traces/jobs.csv has 12 rows; finished_at - started_at per row:
        // 1 + 2 + 0.5 + 3 + 1 + 0.5 + 2 + 1 + 4 + 0.5 + 1 + 2 = 18.5 s.
        assert_eq!(jobs.len(), 12);
        assert_eq!(service_sum_us(&jobs), 18_500_000);
        // account 101: ids 9001 9002 9004 9007 9008 9011; 202: 9003 9006 9010; 303: 9005 9009 9012
        assert_eq!(per_tenant_counts(&jobs), vec![("101".into(), 6), ("202".into(), 3), ("303".into(), 3)]);
        // shifted to start at 0: the first row (10:00:00) arrives at 0, the last (10:00:08) at 8
        let arrivals: Vec<i64> = jobs.iter().map(|j| us(&j["arrival"])).collect();
        assert_eq!(arrivals.iter().min(), Some(&0));
        assert_eq!(arrivals.iter().max(), Some(&8_000_000));
        // queue_name becomes the class: 3 mailers, 2 reports, 7 default
        let mailers = jobs.iter().filter(|j| j["class"] == "mailers").count();
        let reports = jobs.iter().filter(|j| j["class"] == "reports").count();
        assert_eq!((mailers, reports), (3, 2));
        assert!(jobs.iter().all(|j| j["outcome"] == "completed"));
    }
}

#[test]
fn swf_log_replays_with_missing_rows_skipped() {
    let out = tempdir();
    let assert = fairsim()
        .arg("run")
        .arg(scenario("trace-cluster-swf.yaml"))
        .arg("--out")
        .arg(out.path())
        .arg("--audit")
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    // 10 job lines, job 5 has run time -1
    assert!(stderr.contains("9 rows replayed, 1 rows without run time or processors skipped"), "{stderr}");
    let jobs = read_csv(&out.path().join("fifo").join("jobs.csv"));
    // run times of jobs 1-4, 6-10: 100 + 50 + 200 + 30 + 80 + 120 + 10 + 60 + 40 = 690 s
    assert_eq!(jobs.len(), 9);
    assert_eq!(service_sum_us(&jobs), 690_000_000);
    // user 1: jobs 1 3 8 10; user 2: 2 6 9 (5 skipped); user 3: 4 7
    assert_eq!(per_tenant_counts(&jobs), vec![("u1".into(), 4), ("u2".into(), 3), ("u3".into(), 2)]);
    // queue -1 (job 9) is the default class; queue 2: jobs 3 and 7
    let q2 = jobs.iter().filter(|j| j["class"] == "q2").count();
    let dflt = jobs.iter().filter(|j| j["class"] == "default").count();
    assert_eq!((q2, dflt), (2, 1));
}

#[test]
fn a_scenario_without_a_workload_runs_the_trace_given_on_the_command_line() {
    // `workers: 2` alone, the SWF log given with --trace: the same 9 jobs
    // and 690 s of service as above; without --trace the missing workload
    // is an error that names the option.
    let dir = tempdir();
    let sc = dir.path().join("bare.yaml");
    std::fs::write(&sc, "workers: 2\n").expect("write");
    let swf = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/traces/cluster.swf");
    fairsim()
        .arg("run")
        .arg(&sc)
        .arg("--trace")
        .arg(&swf)
        .arg("--out")
        .arg(dir.path().join("out"))
        .arg("--no-plots")
        .assert()
        .success();
    let jobs = read_csv(&dir.path().join("out/fifo/jobs.csv"));
    assert_eq!((jobs.len(), service_sum_us(&jobs)), (9, 690_000_000));
    let out = fairsim().arg("run").arg(&sc).arg("--out").arg(dir.path().join("o2")).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("or give the workload as `fairsim run FILE --trace TRACE`"));
}

/// Writes `rows` under a header into a CSV in `dir` and a scenario replaying it.
fn csv_case(dir: &Path, header: &str, rows: &[&str], trace_opts: &str) -> std::path::PathBuf {
    let mut text = String::from(header);
    text.push('\n');
    for r in rows {
        text.push_str(r);
        text.push('\n');
    }
    std::fs::write(dir.join("t.csv"), text).expect("write trace");
    let sc = dir.join("s.yaml");
    std::fs::write(
        &sc,
        format!("workers: 1\nworkload:\n  - trace: {{path: t.csv, {trace_opts}}}\npolicies: [fifo]\n"),
    )
    .expect("write scenario");
    sc
}

/// Arrivals and services (µs) of a replay, in job id order.
fn replay(sc: &Path) -> Vec<(i64, i64)> {
    let out = sc.parent().expect("dir").join("out");
    run(sc, &out, &[]);
    let mut jobs = read_csv(&out.join("fifo").join("jobs.csv"));
    jobs.sort_by_key(|j| j["job"].parse::<u64>().expect("id"));
    jobs.iter().map(|j| (us(&j["arrival"]), us(&j["service"]))).collect()
}

#[test]
fn every_timestamp_form_gives_the_same_arrivals() {
    // The same three instants, 2026-11-28T10:00:00Z + {0, 1.5 s, 61.25 s}
    // (epoch 1795860000 s, see `date -u -d 2026-11-28T10:00:00Z +%s`),
    // each job running 2 s. Expected arrivals after the shift: 0, 1.5, 61.25 s.
    let expected = vec![(0, 2_000_000), (1_500_000, 2_000_000), (61_250_000, 2_000_000)];
    let cols = "columns: {service: service}";
    let cases: Vec<(&str, [&str; 3], String)> = vec![
        (
            "rfc3339 Z",
            ["2026-11-28T10:00:00Z", "2026-11-28T10:00:01.5Z", "2026-11-28T10:01:01.250000Z"],
            cols.to_string(),
        ),
        (
            "rfc3339 offsets",
            ["2026-11-28T11:00:00+01:00", "2026-11-28 04:30:01.5-05:30", "2026-11-28 10:01:01.25+00"],
            format!("{cols}, time_format: rfc3339"),
        ),
        (
            "epoch seconds",
            ["1795860000", "1795860001.5", "1795860061.25"],
            format!("{cols}, time_format: epoch_s"),
        ),
        (
            "epoch milliseconds",
            ["1795860000000", "1795860001500", "1795860061250"],
            format!("{cols}, time_format: epoch_ms"),
        ),
        (
            "epoch microseconds",
            ["1795860000000000", "1795860001500000", "1795860061250000"],
            format!("{cols}, time_format: epoch_us"),
        ),
    ];
    for (what, ts, opts) in cases {
        let dir = tempdir();
        let rows: Vec<String> = ts.iter().map(|t| format!("{t},acme,2")).collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let sc = csv_case(dir.path(), "created_at,tenant,service", &rows, &opts);
        assert_eq!(replay(&sc), expected, "{what}");
    }
    // service in milliseconds, and keep_time with small epoch values
    let dir = tempdir();
    let sc = csv_case(
        dir.path(),
        "t,tenant,ms",
        &["5,a,250", "7.5,b,1500"],
        "columns: {arrival: t, service: ms}, service_unit: ms, time_format: epoch_s, keep_time: true",
    );
    assert_eq!(replay(&sc), vec![(5_000_000, 250_000), (7_500_000, 1_500_000)]);
}

#[test]
fn a_broken_row_is_an_error_at_its_line_and_column() {
    let dir = tempdir();
    // line 1 header, line 2 fine, line 3 has a bad finished_at (column 4)
    let sc = csv_case(
        dir.path(),
        "created_at,tenant,started_at,finished_at",
        &[
            "2026-11-28T10:00:00Z,a,2026-11-28T10:00:00Z,2026-11-28T10:00:01Z",
            "2026-11-28T10:00:01Z,a,2026-11-28T10:00:01Z,2026-11-31T10:00:02Z",
        ],
        "",
    );
    let out = dir.path().join("out");
    let assert = fairsim().arg("run").arg(&sc).arg("--out").arg(&out).arg("--quiet").assert().code(2);
    let err = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    let want = format!("{}:3:4:", dir.path().join("t.csv").display());
    assert!(err.contains(&want), "expected `{want}` in: {err}");
    assert!(err.contains("day 31 does not exist"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out.exists(), "no output folder may be created for a broken trace");

    // a row earlier than the previous one: line 3, column 1 (created_at)
    let sc = csv_case(
        dir.path(),
        "created_at,tenant,service",
        &["1795860005,a,1", "1795860001,a,1", "1795860009,a,1"],
        "columns: {service: service}",
    );
    let assert = fairsim().arg("run").arg(&sc).arg("--out").arg(&out).arg("--quiet").assert().code(2);
    let err = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(err.contains("t.csv:3:1:") && err.contains("earlier than the one on line 2"), "{err}");

    // with --skip-bad-rows the same trace replays 2 jobs and says it skipped 1
    let assert =
        fairsim().arg("run").arg(&sc).arg("--out").arg(&out).arg("--skip-bad-rows").assert().success();
    let err = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(err.contains("2 rows replayed, 1 broken rows skipped"), "{err}");
    assert_eq!(read_csv(&out.join("fifo").join("jobs.csv")).len(), 2);

    // an SWF line with 17 fields: error at line 2, column 18 (the missing field)
    std::fs::write(dir.path().join("bad.swf"), "; header\n1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 1 1 -1 -1\n")
        .expect("write");
    let assert = fairsim()
        .arg("run")
        .arg(&sc)
        .arg("--trace")
        .arg(dir.path().join("bad.swf"))
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(err.contains("bad.swf:2:18:") && err.contains("has 17"), "{err}");
}

/// A deterministic SWF of `n` jobs with 1 to 8 processors on a 16-processor
/// cluster (a 64-bit LCG, so the test needs no random crate).
fn synthetic_swf(n: usize) -> (String, Vec<u64>) {
    let mut x: u64 = 12345;
    let mut next = || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        x >> 33
    };
    let mut text = String::from("; MaxProcs: 16\n");
    let mut procs = Vec::new();
    let mut t = 0;
    for j in 1..=n {
        t += next() % 20;
        let run = 1 + next() % 120;
        let p = 1 + next() % 8;
        let user = 1 + next() % 5;
        procs.push(p);
        text.push_str(&format!("{j} {t} -1 {run} {p} -1 -1 {p} -1 -1 1 {user} 1 1 1 -1 -1 -1\n"));
    }
    (text, procs)
}

#[test]
fn multi_slot_jobs_never_exceed_the_slot_capacity() {
    let dir = tempdir();
    let (text, procs) = synthetic_swf(2000);
    std::fs::write(dir.path().join("c.swf"), text).expect("write");
    let sc = dir.path().join("s.yaml");
    std::fs::write(
        &sc,
        "resources: {procs: 16}\nworkload:\n  - trace: {path: c.swf}\npolicies: [fifo, round_robin]\n",
    )
    .expect("write");
    let out = dir.path().join("out");
    // Not under --audit: its rotation check flags round_robin when a tenant
    // parked `no_fit` in an earlier round is passed over again without a
    // fresh skip record (reported to the lead; the capacity is what this test checks).
    fairsim().arg("run").arg(&sc).arg("--out").arg(&out).arg("--quiet").assert().success();
    for label in ["fifo", "round_robin"] {
        let jobs = read_csv(&out.join(label).join("jobs.csv"));
        assert_eq!(jobs.len(), 2000);
        // sweep: +procs at start, -procs at finish; at equal times finishes first
        // (the engine frees a slot before it dispatches at the same instant)
        let mut events: Vec<(i64, i64)> = Vec::new();
        for j in &jobs {
            let id: usize = j["job"].parse().expect("id");
            let p = procs[id] as i64;
            events.push((us(&j["start"]), p));
            events.push((us(&j["finish"]), -p));
        }
        events.sort_by_key(|&(t, d)| (t, d));
        let (mut used, mut peak) = (0i64, 0i64);
        for (_, d) in events {
            used += d;
            peak = peak.max(used);
        }
        assert!(peak <= 16, "{label}: {peak} processors in use at once, capacity 16");
        // and the capacity is really used (the test could fail the other way)
        assert!(peak >= 12, "{label}: peak {peak}");
        assert_eq!(used, 0);
    }
}

#[test]
fn littles_law_holds_between_the_time_series_and_the_job_records() {
    // M/M/2-like trace at load ~0.8: arrivals every Exp(1/0.625 s), service Exp(1 s),
    // generated with an LCG; 20,000 jobs in ~12,500 s, tick 0.1 s.
    let dir = tempdir();
    let mut x: u64 = 7;
    let mut unif = || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    let mut text = String::from("created_at,tenant,service_us\n");
    let mut t_us: u64 = 0;
    for i in 0..20_000 {
        t_us += (-unif().ln() * 625_000.0) as u64;
        let s = (-unif().ln() * 1_000_000.0) as u64;
        text.push_str(&format!("{t_us},t{},{s}\n", i % 3));
    }
    std::fs::write(dir.path().join("t.csv"), text).expect("write");
    let sc = dir.path().join("s.yaml");
    std::fs::write(
        &sc,
        "workers: 2\nlog: {tick: 100ms}\nworkload:\n  - trace: {path: t.csv, time_format: epoch_us, service_unit: us, columns: {service: service_us}}\npolicies: [fifo]\n",
    )
    .expect("write");
    let out = dir.path().join("out");
    run(&sc, &out, &[]);
    let jobs = read_csv(&out.join("fifo").join("jobs.csv"));
    let ticks = read_csv(&out.join("fifo").join("ticks.csv"));
    let series = read_csv(&out.join("fifo").join("tenants.csv"));
    // W: mean time in system from the per-job records
    let n = jobs.len() as f64;
    let w = jobs.iter().map(|j| secs(&j["finish"]) - secs(&j["arrival"])).sum::<f64>() / n;
    // T: the observed horizon, the end of the last tick; lambda = jobs / T
    let horizon = secs(&ticks.last().expect("ticks")["time"]);
    let lambda = n / horizon;
    // L: time average of the number in system, from tenants.csv sampled at
    // every tick end (a tenant absent from a tick has nothing queued or
    // running). The log omits the middle of a run of ticks without events;
    // those ticks repeat the row before them, so each written tick stands
    // for itself and the omitted ticks up to the next written one.
    let mut in_system: HashMap<String, f64> = HashMap::new();
    for r in &series {
        *in_system.entry(r["time"].clone()).or_default() += secs(&r["queued"]) + secs(&r["running"]);
    }
    let times: Vec<f64> = ticks.iter().map(|r| secs(&r["time"])).collect();
    let mut area = 0.0;
    for (i, r) in ticks.iter().enumerate() {
        let n = in_system.get(&r["time"]).copied().unwrap_or(0.0);
        let span = times.get(i + 1).map_or(1.0, |next| ((next - times[i]) / 0.1).round());
        area += n * span;
    }
    let l = area / (horizon / 0.1).round();
    // Over [0, T] with every job arriving and leaving inside it, the time
    // average of N(t) is exactly sum(T_i) / T = lambda W, for any schedule:
    // this checks that tenants.csv and jobs.csv describe the same run, not
    // the policy. The only error is the sampling: N is read at K tick ends
    // kΔ (Δ = 0.1 s, T = KΔ), and job i is counted at the tick ends inside
    // its stay, floor(T_i/Δ) or ceil(T_i/Δ) times depending on where the
    // grid falls: mean T_i/Δ, variance at most 1/4. So
    // K (L - lambda W) = sum_i (count_i - T_i/Δ) has standard deviation at
    // most sqrt(n)/2, relative to K lambda W = sum_i T_i/Δ: with n = 20,000
    // and sum_i T_i/Δ near 560,000, about 1.3e-4. Allowed: 4 of them.
    let stays: f64 = jobs.iter().map(|j| secs(&j["finish"]) - secs(&j["arrival"])).sum::<f64>() / 0.1;
    let sd = n.sqrt() / 2.0 / stays;
    let rel = (l - lambda * w).abs() / (lambda * w);
    eprintln!("L = {l:.5}, lambda W = {:.5}, off by {rel:.2e}, 1 sd = {sd:.2e}", lambda * w);
    assert!(
        rel < 4.0 * sd,
        "L = {l:.4}, lambda W = {:.4} (lambda {lambda:.4}, W {w:.4}), off by {:.4}%, allowed {:.4}%",
        lambda * w,
        rel * 100.0,
        400.0 * sd
    );
    // the system really was loaded (L about rho*2 + Lq for rho ~0.8: 1.6 + ~2.8)
    assert!(l > 2.0, "L = {l}");
}

#[test]
fn a_trace_that_is_not_a_file_is_an_error_at_its_entry() {
    let dir = tempdir();
    std::fs::create_dir(dir.path().join("folder.csv")).expect("mkdir");
    for path in ["folder.csv", "/dev/zero"] {
        let (code, err) = validate_text(
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
    let sc = write_scenario(dir.path(), "swf.yaml", "workers: 2\nworkload:\n  - trace: {path: cr.swf}\n");
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let jobs = read_csv(&out.join("fifo").join("jobs.csv"));
    assert_eq!(jobs.len(), 2);
    assert_eq!((jobs[0]["tenant"].as_str(), jobs[1]["arrival"].as_str()), ("u1", "5"));
}

#[test]
fn a_csv_header_without_a_mapped_column_is_an_error_at_the_trace_entry() {
    // The mapping names `user`, the header has `tenant`: the fix belongs in
    // the scenario's `columns:`, so the error names the entry (line 3).
    let dir = tempdir();
    std::fs::write(dir.path().join("t.csv"), "time,tenant,service\n0,A,1\n").expect("write");
    let (code, err) = validate_text(
        dir.path(),
        "workers: 1\nworkload:\n  - trace: {path: t.csv, format: csv, columns: {arrival: time, tenant: user, service: service}}\n",
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("bad.yaml:3:") && err.contains("header (line 1)") && err.contains("user"), "{err}");
}

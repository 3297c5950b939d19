//! `fairsim calibrate`: a synthetic production trace from a known fifo
//! model recovers the error added to it, a policy mismatch shows as order
//! differences, and a small real SWF log gives figures derived from its
//! fields alone.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::{fairsim, read_csv, secs, tempdir};

/// SplitMix64: a seeded stream independent of fairsim's own generators.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Exponential with this mean, in whole µs (at least 1).
    fn exp_us(&mut self, mean_s: f64) -> i64 {
        ((-(1.0 - self.unit()).ln() * mean_s * 1e6).round() as i64).max(1)
    }
}

/// One job of the synthetic production: tenant, class, arrival, service, start (µs).
struct Job {
    tenant: &'static str,
    class: &'static str,
    arrival: i64,
    service: i64,
    start: i64,
}

/// An M/M/c queue served first come first served, simulated here without
/// fairsim: job k takes the worker that frees first, at max(arrival, that
/// instant). This is what fifo on `c` workers must reproduce exactly.
fn mmc_fifo(n: usize, c: usize, rate: f64, mean_service: f64, seed: u64) -> Vec<Job> {
    let mut rng = Rng(seed);
    let mut free = vec![0i64; c];
    let mut t = 0i64;
    let mut jobs = Vec::with_capacity(n);
    for _ in 0..n {
        t += rng.exp_us(1.0 / rate);
        let service = rng.exp_us(mean_service);
        // tenants A:B:C = 6:3:1, classes x:y = 1:1
        let u = rng.unit();
        let tenant = if u < 0.6 {
            "A"
        } else if u < 0.9 {
            "B"
        } else {
            "C"
        };
        let class = if rng.unit() < 0.5 { "x" } else { "y" };
        let w = (0..c).min_by_key(|&i| free[i]).expect("a worker");
        let start = t.max(free[w]);
        free[w] = start + service;
        jobs.push(Job { tenant, class, arrival: t, service, start });
    }
    jobs
}

/// Seconds with six decimals from µs, as a production export writes epoch times.
fn epoch(us: i64) -> String {
    let t = 1_795_824_000_000_000 + us;
    format!("{}.{:06}", t / 1_000_000, t % 1_000_000)
}

/// Writes the trace (recorded start = model start + `latency[k]`) and a
/// scenario of `workers` workers; returns the scenario and trace paths.
fn write_trace(dir: &Path, jobs: &[Job], latency: &[i64], workers: usize) -> (PathBuf, PathBuf) {
    let mut csv = String::from("id,created_at,tenant,queue,service,started_at\n");
    for (k, j) in jobs.iter().enumerate() {
        csv.push_str(&format!(
            "job-{k},{},{},{},{}.{:06},{}\n",
            epoch(j.arrival),
            j.tenant,
            j.class,
            j.service / 1_000_000,
            j.service % 1_000_000,
            epoch(j.start + latency[k])
        ));
    }
    let trace = dir.join("production.csv");
    std::fs::write(&trace, csv).expect("write trace");
    let sc = dir.join("production.yaml");
    let yaml = format!(
        "name: production\nworkers: {workers}\nclasses: {{x: {{}}, y: {{}}}}\npolicies: [fifo, round_robin]\n"
    );
    std::fs::write(&sc, yaml).expect("write scenario");
    (sc, trace)
}

/// Runs `fairsim calibrate` and returns its folder and stdout.
fn calibrate(sc: &Path, trace: &Path, policy: &str, out: &Path) -> (PathBuf, String) {
    let o = fairsim()
        .arg("calibrate")
        .arg(sc)
        .arg("--trace")
        .arg(trace)
        .arg("--policy")
        .arg(policy)
        .arg("--out")
        .arg(out)
        .output()
        .expect("run fairsim");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (out.join("calibration"), String::from_utf8_lossy(&o.stdout).into_owned())
}

/// calibration.csv as metric -> value.
fn metrics(dir: &Path) -> HashMap<String, f64> {
    read_csv(&dir.join("calibration.csv"))
        .into_iter()
        .map(|r| (r["metric"].clone(), secs(&r["value"])))
        .collect()
}

const N: usize = 2000;
const WORKERS: usize = 4;

#[test]
fn an_exact_fifo_record_gives_zero_error_and_the_same_order() {
    // 4 workers, 3 jobs/s of mean 1 s: rho = 0.75, so jobs do queue
    let jobs = mmc_fifo(N, WORKERS, 3.0, 1.0, 17);
    assert!(jobs.iter().filter(|j| j.start > j.arrival).count() > N / 10, "the model should queue");
    let dir = tempdir();
    let (sc, trace) = write_trace(dir.path(), &jobs, &vec![0; N], WORKERS);
    let (cal, stdout) = calibrate(&sc, &trace, "fifo", &dir.path().join("out"));
    let m = metrics(&cal);
    assert_eq!(m["compared"], N as f64);
    for k in ["start_error_mean", "start_error_median", "start_error_p99", "start_error_max_abs"] {
        assert_eq!(m[k], 0.0, "{k}");
    }
    assert_eq!((m["discordant_pairs"], m["jobs_moved"]), (0.0, 0.0));
    // n(n-1)/2 pairs
    assert_eq!(m["pairs"], (N * (N - 1) / 2) as f64);
    for r in read_csv(&cal.join("per_tenant.csv")) {
        assert_eq!((secs(&r["mean_relative_error"]), secs(&r["p99_relative_error"])), (0.0, 0.0));
    }
    assert_eq!(read_csv(&cal.join("per_class.csv")).len(), 2);
    assert!(std::fs::read_to_string(cal.join("wait_per_tenant.svg")).expect("chart").contains("<svg"));
    assert!(stdout.contains("0 of 1999000 pairs"), "{stdout}");
}

#[test]
fn a_uniform_dispatch_latency_shows_as_minus_half_of_it() {
    // every recorded start is delayed by U(0, d), d = 2 s, drawn here; the
    // replay starts each job at the model's start, so error_k = -U_k exactly
    // and its mean is -d/2 within the spread of a mean of n uniforms:
    // sd = d / sqrt(12 n) = 2 / sqrt(24000) = 0.0129 s; 5 sd = 0.065 s. The
    // median of n uniforms has sd about d / (2 sqrt(n)) = 0.022 s; 5 sd = 0.11 s.
    let d: i64 = 2_000_000;
    let jobs = mmc_fifo(N, WORKERS, 3.0, 1.0, 17);
    let mut rng = Rng(99);
    let latency: Vec<i64> = (0..N).map(|_| (rng.unit() * d as f64) as i64).collect();
    let dir = tempdir();
    let (sc, trace) = write_trace(dir.path(), &jobs, &latency, WORKERS);
    let (cal, _) = calibrate(&sc, &trace, "fifo", &dir.path().join("out"));
    let m = metrics(&cal);
    let half = d as f64 / 2e6;
    assert!((m["start_error_mean"] + half).abs() < 0.065, "mean {}", m["start_error_mean"]);
    assert!((m["start_error_median"] + half).abs() < 0.11, "median {}", m["start_error_median"]);
    // the exact figure: minus the mean of the latencies drawn
    let drawn = latency.iter().sum::<i64>() as f64 / N as f64 / 1e6;
    assert!((m["start_error_mean"] + drawn).abs() < 1e-6);
    assert!(m["start_error_max_abs"] <= d as f64 / 1e6);
    // each job's row: simulated - recorded = -latency
    let rows = read_csv(&cal.join("errors.csv"));
    for (k, r) in rows.iter().enumerate().step_by(97) {
        assert!((secs(&r["start_error"]) + latency[k] as f64 / 1e6).abs() < 1e-9, "job {k}");
        assert_eq!(r["trace_id"], format!("job-{k}"));
    }
    // recorded waits are longer by the latency: the relative error of the
    // mean wait is -mean(latency) / mean(recorded wait), negative
    let all = metrics(&cal);
    let rel = all["mean_wait_relative_error"];
    let expect = -drawn / all["recorded_mean_wait"];
    assert!((rel - expect).abs() < 1e-4, "{rel} vs {expect}");
}

#[test]
fn replaying_a_fifo_record_under_round_robin_reorders_starts() {
    // one worker; A1, A2, A3 and then B1 in the file, all at 0 s and of 10 s.
    // fifo (the record): A1 0, A2 10, A3 20, B1 30.
    // round_robin (A first, as declared first): turns alternate while both
    // have work: A1 0, B1 10, A2 20, A3 30.
    // errors: A1 0, A2 +10, A3 +10, B1 -20 -> mean 0, max |e| 20;
    // discordant pairs: (A2, B1), (A3, B1) = 2 of 6; ranks moved: A2, A3, B1 = 3.
    let dir = tempdir();
    let trace = dir.path().join("p.csv");
    std::fs::write(
        &trace,
        "created_at,tenant,service,started_at\n0,A,10,0\n0,A,10,10\n0,A,10,20\n0,B,10,30\n",
    )
    .expect("trace");
    let sc = dir.path().join("p.yaml");
    std::fs::write(&sc, "workers: 1\npolicies: [fifo]\n").expect("scenario");
    let (cal, _) = calibrate(&sc, &trace, "round_robin", &dir.path().join("out"));
    let m = metrics(&cal);
    assert_eq!((m["start_error_mean"], m["start_error_max_abs"]), (0.0, 20.0));
    assert_eq!((m["pairs"], m["discordant_pairs"], m["jobs_moved"]), (6.0, 2.0, 3.0));
    assert!((m["discordant_fraction"] - 1.0 / 3.0).abs() < 1e-6);
    // and the same record under fifo agrees exactly
    let (cal, _) = calibrate(&sc, &trace, "fifo", &dir.path().join("out2"));
    assert_eq!(metrics(&cal)["discordant_pairs"], 0.0);
}

#[test]
fn a_policy_mismatch_on_the_mmc_trace_gives_order_differences() {
    // recorded under fifo, replayed under round_robin: with a backlog, C's
    // jobs (10% of arrivals) jump ahead of older A jobs, so some pairs
    // start the other way round; fifo on the same trace has none (above)
    let jobs = mmc_fifo(N, WORKERS, 3.0, 1.0, 17);
    let dir = tempdir();
    let (sc, trace) = write_trace(dir.path(), &jobs, &vec![0; N], WORKERS);
    let (cal, _) = calibrate(&sc, &trace, "round_robin", &dir.path().join("out"));
    let m = metrics(&cal);
    assert!(m["discordant_pairs"] > 0.0 && m["jobs_moved"] > 0.0, "{m:?}");
    assert!(m["start_error_max_abs"] > 0.0);
}

fn swf_fields() -> Vec<Vec<i64>> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/accasim-workload.swf"),
    )
    .expect("vendored log");
    text.lines()
        .map(|l| l.split_whitespace().map(|f| f.parse::<f64>().expect("number") as i64).collect())
        .collect()
}

#[test]
fn a_real_swf_log_on_a_pool_that_never_queues_shows_the_recorded_waits_as_error() {
    // tests/data/accasim-workload.swf (AccaSim's test data, see its README):
    // 25 jobs using 460 processors in all. On 460 processors nothing waits
    // in fairsim, so simulated start = submit and error_k = -wait_k (field 3):
    // the mean error is minus the mean recorded wait, computed here from the
    // fields, and every tenant whose recorded mean wait is at least 1 s has
    // a relative error of exactly -1 (u6's one job waited 0 s: 0).
    let f = swf_fields();
    assert_eq!(f.len(), 25);
    let procs: i64 = f.iter().map(|r| r[4]).sum();
    assert_eq!(procs, 460);
    let mean_wait = f.iter().map(|r| r[2]).sum::<i64>() as f64 / 25.0;
    let max_wait = f.iter().map(|r| r[2]).max().expect("jobs") as f64;
    let dir = tempdir();
    let sc = dir.path().join("accasim.yaml");
    std::fs::write(&sc, "name: accasim\nresources: {procs: 460}\npolicies: [fifo]\n").expect("scenario");
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/accasim-workload.swf");
    let (cal, _) = calibrate(&sc, &log, "fifo", &dir.path().join("out"));
    let m = metrics(&cal);
    assert_eq!(m["compared"], 25.0);
    assert!((m["start_error_mean"] + mean_wait).abs() < 1e-6, "{} vs {}", m["start_error_mean"], -mean_wait);
    assert_eq!(m["start_error_max_abs"], max_wait);
    for r in read_csv(&cal.join("per_tenant.csv")) {
        let want = if r["tenant"] == "u6" { 0.0 } else { -1.0 };
        assert_eq!(secs(&r["mean_relative_error"]), want, "{}", r["tenant"]);
        assert_eq!(secs(&r["simulated_mean_wait"]), 0.0);
    }
}

#[test]
fn a_trace_without_recorded_starts_is_a_usage_error_naming_the_column() {
    let (code, err, _dir) = calibrate_text("created_at,tenant,service\n0,A,1\n");
    assert_eq!(code, 2);
    assert!(err.contains("started_at") && err.contains("t.csv:1"), "{err}");
}

/// `fairsim calibrate` of `trace` (as t.csv) on one worker under fifo:
/// exit code and stderr.
fn calibrate_text(trace: &str) -> (i32, String, tempfile::TempDir) {
    let dir = tempdir();
    let path = dir.path().join("t.csv");
    std::fs::write(&path, trace).expect("trace");
    let sc = dir.path().join("t.yaml");
    std::fs::write(&sc, "workers: 1\npolicies: [fifo]\n").expect("scenario");
    let o = fairsim()
        .args(["calibrate"])
        .arg(&sc)
        .arg("--trace")
        .arg(&path)
        .args(["--policy", "fifo", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .expect("run");
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned(), dir)
}

#[test]
fn a_trace_where_no_job_has_a_recorded_start_compares_nothing_and_says_so() {
    // the column is there, every cell of it empty: before, a start error
    // of 0.000 s and +0.0% with exit code 0
    let (code, err, dir) = calibrate_text("created_at,tenant,service,started_at\n0,A,1,\n1,A,1,\n");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("t.csv: no row has a recorded start (column `started_at`"), "{err}");
    assert!(err.contains("nothing to compare") && !err.contains("panicked"), "{err}");
    assert!(!dir.path().join("out/calibration/calibration.csv").exists());
}

#[test]
fn a_recorded_start_before_its_arrival_is_an_error_naming_the_row() {
    // row 2 (line 3): created 5, started 1; before, a recorded wait of
    // minus seconds and a relative error of +200%
    let (code, err, _dir) = calibrate_text("created_at,tenant,started_at,service\n0,A,0,1\n5,A,1,2\n");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("t.csv:3: the recorded start is 4 s before the job's arrival"), "{err}");
}

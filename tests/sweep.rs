//! `fairsim sweep`: confidence intervals against queueing theory, paired
//! against unpaired intervals, per-point values, determinism over threads,
//! and the errors of `--set`.

mod common;

use std::collections::HashMap;
use std::path::PathBuf;

use common::{fairsim, files, read_csv, tempdir};

/// Writes `text` as `t.yaml` in a new temporary folder and sweeps it into
/// `out` with `extra` options; the folder and `out`.
fn sweep_yaml(text: &str, extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    let sc = dir.path().join("t.yaml");
    std::fs::write(&sc, text).expect("write scenario");
    let out = dir.path().join("out");
    fairsim().arg("sweep").arg(&sc).arg("--out").arg(&out).arg("--quiet").args(extra).assert().success();
    (dir, out)
}

/// The row of `file` whose cells match every (column, value) of `key`.
fn row<'a>(rows: &'a [HashMap<String, String>], key: &[(&str, &str)]) -> &'a HashMap<String, String> {
    let found: Vec<_> = rows.iter().filter(|r| key.iter().all(|(k, v)| r[*k] == *v)).collect();
    assert_eq!(found.len(), 1, "rows matching {key:?}");
    found[0]
}

fn num(cell: &str) -> f64 {
    cell.parse().unwrap_or_else(|_| panic!("not a number: {cell:?}"))
}

/// M/M/2 at utilisation 0.8: two tenants in two classes, each Poisson
/// 0.8/s, exponential service of mean 1 s; 20,000 jobs per seed.
const MM2: &str = "\
name: mm2
seed: 1
workers: 2
log: {tick: 10s}
classes:
  interactive: {priority: 1}
  bulk: {priority: 5}
workload:
  - {tenant: A, class: interactive, arrivals: {poisson: 0.8/s, count: 10000}, service: {exponential: 1s}}
  - {tenant: B, class: bulk, arrivals: {poisson: 0.8/s, count: 10000}, service: {exponential: 1s}}
policies: [fifo, priority]
";

/// Erlang C mean wait of M/M/c with offered load `a` = lambda / mu (mu = 1/s):
/// P(wait) = (a^c / c! * c / (c - a)) / (sum_{k<c} a^k / k! + a^c / c! * c / (c - a)),
/// Wq = P(wait) / (c mu - lambda).
fn erlang_c_wait(c: u32, a: f64) -> f64 {
    let mut term = 1.0;
    let mut sum = 0.0;
    for k in 0..c {
        sum += term;
        term *= a / (k + 1) as f64;
    }
    let top = term * c as f64 / (c as f64 - a);
    top / (sum + top) / (c as f64 - a)
}

#[test]
fn fifo_mean_wait_interval_covers_erlang_c() {
    // c = 2, a = 1.6: a^2/2 * 2/0.4 = 6.4, sum = 1 + 1.6 = 2.6,
    // P(wait) = 6.4 / 9 = 0.7111, Wq = 0.7111 / 0.4 = 1.7778 s
    let wq = erlang_c_wait(2, 1.6);
    assert!((wq - 1.777_78).abs() < 1e-4, "{wq}");
    let (_d, out) = sweep_yaml(MM2, &["--seeds", "20", "--policy", "fifo"]);
    let rows = read_csv(&out.join("sweep.csv"));
    let r = row(&rows, &[("policy", "fifo"), ("metric", "wait_mean")]);
    assert_eq!(r["n"], "20");
    assert_eq!(r["method"], "student_t_95_over_seeds");
    let (low, high) = (num(&r["ci_low"]), num(&r["ci_high"]));
    assert!(low <= wq && wq <= high, "Erlang C {wq} outside [{low}, {high}]");
    // an interval that covers by being huge shows nothing: at 20,000 jobs a
    // run's mean wait varies by about 10%, so 20 seeds give about +-5%
    assert!(high - low < 0.2 * wq, "[{low}, {high}]");
    // the interval is mean +- t(0.975, 19) sd / sqrt(20), t = 2.093 (tables)
    let (mean, sd) = (num(&r["mean"]), num(&r["sd"]));
    assert!((high - mean - 2.093 * sd / 20f64.sqrt()).abs() < 1e-4 * mean);
}

#[test]
fn paired_interval_is_narrower_than_unpaired() {
    let (_d, out) = sweep_yaml(MM2, &["--seeds", "20"]);
    let paired = read_csv(&out.join("paired.csv"));
    let r = row(&paired, &[("policy", "priority"), ("baseline", "fifo"), ("metric", "wait_p99")]);
    // recompute the paired difference from runs.csv: per seed, priority's p99
    // minus fifo's at the same seed (the same arrivals), then mean +- t sd/sqrt(n)
    let runs = read_csv(&out.join("runs.csv"));
    let diffs: Vec<f64> = (1..=20)
        .map(|s| {
            let s = s.to_string();
            num(&row(&runs, &[("seed", &s), ("policy", "priority")])["wait_p99"])
                - num(&row(&runs, &[("seed", &s), ("policy", "fifo")])["wait_p99"])
        })
        .collect();
    let mean = diffs.iter().sum::<f64>() / 20.0;
    let sd = (diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / 19.0).sqrt();
    assert!((num(&r["mean_diff"]) - mean).abs() < 1e-6 * mean.abs().max(1.0));
    let half = num(&r["half_width"]);
    assert!((half - 2.093 * sd / 20f64.sqrt()).abs() < 1e-3 * half);
    // Var(X - Y) = Var X + Var Y - 2 Cov(X, Y): both policies see the same
    // arrivals at a seed, so a seed with a long busy period raises both
    // p99s, the covariance is large and positive, and the paired interval
    // must be clearly narrower than the independent-samples one (about 0.4x
    // here; 0.8 leaves room for other seeds).
    let unpaired = num(&r["unpaired_half_width"]);
    assert!(half < 0.8 * unpaired, "paired {half} vs unpaired {unpaired}");
    assert!((num(&r["width_ratio"]) - half / unpaired).abs() < 1e-6);
    // priority makes the bulk class wait behind interactive: the p99 of all
    // jobs rises, and the paired interval says so
    assert!(num(&r["ci_low"]) > 0.0, "{r:?}");
}

/// Four jobs of 1 s at t = 0: makespan 4 s on one worker, 2 s on two.
const BATCH: &str = "\
name: batch
seed: 5
workers: 1
workload:
  - {tenant: A, count: 4, at: 0s, service: 1s}
policies: [fifo, round_robin]
";

#[test]
fn set_workers_gives_each_point_its_makespan() {
    let (_d, out) = sweep_yaml(BATCH, &["--seeds", "3", "--set", "workers=1,2"]);
    let runs = read_csv(&out.join("runs.csv"));
    // 2 points x 3 seeds x 2 policies, seeds 5, 6, 7
    assert_eq!(runs.len(), 12);
    for r in &runs {
        let want = if r["workers"] == "1" { "4" } else { "2" };
        assert_eq!(r["makespan"], want, "{r:?}");
        assert!(["5", "6", "7"].contains(&r["seed"].as_str()));
        assert_eq!(r["point"], if r["workers"] == "1" { "0" } else { "1" });
    }
    let sweep = read_csv(&out.join("sweep.csv"));
    let r = row(&sweep, &[("workers", "2"), ("policy", "round_robin"), ("metric", "makespan")]);
    // the same value on every seed: sd 0, the interval a point
    assert_eq!((r["n"].as_str(), r["mean"].as_str(), r["sd"].as_str()), ("3", "2", "0"));
    assert_eq!((r["ci_low"].as_str(), r["ci_high"].as_str()), ("2", "2"));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["runs"], 12);
    assert_eq!(manifest["grid"][0]["values"], serde_json::json!(["1", "2"]));
}

#[test]
fn a_key_not_written_in_the_file_is_added_at_its_place() {
    // tenant A is written without a cap; four 1 s jobs at t = 0 on two
    // workers, fifo holding capped jobs: cap 1 runs them one at a time
    // (makespan 4 s), cap 2 two at a time (2 s)
    let yaml = "
name: caps
workers: 2
tenants:
  A:
workload:
  - {tenant: A, count: 4, at: 0s, service: 1s}
policies: [{policy: fifo, spare: hold}]
";
    let (_d, out) = sweep_yaml(yaml, &["--seeds", "2", "--set", "tenants.A.cap=1,2"]);
    let runs = read_csv(&out.join("runs.csv"));
    assert_eq!(runs.len(), 4);
    for r in &runs {
        let want = if r["tenants.A.cap"] == "1" { "4" } else { "2" };
        assert_eq!(r["makespan"], want, "{r:?}");
    }
}

#[test]
fn one_thread_and_two_write_the_same_folder() {
    let small = MM2.replace("count: 10000", "count: 500");
    let args = ["--seeds", "4", "--set", "workers=2,3", "--set", "classes.bulk.priority=0,5"];
    let (_a, one) = sweep_yaml(&small, &[&args[..], &["--jobs", "1"]].concat());
    let (_b, two) = sweep_yaml(&small, &[&args[..], &["--jobs", "2"]].concat());
    let (f1, f2) = (files(&one), files(&two));
    assert_eq!(f1.iter().map(|f| &f.0).collect::<Vec<_>>(), f2.iter().map(|f| &f.0).collect::<Vec<_>>());
    for ((name, a), (_, b)) in f1.iter().zip(&f2) {
        assert!(a == b, "{name} differs between --jobs 1 and --jobs 2");
    }
    // 2 x 2 points x 4 seeds x 2 policies
    assert_eq!(read_csv(&one.join("runs.csv")).len(), 32);
}

#[test]
fn a_point_equal_to_the_file_matches_fairsim_run() {
    // the scenario passes through the grid's YAML round trip; at the file's
    // own values each seed's row must be what `fairsim run --seed S` writes
    let text = MM2.replace("count: 10000", "stop: 400s");
    let (dir, out) = sweep_yaml(&text, &["--seeds", "2", "--set", "workers=2"]);
    let runs = read_csv(&out.join("runs.csv"));
    for seed in ["1", "2"] {
        let one = dir.path().join(format!("run{seed}"));
        common::run(&dir.path().join("t.yaml"), &one, &["--seed", seed, "--logs", "summary", "--no-plots"]);
        for c in read_csv(&one.join("comparison.csv")) {
            let r = row(&runs, &[("seed", seed), ("policy", &c["policy"])]);
            for (k, v) in &c {
                assert_eq!(&r[k], v, "seed {seed}, {}: {k}", c["policy"]);
            }
        }
    }
    // common random numbers: both policies get the same (random) job count
    // at a seed, and the seeds differ
    let jobs = |s: &str, p: &str| row(&runs, &[("seed", s), ("policy", p)])["jobs"].clone();
    assert_eq!(jobs("1", "fifo"), jobs("1", "priority"));
    assert_ne!(jobs("1", "fifo"), jobs("2", "fifo"));
}

#[test]
fn bad_set_exits_2_naming_the_option() {
    let dir = tempdir();
    let sc = dir.path().join("t.yaml");
    std::fs::write(&sc, BATCH).unwrap();
    for (set, says) in [
        // a new last key goes to the loader, which knows the spelling
        ("worker=1,2", "did you mean `workers`?"),
        ("tenant.A.cap=1", "no key `tenant`"),
        ("workers", "no `=`"),
        ("workers=1,0", "workers = 0 is refused"),
        ("workload.3.count=1", "a list of 1 items"),
        ("workers=", "a value is empty"),
    ] {
        let out = fairsim()
            .arg("sweep")
            .arg(&sc)
            .args(["--seeds", "2", "--set", set, "--out"])
            .arg(dir.path().join("out"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{set}: {err}");
        assert!(err.contains(&format!("--set {set}")) && err.contains(says), "{set}: {err}");
        assert!(!dir.path().join("out").exists(), "{set}: a folder was left");
    }
}

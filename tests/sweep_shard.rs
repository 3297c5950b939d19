//! `fairsim sweep --shard` and `fairsim merge`: shards merged give the
//! single-machine folder byte for byte; merge refuses shards of different
//! sweeps, duplicates and gaps; `--shard auto` reads Slurm's and
//! Kubernetes' variables; bad `--shard` values are usage errors.

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use common::{fairsim, files, read_csv, tempdir};

/// Two tenants of Poisson arrivals on two workers, 300 jobs: small enough
/// to be quick, random enough that every seed gives different figures.
const SMALL: &str = "\
name: small
seed: 3
workers: 2
workload:
  - {tenant: A, arrivals: {poisson: 0.9/s, count: 150}, service: {exponential: 1s}}
  - {tenant: B, arrivals: {poisson: 0.6/s, count: 150}, service: {exponential: 1s}}
policies: [fifo, drr]
";

/// 2 points x 3 seeds = 6 (point, seed) pairs, 2 policies: 12 runs.
const GRID: [&str; 4] = ["--seeds", "3", "--set", "workers=2,3"];

/// The slurm and Kubernetes variables cleared, so the test's own
/// environment (a CI job inside a Slurm allocation) cannot leak in.
fn clean(mut c: Command) -> Command {
    for v in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX",
        "JOB_COMPLETION_INDEX",
        "FAIRSIM_SHARD_COUNT",
    ] {
        c.env_remove(v);
    }
    c
}

struct Bench {
    dir: tempfile::TempDir,
    scenario: PathBuf,
}

impl Bench {
    fn new() -> Bench {
        let dir = tempdir();
        let scenario = dir.path().join("small.yaml");
        std::fs::write(&scenario, SMALL).expect("write scenario");
        Bench { dir, scenario }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `fairsim sweep` of the scenario into `name` with `extra`.
    fn sweep(&self, name: &str, extra: &[&str]) -> Command {
        let mut c = clean(fairsim());
        c.arg("sweep").arg(&self.scenario).arg("--out").arg(self.path(name)).arg("--quiet").args(extra);
        c
    }

    /// A shard folder `name` of the sweep `args`, asserted written.
    fn shard(&self, name: &str, args: &[&str], shard: &str) -> PathBuf {
        self.sweep(name, &[args, &["--shard", shard]].concat()).assert().success();
        self.path(name)
    }

    fn merge(&self, shards: &[&Path], out: &str) -> std::process::Output {
        fairsim()
            .arg("merge")
            .args(shards)
            .arg("--out")
            .arg(self.path(out))
            .arg("--quiet")
            .output()
            .expect("run")
    }
}

/// Asserts exit code 2 and returns stderr.
fn usage_error(out: std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn three_shards_merged_are_the_single_sweep_byte_for_byte() {
    let b = Bench::new();
    b.sweep("full", &GRID).assert().success();
    let shards: Vec<PathBuf> = (0..3).map(|i| b.shard(&format!("s{i}"), &GRID, &format!("{i}/3"))).collect();
    // pairs 0..6 round-robin over 3 shards: shard i has pairs i and i + 3,
    // so 2 pairs x 2 policies = 4 runs, one pair at each point
    // (pair = point x 3 + seed: shard 0 has point 0 seed 3 and point 1 seed 3)
    for (i, s) in shards.iter().enumerate() {
        let runs = read_csv(&s.join("runs.csv"));
        assert_eq!(runs.len(), 4, "shard {i}");
        let pairs: Vec<(&str, &str)> =
            runs.iter().map(|r| (r["point"].as_str(), r["seed"].as_str())).collect();
        let seed = (3 + i).to_string();
        assert_eq!(pairs, [("0", &*seed), ("0", &*seed), ("1", &*seed), ("1", &*seed)], "shard {i}");
        // runs only: intervals over a shard's seeds would mislead
        let names: Vec<String> = files(s).into_iter().map(|f| f.0).collect();
        assert_eq!(names, ["fairsim-results.json", "manifest.json", "runs.csv", "scenario.yaml"]);
    }
    // given in any order
    let out = b.merge(&[&shards[2], &shards[0], &shards[1]], "merged");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (full, merged) = (files(&b.path("full")), files(&b.path("merged")));
    assert_eq!(
        full.iter().map(|f| &f.0).collect::<Vec<_>>(),
        merged.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for ((name, a), (_, m)) in full.iter().zip(&merged) {
        assert!(a == m, "{name} differs between the sweep and the merge");
    }
    // the figures are not all alike (or equality would show little): the
    // 12 runs' p99 waits take several values
    let runs = read_csv(&b.path("merged").join("runs.csv"));
    assert_eq!(runs.len(), 12);
    let mut p99: Vec<&str> = runs.iter().map(|r| r["wait_p99"].as_str()).collect();
    p99.sort();
    p99.dedup();
    assert!(p99.len() >= 6, "{p99:?}");
}

#[test]
fn merge_refuses_shards_of_another_sweep() {
    let b = Bench::new();
    let s0 = b.shard("s0", &GRID, "0/2");
    let other_grid = b.shard("g1", &["--seeds", "3", "--set", "workers=2,4"], "1/2");
    let err = usage_error(b.merge(&[&s0, &other_grid], "m"));
    assert!(err.contains("g1") && err.contains("its grid is"), "{err}");
    let other_seeds = b.shard("k1", &["--seeds", "4", "--set", "workers=2,3"], "1/2");
    let err = usage_error(b.merge(&[&s0, &other_seeds], "m"));
    assert!(err.contains("k1") && err.contains("its seeds.count is 4, ") && err.contains("'s is 3"), "{err}");
    let other_policies = b.shard("p1", &[&GRID[..], &["--policy", "fifo"]].concat(), "1/2");
    let err = usage_error(b.merge(&[&s0, &other_policies], "m"));
    assert!(err.contains("p1") && err.contains("its policies is"), "{err}");
    // the same file name with one more job of B: another scenario
    let edited = Bench::new();
    std::fs::write(&edited.scenario, SMALL.replace("0.6/s, count: 150", "0.6/s, count: 151")).unwrap();
    let other_scenario = edited.shard("e1", &GRID, "1/2");
    let err = usage_error(b.merge(&[&s0, &other_scenario], "m"));
    assert!(err.contains("e1") && err.contains("its scenario.fnv1a64 is"), "{err}");
    // a shard made by another fairsim: its statistics code may differ
    let s1 = b.shard("s1", &GRID, "1/2");
    let manifest = s1.join("manifest.json");
    let version = format!("\"fairsim\": \"{}\"", env!("CARGO_PKG_VERSION"));
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains(&version), "{text}");
    std::fs::write(&manifest, text.replace(&version, "\"fairsim\": \"0.0.0-old\"")).unwrap();
    let err = usage_error(b.merge(&[&s0, &s1], "m"));
    assert!(err.contains("s1: made by fairsim \"0.0.0-old\", this is fairsim "), "{err}");
    // nothing was written
    assert!(!b.path("m").exists());
}

#[test]
fn merge_names_missing_and_duplicate_shards() {
    let b = Bench::new();
    let s0 = b.shard("s0", &GRID, "0/4");
    let s2 = b.shard("s2", &GRID, "2/4");
    let err = usage_error(b.merge(&[&s2, &s0], "m"));
    assert!(err.contains("missing shards 1, 3 of 4"), "{err}");
    let again = b.shard("again", &GRID, "2/4");
    let err = usage_error(b.merge(&[&s0, &s2, &again], "m"));
    assert!(err.contains("again: is shard 2/4, as ") && err.contains("s2 is"), "{err}");
    // a full sweep folder is not a shard
    b.sweep("full", &GRID).assert().success();
    let err = usage_error(b.merge(&[&b.path("full")], "m"));
    assert!(err.contains("full") && err.contains("not a shard folder"), "{err}");
    assert!(!b.path("m").exists());
}

#[test]
fn shard_auto_reads_slurm_and_kubernetes_variables() {
    let b = Bench::new();
    let explicit = b.shard("explicit", &GRID, "1/3");
    let mut slurm = b.sweep("slurm", &[&GRID[..], &["--shard", "auto"]].concat());
    slurm.env("SLURM_ARRAY_TASK_ID", "1").env("SLURM_ARRAY_TASK_COUNT", "3").assert().success();
    let mut k8s = b.sweep("k8s", &[&GRID[..], &["--shard", "auto/3"]].concat());
    k8s.env("JOB_COMPLETION_INDEX", "1").assert().success();
    let mut k8s_env = b.sweep("k8s_env", &[&GRID[..], &["--shard", "auto"]].concat());
    k8s_env.env("JOB_COMPLETION_INDEX", "1").env("FAIRSIM_SHARD_COUNT", "3").assert().success();
    // each is shard 1/3: the same folder as --shard 1/3
    for name in ["slurm", "k8s", "k8s_env"] {
        assert!(files(&explicit) == files(&b.path(name)), "{name} is not shard 1/3");
    }
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(explicit.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(
        (manifest["shard"]["index"].as_u64(), manifest["shard"]["count"].as_u64()),
        (Some(1), Some(3))
    );

    let err = usage_error(b.sweep("x", &[&GRID[..], &["--shard", "auto"]].concat()).output().unwrap());
    assert!(err.contains("SLURM_ARRAY_TASK_ID") && err.contains("JOB_COMPLETION_INDEX"), "{err}");
    let mut no_count = b.sweep("x", &[&GRID[..], &["--shard", "auto"]].concat());
    let err = usage_error(no_count.env("JOB_COMPLETION_INDEX", "0").output().unwrap());
    assert!(err.contains("FAIRSIM_SHARD_COUNT") && err.contains("auto/N"), "{err}");
    // --array=1-3: task ids 1..3 are not shards 0..2
    let mut shifted = b.sweep("x", &[&GRID[..], &["--shard", "auto"]].concat());
    shifted
        .env("SLURM_ARRAY_TASK_ID", "3")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .env("SLURM_ARRAY_TASK_MIN", "1")
        .env("SLURM_ARRAY_TASK_MAX", "3");
    let err = usage_error(shifted.output().unwrap());
    assert!(err.contains("--array=0-2"), "{err}");
}

#[test]
fn bad_shard_values_are_usage_errors() {
    let b = Bench::new();
    for (value, says) in [
        ("3/3", "index 3 is not below the count 3"),
        ("0/0", "the count must be at least 1"),
        ("x/2", "the index `x` is not a whole number"),
        ("1", "no count"),
        // 6 (point, seed) pairs: a 7th shard would have nothing to run
        ("0/7", "only 6 (point, seed) pairs"),
    ] {
        let err = usage_error(b.sweep("x", &[&GRID[..], &["--shard", value]].concat()).output().unwrap());
        assert!(err.contains(&format!("--shard {value}: ")) && err.contains(says), "{value}: {err}");
    }
    assert!(!b.path("x").exists());
}

#[test]
fn kubernetes_jobs_are_indexed_and_share_one_volume() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/kubernetes");
    let read = |name: &str| -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(dir.join(name)).expect("read");
        serde_saphyr::from_multiple(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let sweep = read("sweep-job.yaml");
    let merge = read("merge-job.yaml");
    let claim = sweep.iter().find(|d| d["kind"] == "PersistentVolumeClaim").expect("a PVC");
    assert_eq!(claim["spec"]["accessModes"][0], "ReadWriteMany");
    let job = sweep.iter().find(|d| d["kind"] == "Job").expect("a Job");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    // pod I is shard I of N: the Job's completions must be the N of --shard auto/N
    let args = spec["template"]["spec"]["containers"][0]["args"][0].as_str().expect("args");
    let n = args.split("--shard auto/").nth(1).and_then(|r| r.split_whitespace().next()).expect("auto/N");
    assert_eq!(spec["completions"].as_u64(), n.parse().ok(), "{args}");
    assert!(args.contains("/results/shard-$JOB_COMPLETION_INDEX"), "{args}");
    let claim_of = |job: &serde_json::Value| {
        job["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"].clone()
    };
    assert_eq!(claim_of(job), claim["metadata"]["name"]);
    assert_eq!(claim_of(&merge[0]), claim["metadata"]["name"]);
    let merge_args = merge[0]["spec"]["template"]["spec"]["containers"][0]["args"][0].as_str().expect("args");
    assert!(merge_args.contains("merge /results/shard-*/ --out /results/result"), "{merge_args}");
}

/// Shard `s`'s runs.csv with the cell (row `row`, 1-based after the
/// header; column `col`) replaced by `to`.
fn set_run_cell(s: &Path, row: usize, col: &str, to: &str) {
    let path = s.join("runs.csv");
    let text = std::fs::read_to_string(&path).expect("runs.csv");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let c = lines[0].split(',').position(|h| h == col).expect("the column");
    let mut cells: Vec<&str> = lines[row].split(',').collect();
    cells[c] = to;
    lines[row] = cells.join(",");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
}

#[test]
fn merge_refuses_a_cell_that_is_not_a_finite_number_naming_shard_row_and_column() {
    let b = Bench::new();
    // runs.csv: point, workers, seed, policy, jobs, ...: `jobs` is column 5
    for (col, column, bad) in [("jobs", 5, "9x"), ("utilization", 0, "NaN"), ("wait_p99", 0, "inf")] {
        let shards: Vec<PathBuf> =
            (0..3).map(|i| b.shard(&format!("{col}{i}"), &GRID, &format!("{i}/3"))).collect();
        set_run_cell(&shards[1], 2, col, bad);
        let err = usage_error(b.merge(&[&shards[0], &shards[1], &shards[2]], &format!("m-{col}")));
        assert!(
            err.contains(&format!("shard 1/3, row 2, column `{col}`: `{bad}` is not a finite number")),
            "{err}"
        );
        let place = if column > 0 { format!("runs.csv:3:{column}: ") } else { "runs.csv:3:".into() };
        assert!(err.contains(&place) && err.contains("--shard 1/3"), "{err}");
        assert!(!b.path(&format!("m-{col}")).exists(), "nothing written");
    }
}

#[test]
fn merge_hashes_the_scenario_yaml_each_shard_holds() {
    let b = Bench::new();
    let shards: Vec<PathBuf> = (0..3).map(|i| b.shard(&format!("s{i}"), &GRID, &format!("{i}/3"))).collect();
    // edited after the run in the second shard (not the first, which was
    // the only one hashed)
    let yaml = shards[2].join("scenario.yaml");
    let text = std::fs::read_to_string(&yaml).expect("scenario.yaml");
    std::fs::write(&yaml, text.replace("workers: 2", "workers: 9")).expect("edit");
    let err = usage_error(b.merge(&[&shards[0], &shards[1], &shards[2]], "merged"));
    assert!(
        err.contains("s2") && err.contains("scenario.yaml does not match the manifest's fnv1a64"),
        "{err}"
    );
    assert!(!b.path("merged").exists());
}

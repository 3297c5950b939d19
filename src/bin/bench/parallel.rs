//! `fairsim-bench parallel`: the wall time of `fairsim run` over 5 entries
//! with `--jobs 1` against `--jobs 2`, beside the sum of the 5 entries run
//! on their own (what a user who ran them one by one would wait).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use super::sweep::children;
use super::{fairsim_exe, repeat};

const POLICIES: [&str; 5] = ["fifo", "round_robin", "drr", "wfq", "lottery"];

/// 1,000,000 jobs over 100 tenants at load 0.9, five entries.
const SCENARIO: &str = "\
name: parallel-bench
seed: 1
workers: 16
workload:
  - tenants: {count: 100, prefix: t}
    arrivals: {poisson: 14.4/s, count: 1000000}
    service: {exponential: 1s}
policies: [fifo, round_robin, drr, wfq, lottery]
";

/// The machine's load averages as `uptime` prints them (1, 5, 15 min).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(", "))
        .unwrap_or_else(|_| "unknown".into())
}

/// One `fairsim run` child of `sc` with `args`, summary logs and no charts
/// (the simulations, not the gathering after them); (wall s, CPU s).
fn timed(sc: &Path, out: &Path, args: &[&str]) -> (f64, f64) {
    let cpu0 = children().1;
    let t0 = Instant::now();
    let status = Command::new(fairsim_exe())
        .arg("run")
        .arg(sc)
        .args(["--logs", "summary", "--no-plots", "--quiet", "--force", "--out"])
        .arg(out)
        .args(args)
        .status();
    let wall = t0.elapsed().as_secs_f64();
    if !matches!(status, Ok(s) if s.success()) {
        eprintln!("fairsim run failed: {status:?} (build it with cargo build --release)");
        std::process::exit(1)
    }
    (wall, children().1 - cpu0)
}

/// `fairsim-bench parallel`: in alternating rounds (best of `--repeat`),
/// the 5 entries with `--jobs 1`, with `--jobs 2`, and each alone.
pub fn section() {
    println!(
        "## parallel: fairsim run, 5 entries x 1,000,000 jobs, --jobs 1 vs --jobs 2 vs each entry alone (best of {}; load before: {})",
        repeat(),
        load_average()
    );
    let dir = std::env::temp_dir().join(format!("fairsim-bench-parallel-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let sc = dir.join("parallel-bench.yaml");
    if let Err(e) = std::fs::write(&sc, SCENARIO) {
        eprintln!("cannot write {}: {e}", sc.display());
        std::process::exit(1)
    }
    let out = dir.join("out");
    // [--jobs 1, --jobs 2, the sum of the single runs]: best wall, its CPU
    let (mut best, mut cpu) = ([f64::INFINITY; 3], [0.0; 3]);
    for _ in 0..repeat() {
        for (i, jobs) in ["1", "2"].iter().enumerate() {
            let (w, c) = timed(&sc, &out, &["--jobs", jobs]);
            if w < best[i] {
                (best[i], cpu[i]) = (w, c);
            }
        }
        let (mut w, mut c) = (0.0, 0.0);
        for p in POLICIES {
            let (pw, pc) = timed(&sc, &out, &["--jobs", "1", "--policy", p]);
            (w, c) = (w + pw, c + pc);
        }
        if w < best[2] {
            (best[2], cpu[2]) = (w, c);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    for (i, what) in ["--jobs 1", "--jobs 2", "5 runs of 1 entry"].iter().enumerate() {
        println!("{what}: {:.2} s wall, {:.2} s cpu ({:.2} cores busy)", best[i], cpu[i], cpu[i] / best[i]);
    }
    println!(
        "--jobs 2 is {:.2}x faster than --jobs 1 and {:.2}x faster than the single runs (load after: {})",
        best[0] / best[1],
        best[2] / best[1],
        load_average()
    );
    println!();
}

//! `fairsim-bench sweep`: the parallel speedup of `fairsim sweep`.

use std::process::Command;
use std::time::Instant;

use super::{fairsim_exe, repeat};

/// `fairsim-bench sweep` (not in the default set: it takes a few
/// minutes): a `fairsim sweep` child process of 2 policies x 3 points x 20
/// seeds x 100,000 jobs, with `--jobs 1` and `--jobs 2` in alternating
/// rounds (best of `--repeat`, given before `sweep`), the speedup, the CPU
/// time (how many cores the machine actually gave), and the children's peak RSS.
pub fn section() {
    const SCENARIO: &str = "\
name: sweep-bench
seed: 1
workers: 8
workload:
  - {tenant: A, arrivals: {poisson: 3.2/s, count: 50000}, service: {exponential: 1s}}
  - {tenant: B, arrivals: {poisson: 3.2/s, count: 50000}, service: {exponential: 1s}}
policies: [fifo, round_robin]
";
    println!(
        "## sweep: 2 policies x 3 points (workers=8,10,12) x 20 seeds x 100,000 jobs, --jobs 1 vs 2 (best of {})",
        repeat()
    );
    let dir = std::env::temp_dir().join(format!("fairsim-bench-sweep-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let sc = dir.join("sweep-bench.yaml");
    if let Err(e) = std::fs::write(&sc, SCENARIO) {
        eprintln!("cannot write {}: {e}", sc.display());
        std::process::exit(1)
    }
    let (mut best, mut cpu, mut peak1) = ([f64::INFINITY; 2], [0.0; 2], 0.0);
    for round in 0..repeat() {
        for (i, jobs) in ["1", "2"].iter().enumerate() {
            let cpu0 = children().1;
            let t0 = Instant::now();
            let status = Command::new(fairsim_exe())
                .arg("sweep")
                .arg(&sc)
                .args(["--seeds", "20", "--set", "workers=8,10,12", "--jobs", jobs, "--quiet", "--out"])
                .arg(dir.join("out"))
                .status();
            let wall = t0.elapsed().as_secs_f64();
            if wall < best[i] {
                (best[i], cpu[i]) = (wall, children().1 - cpu0);
            }
            if !matches!(status, Ok(s) if s.success()) {
                eprintln!("fairsim sweep failed: {status:?} (build it with cargo build --release)");
                std::process::exit(1)
            }
            if round == 0 && i == 0 {
                peak1 = children().0;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // CPU over wall is the parallelism the machine gave: below 2 with --jobs 2,
    // other processes held a core part of the time
    for (i, jobs) in [1, 2].iter().enumerate() {
        println!(
            "--jobs {jobs}: {:.2} s wall, {:.2} s cpu ({:.2} cores busy)",
            best[i],
            cpu[i],
            cpu[i] / best[i]
        );
    }
    println!("speedup {:.2}x", best[0] / best[1]);
    println!("peak RSS: --jobs 1 {peak1:.0} MB; largest of all children {:.0} MB", children().0);
    println!();
}

/// (largest resident set in MB, CPU seconds) of the children waited for so far.
pub fn children() -> (f64, f64) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getrusage fills the struct it is given and nothing else.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) } == 0 {
            let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
            return (u.ru_maxrss as f64 / 1024.0, secs(u.ru_utime) + secs(u.ru_stime));
        }
    }
    (0.0, 0.0)
}

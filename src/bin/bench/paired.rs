//! The `entries` and `replay` sections: two ways of giving the same load,
//! each run end to end by the `fairsim` binary (what a user waits for:
//! loading, trace passes and simulation), in paired rounds whose order
//! alternates, so both sides of a pair see nearly the same moment of the
//! shared machine; the median of the pairs' ratios is the figure.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use fairsim::workload::ArrivalStream;

/// Wall time of `fairsim run SCENARIO --logs summary --no-plots --quiet` plus `extra`.
fn run_once(exe: &Path, scenario: &Path, out: &Path, extra: &[&str]) -> f64 {
    let _ = std::fs::remove_dir_all(out);
    let t0 = Instant::now();
    let status = Command::new(exe)
        .arg("run")
        .arg(scenario)
        .args(["--logs", "summary", "--no-plots", "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .status();
    let wall = t0.elapsed().as_secs_f64();
    match status {
        Ok(s) if s.success() => wall,
        other => {
            eprintln!("{} run {} failed: {other:?}", exe.display(), scenario.display());
            std::process::exit(1)
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `a` and `b` in `rounds` pairs (b first in odd rounds); returns
/// (median a, median b, median of b/a, min, max of b/a).
fn paired(
    rounds: usize,
    mut a: impl FnMut() -> f64,
    mut b: impl FnMut() -> f64,
) -> (f64, f64, f64, f64, f64) {
    let (mut ta, mut tb, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..rounds {
        let (x, y) = if r % 2 == 0 {
            let x = a();
            (x, b())
        } else {
            let y = b();
            (a(), y)
        };
        ta.push(x);
        tb.push(y);
        ratios.push(y / x);
    }
    let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(l, h), &r| (l.min(r), h.max(r)));
    (median(ta), median(tb), median(ratios), lo, hi)
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("fairsim-bench-{name}-{}", std::process::id()))
}

pub fn entries(bench: &Path, exe: &Path, rounds: usize) {
    println!(
        "## entries: 10,000 workload entries vs one entry over 10,000 tenants (1,000,000 jobs, 64 workers, fifo, `fairsim run --logs summary`; {} paired rounds, {})",
        rounds,
        exe.display()
    );
    let out = scratch("entries");
    let (one, many) = (bench.join("entries-10k-one.yaml"), bench.join("entries-10k-many.yaml"));
    let (a, b, ratio, lo, hi) =
        paired(rounds, || run_once(exe, &one, &out, &[]), || run_once(exe, &many, &out, &[]));
    let _ = std::fs::remove_dir_all(&out);
    println!("| form | median wall s |\n|---|---:|\n| one entry (entries-10k-one.yaml) | {a:.2} |");
    println!("| 10,000 entries (entries-10k-many.yaml) | {b:.2} |");
    // one YAML parser (serde-saphyr) reads the 10,000 entries: the ratio is
    // accepted as it is, and the target is on loading and validating alone
    println!("many / one, median of paired ratios: **{ratio:.2}x** (range {lo:.2}–{hi:.2}; accepted)");
    let mut validate: Vec<f64> = (0..rounds).map(|_| validate_once(exe, &many)).collect();
    validate.sort_by(f64::total_cmp);
    println!(
        "`fairsim validate entries-10k-many.yaml`: median **{:.2} s** (range {:.2}–{:.2}; target < 1 s)\n",
        median(validate.clone()),
        validate[0],
        validate[validate.len() - 1]
    );
}

/// Wall time of `fairsim validate SCENARIO` (its report discarded).
fn validate_once(exe: &Path, scenario: &Path) -> f64 {
    let t0 = Instant::now();
    let status = Command::new(exe).arg("validate").arg(scenario).stdout(std::process::Stdio::null()).status();
    let wall = t0.elapsed().as_secs_f64();
    match status {
        Ok(s) if s.success() => wall,
        other => {
            eprintln!("{} validate {} failed: {other:?}", exe.display(), scenario.display());
            std::process::exit(1)
        }
    }
}

/// The generated scenario behind the replay section, with `workload` and `policies` in place.
fn replay_yaml(workload: &str, policies: &str) -> String {
    format!("name: bench-replay\nseed: 1\nworkers: 64\nlog: {{tick: 1s}}\nworkload:\n{workload}policies: [{policies}]\n")
}

const GENERATED: &str = "  - tenants: {count: 10000, prefix: t}\n    arrivals: {poisson: 57.6/s, count: 2000000}\n    service: {exponential: 1s}\n";

/// Writes the arrivals of `scenario` as a CSV trace (`id`, `created_at`, `tenant`, `service`).
fn write_trace(scenario: &Path, csv: &Path) {
    let sc = fairsim::scenario::load(scenario).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let file = std::fs::File::create(csv).unwrap_or_else(|e| {
        eprintln!("cannot write {}: {e}", csv.display());
        std::process::exit(1)
    });
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let secs = |us: u64| format!("{}.{:06}", us / 1_000_000, us % 1_000_000);
    let mut ok = writeln!(w, "id,created_at,tenant,service").is_ok();
    for (i, a) in ArrivalStream::new(&sc).enumerate() {
        // ids that are not row numbers, as a production table's would be
        let line = format!(
            "{},{},{},{}",
            1_000_001 + 3 * i,
            secs(a.time),
            sc.tenants.name(a.tenant),
            secs(a.service)
        );
        ok &= writeln!(w, "{line}").is_ok();
    }
    if !(ok && w.flush().is_ok()) {
        eprintln!("cannot write {}", csv.display());
        std::process::exit(1)
    }
}

pub fn replay(_bench: &Path, exe: &Path, rounds: usize) {
    println!(
        "## replay: a 2,000,000-row CSV trace vs the same load generated (10,000 tenants, 64 workers, `fairsim run --logs summary`; {} paired rounds, {})",
        rounds,
        exe.display()
    );
    let dir = scratch("replay");
    let _ = std::fs::create_dir_all(&dir);
    let all = "fifo, round_robin, drr, wfq";
    let generated = dir.join("generated.yaml");
    let replayed = dir.join("replayed.yaml");
    let trace = dir.join("trace.csv");
    let written = std::fs::write(&generated, replay_yaml(GENERATED, all))
        .and_then(|_| std::fs::write(&replayed, replay_yaml("  - trace: {path: trace.csv}\n", all)));
    if let Err(e) = written {
        eprintln!("cannot write into {}: {e}", dir.display());
        std::process::exit(1)
    }
    let t0 = Instant::now();
    write_trace(&generated, &trace);
    let size = std::fs::metadata(&trace).map(|m| m.len()).unwrap_or(0);
    println!(
        "trace: {} ({:.0} MB, written in {:.1} s)",
        trace.display(),
        size as f64 / 1e6,
        t0.elapsed().as_secs_f64()
    );
    println!("| policies | generated median s | replay median s | replay / generated, median of pairs (range) | target |");
    println!("|---|---:|---:|---|---|");
    let out = dir.join("out");
    for (label, extra, target) in [("1 (fifo)", &["--policy", "fifo"][..], "≤ 1.5x"), ("4", &[][..], "")] {
        let (a, b, ratio, lo, hi) = paired(
            rounds,
            || run_once(exe, &generated, &out, extra),
            || run_once(exe, &replayed, &out, extra),
        );
        println!("| {label} | {a:.2} | {b:.2} | **{ratio:.2}x** ({lo:.2}–{hi:.2}) | {target} |");
    }
    println!();
    let _ = std::fs::remove_dir_all(&dir);
}

//! `fairsim-bench trace5` and `fairsim-bench moonshot`: a production-shaped
//! CSV trace (10,000 tenants, 3 queues, 64 workers, load 0.89, a year of
//! rows at 3.17 jobs/s for 100,000,000 rows) replayed through five policies
//! (fifo, round_robin, drr, wfq, share) with `--logs summary`.
//!
//! The trace is generated once per row count and kept under the cargo
//! target folder (`CARGO_TARGET_DIR` when set, else what `cargo metadata`
//! says, else the folder this binary was built into), in
//! `fairsim-bench/`: 100,000,000 rows take 4.5 GB there.
//!
//! - `trace5` (10,000,000 rows by default): the five-policy run with
//!   `--jobs 2` against `--jobs 1` and against the five policies run one
//!   at a time (each parsing the trace itself), in `--repeat` rounds,
//!   medians; then whether the `--jobs 1` and `--jobs 2` folders are the
//!   same byte for byte (the provenance file's command, date and folder
//!   aside).
//! - `moonshot` (100,000,000 rows by default): the five-policy run once,
//!   end to end (wall, CPU, peak RSS, rows/s), then where the time goes,
//!   measured in this process one phase at a time: the first pass (parse,
//!   check, spill), reading the spill back as one arrival stream (merge),
//!   each policy's simulation (the engine and its accounting) and what the
//!   end-to-end run spent besides (writing, and the second simulation's
//!   share of a shared core).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use fairsim::workload::ArrivalStream;

use super::{cpu_secs, fairsim_exe, repeat};

pub const POLICIES: [&str; 5] = ["fifo", "round_robin", "drr", "wfq", "share"];

/// 3.17 jobs/s: 100,000,000 rows span a year (31,536,000 s).
const RATE: f64 = 100_000_000.0 / 31_536_000.0;

/// The generator of the trace: three queues over the same 10,000 tenants,
/// 20% / 60% / 20% of the jobs, exponential service of 18 s on 64 workers
/// (load 3.17 x 18 / 64 = 0.89).
fn source_yaml(rows: u64) -> String {
    let (a, b) = (rows / 5, rows * 3 / 5);
    let c = rows - a - b;
    let entry = |class: &str, share: f64, count: u64| {
        format!(
            "  - {{tenants: {{count: 10000, prefix: t}}, class: {class}, arrivals: {{poisson: {:.6}/s, count: {count}}}, service: {{exponential: 18s}}}}\n",
            RATE * share
        )
    };
    format!(
        "name: moonshot-source\nseed: 1\nworkers: 64\nclasses: {{critical: {{}}, default: {{}}, low: {{}}}}\nworkload:\n{}{}{}policies: [fifo]\n",
        entry("critical", 0.2, a),
        entry("default", 0.6, b),
        entry("low", 0.2, c)
    )
}

/// The scenario the runs replay: the trace, 64 workers, a one-minute log
/// tick (and fairness window), the five policies.
fn replay_yaml(trace: &str) -> String {
    format!(
        "name: moonshot\nseed: 1\nworkers: 64\nlog: {{tick: 1m}}\nworkload:\n  - trace: {{path: {trace}}}\npolicies: [{}]\n",
        POLICIES.join(", ")
    )
}

/// The cargo target folder: `CARGO_TARGET_DIR`, else `cargo metadata`'s
/// `target_directory`, else two levels above this binary (`target/release`).
pub fn target_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        return std::path::absolute(PathBuf::from(&d)).unwrap_or_else(|_| PathBuf::from(d));
    }
    let meta = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["metadata", "--format-version", "1", "--no-deps", "--manifest-path"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .output();
    if let Some(out) = meta.ok().filter(|o| o.status.success()) {
        let dir = serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .ok()
            .and_then(|v| v.get("target_directory")?.as_str().map(PathBuf::from));
        if let Some(d) = dir {
            return d;
        }
    }
    let me = std::env::current_exe().unwrap_or_default();
    me.parent().and_then(Path::parent).map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("target"))
}

/// The cached trace of `rows` rows and its scenario, made when missing
/// (written under a temporary name, renamed when complete, so an
/// interrupted generation is never taken for a trace).
fn cached(rows: u64) -> PathBuf {
    let dir = target_dir().join("fairsim-bench");
    let name = format!("moonshot-{rows}");
    let (trace, scenario) = (dir.join(format!("{name}.csv")), dir.join(format!("{name}.yaml")));
    if !trace.is_file() {
        if let Err(e) = std::fs::create_dir_all(&dir) {
            eprintln!("cannot create {}: {e}", dir.display());
            std::process::exit(1)
        }
        let t0 = Instant::now();
        let partial = dir.join(format!("{name}.csv.partial"));
        generate(rows, &partial);
        if let Err(e) = std::fs::rename(&partial, &trace) {
            eprintln!("cannot rename {}: {e}", partial.display());
            std::process::exit(1)
        }
        println!("generated {} in {:.1} s", trace.display(), t0.elapsed().as_secs_f64());
    }
    if let Err(e) = std::fs::write(&scenario, replay_yaml(&format!("{name}.csv"))) {
        eprintln!("cannot write {}: {e}", scenario.display());
        std::process::exit(1)
    }
    scenario
}

/// Appends `n` in decimal.
fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// Appends microseconds as seconds with six decimals.
fn push_secs6(out: &mut Vec<u8>, us: u64) {
    push_u64(out, us / 1_000_000);
    let frac = us % 1_000_000;
    out.push(b'.');
    let mut d = [b'0'; 6];
    let mut f = frac;
    for c in d.iter_mut().rev() {
        *c = b'0' + (f % 10) as u8;
        f /= 10;
    }
    out.extend_from_slice(&d);
}

/// Writes the trace: `id,created_at,tenant,queue,service`, epoch seconds
/// from 2026-01-01T00:00:00Z, service in seconds.
fn generate(rows: u64, path: &Path) {
    const EPOCH_US: u64 = 1_767_225_600 * 1_000_000;
    let yaml =
        std::env::temp_dir().join(format!("fairsim-bench-moonshot-source-{}.yaml", std::process::id()));
    let sc = std::fs::write(&yaml, source_yaml(rows))
        .map_err(|e| e.to_string())
        .and_then(|_| fairsim::scenario::load(&yaml).map_err(|e| e.to_string()));
    let _ = std::fs::remove_file(&yaml);
    let sc = sc.unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let file = std::fs::File::create(path).unwrap_or_else(|e| {
        eprintln!("cannot write {}: {e}", path.display());
        std::process::exit(1)
    });
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut line = Vec::with_capacity(128);
    let mut ok = w.write_all(b"id,created_at,tenant,queue,service\n").is_ok();
    let classes: Vec<&str> = sc.classes.iter().map(|c| c.name.as_str()).collect();
    for (i, a) in (0u64..).zip(ArrivalStream::new(&sc)) {
        line.clear();
        // ids that are not row numbers, as a production table's would be
        push_u64(&mut line, 1_000_001 + 3 * i);
        line.push(b',');
        push_secs6(&mut line, EPOCH_US + a.time);
        line.push(b',');
        line.extend_from_slice(sc.tenants.name(a.tenant).as_bytes());
        line.push(b',');
        line.extend_from_slice(classes[a.class as usize].as_bytes());
        line.push(b',');
        push_secs6(&mut line, a.service);
        line.push(b'\n');
        ok &= w.write_all(&line).is_ok();
    }
    if !(ok && w.flush().is_ok()) {
        eprintln!("cannot write {}", path.display());
        std::process::exit(1)
    }
}

/// What one child run took: wall s, CPU s (user + sys), peak RSS in MB.
struct Took {
    wall: f64,
    cpu: f64,
    rss: f64,
}

/// Runs `fairsim run SCENARIO --logs summary --no-plots --quiet --force --out OUT` plus `extra`.
fn run(scenario: &Path, out: &Path, extra: &[&str]) -> Took {
    let t0 = Instant::now();
    let child = Command::new(fairsim_exe())
        .arg("run")
        .arg(scenario)
        .args(["--logs", "summary", "--no-plots", "--quiet", "--force", "--out"])
        .arg(out)
        .args(extra)
        .spawn();
    let Ok(child) = child else {
        eprintln!("cannot start {} (build it with cargo build --release)", fairsim_exe().display());
        std::process::exit(1)
    };
    let (ok, cpu, rss) = wait(child);
    let wall = t0.elapsed().as_secs_f64();
    if !ok {
        eprintln!("fairsim run {} {} failed", scenario.display(), extra.join(" "));
        std::process::exit(1)
    }
    Took { wall, cpu, rss }
}

/// Waits for `child`: (success, its CPU seconds, its peak RSS in MB), from `wait4`.
pub fn wait(mut child: std::process::Child) -> (bool, f64, f64) {
    #[cfg(target_os = "linux")]
    {
        let mut status = 0;
        // SAFETY: wait4 fills the status and the struct it is given; the
        // child is not waited for elsewhere (std's Child does not reap on drop)
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        let pid = child.id() as libc::pid_t;
        if unsafe { libc::wait4(pid, &mut status, 0, &mut u) } == pid {
            let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
            let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
            return (ok, secs(u.ru_utime) + secs(u.ru_stime), u.ru_maxrss as f64 / 1024.0);
        }
    }
    let ok = child.wait().is_ok_and(|s| s.success());
    (ok, 0.0, 0.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("fairsim-bench-{name}-{}", std::process::id()))
}

/// Every file under `a` and `b`, the same bytes? The provenance file's
/// `command`, `started` and `out` lines are left out of the comparison.
/// Returns the first difference.
fn same_folders(a: &Path, b: &Path) -> Result<usize, String> {
    fn files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                files(root, &p, out);
            } else if let Ok(rel) = p.strip_prefix(root) {
                out.push(rel.to_path_buf());
            }
        }
    }
    let (mut fa, mut fb) = (Vec::new(), Vec::new());
    files(a, a, &mut fa);
    files(b, b, &mut fb);
    fa.sort();
    fb.sort();
    if fa != fb {
        return Err(format!("the folders hold different files ({} vs {})", fa.len(), fb.len()));
    }
    let strip = |text: Vec<u8>| -> Vec<u8> {
        let s = String::from_utf8_lossy(&text).into_owned();
        s.lines()
            .filter(|l| {
                !["\"command\"", "\"started\"", "\"out\""].iter().any(|k| l.trim_start().starts_with(k))
            })
            .collect::<Vec<_>>()
            .join("\n")
            .into_bytes()
    };
    for f in &fa {
        let (x, y) =
            (std::fs::read(a.join(f)).unwrap_or_default(), std::fs::read(b.join(f)).unwrap_or_default());
        let provenance = f.file_name().is_some_and(|n| n == fairsim::output::folder::MARKER);
        let same = if provenance { strip(x) == strip(y) } else { x == y };
        if !same {
            return Err(format!("{} differs", f.display()));
        }
    }
    Ok(fa.len())
}

/// `fairsim-bench trace5`.
pub fn trace5(rows: u64) {
    println!(
        "## trace5: a {rows}-row CSV trace (10,000 tenants, 3 queues, 64 workers), 5 policies, --logs summary: --jobs 2 vs --jobs 1 vs each policy alone ({} rounds, medians)",
        repeat()
    );
    let scenario = cached(rows);
    let (one, two) = (scratch("trace5-j1"), scratch("trace5-j2"));
    let single = scratch("trace5-single");
    let (mut j1, mut j2, mut singles, mut ratios) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut cpu2, mut rss2) = (Vec::new(), 0.0f64);
    for r in 0..repeat() {
        // which side goes first alternates, so a slow minute spreads over both
        let sum = || POLICIES.iter().map(|p| run(&scenario, &single, &["--policy", p]).wall).sum::<f64>();
        let (s, t2) = if r % 2 == 0 {
            let s = sum();
            (s, run(&scenario, &two, &["--jobs", "2"]))
        } else {
            let t2 = run(&scenario, &two, &["--jobs", "2"]);
            (sum(), t2)
        };
        let t1 = run(&scenario, &one, &["--jobs", "1"]);
        ratios.push(t2.wall / s);
        singles.push(s);
        j1.push(t1.wall);
        j2.push(t2.wall);
        cpu2.push(t2.cpu);
        rss2 = rss2.max(t2.rss);
    }
    let (w1, w2, ws) = (median(j1), median(j2), median(singles));
    println!("| run | median wall s |\n|---|---:|");
    println!("| 5 policies alone, one after another (sum) | {ws:.2} |");
    println!("| 5 policies, --jobs 1 | {w1:.2} |");
    println!("| 5 policies, --jobs 2 | {w2:.2} (cpu {:.2} s, peak RSS {rss2:.0} MB) |", median(cpu2));
    let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(l, h), &r| (l.min(r), h.max(r)));
    println!(
        "--jobs 2 / the single runs' sum: **{:.2}x** (range {lo:.2}–{hi:.2}; target <= 0.5x); {rows} rows x 5 at {:.2}M rows/s",
        median(ratios),
        5.0 * rows as f64 / w2 / 1e6
    );
    match same_folders(&one, &two) {
        Ok(n) => println!("--jobs 1 and --jobs 2: the same {n} files, byte for byte (provenance aside)"),
        Err(e) => println!("--jobs 1 and --jobs 2 DIFFER: {e}"),
    }
    for d in [one, two, single] {
        let _ = std::fs::remove_dir_all(d);
    }
    println!();
}

/// `fairsim-bench moonshot`.
pub fn moonshot(rows: u64) {
    let jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(POLICIES.len());
    println!(
        "## moonshot: a {rows}-row CSV trace (10,000 tenants, 3 queues, 64 workers), 5 policies, --logs summary, --jobs {jobs}, once"
    );
    let scenario = cached(rows);
    let size = std::fs::metadata(scenario.with_extension("csv")).map(|m| m.len()).unwrap_or(0);
    let out = scratch("moonshot");
    let t = run(&scenario, &out, &["--jobs", &jobs.to_string()]);
    let _ = std::fs::remove_dir_all(&out);
    println!(
        "end to end: **{:.1} s wall**, {:.1} s cpu ({:.2} cores busy), peak RSS **{:.0} MB**; {:.2}M rows/s ({:.0} MB of CSV, 5 x {rows} rows simulated)",
        t.wall,
        t.cpu,
        t.cpu / t.wall,
        t.rss,
        5.0 * rows as f64 / t.wall / 1e6,
        size as f64 / 1e6
    );
    // the same work one phase at a time, in this process, CPU of this thread
    let c0 = cpu_secs();
    let sc = fairsim::scenario::load(&scenario).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let parse = cpu_secs() - c0;
    let c0 = cpu_secs();
    let n = ArrivalStream::new(&sc).count() as u64;
    let merge = cpu_secs() - c0;
    println!("| phase | cpu s | ns per row |\n|---|---:|---:|");
    let per = |s: f64| s * 1e9 / n.max(1) as f64;
    println!("| parse, check and spill the trace (once) | {parse:.1} | {:.0} |", per(parse));
    println!("| read the spill back as arrivals (merge, per policy) | {merge:.1} | {:.0} |", per(merge));
    let mut simulated = parse;
    for spec in &sc.policies {
        let c0 = cpu_secs();
        if let Err(e) = fairsim::run::simulate(&sc, spec, None, None, false) {
            eprintln!("{e}");
            std::process::exit(1)
        }
        let c = cpu_secs() - c0;
        simulated += c;
        println!(
            "| {}: simulation and accounting (merge excluded) | {:.1} | {:.0} |",
            spec.label,
            c - merge,
            per(c - merge)
        );
    }
    println!(
        "| the rest of the end-to-end run (writing; two simulations sharing caches) | {:.1} | {:.0} |",
        t.cpu - simulated,
        per(t.cpu - simulated)
    );
    println!();
}

//! The real binary run as a subprocess under limits, and how it ended: a
//! subprocess, not a library call, so that a hang, an abort or a runaway
//! allocation is observed and does not take the fuzzer down with it.

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::cases::Case;
use super::keys::{normalize, panic_key, stack_key};
use super::layout::layout;
use super::settings::Settings;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    Panic,
    Exit,
    Hang,
    Memory,
    /// `check` refused fairsim's own `run --logs full` output
    Check,
    /// validate and run disagree about a scenario alone
    Disagree,
    /// stopped at the time limit, but validate's own estimate of the
    /// scenario's work (jobs, starts, and bytes of full logs) is past it: work the
    /// fuzzer cannot wait for, not a hang (informational)
    Big,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Panic => "PANIC",
            Class::Exit => "EXIT",
            Class::Hang => "HANG",
            Class::Memory => "MEMORY",
            Class::Check => "CHECK",
            Class::Disagree => "DISAGREE",
            Class::Big => "BIG",
        }
    }
}

/// What one command did.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub command: &'static str,
    /// `None`: fine (exit 0 or 2).
    pub class: Option<Class>,
    pub key: String,
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub elapsed: Duration,
    pub peak_rss_kb: u64,
    pub stderr: String,
    pub stack: String,
}

/// Peak resident memory of a live process, in KiB (0 if unreadable).
fn peak_rss_kb(pid: u32) -> u64 {
    let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { return 0 };
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// CPU time (user and system, all threads) a running process has used:
/// what a hang is judged by, since wall time on a shared 2-core machine
/// grows with whatever else runs there.
fn cpu_time(pid: u32) -> Duration {
    let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return Duration::ZERO };
    // fields after the command name, which is in parentheses and may hold spaces
    let Some(rest) = s.rsplit_once(')').map(|r| r.1) else { return Duration::ZERO };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12].iter().filter_map(|&i| f.get(i)?.parse::<u64>().ok()).sum();
    #[cfg(unix)]
    let hz = match unsafe { libc::sysconf(libc::_SC_CLK_TCK) } {
        n if n > 0 => n as u64,
        _ => 100,
    };
    #[cfg(not(unix))]
    let hz = 100;
    Duration::from_millis(ticks * 1000 / hz)
}

/// The threads' stacks of a running process, by gdb (the process is
/// stopped while gdb reads them).
fn stack_sample(pid: u32) -> String {
    let out = Command::new("timeout")
        .args(["60", "gdb", "-p", &pid.to_string(), "-batch", "-nx", "-ex", "thread apply all bt 40"])
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(o) => String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| l.starts_with('#') || l.starts_with("Thread"))
            .collect::<Vec<_>>()
            .join("\n"),
        Err(e) => format!("(no stack: {e})"),
    }
}

#[cfg(target_os = "linux")]
fn set_limits(cmd: &mut Command, s: &Settings) {
    use std::os::unix::process::CommandExt;
    let (as_limit, fsize) = (s.as_limit, s.fsize_limit);
    // SAFETY: the closure runs in the forked child before exec and only
    // calls setrlimit, which is async-signal-safe; it touches no memory
    // shared with the parent.
    unsafe {
        cmd.pre_exec(move || {
            let set = |res, v: u64| {
                let lim = libc::rlimit { rlim_cur: v as libc::rlim_t, rlim_max: v as libc::rlim_t };
                libc::setrlimit(res, &lim)
            };
            set(libc::RLIMIT_AS, as_limit);
            set(libc::RLIMIT_FSIZE, fsize);
            set(libc::RLIMIT_CORE, 0);
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn set_limits(_cmd: &mut Command, _s: &Settings) {}

#[cfg(unix)]
fn signal_of(status: &ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn signal_of(_status: &ExitStatus) -> Option<i32> {
    None
}

fn read_head(path: &Path, max: usize) -> String {
    let b = std::fs::read(path).unwrap_or_default();
    String::from_utf8_lossy(&b[..b.len().min(max)]).into_owned()
}

/// Runs one command in `dir` and classifies what it did.
fn run_command(
    s: &Settings,
    dir: &Path,
    command: &'static str,
    args: &[String],
    timeout: Duration,
) -> Outcome {
    let (out_path, err_path) = (dir.join(".stdout"), dir.join(".stderr"));
    let mut cmd = Command::new(&s.bin);
    cmd.args(args)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap());
    set_limits(&mut cmd, s);
    let start = Instant::now();
    let mut child = cmd.spawn().expect("spawn fairsim");
    let pid = child.id();
    let mut peak = 0;
    let mut stopped: Option<Class> = None;
    let mut stack = String::new();
    // CPU time at the start of the last stretch of `timeout` wall time
    let mut stretch = (start, Duration::ZERO);
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break Some(st);
        }
        peak = peak.max(peak_rss_kb(pid));
        let over_memory = peak > s.rss_limit_kb;
        // a hang: the CPU time past the limit, or, past six times it in wall
        // time, blocked: under 5% of a core over the last stretch. A process
        // only starved by a loaded machine (10 builds on 2 cores) still gains
        // CPU time, and was a false hang when judged by wall time alone; 30
        // times the limit stops anything.
        let mut hung = || {
            let cpu = cpu_time(pid);
            let wall = start.elapsed();
            if stretch.0.elapsed() >= timeout {
                let blocked = cpu.saturating_sub(stretch.1) < timeout / 20;
                stretch = (Instant::now(), cpu);
                if blocked && wall > timeout * 6 {
                    return true;
                }
            }
            cpu > timeout || wall > timeout * 30
        };
        if over_memory || (start.elapsed() > timeout && hung()) {
            stopped = Some(if over_memory { Class::Memory } else { Class::Hang });
            if s.stacks {
                stack = stack_sample(pid);
            }
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        let nap = if start.elapsed() < Duration::from_millis(200) { 1 } else { 10 };
        std::thread::sleep(Duration::from_millis(nap));
    };
    let elapsed = start.elapsed();
    let stderr = read_head(&err_path, 64 * 1024);
    let mut o = Outcome {
        command,
        class: None,
        key: String::new(),
        code: None,
        signal: None,
        elapsed,
        peak_rss_kb: peak,
        stderr,
        stack,
    };
    let Some(status) = status else {
        let class = stopped.expect("stopped");
        let place = stack_key(&o.stack).unwrap_or_else(|| "no stack sample".into());
        o.key = format!("{command}: {place}");
        o.class = Some(class);
        return o;
    };
    o.code = status.code();
    o.signal = signal_of(&status);
    let memory_words = ["memory allocation of", "Cannot allocate memory", "os error 12", "out of memory"];
    let first_line = o.stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("").to_string();
    match (o.code, o.signal) {
        (Some(0 | 2), _) => {}
        (_, _) if memory_words.iter().any(|w| o.stderr.contains(w)) => {
            o.class = Some(Class::Memory);
            o.key = format!("{command}: allocation refused: {}", normalize(&first_line, 80));
        }
        (Some(101), _) => {
            o.class = Some(Class::Panic);
            o.key =
                panic_key(&o.stderr).unwrap_or_else(|| format!("exit 101: {}", normalize(&first_line, 80)));
        }
        // SIGXFSZ: a file past the fuzzer's own 1 GiB limit (a `--logs full`
        // run of a scenario with 65,536-character names writes that much, as
        // asked): a size blow-up, classed with memory, not a crash
        (_, Some(25)) => {
            o.class = Some(Class::Memory);
            o.key = format!("{command}: a file past the 1 GiB limit (SIGXFSZ)");
        }
        (_, Some(sig)) => {
            o.class = Some(Class::Panic);
            let why = panic_key(&o.stderr).unwrap_or_else(|| normalize(&first_line, 80));
            o.key = format!("signal {sig}: {why}");
        }
        (Some(code), None) => {
            o.class = Some(Class::Exit);
            let msg = first_line.trim_start_matches("error: ");
            // drop the file name, keep what is wrong
            let msg = msg.split_once(": ").map(|(_, m)| m).unwrap_or(msg);
            o.key = format!("exit {code}: {}", normalize(msg, 90));
        }
        (None, None) => {
            o.class = Some(Class::Panic);
            o.key = "no exit status".into();
        }
    }
    o
}

/// Writes `case` into a scratch folder and runs its commands; `run` is
/// skipped when `validate` already hung or blew up.
pub fn execute(s: &Settings, case: &Case, timeout: Duration) -> Vec<Outcome> {
    let dir = tempfile::Builder::new().prefix("fairsim-fuzz-").tempdir().expect("tempdir");
    let l = layout(case, None, "", "out");
    for (p, bytes) in &l.files {
        let path = dir.path().join(p);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, bytes).unwrap();
    }
    let mut outcomes: Vec<Outcome> = Vec::new();
    let mut work = Work { run: Duration::ZERO, check: Duration::ZERO };
    for (command, args) in &l.commands {
        let code = |c: &str| outcomes.iter().find(|o| o.command == c).and_then(|o| o.code);
        if matches!(*command, "full" | "check") && (code("validate") != Some(0) || code("run") != Some(0)) {
            break;
        }
        if *command == "check" && code("full") != Some(0) {
            break;
        }
        // check reads what `run --logs full` wrote: its time follows the
        // run's (1.75x to 3x measured on 290-435 MB folders, the machine
        // busy or not), so it gets 4x the run's; a check slower than that
        // is a finding
        let limit = match (*command, outcomes.iter().find(|o| o.command == "full")) {
            ("check", Some(full)) => timeout.max(full.elapsed * 4),
            _ => timeout,
        };
        let mut o = run_command(s, dir.path(), command, args, limit);
        if *command == "check" && matches!(o.class, None | Some(Class::Exit)) && o.code != Some(0) {
            // exit 1 is a violation, exit 2 a file check could not read:
            // both are wrong on fairsim's own output
            o.class = Some(Class::Check);
            let line = match o.stderr.lines().find(|l| !l.trim().is_empty()) {
                Some(l) if o.code != Some(1) => l.to_string(),
                _ => first_violation(dir.path(), &o.stderr),
            };
            o.key = format!("check exit {}: {}", o.code.unwrap_or(-1), check_key(&line));
            // the violation is on stdout: keep it in the report
            o.stderr = format!("{line}\n{}", o.stderr);
        }
        if *command == "validate" && o.code == Some(0) {
            work = estimated_work(&std_out(dir.path()));
        }
        let estimate = if *command == "check" { work.check } else { work.run };
        if o.class == Some(Class::Hang) && estimate > limit {
            o.class = Some(Class::Big);
            o.key = format!(
                "{command}: past the time limit, with an estimated {:.0} s of work",
                estimate.as_secs_f64()
            );
        }
        let stop = matches!(o.class, Some(Class::Hang | Class::Memory | Class::Big));
        outcomes.push(o);
        if stop {
            break;
        }
    }
    if let Case::Scenario { flags, .. } = case {
        if let Some(d) = disagreement(&outcomes, flags) {
            outcomes.push(d);
        }
    }
    outcomes
}

/// The CPU time the work validate estimates takes, for `run` and for
/// `check`, at rates measured on this project's 2-core machine, a little
/// under them: per policy entry 0.25 ms for its folder and files (0.34 ms
/// measured over 20,000 entries of 12 jobs); per job and policy 0.5 us to simulate (0.4 us measured at
/// best) and 1 us to check; 0.25 us per start where jobs run in slices
/// (0.26 us measured over 40 million 1 ms slices); per byte of full logs
/// 7 ns to write them (6-9 ns measured) and 15 ns for `check` to read and
/// judge them (17-18 ns measured on 290-435 MB folders). From validate's
/// `policies:`, `in all: about N jobs`, `starts: about N` and `full logs:
/// about X MB` lines. An infinite loop's estimate is far below the limit,
/// so it stays a HANG.
struct Work {
    run: Duration,
    check: Duration,
}

fn estimated_work(validate_out: &str) -> Work {
    let (mut jobs, mut starts, mut bytes, mut policies) = (0.0, 0.0, 0.0, 1.0);
    for line in validate_out.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("policies: ") {
            policies = rest.matches("), ").count() as f64 + 1.0;
        }
        let first = |rest: &str| -> f64 {
            rest.split_whitespace().next().and_then(|n| n.replace(',', "").parse().ok()).unwrap_or(0.0)
        };
        if let Some(rest) = line.strip_prefix("in all: about ") {
            jobs = first(rest);
        }
        if let Some(rest) = line.strip_prefix("starts: about ") {
            starts = first(rest);
        }
        if let Some(rest) = line.strip_prefix("full logs: about ") {
            let mut w = rest.split_whitespace();
            let n: f64 = w.next().and_then(|n| n.parse().ok()).unwrap_or(0.0);
            let unit = match w.next() {
                Some("kB") => 1e3,
                Some("MB") => 1e6,
                Some("GB") => 1e9,
                Some("TB") => 1e12,
                _ => 1.0,
            };
            bytes = n * unit;
        }
    }
    let events = f64::max(jobs * policies * 0.5e-6, starts * 0.25e-6);
    Work {
        run: Duration::from_secs_f64(policies * 0.25e-3 + events + bytes * 7e-9),
        check: Duration::from_secs_f64(policies * 0.25e-3 + jobs * policies * 1e-6 + bytes * 15e-9),
    }
}

fn std_out(dir: &Path) -> String {
    read_head(&dir.join(".stdout"), 64 * 1024)
}

/// The first `VIOLATED` line of `check`'s output (stdout or stderr).
fn first_violation(dir: &Path, stderr: &str) -> String {
    let out = format!("{}\n{stderr}", std_out(dir));
    out.lines().find(|l| l.contains("VIOLATED")).unwrap_or_else(|| stderr.trim()).to_string()
}

/// A check message without its label, times and job ids, so that one rule
/// broken in many runs is one cause.
fn check_key(line: &str) -> String {
    let rule = line.split(": VIOLATED").next().unwrap_or(line);
    let rule = rule.split_once(": ").map(|(_, r)| r).unwrap_or(rule);
    normalize(rule, 80)
}

/// validate and run must agree on what the scenario alone decides:
/// validate exit 0 with run exit 2, or validate exit 2 with
/// run exit 0. Runs whose flags can change the verdict (`--seed`,
/// `--policy` naming a label, `--skip-bad-rows`) are left out; a run refused
/// for its trace's rows is left out too, as validate reads no rows.
fn disagreement(outcomes: &[Outcome], flags: &super::cases::Flags) -> Option<Outcome> {
    if flags.seed.is_some() || flags.policy.is_some() || flags.skip_bad_rows {
        return None;
    }
    let v = outcomes.iter().find(|o| o.command == "validate")?;
    let r = outcomes.iter().find(|o| o.command == "run")?;
    if v.class.is_some() || r.class.is_some() {
        return None;
    }
    let first = |o: &Outcome| o.stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("").to_string();
    let (which, msg) = match (v.code, r.code) {
        (Some(0), Some(2)) => ("validate ok, run exit 2", first(r)),
        (Some(2), Some(0)) => ("validate exit 2, run ok", first(v)),
        _ => return None,
    };
    if msg.contains(".csv:") || msg.contains(".swf:") {
        return None;
    }
    let msg = msg.trim_start_matches("error: ");
    let msg = msg.split_once(": ").map(|(_, m)| m).unwrap_or(msg);
    let mut d = r.clone();
    d.class = Some(Class::Disagree);
    d.key = format!("{which}: {}", normalize(msg, 90));
    if v.code == Some(2) {
        d.stderr = v.stderr.clone();
    }
    Some(d)
}

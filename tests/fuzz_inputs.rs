//! A fuzzer for the scenario loader and the trace readers, end to end
//! Each generated input is written to a
//! temporary folder and given to the real binary as a subprocess:
//! `fairsim validate SCENARIO`, then `fairsim run SCENARIO --logs summary
//! --no-plots --out DIR` with some of `--quiet`, `--format json`, `--audit`,
//! `--seed`, `--policy`, `--trace FILE`, `--trace-format`, `--skip-bad-rows`.
//!
//! Inputs, drawn by proptest strategies (so a panic can be shrunk):
//! - scenarios built from the keys of docs/scenario.md, with ordinary,
//!   extreme and wrong values (zero, negative, NaN, `1e-300/s`, weights
//!   `1e-100` and `1e300`, names with NUL, newlines, unicode, 65,536
//!   characters, reserved labels, wrong types, unknown and duplicate keys,
//!   nested `then`, deep nesting and alias bombs), and the CSV and SWF files
//!   their trace entries name;
//! - the shipped `scenarios/*.yaml` and `scenarios/traces/*` with mutated bytes
//!   (flips, inserted tokens, replaced numbers, deleted or repeated lines,
//!   CR-only or CRLF line endings, truncation, gaps of 1e9 s);
//! - generated CSV and SWF traces replayed with `--trace` (broken rows,
//!   CR-only endings, BOMs, quotes, NUL and invalid UTF-8, huge timestamps).
//!
//! Each generated case has a noise level: 45% are clean (every value legal,
//! references resolve, so the case validates and runs and the engine sees
//! the extreme but legal values), 35% have a bad value or shape now and then,
//! 20% often. "Wild" cases (`FAIRSIM_FUZZ_WILD`, default 10%) also draw the
//! values known to be slow: `999999999999s`, `1us` ticks, `1e-300/s`,
//! counts of 2^64-1, 10,000,000-tenant spreads, `/dev/zero` as a trace.
//!
//! Every command runs with a time limit (10 s of CPU time; or, past 60 s of
//! wall time, a process blocked, using under 5% of a core over its last 10 s;
//! 300 s of wall time in any case; `check` gets 4x the
//! time of the `run --logs full` whose folder it reads, if that is more; CPU time, because wall
//! time on a shared machine grows with its load), an address-space limit (8 GiB)
//! and a file-size limit (1 GiB), and its peak RSS is watched (limit 2 GiB).
//!
//! | outcome | class |
//! |---|---|
//! | exit 0 or 2 | fine |
//! | exit 101 (a panic), or killed by a signal (abort, segfault, stack overflow) | PANIC |
//! | any other exit code (1: an internal or I/O error, or an `--audit` violation) | EXIT |
//! | past the time limit | HANG |
//! | past the time limit, with validate's own estimate of the work past it too (at rates measured on a 2-core machine, a little under them: 0.25 ms per policy entry, then run 0.5 us per job and policy or 0.25 us per start of a sliced job, 7 ns per byte of full logs; check 1 us per job and policy, 15 ns per byte it reads) | BIG (work the fuzzer cannot wait for; informational, not a hang) |
//! | RSS over the limit, an allocation refused by the address-space limit, or a file past the size limit (SIGXFSZ) | MEMORY |
//! | `check` exits non-zero on the folder of `run --logs full` (run when validate and run both exit 0) | CHECK |
//! | validate exits 0 and run 2, or validate 2 and run 0, on a scenario alone (no `--seed`, `--policy`, `--skip-bad-rows`; not for a trace's rows) | DISAGREE |
//!
//! Findings are deduplicated by cause: the panic's location and message;
//! for EXIT the message; for HANG and MEMORY the place of a stack sample
//! taken with gdb before the kill (the innermost engine, loader, trace or
//! output function and its callee; when gdb is available and stacks are on).
//! The smallest input of each cause is kept, as `CLASS-cause.yaml` (plus the
//! trace files it names, same stem) in the findings folder; a PANIC or EXIT
//! is first shrunk by proptest. `last-run.txt` there lists every cause with
//! its command, message, time and memory.
//!
//! Modes:
//! - CI (default): 150 cases from a fixed seed, stopping early after 40 s;
//!   findings go to `$CARGO_TARGET_TMPDIR/fuzz-findings`. The test fails
//!   only on a PANIC.
//! - Long: `FAIRSIM_FUZZ_SECONDS=600 cargo test --release --test fuzz_inputs
//!   -- --nocapture`: as many cases as fit, from a random seed (printed),
//!   stack samples on, findings written to `tests/fuzz-findings/`. Its
//!   report's `acceptance counts` line gives the panics, hangs, check
//!   failures and validate/run disagreements (occurrences) over the
//!   scenarios tried.
//!
//! Exit-2 messages that name a file but no line are counted on the side
//! as errors that name no place; they fail nothing.
//!
//! Other knobs: `FAIRSIM_FUZZ_CASES`, `FAIRSIM_FUZZ_SEED`,
//! `FAIRSIM_FUZZ_TIMEOUT` (seconds), `FAIRSIM_FUZZ_WILD` (0 to 1),
//! `FAIRSIM_FUZZ_STACKS` (0/1), `FAIRSIM_FUZZ_FINDINGS` (folder),
//! `FAIRSIM_FUZZ_BIN` (another fairsim binary, e.g. a debug build with
//! overflow checks), and for debugging the generator
//! `FAIRSIM_FUZZ_VERBOSE` (every command's first stderr line) and
//! `FAIRSIM_FUZZ_DUMP=DIR` (every case's files); `FAIRSIM_FUZZ_FIRST=K`
//! starts at case K, so `FAIRSIM_FUZZ_SEED=S FAIRSIM_FUZZ_FIRST=K
//! FAIRSIM_FUZZ_CASES=1 FAIRSIM_FUZZ_DUMP=DIR` writes case K of a run with
//! seed S (as last-run.txt names them) again.

mod fuzz;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngSeed, TestRunner};

use fuzz::cases::{case_strategy, Case, Shipped};
use fuzz::findings::{describe, note_no_place, shrink, write_finding, Finding, Stats};
use fuzz::layout::layout;
use fuzz::runner::{execute, Class};
use fuzz::settings::Settings;

/// Not ignored in debug builds: their binary has overflow checks, so an
/// overflow that a release build wraps silently (F7 did) fails here as a
/// PANIC.
#[test]
fn fuzz_scenario_loader_and_trace_readers() {
    let s = Settings::from_env();
    let shipped = Arc::new(Shipped::load());
    // by (wild, noise)
    let strategies: Vec<BoxedStrategy<Case>> =
        (0..6).map(|k| case_strategy(shipped.clone(), k >= 3, (k % 3) as u8)).collect();
    eprintln!(
        "fuzz: seed {:#x}, {}, at most {:.0} s, timeout {:.0} s per command, stacks {}, findings in {}",
        s.seed,
        match s.cases {
            Some(n) => format!("{n} cases"),
            None => "cases until the time is up".into(),
        },
        s.seconds,
        s.timeout.as_secs_f64(),
        if s.stacks { "on" } else { "off" },
        s.findings.display()
    );
    let start = Instant::now();
    let mut stats = Stats::default();
    let mut findings: BTreeMap<(Class, String), Finding> = BTreeMap::new();
    let mut last_report = Instant::now();
    let mut i: u64 = s.first;
    let verbose = std::env::var_os("FAIRSIM_FUZZ_VERBOSE").is_some();
    loop {
        if s.cases.is_some_and(|n| i - s.first >= n) || start.elapsed().as_secs_f64() >= s.seconds {
            break;
        }
        let case_seed = s.seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let config = Config { rng_seed: RngSeed::Fixed(case_seed), ..Config::default() };
        let mut runner = TestRunner::new(config);
        // one draw from the case's own stream: tame or wild, and how noisy
        let (is_wild, noise) = {
            let mut r =
                TestRunner::new(Config { rng_seed: RngSeed::Fixed(case_seed ^ 1), ..Config::default() });
            let w = prop::bool::weighted(s.wild).new_tree(&mut r).expect("bool").current();
            let n = prop_oneof![9 => Just(0u8), 7 => Just(1u8), 4 => Just(2u8)]
                .new_tree(&mut r)
                .expect("noise")
                .current();
            (w, n)
        };
        let strategy = &strategies[usize::from(is_wild) * 3 + usize::from(noise)];
        let mut tree = strategy.new_tree(&mut runner).expect("generate a case");
        let case = tree.current();
        let case_id =
            format!("{i} (seed {case_seed:#x}, noise {noise}{})", if is_wild { ", wild" } else { "" });
        stats.cases += 1;
        stats.scenarios += u64::from(matches!(case, Case::Scenario { .. }));
        stats.wild_cases += u64::from(is_wild);
        *stats.by_origin.entry(case.origin().to_string()).or_default() += 1;
        if let Some(dump) = std::env::var_os("FAIRSIM_FUZZ_DUMP") {
            // debugging aid: every case as it was written
            let d = Path::new(&dump).join(format!("case-{i}"));
            for (p, bytes) in layout(&case, None, "", "out").files {
                std::fs::create_dir_all(d.join(&p).parent().unwrap()).unwrap();
                std::fs::write(d.join(p), bytes).unwrap();
            }
        }
        let outcomes = execute(&s, &case, s.timeout);
        stats.commands += outcomes.len() as u64;
        stats.checked += u64::from(outcomes.iter().any(|o| o.command == "check"));
        for o in outcomes {
            if verbose {
                let first = o.stderr.lines().next().unwrap_or("").chars().take(200).collect::<String>();
                eprintln!(
                    "case {case_id} {} {:?} {:.2}s: {first}",
                    o.command,
                    o.code,
                    o.elapsed.as_secs_f64()
                );
            }
            match o.code {
                Some(0) if o.class.is_none() => stats.exit0 += 1,
                Some(2) if o.class.is_none() => stats.exit2 += 1,
                _ => {}
            }
            note_no_place(&mut stats, &o);
            let Some(class) = o.class else { continue };
            let k = (class, o.key.clone());
            if let Some(f) = findings.get_mut(&k) {
                f.count += 1;
                if case.size() < f.case.size() {
                    f.case = case.clone();
                    f.outcome = o;
                    f.case_id = case_id.clone();
                    f.shrunk = false;
                    write_finding(&s, f);
                }
                continue;
            }
            eprintln!(
                "fuzz: case {case_id}: new {} {} ({:.1} s)",
                class.name(),
                o.key,
                o.elapsed.as_secs_f64()
            );
            let mut f = Finding {
                class,
                key: o.key.clone(),
                count: 1,
                case: case.clone(),
                outcome: o.clone(),
                case_id: case_id.clone(),
                shrunk: false,
            };
            if matches!(class, Class::Panic | Class::Exit | Class::Check | Class::Disagree) {
                let small = shrink(&s, &mut tree, class, &o.key, o.elapsed);
                if small.size() < f.case.size() {
                    if let Some(o2) = execute(&s, &small, s.timeout)
                        .into_iter()
                        .find(|x| x.class == Some(class) && x.key == o.key)
                    {
                        f.case = small;
                        f.outcome = o2;
                        f.shrunk = true;
                    }
                }
            }
            write_finding(&s, &f);
            findings.insert(k, f);
        }
        i += 1;
        if s.long && last_report.elapsed() > Duration::from_secs(60) {
            last_report = Instant::now();
            eprintln!(
                "fuzz: {:.0} s, {} cases, {} commands, {} causes",
                start.elapsed().as_secs_f64(),
                stats.cases,
                stats.commands,
                findings.len()
            );
        }
    }
    let elapsed = start.elapsed().as_secs_f64();

    let mut report = String::new();
    let _ = writeln!(
        report,
        "fuzz run: seed {:#x}, binary {}\n{} inputs ({} wild) in {:.0} s, {} commands: {} exit 0, {} exit 2",
        s.seed,
        s.bin.display(),
        stats.cases,
        stats.wild_cases,
        elapsed,
        stats.commands,
        stats.exit0,
        stats.exit2
    );
    for (origin, n) in &stats.by_origin {
        let _ = writeln!(report, "  {n:6} {origin}");
    }
    let mut per_class: BTreeMap<Class, (usize, u64)> = BTreeMap::new();
    for f in findings.values() {
        let e = per_class.entry(f.class).or_default();
        e.0 += 1;
        e.1 += f.count;
    }
    // the four counts the acceptance run is judged by, in occurrences
    let times = |c: Class| per_class.get(&c).map_or(0, |x| x.1);
    let _ = writeln!(
        report,
        "acceptance counts over {} scenarios ({} checked): {} panics, {} hangs, {} check failures on fairsim's own output, {} validate/run disagreements ({} memory, {} other exits)",
        stats.scenarios,
        stats.checked,
        times(Class::Panic),
        times(Class::Hang),
        times(Class::Check),
        times(Class::Disagree),
        times(Class::Memory),
        times(Class::Exit)
    );
    let _ = writeln!(report, "findings by class (causes, occurrences):");
    for (c, (n, k)) in &per_class {
        let _ = writeln!(report, "  {:7} {n} causes, {k} times", c.name());
    }
    let _ = writeln!(report);
    for f in findings.values() {
        let _ = writeln!(report, "{}", describe(&s, f));
    }
    if !stats.no_place.is_empty() {
        let _ = writeln!(report, "## exit-2 messages that name a file but no line (informational)");
        for (m, n) in &stats.no_place {
            let _ = writeln!(report, "  {n:5}  {m}");
        }
    }
    eprintln!("{report}");
    if s.cases.is_none() || s.long {
        std::fs::create_dir_all(&s.findings).unwrap();
    }
    if s.findings.is_dir() {
        // the report is kept in the repository: no path of this machine
        std::fs::write(s.findings.join("last-run.txt"), fuzz::findings::machine_free(&report)).unwrap();
    }

    let panics: Vec<&Finding> = findings.values().filter(|f| f.class == Class::Panic).collect();
    assert!(
        panics.is_empty(),
        "{} input(s) made fairsim panic or die by a signal (details above, inputs in {}):\n{}",
        panics.len(),
        s.findings.display(),
        panics.iter().map(|f| format!("  {}", f.key)).collect::<Vec<_>>().join("\n")
    );
}

/// The inputs kept for defects found by independent checks that the
/// fuzzer's classes can see (a hang, unbounded slices, check failures on
/// fairsim's own output, a validate/run disagreement), each with the class the fuzzer
/// must give it, so that a fuzzer which could no longer tell them (a
/// check command dropped, a disagreement not compared) fails here. Ignored:
/// it passes only while those defects are open, and its failures then
/// name the ones fixed.
#[test]
#[ignore = "passes only while the kept defects are open"]
fn the_fuzzer_flags_the_kept_defect_inputs() {
    use fuzz::cases::Flags;
    let s = Settings::from_env();
    let flags = Flags {
        quiet: true,
        json: false,
        audit: false,
        seed: None,
        skip_bad_rows: false,
        policy: None,
        trace_format: None,
    };
    let known: [(&str, Class, &str); 7] = [
        (
            "a retry budget over failing sliced jobs",
            Class::Hang,
            "workers: 1\nworkload:\n  - {tenant: B, count: 4, at: 1s, service: 2.5s, failure: {probability: 0.4}, slice: 650ms}\n  - {tenant: A, arrivals: {every: 2.5s, count: 20}, service: 3s}\nretry:\n  budget: {limit: 2, window: 15s}\n",
        ),
        ("a million 1us slices", Class::Hang, "workers: 1\nworkload: [{tenant: A, count: 10000, service: 1s, slice: 1us}]\n"),
        (
            "caps: lend with a slowdown",
            Class::Check,
            "workers: 3\ntenants: {A: {cap: 1}, B: {cap: 1}}\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n  - {tenant: A, count: 1, at: 500ms, service: 1s}\n  - {tenant: B, count: 6, at: 1ms, service: 2s}\nslowdowns: [{from: 0s, to: 1ms, factor: 10, tenant: A}]\n",
        ),
        (
            "workers: reserve preempting slices",
            Class::Check,
            "workers: 2\nclasses: {hi: {priority: 1}}\nworkload:\n  - {tenant: B, count: 2, service: 10s, slice: 5s}\n  - {tenant: A, class: hi, count: 1, at: 1s, service: 1s}\npolicies: [{policy: reserve, class: hi, workers: 1, preempt: restart}]\n",
        ),
        (
            "ends-once: killed then expired",
            Class::Check,
            "workers: 2\ncapacity: [{at: 1s, workers: 1, loss: kill}]\nworkload: [{tenant: A, count: 2, service: 5s, deadline: 6s}]\npolicies: [{policy: edf, late: drop}]\n",
        ),
        (
            "reserve over a topology's pool",
            Class::Disagree,
            "workers: 4\nclasses: {hi: {}}\nworkload: [{tenant: A, class: hi, count: 2, service: 1s}]\ntopologies:\n  t: {queues: [q], pools: [{name: p, workers: 3, queues: [q]}]}\npolicies: [{policy: reserve, class: hi, workers: 4, topology: t}]\n",
        ),
        (
            "arrivals past the horizon",
            Class::Disagree,
            "workers: 1\nworkload: [{tenant: A, arrivals: {every: 100000d, count: 3}, service: 1s}]\n",
        ),
    ];
    let mut wrong = Vec::new();
    for (item, class, yaml) in known {
        let case = Case::Scenario {
            origin: item.into(),
            yaml: yaml.as_bytes().to_vec(),
            traces: Vec::new(),
            shipped_traces: false,
            flags: flags.clone(),
        };
        let got: Vec<(Class, String)> =
            execute(&s, &case, s.timeout).into_iter().filter_map(|o| o.class.map(|c| (c, o.key))).collect();
        eprintln!("{item}: {got:?}");
        if !got.iter().any(|(c, _)| *c == class) {
            wrong.push(format!("{item}: expected {}, got {got:?}", class.name()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

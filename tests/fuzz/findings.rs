//! Findings kept across runs (the smallest input of each cause), the report's
//! text, and proptest shrinking of a PANIC or EXIT input.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use proptest::strategy::ValueTree;

use super::cases::Case;
use super::keys::normalize;
use super::layout::layout;
use super::runner::{execute, Class, Outcome};
use super::settings::Settings;

pub struct Finding {
    pub class: Class,
    pub key: String,
    pub count: u64,
    pub case: Case,
    pub outcome: Outcome,
    pub case_id: String,
    pub shrunk: bool,
}

fn stem_of(class: Class, key: &str) -> String {
    let mut slug = String::new();
    for c in key.chars() {
        let c = if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' };
        if !(c == '-' && slug.ends_with('-')) {
            slug.push(c);
        }
    }
    let slug: String = slug.trim_matches('-').chars().take(60).collect();
    // FNV-1a, so two keys with the same 60-character slug stay apart
    let mut h: u32 = 0x811c_9dc5;
    for b in key.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    format!("{}-{}-{:06x}", class.name(), slug.trim_end_matches('-'), h & 0xff_ffff)
}

/// `text` with this machine's paths made portable: the repository's own
/// prefix removed (paths become repository-relative), the cargo registry
/// and the temporary folder named generically.
pub fn machine_free(text: &str) -> String {
    let repo = format!("{}/", env!("CARGO_MANIFEST_DIR"));
    let mut out = text.replace(&repo, "");
    let tmp = std::env::temp_dir();
    let tmp = tmp.to_string_lossy();
    out = out.replace(&format!("{}/", tmp.trim_end_matches('/')), "$TMPDIR/");
    if let Some(home) = std::env::var_os("CARGO_HOME").or_else(|| {
        std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cargo").into_os_string())
    }) {
        out = out.replace(&format!("{}/", home.to_string_lossy()), "$CARGO_HOME/");
    }
    out
}

/// The command line of a finding, runnable from the repository root.
fn command_line(s: &Settings, f: &Finding) -> String {
    let shown = layout(&f.case, Some(&stem_of(f.class, &f.key)), &shown_dir(s), "/tmp/fairsim-fuzz-out");
    // a check failure needs the full run before it
    let wanted: &[&str] =
        if f.outcome.command == "check" { &["full", "check"] } else { &[f.outcome.command] };
    let lines: Vec<String> = wanted
        .iter()
        .filter_map(|w| shown.commands.iter().find(|(c, _)| c == w))
        .map(|(_, a)| quote(a))
        .collect();
    lines.join(" && ")
}

fn quote(args: &[String]) -> String {
    let quoted: Vec<String> = args
        .iter()
        .map(|a| {
            if a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:".contains(c)) {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''").replace('\0', "\\0"))
            }
        })
        .collect();
    format!("fairsim {}", quoted.join(" "))
}

fn shown_dir(s: &Settings) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    s.findings.strip_prefix(root).unwrap_or(&s.findings).display().to_string()
}

/// Writes the input of a finding under its stem, unless a smaller input
/// of the same cause (from this run or an earlier one) is already there.
pub fn write_finding(s: &Settings, f: &Finding) {
    let stem = stem_of(f.class, &f.key);
    std::fs::create_dir_all(&s.findings).expect("findings folder");
    let kept: Vec<PathBuf> = std::fs::read_dir(&s.findings)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(&format!("{stem}.")))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    let kept_size: u64 = kept.iter().filter_map(|p| p.metadata().ok()).map(|m| m.len()).sum();
    if !kept.is_empty() && kept_size <= f.case.size() as u64 {
        return;
    }
    for p in kept {
        let _ = std::fs::remove_file(p);
    }
    let l = layout(&f.case, Some(&stem), "", "/tmp/fairsim-fuzz-out");
    for (p, bytes) in &l.files {
        let path = s.findings.join(p);
        if p.starts_with("traces") && path.exists() {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, bytes).unwrap();
    }
}

pub fn describe(s: &Settings, f: &Finding) -> String {
    let o = &f.outcome;
    let mut d = String::new();
    let _ = writeln!(d, "## {} {}", f.class.name(), f.key);
    let _ = writeln!(
        d,
        "seen {} times; first input: case {} ({}){}",
        f.count,
        f.case_id,
        f.case.origin(),
        if f.shrunk { ", shrunk by proptest" } else { "" }
    );
    let _ = writeln!(
        d,
        "files: {}/{}.*  (this run's input: {} bytes; a smaller one kept from an earlier run stays)",
        shown_dir(s),
        stem_of(f.class, &f.key),
        f.case.size()
    );
    let _ = writeln!(d, "command: {}", command_line(s, f));
    let status = match (o.code, o.signal) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(sig)) => format!("signal {sig}"),
        _ => "killed by the fuzzer".into(),
    };
    let _ = writeln!(
        d,
        "outcome: {status} after {:.2} s, peak RSS {} MiB",
        o.elapsed.as_secs_f64(),
        o.peak_rss_kb / 1024
    );
    let err: String = o.stderr.chars().take(1200).collect();
    if !err.trim().is_empty() {
        let _ = writeln!(d, "stderr:\n    {}", err.trim_end().replace('\n', "\n    "));
    }
    if !o.stack.is_empty() {
        // the signal handler's thread (ctrlc) names a fairsim closure in
        // every frame and says nothing about where the work was
        let frames: Vec<&str> = o
            .stack
            .split("\nThread")
            .filter(|t| !t.contains("ctrlc::"))
            .flat_map(str::lines)
            .filter(|l| l.starts_with('#') && l.contains("fairsim::"))
            .take(12)
            .collect();
        let _ = writeln!(d, "stack:\n    {}", frames.join("\n    "));
    }
    d
}

/// Shrinks a PANIC or EXIT input with proptest while the same cause shows.
pub fn shrink(
    s: &Settings,
    tree: &mut dyn ValueTree<Value = Case>,
    class: Class,
    key: &str,
    took: Duration,
) -> Case {
    let timeout = (took * 3 + Duration::from_secs(2)).min(s.timeout);
    let deadline = Instant::now() + s.shrink_budget;
    let mut best = tree.current();
    if !tree.simplify() {
        return best;
    }
    let mut steps = 0;
    while Instant::now() < deadline && steps < 500 {
        steps += 1;
        let c = tree.current();
        let same = execute(s, &c, timeout).iter().any(|o| o.class == Some(class) && o.key == key);
        let more = if same {
            best = c;
            tree.simplify()
        } else {
            tree.complicate()
        };
        if !more {
            break;
        }
    }
    best
}

#[derive(Default)]
pub struct Stats {
    pub cases: u64,
    /// cases that are a scenario file (validated, run, and checked when both pass)
    pub scenarios: u64,
    /// scenarios whose full logs went through `check`
    pub checked: u64,
    pub wild_cases: u64,
    pub commands: u64,
    pub exit0: u64,
    pub exit2: u64,
    pub by_origin: BTreeMap<String, u64>,
    /// exit-2 messages that name no line (errors that name no place)
    pub no_place: BTreeMap<String, u64>,
}

pub fn note_no_place(stats: &mut Stats, o: &Outcome) {
    if o.code != Some(2) {
        return;
    }
    let first = o.stderr.lines().next().unwrap_or("");
    let Some(rest) = first.strip_prefix("error: ") else { return };
    // `FILE:LINE:...` names a place; `FILE: ...` does not
    if let Some((file, tail)) = rest.split_once(": ") {
        let has_line =
            file.rsplit(':').next().is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if !has_line && (file.ends_with(".yaml") || file.ends_with(".csv") || file.ends_with(".swf")) {
            *stats.no_place.entry(normalize(tail, 70)).or_default() += 1;
        }
    }
}

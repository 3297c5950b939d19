//! Every command a reader would paste from the README and docs/ runs.
//!
//! The fenced `sh` blocks of README.md and docs/*.md are commands to paste;
//! synopses with placeholders (`SCENARIO`, `[--jobs N]`) go in `text`
//! blocks, and every fence names its language, so a command cannot hide in
//! an untagged block. Each `fairsim ...` line of an `sh` block (and each
//! `cargo run --release -- ...`, which is `fairsim` built from the
//! repository) runs through `sh` with `fairsim` on `PATH` as the binary
//! under test, in a scratch folder per document that sees the repository's
//! `scenarios/`, `deploy/` and `tests/data/`: what a command writes by
//! default (`output/NAME/`) or to a relative `--out` lands there, and a
//! later command of the same document finds it, as it would for a reader
//! going down the page. A line exits 0 unless its comment says `# exits N`.
//! Other lines (`cargo test`, `kubectl`, `python3`) are not run.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The documents a reader pastes from.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    docs.insert(0, root.join("README.md"));
    docs
}

/// A fenced block: its language and its lines with their 1-based numbers.
struct Block {
    lang: String,
    start: usize,
    lines: Vec<(usize, String)>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if let Some(info) = t.strip_prefix("```") {
            match open.take() {
                Some(b) => out.push(b),
                None => open = Some(Block { lang: info.trim().to_string(), start: i + 1, lines: Vec::new() }),
            }
        } else if let Some(b) = open.as_mut() {
            b.lines.push((i + 1, line.to_string()));
        }
    }
    out
}

/// A command of an `sh` block: lines joined at trailing backslashes.
struct Cmd {
    line: usize,
    text: String,
    expect: i32,
}

/// The `fairsim` commands of a block, with `cargo run --release --` as `fairsim`.
fn commands(b: &Block) -> Vec<Cmd> {
    let mut logical: Vec<(usize, String)> = Vec::new();
    let mut cont = false;
    for (n, l) in &b.lines {
        let piece = l.trim_end();
        let (body, more) = match piece.strip_suffix('\\') {
            Some(p) => (p.to_string(), true),
            None => (piece.to_string(), false),
        };
        if cont {
            let last = logical.last_mut().expect("a line to continue");
            last.1.push(' ');
            last.1.push_str(body.trim());
        } else {
            logical.push((*n, body.trim().to_string()));
        }
        cont = more;
    }
    let mut out = Vec::new();
    for (line, text) in logical {
        // leading variable assignments (`NO_COLOR=1 fairsim ...`) stay in the command
        let words: Vec<&str> = text.split_whitespace().collect();
        let first = words.iter().position(|w| !w.contains('=') || w.starts_with('-')).unwrap_or(0);
        let rest = words[first..].join(" ");
        let text = if let Some(args) = rest.strip_prefix("cargo run --release -- ") {
            let prefix = words[..first].join(" ");
            format!("{prefix} fairsim {args}").trim().to_string()
        } else if rest == "fairsim" || rest.starts_with("fairsim ") {
            text
        } else {
            continue;
        };
        let expect = text
            .split("# exits ")
            .nth(1)
            .and_then(|n| n.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        out.push(Cmd { line, text, expect });
    }
    out
}

/// A scratch folder that sees the repository's inputs, with `fairsim` on its `PATH`.
fn scratch(root: &Path) -> tempfile::TempDir {
    let dir = tempfile::Builder::new().prefix("fairsim-doc-").tempdir().expect("temp dir");
    for input in ["scenarios", "deploy"] {
        std::os::unix::fs::symlink(root.join(input), dir.path().join(input)).expect("link input");
    }
    std::fs::create_dir_all(dir.path().join("tests")).expect("tests/");
    std::os::unix::fs::symlink(root.join("tests/data"), dir.path().join("tests/data")).expect("link data");
    std::fs::create_dir(dir.path().join(".bin")).expect(".bin/");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_fairsim"), dir.path().join(".bin/fairsim"))
        .expect("link fairsim");
    dir
}

/// Runs one command; its exit code (None on a timeout) and its stderr.
fn run(dir: &Path, text: &str) -> (Option<i32>, String) {
    let path = format!("{}:{}", dir.join(".bin").display(), std::env::var("PATH").unwrap_or_default());
    let err = dir.join(".stderr");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(text)
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err).expect("stderr file"))
        .spawn()
        .expect("sh");
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s.code();
        }
        if started.elapsed() > Duration::from_secs(600) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = std::fs::read_to_string(&err).unwrap_or_default();
    let tail: Vec<&str> = stderr.lines().rev().take(6).collect();
    (status, tail.into_iter().rev().collect::<Vec<_>>().join("\n"))
}

#[test]
fn every_command_of_the_docs_runs_as_pasted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    let mut ran = 0;
    for doc in documents(root) {
        let name = doc.strip_prefix(root).expect("in the repository").display().to_string();
        let text = std::fs::read_to_string(&doc).expect("read document");
        let bs = blocks(&text);
        for b in bs.iter().filter(|b| b.lang.is_empty()) {
            failures.push(format!(
                "{name}:{}: a fenced block without a language: `sh` for commands to paste, `text` for synopses and output",
                b.start
            ));
        }
        let cmds: Vec<Cmd> = bs.iter().filter(|b| b.lang == "sh").flat_map(commands).collect();
        if cmds.is_empty() {
            continue;
        }
        let dir = scratch(root);
        for c in cmds {
            ran += 1;
            let (code, stderr) = run(dir.path(), &c.text);
            if code != Some(c.expect) {
                let got = code.map_or("a timeout".to_string(), |c| format!("exit {c}"));
                failures
                    .push(format!("{name}:{}: `{}` gave {got}, not {}:\n{stderr}", c.line, c.text, c.expect));
            }
        }
    }
    eprintln!("ran {ran} commands of the README and docs/");
    assert!(ran >= 20, "only {ran} commands found: is the extraction broken?");
    assert!(failures.is_empty(), "{} failures:\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn extraction_joins_continuations_and_maps_cargo_run() {
    let text = "```sh\nfairsim run a.yaml \\\n    --out x   # a comment\ncargo test --release\ncargo run --release -- validate b.yaml\nfairsim check x   # exits 1\n```\n";
    let bs = blocks(text);
    assert_eq!(bs.len(), 1);
    let cs = commands(&bs[0]);
    let got: Vec<(usize, &str, i32)> = cs.iter().map(|c| (c.line, c.text.as_str(), c.expect)).collect();
    assert_eq!(
        got,
        [
            (2, "fairsim run a.yaml --out x   # a comment", 0),
            (5, "fairsim validate b.yaml", 0),
            (6, "fairsim check x   # exits 1", 1)
        ]
    );
}

//! The module layering of docs/architecture.md: each stage imports only
//! the stages before it, so there is no import circle. Read from the source
//! (comments and test modules aside), so a new import that closes a circle
//! fails here. Also the size rule: no source file past about 600 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module -> the top-level modules its code names as `crate::X`.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src is readable") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "bin") {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            // a test module kept in a file of its own (`#[cfg(test)] #[path]`):
            // tests may build scenarios from text, whatever the stage
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            if stem == "tests" || stem.ends_with("_tests") {
                continue;
            }
            let rel = path.strip_prefix(&src).expect("under src");
            let top =
                rel.iter().next().expect("a name").to_string_lossy().trim_end_matches(".rs").to_string();
            let text = std::fs::read_to_string(&path).expect("readable");
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            let deps = out.entry(top.clone()).or_default();
            for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
                for (i, _) in line.match_indices("crate::") {
                    let name: String =
                        line[i + 7..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    if !name.is_empty() && name != top {
                        deps.insert(name);
                    }
                }
            }
        }
    }
    out
}

#[test]
fn stages_import_only_earlier_stages() {
    // the order of the data flow; utilities (time, error, prefetch,
    // quad_heap, huge_pages) may be used by any stage
    let order = [
        "model",
        "core",
        "workload",
        "admission",
        "policy",
        "topology",
        "accounting",
        "engine",
        "scenario",
        "results",
        "output",
        "check",
        "explain",
        "run",
        "calibrate",
        "sweep",
        "tune",
        "cli",
    ];
    let rank = |m: &str| order.iter().position(|o| *o == m);
    let graph = imports();
    for (module, deps) in &graph {
        let Some(r) = rank(module) else { continue };
        for d in deps {
            if let Some(rd) = rank(d) {
                assert!(rd < r, "`{module}` imports `{d}`, a later stage: an import circle in the making");
            }
        }
    }
    // the shared layer and the model stay at the bottom
    assert!(graph["model"].iter().all(|d| rank(d).is_none()), "model: {:?}", graph["model"]);
    assert_eq!(graph["core"].iter().filter(|d| rank(d).is_some()).collect::<Vec<_>>(), ["model"]);
    assert!(!graph["policy"].contains("engine") && !graph["accounting"].contains("engine"));
}

/// "No source file past about 600 lines": the hard line is 650, so a file
/// that grows past it is split (by responsibility) before it lands.
const MAX_LINES: usize = 650;

#[test]
fn no_source_file_is_past_the_size_limit() {
    let mut stack = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))];
    let mut checked = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("source folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let lines = std::fs::read_to_string(&path).expect("source file").lines().count();
                assert!(
                    lines <= MAX_LINES,
                    "{} has {lines} lines; split it by responsibility",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "found only {checked} source files");
}

/// The scenario's model and its `sweep:` block share `NamedMap` through a
/// module of their own (scenario/named_map.rs): raw.rs names raw_sweep.rs
/// for the block, and raw_sweep.rs must not name raw.rs back, which was the
/// one import circle between two files.
#[test]
fn the_sweep_block_model_does_not_import_the_scenario_model() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/scenario");
    let code = |f: &str| {
        let text = std::fs::read_to_string(dir.join(f)).expect("readable");
        let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
        code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
    };
    let sweep = code("raw_sweep.rs");
    assert!(!sweep.contains("raw::") && !sweep.contains("scenario::raw"), "raw_sweep.rs imports raw.rs");
    assert!(code("raw.rs").contains("raw_sweep::"), "raw.rs no longer reads the sweep block");
    assert!(code("named_map.rs").lines().all(|l| !l.contains("super::")), "named_map.rs imports a sibling");
}

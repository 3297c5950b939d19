//! The scenario loader's fast YAML reader (src/scenario/yaml_subset/)
//! against serde-saphyr, the full parser it stands in for.
//!
//! The contract: whenever the subset reader returns a value, serde-saphyr
//! reads the same text to the same value, every line and column included
//! (fairsim's errors quote them); otherwise the subset reader returns
//! nothing and the loader uses serde-saphyr. Checked on every shipped
//! scenario, every YAML example of the docs, the fuzzer's findings, and a
//! few thousand scenarios generated and mutated by the fuzzer's strategies;
//! and a list of constructs outside the subset must be declined.

#[allow(dead_code)]
mod fuzz;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngSeed, TestRunner};

use fairsim::scenario::raw::RawScenario;
use fairsim::scenario::yaml_subset;
use fuzz::cases::{case_strategy, Case, Shipped};

/// `Debug` of a scenario without serde-saphyr's byte spans and source ids:
/// fairsim reads lines and columns only, and the subset reader fills in
/// nothing else.
fn shape(raw: &RawScenario) -> String {
    let full = format!("{raw:?}");
    let mut out = String::with_capacity(full.len());
    let mut rest = full.as_str();
    while let Some(i) = rest.find(", span: Span {") {
        out.push_str(&rest[..i]);
        // `, span: Span { offset: .., len: .., byte_info: (.., ..) }, source_id: N`
        let after = &rest[i..];
        let span_end = after.find('}').expect("closed") + 1;
        let after = &after[span_end..];
        let id_end = after
            .strip_prefix(", source_id: ")
            .map_or(0, |a| ", source_id: ".len() + a.find(' ').expect("ended"));
        rest = &after[id_end..];
    }
    out.push_str(rest);
    out
}

/// Whether the subset reader read `text`; panics if it read it otherwise
/// than serde-saphyr does.
fn agrees(text: &str, origin: &str) -> bool {
    let Some(fast) = yaml_subset::from_str::<RawScenario>(text) else {
        return false;
    };
    let slow = match serde_saphyr::from_str::<RawScenario>(text) {
        Ok(slow) => slow,
        Err(e) => panic!("{origin}: the subset reader accepted a text serde-saphyr refuses ({e}):\n{text}"),
    };
    assert_eq!(shape(&fast), shape(&slow), "{origin}: the readers disagree on\n{text}");
    true
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml") {
            out.push(p);
        }
    }
}

/// The ```yaml blocks of a markdown file.
fn yaml_blocks(md: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut lines = md.lines();
    while let Some(l) = lines.next() {
        if l.trim_start() == "```yaml" {
            let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim_start() != "```").collect();
            blocks.push(block.join("\n") + "\n");
        }
    }
    blocks
}

#[test]
fn every_shipped_scenario_and_doc_example_reads_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["scenarios", "tests/fuzz-findings", "tests/invariants"] {
        yaml_files(&root.join(dir), &mut files);
    }
    let mut declined = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        if !agrees(&text, &f.display().to_string()) {
            declined.push(f.strip_prefix(root).unwrap().display().to_string());
        }
    }
    // every scenario the project ships is inside the subset, the benchmark's
    // 10,000-entry file included
    let shipped: Vec<&String> = declined.iter().filter(|f| f.starts_with("scenarios")).collect();
    assert!(shipped.is_empty(), "shipped scenarios outside the subset: {shipped:?}");
    let mut examples = 0;
    let mut read = 0;
    for md in ["README.md", "docs/scenario.md", "docs/policies.md", "docs/sweep.md"] {
        for (i, block) in yaml_blocks(&std::fs::read_to_string(root.join(md)).unwrap()).iter().enumerate() {
            examples += 1;
            read += usize::from(agrees(block, &format!("{md} example {i}")));
        }
    }
    eprintln!(
        "{} files ({} outside the subset: {declined:?}); {examples} doc examples, {read} read by the subset reader",
        files.len(),
        declined.len()
    );
    assert!(examples >= 30 && read * 2 >= examples, "{read} of {examples} doc examples read");
}

#[test]
fn generated_and_mutated_scenarios_read_the_same() {
    let shipped = Arc::new(Shipped::load());
    let (mut cases, mut read) = (0, 0);
    for k in 0..6u64 {
        let strategy = case_strategy(shipped.clone(), k >= 3, (k % 3) as u8);
        let config = Config { rng_seed: RngSeed::Fixed(0x5eed_0000 + k), ..Config::default() };
        let mut runner = TestRunner::new(config);
        for _ in 0..800 {
            let case = strategy.new_tree(&mut runner).expect("a case").current();
            let (Case::Scenario { origin, yaml, .. } | Case::Trace { origin, base: yaml, .. }) = case;
            let Ok(text) = String::from_utf8(yaml) else { continue };
            cases += 1;
            read += usize::from(agrees(&text, &origin));
        }
    }
    eprintln!("{cases} generated scenarios, {read} read by the subset reader");
    // the generator writes both flow and block forms, clean and broken: a
    // good share must stay inside the subset for this test to mean anything
    assert!(read * 5 >= cases, "only {read} of {cases} read by the subset reader");
}

const BASE: &str = "workers: 2\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n";

#[test]
fn constructs_outside_the_subset_are_left_to_serde_saphyr() {
    let outside = [
        // anchors, aliases, tags, merge keys
        "workers: &w 2\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "workers: !!int 2\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "workers: 2\nworkload:\n  - &e {tenant: A, count: 3, service: 1s}\n  - *e\n",
        // block scalars, multi-line plain and quoted scalars, escapes
        "name: |\n  two\n  lines\nworkers: 2\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "name: two\n  lines\nworkers: 2\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "name: \"a\\tb\"\nworkers: 2\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "name: 'it''s'\nworkers: 2\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        // numbers, booleans and nulls in spellings serde-saphyr reads its own way
        "workers: 0x2\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "workers: 2\nworkload:\n  - {tenant: A, count: 1_000, service: 1s}\n",
        "workers: 2\nworkload:\n  - {tenant: A, count: 3, service: 1e0}\n",
        "workers: 2\nname: yes\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "workers: 2\nname: ~\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "workers: 2\nname:\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        // layout: tabs, CRLF, a BOM, document markers, `?` keys, flow key on its own line
        "workers:\t2\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "workers: 2\r\nworkload:\r\n  - {tenant: A, count: 3, service: 1s}\r\n",
        "\u{feff}workers: 2\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "---\nworkers: 2\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "? workers\n: 2\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "workers: 2\nworkload:\n  - {tenant: A, count: 3, service: 1s,}\n",
        "workers: 2\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n  -\n    {tenant: B, count: 1, service: 1s}\n",
        // a flow collection continued at the indentation of its key
        "workers: 2\nworkload: [{tenant: A, count: 3,\nservice: 1s}]\n",
    ];
    for text in outside {
        assert!(serde_saphyr::from_str::<RawScenario>(text).is_ok(), "serde-saphyr refuses\n{text}");
        assert!(yaml_subset::from_str::<RawScenario>(text).is_none(), "the subset reader read\n{text}");
    }
    // and errors are never its business: an unknown key, a duplicate key, a
    // wrong type, a broken flow mapping
    let broken = [
        "workers: 2\nwork_load: []\n",
        "workers: 2\nworkers: 3\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "workers: 02\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "workers: [2]\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n",
        "workers: 2\nworkload:\n  - {tenant: A, count: 3, service: 1s\n",
    ];
    for text in broken {
        assert!(yaml_subset::from_str::<RawScenario>(text).is_none(), "the subset reader read\n{text}");
    }
    // past serde-saphyr's budget of 250,000 nodes: its refusal must stand
    // (a fuzzed scenario with 40,000 repeated policy lines found this)
    let many = format!("{BASE}policies:\n{}", "  - {policy: drr, label: x}\n".repeat(50_000));
    assert!(serde_saphyr::from_str::<RawScenario>(&many).is_err());
    assert!(yaml_subset::from_str::<RawScenario>(&many).is_none());
    assert!(agrees(BASE, "base"));
}

/// Lines and columns of the forms the subset covers, counted by hand: a
/// block mapping is where its first key is, a block sequence where its
/// first dash is, a flow collection where its bracket is, a quoted scalar
/// where its opening quote is; columns count characters, not bytes.
#[test]
fn locations_are_where_serde_saphyr_puts_them() {
    let text = "# é comment\nname: 'é x'\nworkers: 2\nworkload:\n- tenant: \"é\"\n  count: 3\n  service: {exponential: 1s}\n-   {tenant: B,\n     count: 4, service: 2s}\npolicies: [fifo,\n  drr]\n";
    assert!(agrees(text, "locations"));
    let raw: RawScenario = yaml_subset::from_str(text).unwrap();
    let at = |l: &serde_saphyr::Location| (l.line(), l.column());
    assert_eq!(at(&raw.name.as_ref().unwrap().referenced), (2, 7));
    let w = raw.workload.as_ref().unwrap();
    // a sequence at its key's indentation starts at its first item's content
    assert_eq!(at(&w.referenced), (5, 3));
    assert_eq!(at(&w.value[0].referenced), (5, 3));
    assert_eq!(at(&w.value[0].value.tenant.as_ref().unwrap().referenced), (5, 11));
    assert_eq!(at(&w.value[0].value.service.as_ref().unwrap().referenced), (7, 12));
    assert_eq!(at(&w.value[1].referenced), (8, 5));
    assert_eq!(at(&w.value[1].value.count.as_ref().unwrap().referenced), (9, 13));
    let p = raw.policies.as_ref().unwrap();
    assert_eq!((at(&p.referenced), at(&p.value[1].referenced)), ((10, 11), (11, 3)));
}

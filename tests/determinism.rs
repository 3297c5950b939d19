//! Same scenario + same seed = byte-identical outputs; every policy sees the
//! same arrivals and service times (common random numbers).

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::*;

/// `files(dir)`, without the provenance (command, date) that differs between runs.
fn folder_bytes(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    files(dir)
        .into_iter()
        .map(|(rel, bytes)| {
            let bytes = match rel.as_str() {
                "fairsim-results.json" => without_provenance(&bytes),
                "report.html" => without_provenance_line(&bytes),
                _ => bytes,
            };
            (rel, bytes)
        })
        .collect()
}

/// The record of a run less what differs between two runs of the same
/// scenario by design: when, into which folder, with which command line.
fn without_provenance(json: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(json);
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !["  \"command\":", "  \"started\":", "  \"out\":"].iter().any(|k| l.starts_with(k)))
        .collect();
    assert_eq!(text.lines().count(), kept.len() + 3, "the record names its command, date and folder");
    kept.join("\n").into_bytes()
}

/// report.html less its one provenance line (command and date).
fn without_provenance_line(html: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(html);
    let kept: Vec<&str> = text.lines().filter(|l| !l.starts_with("<p class=\"provenance\">")).collect();
    assert_eq!(text.lines().count(), kept.len() + 1, "the report shows its provenance on one line");
    kept.join("\n").into_bytes()
}

#[test]
fn two_runs_give_byte_identical_folders() {
    let tmp = tempdir();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run(&scenario("noisy-neighbor.yaml"), &a, &[]);
    run(&scenario("noisy-neighbor.yaml"), &b, &[]);
    let (fa, fb) = (folder_bytes(&a), folder_bytes(&b));
    assert!(fa.keys().any(|k| k.ends_with("ticks.csv")));
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    for (k, v) in &fa {
        assert!(v == &fb[k], "{k} differs between two runs");
    }
}

#[test]
fn a_different_seed_changes_the_arrivals() {
    let tmp = tempdir();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run(&scenario("noisy-neighbor.yaml"), &a, &["--policy", "fifo"]);
    run(&scenario("noisy-neighbor.yaml"), &b, &["--policy", "fifo", "--seed", "43"]);
    assert_ne!(
        std::fs::read(a.join("fifo/jobs.csv")).unwrap(),
        std::fs::read(b.join("fifo/jobs.csv")).unwrap()
    );
}

/// The arrival, tenant, class and service of every job id, from jobs.csv.
fn workload_columns(path: &Path) -> BTreeMap<u64, (String, String, String, String)> {
    read_csv(path)
        .into_iter()
        .map(|j| {
            (
                j["job"].parse().unwrap(),
                (j["tenant"].clone(), j["class"].clone(), j["arrival"].clone(), j["service"].clone()),
            )
        })
        .collect()
}

#[test]
fn every_policy_sees_identical_arrivals_and_service_times() {
    let tmp = tempdir();
    run(&scenario("noisy-neighbor.yaml"), tmp.path(), &[]);
    let fifo = workload_columns(&tmp.path().join("fifo/jobs.csv"));
    assert_eq!(fifo.len(), 7280);
    for label in ["round_robin", "priority"] {
        let other = workload_columns(&tmp.path().join(label).join("jobs.csv"));
        assert!(fifo == other, "{label} saw a different workload than fifo");
    }
}

#[test]
fn adding_a_workload_entry_leaves_the_other_entries_draws_alone() {
    let dir = tempdir();
    let base = "name: crn\nseed: 5\nworkers: 2\nworkload:\n  - {tenant: A, arrivals: {poisson: 1/s, count: 50}, service: {exponential: 1s}}\n";
    let more = format!(
        "{base}  - {{tenant: B, arrivals: {{poisson: 3/s, count: 50}}, service: {{exponential: 2s}}}}\n"
    );
    for (name, text) in [("one.yaml", base.to_string()), ("two.yaml", more)] {
        std::fs::write(dir.path().join(name), text).unwrap();
        run(&dir.path().join(name), &dir.path().join(name.replace(".yaml", "")), &[]);
    }
    let only_a = |p: &Path| -> Vec<(String, String)> {
        read_csv(p)
            .into_iter()
            .filter(|j| j["tenant"] == "A")
            .map(|j| (j["arrival"].clone(), j["service"].clone()))
            .collect()
    };
    let mut one = only_a(&dir.path().join("one/fifo/jobs.csv"));
    let mut two = only_a(&dir.path().join("two/fifo/jobs.csv"));
    one.sort();
    two.sort();
    assert_eq!(one.len(), 50);
    assert_eq!(one, two);
}

#[test]
fn the_echoed_scenario_notes_overrides_and_reproduces_the_run() {
    // a run with --seed and --policy; its folder's scenario.yaml must say so,
    // keep the original text above the note, and rerunning the echoed file
    // with the noted options must give the same summary byte for byte
    let tmp = tempdir();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let original = std::fs::read_to_string(scenario("noisy-neighbor.yaml")).unwrap();
    run(&scenario("noisy-neighbor.yaml"), &a, &["--seed", "7", "--policy", "fifo", "--no-plots"]);
    let echo = std::fs::read_to_string(a.join("scenario.yaml")).unwrap();
    assert!(echo.starts_with(&original), "the user's text comes first, unchanged");
    let note = &echo[original.len()..];
    assert!(
        note.contains("# To reproduce them: fairsim run scenario.yaml --seed 7 --policy fifo\n"),
        "{note}"
    );
    assert!(note.lines().all(|l| l.is_empty() || l.starts_with('#')), "only comments are added: {note}");
    run(&a.join("scenario.yaml"), &b, &["--seed", "7", "--policy", "fifo", "--no-plots"]);
    let summary = |d: &Path| std::fs::read(d.join("fifo").join("summary.csv")).unwrap();
    assert_eq!(summary(&a), summary(&b));
    // without overrides the echo is the file, byte for byte
    let c = tmp.path().join("c");
    run(&scenario("noisy-neighbor.yaml"), &c, &["--no-plots"]);
    assert_eq!(std::fs::read_to_string(c.join("scenario.yaml")).unwrap(), original);
}

/// `fairsim run` without `--audit` (which every other test here passes).
fn run_unaudited(scenario: &Path, out: &Path) {
    fairsim().arg("run").arg(scenario).arg("--out").arg(out).arg("--quiet").assert().success();
}

#[test]
fn the_event_loop_without_extras_gives_what_the_full_one_gives() {
    // A run that uses no timers, admission, capacity changes, slices and
    // the like takes a copy of the event loop compiled without their
    // checks; the audit (or any such feature) takes the full one. Both
    // must write the same folder, byte for byte.
    let tmp = tempdir();
    for name in ["noisy-neighbor.yaml", "abc-rotation.yaml"] {
        let (plain, full) =
            (tmp.path().join(format!("plain-{name}")), tmp.path().join(format!("full-{name}")));
        run_unaudited(&scenario(name), &plain);
        run(&scenario(name), &full, &[]);
        let (fp, ff) = (folder_bytes(&plain), folder_bytes(&full));
        assert_eq!(fp.keys().collect::<Vec<_>>(), ff.keys().collect::<Vec<_>>(), "{name}");
        for (k, v) in &fp {
            assert!(v == &ff[k], "{name}: {k} differs between the plain and the full event loop");
        }
    }
    // and the plain loop by hand: one worker, A sends two 1 s jobs and B
    // one, all at 0; round robin serves A, B, A, so the jobs start at 0, 1
    // and 2 s (job ids: A's are 0 and 1, B's is 2) and wait 0, 1 and 2 s
    let yaml = tmp.path().join("rr.yaml");
    std::fs::write(
        &yaml,
        "workers: 1\nworkload:\n  - {tenant: A, count: 2, service: 1s}\n  - {tenant: B, count: 1, service: 1s}\npolicies: [round_robin]\n",
    )
    .expect("write scenario");
    let out = tmp.path().join("rr");
    run_unaudited(&yaml, &out);
    let jobs = std::fs::read_to_string(out.join("round_robin/jobs.csv")).expect("jobs.csv");
    let starts: Vec<(String, String, String)> = jobs
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (c[0].to_string(), c[1].to_string(), c[4].to_string())
        })
        .collect();
    let want = [("0", "A", "0"), ("2", "B", "1"), ("1", "A", "2")];
    let want: Vec<(String, String, String)> =
        want.iter().map(|(j, t, s)| (j.to_string(), t.to_string(), s.to_string())).collect();
    assert_eq!(starts, want);
}

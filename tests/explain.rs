//! `fairsim run --decisions` (decisions.csv, candidates.csv) and `fairsim
//! explain`. Every key below is computed by hand from the policy's rule in
//! the comment above it; the A, B, C case is the fairness-log article's
//! worked example (docs/background.md).

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;

type Row = HashMap<String, String>;

fn decisions(out: &Path, label: &str) -> (Vec<Row>, Vec<Row>) {
    let dir = out.join(label);
    (read_csv(&dir.join("decisions.csv")), read_csv(&dir.join("candidates.csv")))
}

/// `(tenant, job, key, rank)` of each dispatch, and its candidates as
/// `(tenant, job, key)` in rank order.
type Choice<'a> = (&'a str, &'a str, &'a str, &'a str, Vec<(&'a str, &'a str, &'a str)>);

fn assert_choices(out: &Path, label: &str, kind: &str, want: &[Choice]) {
    let (d, c) = decisions(out, label);
    assert_eq!(d.len(), want.len(), "{label}: dispatches");
    for (i, (row, (tenant, job, key, rank, others))) in d.iter().zip(want).enumerate() {
        let id = (i + 1).to_string();
        assert_eq!(row["dispatch"], id);
        assert_eq!(row["key_kind"], kind);
        let got = (row["tenant"].as_str(), row["job"].as_str(), row["key"].as_str(), row["rank"].as_str());
        assert_eq!(got, (*tenant, *job, *key, *rank), "{label} dispatch {id}");
        let listed: Vec<(&str, &str, &str)> = (c.iter())
            .filter(|r| r["dispatch"] == id)
            .map(|r| (r["tenant"].as_str(), r["job"].as_str(), r["key"].as_str()))
            .collect();
        assert_eq!(&listed, others, "{label} dispatch {id} candidates");
        let ranks: Vec<String> =
            c.iter().filter(|r| r["dispatch"] == id).map(|r| r["rank"].clone()).collect();
        let expected: Vec<String> = (1..=others.len()).map(|r| r.to_string()).collect();
        assert_eq!(ranks, expected);
    }
}

fn explain_json(out: &Path, args: &[&str]) -> serde_json::Value {
    let o = fairsim().arg("explain").arg(out).args(args).args(["--format", "json"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("json")
}

#[test]
fn explain_reproduces_the_articles_tick_2() {
    // The article's table, tick 2: "| 2 | C, A | 2 | 1 | 1 |": two workers,
    // unit jobs, cap 1 while others wait, rotation A, B, C. Tick 1 served A
    // and B, so at 1 s the rotation reads C, A, B: C's job starts, then A's
    // (A's tick-1 job has ended, A is below its cap: no skip). B, with 2 of
    // its 3 jobs waiting, gets nothing and no reason is logged: its turn
    // comes third of two workers. Job ids: A 0-39, B 40-42, C 43-44.
    let out = tempdir();
    run(&scenario("abc-rotation.yaml"), out.path(), &["--decisions", "--policy", "round_robin"]);
    let a = explain_json(out.path(), &["--tenant", "A", "--at", "1"]);
    assert_eq!(a["tick"], 2);
    assert_eq!(a["tick_start"], 1.0);
    assert_eq!(a["tick_end"], 2.0);
    assert_eq!(a["key_kind"], "turn");
    let who: Vec<(String, u64)> = (a["dispatches"].as_array().unwrap().iter())
        .map(|d| (d["tenant"].as_str().unwrap().to_string(), d["job"].as_u64().unwrap()))
        .collect();
    assert_eq!(who, [("C".to_string(), 43), ("A".to_string(), 1)], "tick 2 chose C, then A");
    assert_eq!(a["chosen"], 1);
    assert_eq!(a["skips"], serde_json::json!([]), "nobody passed over with a reason in tick 2");
    // dispatch 3 (the first of tick 2): C's turn 1, A next-best with turn 2
    let d3 = &a["dispatches"][0];
    assert_eq!((d3["dispatch"].as_u64(), d3["key"].as_f64()), (Some(3), Some(1.0)));
    assert_eq!((d3["tenant_rank"].as_u64(), d3["tenant_key"].as_f64()), (Some(1), Some(2.0)));
    // B: 2 jobs waiting at 1 s, nothing started, no skip; at dispatch 3 its
    // turn is 3 (second among the others), at dispatch 4 (after C went to
    // the back: A, B, C) its turn is 2, behind A's 1
    let b = explain_json(out.path(), &["--tenant", "B", "--at", "1"]);
    assert_eq!((b["chosen"].as_u64(), b["waiting"].as_u64()), (Some(0), Some(2)));
    assert_eq!(b["skips"], serde_json::json!([]));
    let ranks: Vec<(Option<u64>, Option<f64>, Option<f64>)> = (b["dispatches"].as_array().unwrap().iter())
        .map(|d| (d["tenant_rank"].as_u64(), d["tenant_key"].as_f64(), d["key"].as_f64()))
        .collect();
    assert_eq!(ranks, [(Some(2), Some(3.0), Some(1.0)), (Some(1), Some(2.0), Some(1.0))]);
    let answer = b["answer"].as_str().unwrap();
    assert!(answer.contains("B got nothing with 2 job(s) waiting"), "{answer}");
    assert!(answer.contains("No reason was logged"), "{answer}");
    // tick 5 (4 s): A's 18 `at_cap` skips start here, and explain names the reason
    let a5 = explain_json(out.path(), &["--tenant", "A", "--at", "4s"]);
    assert_eq!(a5["skips"], serde_json::json!(["at_cap"]));
    assert_eq!(a5["chosen"], 2, "lent the second worker: A A");
}

#[test]
fn wfq_keys_are_the_virtual_finish_tags() {
    // One worker, unit jobs, cost jobs. A (weight 2) jobs 0-2 and B (weight
    // 1) jobs 3-4 at 0; C (weight 1) job 5 at 2.5 s. Tags F = max(F_prev,
    // V) + 1/w: A 0.5, 1, 1.5; B 1, 2 (all with V = 0). V is the largest
    // tag dispatched: 0.5 at 0 s, 1 at 1 s and 2 s, so C's tag at 2.5 s is
    // max(0, 1) + 1 = 2 (not 1: a newcomer starts at V). Smallest tag
    // first, ties by job id:
    // 0 s: A0 0.5 (B3 1) | 1 s: A1 1 vs B3 1, A1 lower id (B3 1) |
    // 2 s: B3 1 (A2 1.5) | 3 s: A2 1.5 (B4 2, C5 2) | 4 s: B4 2 (C5 2) | 5 s: C5 2.
    let (_d, out) = run_yaml(
        "workers: 1\ntenants: {A: {weight: 2}, B: {weight: 1}, C: {weight: 1}}\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n  - {tenant: B, count: 2, service: 1s}\n  - {tenant: C, count: 1, at: 2.5s, service: 1s}\npolicies: [wfq]\n",
        &["--decisions"],
    );
    assert_choices(
        &out,
        "wfq",
        "virtual_finish",
        &[
            ("A", "0", "0.5", "1", vec![("B", "3", "1")]),
            ("A", "1", "1", "1", vec![("B", "3", "1")]),
            ("B", "3", "1", "1", vec![("A", "2", "1.5")]),
            ("A", "2", "1.5", "1", vec![("B", "4", "2"), ("C", "5", "2")]),
            ("B", "4", "2", "1", vec![("C", "5", "2")]),
            ("C", "5", "2", "1", vec![]),
        ],
    );
}

#[test]
fn drr_keys_are_the_credits_of_the_visits() {
    // One worker, unit jobs, quantum 1 job x weight: A (weight 2) gets 2 a
    // visit, B (1) 1. A jobs 0-2, B jobs 3-4 at 0; visit order A, B. The
    // key is the credit the visit has when the job is taken:
    // 0 s: A's visit starts, 0 + 2 = 2, A0 (B would have 0 + 1) -> A keeps 1
    // 1 s: A still visiting, 1: A1 (B 1) -> A at 0, rotates: B, A
    // 2 s: B's visit, 0 + 1 = 1: B3 (A 0 + 2) -> B at 0, rotates: A, B
    // 3 s: A's visit, 2: A2 (B 1); A leaves with no jobs
    // 4 s: B's visit, 1: B4.
    let (_d, out) = run_yaml(
        "workers: 1\ntenants: {A: {weight: 2}, B: {weight: 1}}\nworkload:\n  - {tenant: A, count: 3, service: 1s}\n  - {tenant: B, count: 2, service: 1s}\npolicies: [drr]\n",
        &["--decisions"],
    );
    assert_choices(
        &out,
        "drr",
        "deficit",
        &[
            ("A", "0", "2", "1", vec![("B", "3", "1")]),
            ("A", "1", "1", "1", vec![("B", "3", "1")]),
            ("B", "3", "1", "1", vec![("A", "2", "2")]),
            ("A", "2", "2", "1", vec![("B", "4", "1")]),
            ("B", "4", "1", "1", vec![]),
        ],
    );
}

#[test]
fn fifo_keys_are_arrival_times_and_capped_tenants_are_not_candidates() {
    // Two workers, unit jobs, spare: hold. A (cap 1) jobs 0, 1 at 0; C job 2
    // at 0.25 s; B job 3 at 0.5 s. 0 s: A0 (key 0; A1 is A's, and A is at
    // its cap after: no candidate). 0.25 s: C2 (0.25), A at its cap so not
    // listed. 1 s: A0 ends, A1 (0) ahead of B3 (0.5). 1.25 s: B3 (0.5).
    let (_d, out) = run_yaml(
        "workers: 2\ntenants: {A: {cap: 1}, B: {}, C: {}}\nworkload:\n  - {tenant: A, count: 2, service: 1s}\n  - {tenant: C, count: 1, at: 0.25s, service: 1s}\n  - {tenant: B, count: 1, at: 0.5s, service: 1s}\npolicies: [{policy: fifo, spare: hold}]\n",
        &["--decisions"],
    );
    assert_choices(
        &out,
        "fifo",
        "arrival",
        &[
            ("A", "0", "0", "1", vec![]),
            ("C", "2", "0.25", "1", vec![]),
            ("A", "1", "0", "1", vec![("B", "3", "0.5")]),
            ("B", "3", "0.5", "1", vec![]),
        ],
    );
    // decisions.csv's tick and time agree with dispatches.csv row by row
    let (d, _) = decisions(&out, "fifo");
    let disp = read_csv(&out.join("fifo/dispatches.csv"));
    for (a, b) in d.iter().zip(&disp) {
        assert_eq!((&a["tick"], &a["time"], &a["job"]), (&b["tick"], &b["time"], &b["job"]));
    }
}

#[test]
fn candidates_are_bounded_at_eight_other_tenants() {
    // 12 tenants with one unit job each at 0, one worker, fifo: dispatch d
    // leaves 12 - d tenants waiting, of which at most 8 are listed.
    let tenants: Vec<String> = (1..=12).map(|i| format!("t{i:02}: {{}}")).collect();
    let work: Vec<String> =
        (1..=12).map(|i| format!("  - {{tenant: t{i:02}, count: 1, service: 1s}}")).collect();
    let yaml = format!(
        "workers: 1\ntenants: {{{}}}\nworkload:\n{}\npolicies: [fifo]\n",
        tenants.join(", "),
        work.join("\n")
    );
    let (_d, out) = run_yaml(&yaml, &["--decisions"]);
    let (d, c) = decisions(&out, "fifo");
    assert_eq!(d.len(), 12);
    for i in 1..=12usize {
        let n = c.iter().filter(|r| r["dispatch"] == i.to_string()).count();
        assert_eq!(n, (12 - i).min(8), "dispatch {i}");
    }
    // the best 8: the next 8 in arrival order (job ids), keys all 0
    let first: Vec<&str> = c.iter().filter(|r| r["dispatch"] == "1").map(|r| r["job"].as_str()).collect();
    assert_eq!(first, ["1", "2", "3", "4", "5", "6", "7", "8"]);
}

#[test]
fn without_the_flag_no_decision_files() {
    let (_d, out) = run_yaml(
        "workers: 1\ntenants: {A: {}}\nworkload: [{tenant: A, count: 2, service: 1s}]\npolicies: [fifo]\n",
        &[],
    );
    assert!(out.join("fifo/dispatches.csv").is_file());
    assert!(!out.join("fifo/decisions.csv").exists());
    assert!(!out.join("fifo/candidates.csv").exists());
}

const NOISY: &str = "workers: 1\ntenants: {bulk: {}, s1: {}}\nclasses: {export: {priority: 5}, interactive: {priority: 1}}\nworkload:\n  - {tenant: bulk, class: export, count: 4, service: 1s}\n  - {tenant: s1, class: interactive, count: 1, at: 0.5s, service: 1s}\npolicies: [fifo, round_robin]\n";

#[test]
fn explain_job_counts_the_dispatches_during_its_wait() {
    // A noisy neighbour in miniature: one worker; bulk dumps 4 unit export
    // jobs (0-3) at 0, s1's interactive job 4 arrives at 0.5 s.
    // fifo: job 4 is behind bulk's 1, 2, 3 (started at 1, 2, 3 s), starts at
    // 4 s: wait 3.5 s, 3 dispatches to bulk/export while it waited; it is
    // s1's head from the first of them (dispatch 2 at 1 s, key 0.5 behind
    // bulk's 0) and the best overall only at its own start (dispatch 5).
    // round_robin: s1 joins the rotation behind bulk at 0.5 s; at 1 s bulk's
    // turn (job 1), at 2 s s1's: wait 1.5 s, 1 dispatch to bulk.
    let (_d, out) = run_yaml(NOISY, &["--decisions"]);
    let f = explain_json(&out, &["--policy", "fifo", "--job", "4"]);
    assert_eq!(
        (f["arrival"].as_f64(), f["start"].as_f64(), f["wait"].as_f64()),
        (Some(0.5), Some(4.0), Some(3.5))
    );
    assert_eq!(f["dispatches_while_waiting"], 3);
    assert_eq!(f["by_tenant"], serde_json::json!({"bulk": 3}));
    assert_eq!(f["by_class"], serde_json::json!({"export": 3}));
    assert_eq!(f["tenant_skips"], serde_json::json!({}));
    assert_eq!(f["keys"]["key_kind"], "arrival");
    assert_eq!(f["keys"]["first_tenant_best"], serde_json::json!({"dispatch": 2, "time": 1.0}));
    assert_eq!(f["keys"]["first_best"], serde_json::json!({"dispatch": 5, "time": 4.0}));
    assert_eq!(f["keys"]["key_at_start"], 0.5);
    let r = explain_json(&out, &["--policy", "round_robin", "--job", "4"]);
    assert_eq!((r["start"].as_f64(), r["wait"].as_f64()), (Some(2.0), Some(1.5)));
    assert_eq!(r["by_tenant"], serde_json::json!({"bulk": 1}));
    // the text form says the same, and without decisions.csv asks for them
    let text = fairsim().arg("explain").arg(&out).args(["--policy", "fifo", "--job", "4"]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("dispatches while it waited: 3"), "{text}");
    std::fs::remove_file(out.join("fifo/decisions.csv")).unwrap();
    let bare = explain_json(&out, &["--policy", "fifo", "--job", "4"]);
    assert_eq!(bare["dispatches_while_waiting"], 3);
    assert!(bare["keys"].is_null());
    assert!(bare["answer"].as_str().unwrap().contains("Run with --decisions"));
}

#[test]
fn explain_errors_name_what_exists() {
    let (_d, out) = run_yaml(NOISY, &[]);
    let fail = |args: &[&str]| {
        let o = fairsim().arg("explain").args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let dir = out.to_str().unwrap();
    let e = fail(&[dir, "--policy", "fifoo", "--job", "1"]);
    assert!(e.contains("did you mean `fifo`") && e.contains("fifo, round_robin"), "{e}");
    let e = fail(&[dir, "--job", "1"]);
    assert!(e.contains("several policies") && e.contains("fifo, round_robin"), "{e}");
    let e = fail(&[dir, "--policy", "fifo", "--job", "99"]);
    assert!(e.contains("numbered 0 to 4"), "{e}");
    let e = fail(&[dir, "--policy", "fifo", "--tenant", "s2", "--at", "1"]);
    assert!(e.contains("bulk, s1"), "{e}");
    let e = fail(&["/nonexistent/folder", "--job", "1"]);
    assert!(e.contains("not a folder"), "{e}");
}

#[test]
fn explain_at_a_moment_outside_the_run_names_its_span() {
    // NOISY: five 1 s jobs on one worker, the last ends at 5 s; before,
    // `--at 1h` answered about the last tick with exit code 0
    let (_d, out) = run_yaml(NOISY, &[]);
    let dir = out.to_str().unwrap();
    for at in ["1h", "5.5s"] {
        let o = fairsim()
            .arg("explain")
            .args([dir, "--policy", "fifo", "--tenant", "s1", "--at", at])
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(e.contains(&format!("--at {at}: outside the run, which spans 0s to 5s")), "{e}");
    }
    // its last moment is in it
    let o = fairsim()
        .arg("explain")
        .args([dir, "--policy", "fifo", "--tenant", "s1", "--at", "5s"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

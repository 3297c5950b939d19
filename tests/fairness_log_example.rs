//! The worked example of the fairness-log article ("One Busy Customer, Many
//! Waiting Ones: Per-Tenant Limits and a Fairness Log", docs/background.md)
//! and its five proposed acceptance tests.
//!
//! The expected figures come from the article's table: two workers, unit
//! jobs, cap 1 while others wait, rotation A, B, C; A has 40 jobs, B 3, C 2.

mod common;

use common::*;

fn ticks(dir: &std::path::Path, label: &str) -> Vec<std::collections::HashMap<String, String>> {
    read_csv(&dir.join(label).join("ticks.csv"))
}

#[test]
fn abc_replay_matches_the_article_table_tick_for_tick() {
    let out = tempdir();
    run(&scenario("abc-rotation.yaml"), out.path(), &[]);
    let rows = ticks(out.path(), "round_robin");
    // | Tick | Chosen | A done | B done | C done |
    let table = [
        (1, "A B", "A:1 B:1 C:0"),
        (2, "C A", "A:2 B:1 C:1"),
        (3, "B C", "A:2 B:2 C:2"),
        (4, "A B", "A:3 B:3 C:2"),
    ];
    for (tick, chosen, completed) in table {
        let r = &rows[tick - 1];
        assert_eq!(r["tick"], tick.to_string());
        assert_eq!(r["chosen"], chosen, "tick {tick} chosen");
        assert_eq!(r["completed"], completed, "tick {tick} completed");
    }
    // tick 1 starts with both workers free; its end state waits A:39 B:2 C:2
    assert_eq!(rows[0]["workers_free"], "2");
    assert_eq!(rows[0]["waiting"], "A:39 B:2 C:2");
    // A's remaining 37 jobs take 19 more ticks under spare: lend: 18 pairs and one single
    assert_eq!(rows.len(), 4 + 19, "ticks in the log");
    for r in &rows[4..22] {
        assert_eq!(r["chosen"], "A A", "tick {}", r["tick"]);
    }
    assert_eq!(rows[22]["chosen"], "A");
    assert_eq!(rows[22]["completed"], "A:40 B:3 C:2");
}

#[test]
fn tenant_d_added_mid_run_gets_a_worker_within_one_rotation() {
    let out = tempdir();
    run(&scenario("abc-rotation-d.yaml"), out.path(), &[]);
    for label in ["round_robin", "round_robin-hold"] {
        let jobs = read_csv(&out.path().join(label).join("jobs.csv"));
        let d: Vec<_> = jobs.iter().filter(|j| j["tenant"] == "D").collect();
        assert_eq!(d.len(), 2);
        // D arrives at 7s (start of tick 8), when A's jobs free the workers:
        // it is served in tick 8, and its second job one tick later (rotation of A, D).
        let mut starts: Vec<f64> = d.iter().map(|j| secs(&j["start"])).collect();
        starts.sort_by(f64::total_cmp);
        assert_eq!(starts, vec![7.0, 8.0], "{label}");
        let rows = ticks(out.path(), label);
        assert!(rows[7]["chosen"].contains('D'), "{label}: tick 8 chose {}", rows[7]["chosen"]);
        // the log shows D's remaining job waiting at the end of tick 8
        assert!(rows[7]["waiting"].split_whitespace().any(|p| p == "D:1"), "{label}: {}", rows[7]["waiting"]);
    }
}

/// Running jobs of `tenant` and queued jobs of `other` at each instant, from jobs.csv.
fn holds_two_while_waiting(
    jobs: &[std::collections::HashMap<String, String>],
    tenant: &str,
    other: &str,
) -> bool {
    let mut instants: Vec<f64> = jobs.iter().flat_map(|j| [secs(&j["arrival"]), secs(&j["start"])]).collect();
    instants.sort_by(f64::total_cmp);
    instants.dedup();
    instants.iter().any(|&t| {
        let running = jobs
            .iter()
            .filter(|j| j["tenant"] == tenant && secs(&j["start"]) <= t && t < secs(&j["finish"]))
            .count();
        let waiting = jobs
            .iter()
            .filter(|j| j["tenant"] == other && secs(&j["arrival"]) <= t && t < secs(&j["start"]))
            .count();
        running >= 2 && waiting > 0
    })
}

#[test]
fn with_cap_1_a_never_holds_two_workers_while_c_waits() {
    let out = tempdir();
    run(&scenario("abc-rotation.yaml"), out.path(), &[]);
    for label in ["round_robin", "round_robin-hold", "fifo"] {
        let jobs = read_csv(&out.path().join(label).join("jobs.csv"));
        assert_eq!(jobs.len(), 45);
        assert!(!holds_two_while_waiting(&jobs, "A", "C"), "{label}");
        assert!(!holds_two_while_waiting(&jobs, "A", "B"), "{label}");
    }
}

#[test]
fn alone_each_spare_mode_does_what_it_says() {
    let dir = tempdir();
    let file = dir.path().join("alone.yaml");
    std::fs::write(
        &file,
        "name: alone\nworkers: 2\ntenants: {A: {cap: 1}}\nworkload: [{tenant: A, count: 40, service: 1s}]\n\
         policies:\n  - {policy: round_robin, spare: lend, label: lend}\n  - {policy: round_robin, spare: hold, label: hold}\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    run(&file, &out, &[]);
    let cmp = read_csv(&out.join("comparison.csv"));
    // lend: two at a time, 40 unit jobs take 20s and keep both workers busy;
    // hold: one at a time, 40s, half the pool idle.
    assert_eq!(cmp[0]["policy"], "lend");
    assert_eq!(cmp[0]["makespan"], "20");
    assert_eq!(cmp[0]["utilization"], "1.0000");
    assert_eq!(cmp[1]["policy"], "hold");
    assert_eq!(cmp[1]["makespan"], "40");
    assert_eq!(cmp[1]["utilization"], "0.5000");
    let hold = ticks(&out, "hold");
    assert_eq!(hold.len(), 40);
    assert!(hold.iter().all(|r| r["chosen"] == "A" && r["workers_free"] == "2"));
    // A is at its cap with work left in every tick but the last
    assert!(hold[..39].iter().all(|r| r["skipped"] == "A:at_cap"));
}

#[test]
fn every_skip_has_a_reason_and_completions_add_up() {
    let out = tempdir();
    run(&scenario("abc-rotation-d.yaml"), out.path(), &[]);
    run(&scenario("noisy-neighbor.yaml"), &out.path().join("nn"), &["--policy", "round_robin"]);
    let known = ["at_cap", "no_fit", "deficit", "throttled", "not_before", "reserved"];
    for dir in [
        out.path().join("round_robin"),
        out.path().join("round_robin-hold"),
        out.path().join("nn/round_robin"),
    ] {
        let rows = read_csv(&dir.join("ticks.csv"));
        let jobs = read_csv(&dir.join("jobs.csv"));
        let mut skips = 0;
        for r in &rows {
            for (_, reason) in pairs(&r["skipped"]) {
                assert!(known.contains(&reason.as_str()), "unknown reason {reason}");
                skips += 1;
            }
            // cumulative completions at the end of the tick = jobs finished by then
            let t = secs(&r["time"]);
            let logged: u64 = pairs(&r["completed"]).iter().map(|(_, n)| n.parse::<u64>().unwrap()).sum();
            let finished =
                jobs.iter().filter(|j| !j["finish"].is_empty() && secs(&j["finish"]) <= t).count() as u64;
            assert_eq!(logged, finished, "{} tick {}", dir.display(), r["tick"]);
        }
        let last: u64 =
            pairs(&rows.last().unwrap()["completed"]).iter().map(|(_, n)| n.parse::<u64>().unwrap()).sum();
        assert_eq!(last, jobs.iter().filter(|j| j["outcome"] == "completed").count() as u64);
        if dir.ends_with("round_robin-hold") {
            assert!(skips > 0, "hold mode must log at_cap skips");
        }
    }
}

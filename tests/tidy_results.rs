//! The tidy results: the long forms of the observation log (`dispatches.csv`,
//! `skips.csv`, and `tenants.csv` for the `waiting` and `completed` cells)
//! and the top-level files over all policies.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use common::*;

type Rows = Vec<HashMap<String, String>>;

/// Rebuilds each tick's `chosen`, `skipped`, `waiting` and `completed` cells
/// from the long files and compares them with `ticks.csv`, row by row.
fn assert_long_files_agree(dir: &Path) {
    let ticks = read_csv(&dir.join("ticks.csv"));
    let dispatches = read_csv(&dir.join("dispatches.csv"));
    let skips = read_csv(&dir.join("skips.csv"));
    let tenants = read_csv(&dir.join("tenants.csv"));
    let by_tick = |rows: &Rows, cell: &dyn Fn(&HashMap<String, String>) -> String| {
        let mut m: BTreeMap<u64, Vec<String>> = BTreeMap::new();
        for r in rows {
            m.entry(r["tick"].parse().unwrap()).or_default().push(cell(r));
        }
        m
    };
    let chosen = by_tick(&dispatches, &|r| r["tenant"].clone());
    let skipped = by_tick(&skips, &|r| format!("{}:{}", r["tenant"], r["reason"]));
    let skip_times = by_tick(&skips, &|r| r["time"].clone());
    let mut tenant_rows: BTreeMap<String, Vec<&HashMap<String, String>>> = BTreeMap::new();
    for r in &tenants {
        tenant_rows.entry(r["time"].clone()).or_default().push(r);
    }
    let mut completed: HashMap<String, String> = HashMap::new();
    let (mut n_chosen, mut n_skipped) = (0, 0);
    for t in &ticks {
        let (k, at): (u64, &str) = (t["tick"].parse().unwrap(), &t["time"]);
        let join = |m: &BTreeMap<u64, Vec<String>>| m.get(&k).map(|v| v.join(" ")).unwrap_or_default();
        assert_eq!(join(&chosen), t["chosen"], "{} tick {k} chosen", dir.display());
        assert_eq!(join(&skipped), t["skipped"], "{} tick {k} skipped", dir.display());
        assert!(skip_times.get(&k).is_none_or(|v| v.iter().all(|s| s == at)), "skips of tick {k} at its end");
        n_chosen += t["chosen"].split_whitespace().count();
        n_skipped += t["skipped"].split_whitespace().count();
        // the dispatches of tick k happen in ((k-1) tick, k tick], the tick's time being its end
        let rows = tenant_rows.get(at).cloned().unwrap_or_default();
        let mut waiting: Vec<(String, String)> = rows
            .iter()
            .filter(|r| r["queued"] != "0")
            .map(|r| (r["tenant"].clone(), r["queued"].clone()))
            .collect();
        let mut logged = pairs(&t["waiting"]);
        waiting.sort();
        logged.sort();
        assert_eq!(waiting, logged, "{} tick {k} waiting", dir.display());
        for r in rows {
            completed.insert(r["tenant"].clone(), r["completed"].clone());
        }
        for (tenant, n) in pairs(&t["completed"]) {
            let sparse = completed.get(&tenant).map_or("0", String::as_str);
            assert_eq!(sparse, n, "{} tick {k}: {tenant}'s completed", dir.display());
        }
    }
    // nothing in the long files that ticks.csv does not list
    assert_eq!(dispatches.len(), n_chosen, "{}", dir.display());
    assert_eq!(skips.len(), n_skipped, "{}", dir.display());
}

#[test]
fn long_files_agree_with_ticks_csv_on_noisy_neighbor_and_the_abc_example() {
    let out = tempdir();
    run(&scenario("noisy-neighbor.yaml"), &out.path().join("nn"), &["--no-plots"]);
    run(&scenario("abc-rotation-d.yaml"), &out.path().join("abcd"), &["--no-plots"]);
    run(&scenario("strategies.yaml"), &out.path().join("st"), &["--no-plots"]);
    let mut checked = 0;
    for run in ["nn", "abcd", "st"] {
        for cmp in read_csv(&out.path().join(run).join("comparison.csv")) {
            assert_long_files_agree(&out.path().join(run).join(&cmp["policy"]));
            checked += 1;
        }
    }
    // noisy-neighbor 3 policies, abc-rotation-d 2, strategies 9 labels (topologies and planner included)
    assert!(checked >= 3 + 2 + 2, "{checked} policies checked");
    // the check is not vacuous: every noisy-neighbor job starts once (one
    // attempt, no slices), and strategies' topologies pass tenants over
    let nn = out.path().join("nn/round_robin");
    let starts: u64 =
        read_csv(&nn.join("jobs.csv")).iter().map(|j| j["slices"].parse::<u64>().unwrap()).sum();
    assert_eq!(read_csv(&nn.join("dispatches.csv")).len() as u64, starts);
    assert!(starts > 1000, "{starts}");
    assert!(!read_csv(&out.path().join("st/shuffle-shard/skips.csv")).is_empty());
}

/// The article's A, B, C example (the fairness-log article, scenarios/abc-rotation.yaml):
/// two workers, unit jobs, cap 1 while others wait, rotation A, B, C; A has
/// 40 jobs, B 3, C 2, all at 0 s. Jobs are numbered in arrival order, entry
/// by entry: A 0..39, B 40..42, C 43..44, and each tenant's jobs start in
/// its own order.
///
/// Dispatches, by hand from the article's table: tick k dispatches at
/// (k - 1) s. Tick 1: A(0) B(40); tick 2: C(43) A(1); tick 3: B(41) C(44);
/// tick 4: A(2) B(42). With `spare: lend` A alone then takes both workers:
/// 37 jobs left = 18 pairs in ticks 5..22 (jobs 3+2i, 4+2i) and one single,
/// job 39, in tick 23. With `spare: hold` A runs one at a time: ticks 5..41.
///
/// Skips: in ticks 1..4 every tenant passed over found both workers taken
/// (no reason to record). From tick 5 both workers free at each tick start;
/// A takes the first and is then at its cap of 1 with work left, so
/// `A:at_cap` once per tick while A still has a job waiting after its
/// dispatch: lend, ticks 5..22 (in 23 its last job leaves nothing behind);
/// hold, ticks 5..40.
#[test]
fn abc_long_files_list_exactly_the_articles_dispatches_and_skips() {
    let out = tempdir();
    run(&scenario("abc-rotation.yaml"), out.path(), &["--no-plots"]);
    let mut expected: Vec<(u64, u64, &str, u64)> = vec![
        (1, 0, "A", 0),
        (1, 0, "B", 40),
        (2, 1, "C", 43),
        (2, 1, "A", 1),
        (3, 2, "B", 41),
        (3, 2, "C", 44),
        (4, 3, "A", 2),
        (4, 3, "B", 42),
    ];
    let head = expected.clone();
    for k in 5..=22 {
        let i = 2 * (k - 5);
        expected.push((k, k - 1, "A", 3 + i));
        expected.push((k, k - 1, "A", 4 + i));
    }
    expected.push((23, 22, "A", 39));
    let mut hold = head;
    hold.extend((5..=41).map(|k| (k, k - 1, "A", k - 2)));
    for (label, want, skip_ticks) in [("round_robin", expected, 5..=22), ("round_robin-hold", hold, 5..=40)] {
        let dir = out.path().join(label);
        let got: Vec<(u64, u64, String, u64)> = read_csv(&dir.join("dispatches.csv"))
            .iter()
            .map(|r| {
                assert_eq!(r["class"], "default");
                // no entry has a topology: no column that only one could fill
                assert!(!r.contains_key("queue") && !r.contains_key("pool"), "no topology: {r:?}");
                (
                    r["tick"].parse().unwrap(),
                    r["time"].parse().unwrap(),
                    r["tenant"].clone(),
                    r["job"].parse().unwrap(),
                )
            })
            .collect();
        let want: Vec<(u64, u64, String, u64)> =
            want.iter().map(|&(k, t, n, j)| (k, t, n.to_string(), j)).collect();
        assert_eq!(got, want, "{label} dispatches");
        let skips: Vec<(u64, String, String, String)> = read_csv(&dir.join("skips.csv"))
            .iter()
            .map(|r| {
                (r["tick"].parse().unwrap(), r["time"].clone(), r["tenant"].clone(), r["reason"].clone())
            })
            .collect();
        // a skip's time is its tick's end: k s for tick k
        let want: Vec<(u64, String, String, String)> =
            skip_ticks.map(|k| (k, k.to_string(), "A".to_string(), "at_cap".to_string())).collect();
        assert_eq!(skips, want, "{label} skips");
        assert_long_files_agree(&dir);
    }
}

/// The top-level files hold every policy's rows under a leading `policy`.
/// Hand figures from the A, B, C example: A's p99 wait is its last start,
/// 22 s under lend (tick 23) and 40 s under hold (tick 41, see above); the
/// `all` row's utilization under lend is 45 busy s / (2 x 23 s) = 0.9783.
#[test]
fn top_level_files_compare_policies_in_one_table() {
    let out = tempdir();
    run(&scenario("abc-rotation.yaml"), out.path(), &["--no-plots"]);
    let labels = ["round_robin", "round_robin-hold", "fifo"];
    for file in ["summary.csv", "tenants.csv", "classes.csv"] {
        let top = read_csv(&out.path().join(file));
        let mut at = 0;
        for label in labels {
            let own = read_csv(&out.path().join(label).join(file));
            for row in &own {
                let mut expect = row.clone();
                expect.insert("policy".into(), label.into());
                assert_eq!(top[at], expect, "{file} row {at}");
                at += 1;
            }
        }
        assert_eq!(top.len(), at, "{file}: the policies' rows and nothing else");
        let header = std::fs::read_to_string(out.path().join(file)).unwrap();
        assert!(header.starts_with("policy,"), "{file}");
    }
    let summary = read_csv(&out.path().join("summary.csv"));
    // per policy: all, the default class, A, B, C
    assert_eq!(summary.len(), 3 * 5);
    let p99 = |policy: &str, name: &str| {
        summary.iter().find(|r| r["policy"] == policy && r["name"] == name).unwrap()["wait_p99"].clone()
    };
    assert_eq!(p99("round_robin", "A"), "22");
    assert_eq!(p99("round_robin-hold", "A"), "40");
    let all = summary.iter().find(|r| r["policy"] == "round_robin" && r["scope"] == "all").unwrap();
    assert_eq!(all["utilization"], "0.9783");
    // without resources there is no resources.csv, and --logs summary gathers no time series
    assert!(!out.path().join("resources.csv").exists());
    let short = tempdir();
    run(&scenario("abc-rotation.yaml"), short.path(), &["--no-plots", "--logs", "summary"]);
    assert!(short.path().join("summary.csv").exists());
    assert!(!short.path().join("tenants.csv").exists());
}

#[test]
fn a_label_may_not_take_a_top_level_file_name() {
    for name in ["tenants.csv", "classes.csv", "resources.csv", "summary.csv"] {
        let text = format!(
            "name: t\nworkers: 1\nworkload: [{{tenant: A, count: 1, service: 1s}}]\npolicies: [{{policy: fifo, label: {name}}}]\n"
        );
        let err = validate_error(&text, "t.yaml");
        assert!(err.contains(&format!("would clash with the results folder's own `{name}`")), "{err}");
        assert!(err.contains("t.yaml:4:34:"), "names file, line and column: {err}");
    }
}

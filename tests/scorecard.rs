//! The scorecard and the verdict against figures derived by hand from a
//! small scenario, and against the figures recomputed from each entry's
//! jobs.csv. The objectives are built in Rust and pushed into the loaded
//! scenario (the library's typed form, what `objectives:` loads into).

mod common;

use std::path::{Path, PathBuf};

use common::*;
use fairsim::model::{Measure, Objective, ObjectiveLimit as Limit, Scenario, TenantScope};
use fairsim::run::{self, Logs, RunOptions};

/// 2 workers, classes `fast` (sla 2 s) and `slow`, tenants A, B, C, fifo.
///
/// A sends 4 slow jobs of 10 s at 0; B 2 fast jobs of 1 s at 1 s; C a fast
/// job of 1 s at 2 s and a slow job of 2 s at 3 s. Under fifo: A1, A2 run
/// 0-10; A3, A4 10-20 (waits 10); B1, B2 20-21 (waits 19); C's fast job
/// and C's slow job start at 21 (waits 19 and 18) and end at 22 and 23.
/// Busy time 4 x 10 + 2 x 1 + 1 + 2 = 45 worker-seconds over 2 x 23 = 46.
const SMALL: &str = "workers: 2
classes:
  fast: {sla: 2s}
  slow: {}
workload:
  - {tenant: A, class: slow, count: 4, at: 0s, service: 10s}
  - {tenant: B, class: fast, count: 2, at: 1s, service: 1s}
  - {tenant: C, class: fast, count: 1, at: 2s, service: 1s}
  - {tenant: C, class: slow, count: 1, at: 3s, service: 2s}
policies:
  - fifo
";

fn load(text: &str) -> (tempfile::TempDir, Scenario) {
    let dir = tempdir();
    let path = dir.path().join("t.yaml");
    std::fs::write(&path, text).expect("write scenario");
    let sc = fairsim::scenario::load(&path).expect("loads");
    (dir, sc)
}

fn objective(
    sc: &Scenario,
    name: &str,
    measure: Measure,
    class: Option<&str>,
    tenants: TenantScope,
    limit: Limit,
    cost: bool,
) -> Objective {
    Objective {
        name: name.into(),
        measure,
        class: class.map(|c| sc.classes.iter().position(|k| k.name == c).expect("class") as u16),
        tenants,
        limit,
        cost,
        line: 1,
    }
}

fn tenant(sc: &Scenario, name: &str) -> u32 {
    sc.tenants.id_of(name).expect("tenant")
}

/// Runs every entry of `sc` into `dir/out` with the full logs; the folder.
fn run_into(sc: &Scenario, dir: &Path) -> PathBuf {
    let opts = RunOptions {
        out: Some(dir.join("out")),
        logs: Logs::Full,
        audit: true,
        no_plots: false,
        force: true,
        overrides: Vec::new(),
        command: "fairsim run t.yaml".into(),
        started: "2026-01-01T00:00:00Z".into(),
        decisions: false,
        combine: false,
        jobs: 1,
    };
    run::run_all(sc, &opts, &|_, _, _| {}).expect("runs").1
}

fn num(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s:?}"))
}

#[test]
fn a_small_run_scores_as_derived_by_hand() {
    let (dir, mut sc) = load(SMALL);
    let (a, b, c) = (tenant(&sc, "A"), tenant(&sc, "B"), tenant(&sc, "C"));
    let secs = |s: u64| Limit::Time(s * 1_000_000);
    sc.objectives = vec![
        // fast waits 19, 19, 19: p99 19 s > 5 s, off by 14 s
        objective(
            &sc,
            "fast p99",
            Measure::Wait { percentile: 99.0 },
            Some("fast"),
            TenantScope::All,
            secs(5),
            false,
        ),
        // every tenant but B: A's waits 0, 0, 10, 10 (p99 10 s), C's 19, 18
        // (p99 rank ceil(1.98) = 2: 19 s): the worst is C at 19 s <= 20 s
        objective(
            &sc,
            "others p99",
            Measure::Wait { percentile: 99.0 },
            None,
            TenantScope::AllBut(vec![b]),
            secs(20),
            false,
        ),
        // slow jobs of A and C: A's p90 rank ceil(3.6) = 4 -> 10 s, C's one
        // slow job 18 s: the worst is C at 18 s > 15 s, off by 3 s
        objective(
            &sc,
            "slow p90",
            Measure::Wait { percentile: 90.0 },
            Some("slow"),
            TenantScope::Each(vec![a, c]),
            secs(15),
            false,
        ),
        // 45 / 46 = 0.978 >= 0.5
        objective(&sc, "utilization", Measure::Utilization, None, TenantScope::All, Limit::Ratio(0.5), true),
        // all 3 fast jobs waited more than 2 s: 1.0 > 0.5
        objective(
            &sc,
            "fast misses",
            Measure::SlaMisses,
            Some("fast"),
            TenantScope::All,
            Limit::Ratio(0.5),
            false,
        ),
        objective(&sc, "rejected", Measure::Rejected, None, TenantScope::All, Limit::Count(0), true),
    ];
    let out = run_into(&sc, dir.path());
    let rows = read_csv(&out.join("scorecard.csv"));
    let got: Vec<(&str, f64, &str, &str, f64)> = rows
        .iter()
        .map(|r| {
            (
                r["objective"].as_str(),
                num(&r["figure"]),
                r["tenant"].as_str(),
                r["pass"].as_str(),
                num(&r["margin"]),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("fast p99", 19.0, "", "false", -14.0),
            ("others p99", 19.0, "C", "true", 1.0),
            ("slow p90", 18.0, "C", "false", -3.0),
            ("utilization", 45.0 / 46.0, "", "true", 45.0 / 46.0 - 0.5),
            ("fast misses", 1.0, "", "false", -0.5),
            ("rejected", 0.0, "", "true", 0.0),
        ]
    );
    // the comparison's worst tenant is B (19 s, first on the tie with C):
    // the objective's worst excludes B
    let cmp = read_csv(&out.join("comparison.csv"));
    assert_eq!((cmp[0]["worst_tenant"].as_str(), num(&cmp[0]["worst_tenant_p99"])), ("B", 19.0));
    assert_eq!(cmp[0]["objective:fast p99"], "19");
    assert_eq!(cmp[0]["objective:fast p99:pass"], "false");
    assert_eq!(cmp[0]["meets_objectives"], "false");
    // per tenant x class p99: A/slow 10, B/fast 19, C/fast 19, C/slow 18
    let pairs = read_csv(&out.join("tenant_classes.csv"));
    let p99: Vec<(&str, &str, f64, u64)> = pairs
        .iter()
        .map(|r| {
            (r["tenant"].as_str(), r["class"].as_str(), num(&r["wait_p99"]), num(&r["sla_misses"]) as u64)
        })
        .collect();
    assert_eq!(
        p99,
        [("A", "slow", 10.0, 0), ("B", "fast", 19.0, 2), ("C", "fast", 19.0, 1), ("C", "slow", 18.0, 0)]
    );
    // the verdict: fifo breaks the first objective it fails, by 14 s, and 3 in all
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("fairsim-results.json")).expect("json"))
            .expect("parses");
    let v = &doc["verdict"];
    assert_eq!(v["source"], "declared");
    assert_eq!(v["passing"].as_array().map(Vec::len), Some(0));
    assert_eq!(v["failing"][0]["objective"], "fast p99");
    assert_eq!(v["failing"][0]["by"], 14.0);
    assert_eq!(v["failing"][0]["broken"], 3);
    // the report carries the scorecard and the verdict at its top, and no
    // sentence crowning one column's best
    let html = std::fs::read_to_string(out.join("report.html")).expect("report");
    let (score, verdict) =
        (html.find("id=\"scorecard\"").expect("scorecard"), html.find("id=\"verdict\"").expect("verdict"));
    assert!(score < html.find("id=\"comparison\"").expect("comparison") && verdict > score);
    assert!(html
        .contains("fifo breaks `fast p99 &lt;= 5.00 s` first: 19.0 s, off by 14.0 s; 3 objectives broken."));
    assert!(!html.contains("is lowest under"));
}

#[test]
fn class_slas_imply_objectives_and_without_any_nothing_is_judged() {
    // no objectives: the fast class's sla of 2 s implies "fast p99 <= 2 s"
    let (dir, sc) = load(SMALL);
    let out = run_into(&sc, dir.path());
    let rows = read_csv(&out.join("scorecard.csv"));
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0]["objective"].as_str(), rows[0]["source"].as_str()), ("fast p99", "sla"));
    assert_eq!(
        (num(&rows[0]["figure"]), num(&rows[0]["bound"]), rows[0]["pass"].as_str()),
        (19.0, 2.0, "false")
    );
    // no sla and no objectives: no scorecard, and the verdict names nobody
    let (dir, sc) = load(&SMALL.replace("{sla: 2s}", "{}"));
    let out = run_into(&sc, dir.path());
    assert!(!out.join("scorecard.csv").exists());
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("fairsim-results.json")).expect("json"))
            .expect("parses");
    assert_eq!(doc["verdict"]["source"], "none");
    let html = std::fs::read_to_string(out.join("report.html")).expect("report");
    assert!(html.contains("No objective was declared"), "{html}");
}

/// Nearest-rank percentile of `v` (sorted here), by the definition: the
/// value at 1-based rank ceil(p/100 n).
fn nearest(mut v: Vec<f64>, p: f64) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    (n > 0).then(|| v[((p / 100.0 * n as f64).ceil() as usize).clamp(1, n) - 1])
}

#[test]
fn every_scorecard_figure_equals_its_entry_jobs_csv() {
    // three entries on a noisy scenario with two classes; each objective's
    // figure recomputed from the entry's jobs.csv (waits of started jobs,
    // nearest rank, the worst tenant of its scope)
    let text = "workers: 3
classes:
  hi: {sla: 5s}
  lo: {}
workload:
  - {tenant: flood, class: lo, arrivals: {every: 200ms, count: 600}, service: 1s}
  - {tenant: a, class: hi, arrivals: {poisson: 0.5/s, count: 60}, service: {exponential: 2s}}
  - {tenant: b, class: hi, arrivals: {poisson: 0.4/s, count: 50}, service: 1s}
  - {tenant: b, class: lo, arrivals: {poisson: 0.2/s, count: 20}, service: 3s}
  - {tenant: c, class: lo, arrivals: {poisson: 0.3/s, count: 30}, service: 2s}
policies:
  - fifo
  - round_robin
  - priority
";
    let (dir, mut sc) = load(text);
    let flood = tenant(&sc, "flood");
    let secs = |s: u64| Limit::Time(s * 1_000_000);
    sc.objectives = vec![
        objective(
            &sc,
            "hi p99",
            Measure::Wait { percentile: 99.0 },
            Some("hi"),
            TenantScope::All,
            secs(5),
            false,
        ),
        objective(
            &sc,
            "others p95",
            Measure::Wait { percentile: 95.0 },
            None,
            TenantScope::AllBut(vec![flood]),
            secs(60),
            false,
        ),
        objective(
            &sc,
            "others lo p90",
            Measure::Wait { percentile: 90.0 },
            Some("lo"),
            TenantScope::AllBut(vec![flood]),
            secs(60),
            false,
        ),
        objective(
            &sc,
            "flood p99.9",
            Measure::Wait { percentile: 99.9 },
            None,
            TenantScope::Each(vec![flood]),
            secs(600),
            true,
        ),
    ];
    let out = run_into(&sc, dir.path());
    let score = read_csv(&out.join("scorecard.csv"));
    assert_eq!(score.len(), 3 * 4);
    for entry in ["fifo", "round_robin", "priority"] {
        let jobs = read_csv(&out.join(entry).join("jobs.csv"));
        let waits = |keep: &dyn Fn(&str, &str) -> bool| -> Vec<f64> {
            jobs.iter()
                .filter(|j| !j["start"].is_empty() && keep(&j["tenant"], &j["class"]))
                .map(|j| num(&j["start"]) - num(&j["arrival"]))
                .collect()
        };
        let worst = |p: f64, class: Option<&str>, tenants: &[&str]| -> (f64, String) {
            let mut best: Option<(f64, String)> = None;
            for t in tenants {
                let Some(f) = nearest(waits(&|tt, cc| tt == *t && class.is_none_or(|c| c == cc)), p) else {
                    continue;
                };
                if best.as_ref().is_none_or(|b| f > b.0) {
                    best = Some((f, t.to_string()));
                }
            }
            best.expect("a figure")
        };
        let want = [
            (nearest(waits(&|_, c| c == "hi"), 99.0).expect("hi waits"), String::new()),
            worst(95.0, None, &["a", "b", "c"]),
            worst(90.0, Some("lo"), &["a", "b", "c"]),
            worst(99.9, None, &["flood"]),
        ];
        let rows: Vec<_> = score.iter().filter(|r| r["policy"] == entry).collect();
        for (r, (figure, who)) in rows.iter().zip(&want) {
            assert!(
                (num(&r["figure"]) - figure).abs() < 1e-6,
                "{entry} {}: {} vs {figure}",
                r["objective"],
                r["figure"]
            );
            assert_eq!(&r["tenant"], who, "{entry} {}", r["objective"]);
        }
    }
}

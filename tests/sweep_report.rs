//! `fairsim sweep`'s charts and report, and the scenario's `sweep:` block:
//! the bands drawn where `sweep.csv` puts the intervals, the paired figures
//! in `report.html`, the block equal to its command-line options, and the
//! block's errors at their line and column.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::{fairsim, files, read_csv, tempdir, validate_error};

/// M/M/2-like: two tenants in two classes, Poisson 0.8/s each, exponential
/// service of mean 1 s, 300 jobs per tenant and seed (small: the figures
/// here are checked against the folder's own files, not against theory).
const MM2: &str = "\
name: mm2
seed: 1
workers: 2
log: {tick: 10s}
classes:
  interactive: {priority: 1}
  bulk: {priority: 5}
workload:
  - {tenant: A, class: interactive, arrivals: {poisson: 0.8/s, count: 300}, service: {exponential: 1s}}
  - {tenant: B, class: bulk, arrivals: {poisson: 0.8/s, count: 300}, service: {exponential: 1s}}
policies: [fifo, priority]
";

fn sweep_yaml(text: &str, extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    let sc = dir.path().join("t.yaml");
    std::fs::write(&sc, text).expect("write scenario");
    let out = dir.path().join("out");
    fairsim().arg("sweep").arg(&sc).arg("--out").arg(&out).arg("--quiet").args(extra).assert().success();
    (dir, out)
}

/// The value of attribute `name` in the element text `el`.
fn attr<'a>(el: &'a str, name: &str) -> &'a str {
    let key = format!(" {name}=\"");
    let at = el.find(&key).unwrap_or_else(|| panic!("no {name} in {el}")) + key.len();
    &el[at..at + el[at..].find('"').expect("closing quote")]
}

/// The elements `<TAG ...>` of `svg` whose class is `class`.
fn elements<'a>(svg: &'a str, tag: &str, class: &str) -> Vec<&'a str> {
    let open = format!("<{tag} class=\"{class}\"");
    svg.match_indices(&open).map(|(i, _)| &svg[i..i + svg[i..].find('>').expect("element end")]).collect()
}

fn num(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s:?}"))
}

/// sweep.csv's (ci_low, ci_high) cells keyed by (workers, policy).
fn intervals(out: &Path, metric: &str, fixed: (&str, &str)) -> HashMap<(String, String), (String, String)> {
    read_csv(&out.join("sweep.csv"))
        .into_iter()
        .filter(|r| r["metric"] == metric && r[fixed.0] == fixed.1)
        .map(|r| ((r["workers"].clone(), r["policy"].clone()), (r["ci_low"].clone(), r["ci_high"].clone())))
        .collect()
}

#[test]
fn bands_are_drawn_at_sweep_csv_intervals_one_line_per_policy() {
    let (_d, out) =
        sweep_yaml(MM2, &["--seeds", "4", "--set", "workers=2,3,4", "--set", "classes.bulk.priority=0,5"]);
    let charts = out.join("charts");
    // two axes: a chart per value of the other axis, for each of them
    for stem in [
        "wait_p99-vs-workers-at-classes.bulk.priority=0",
        "wait_p99-vs-workers-at-classes.bulk.priority=5",
        "wait_p99-vs-classes.bulk.priority-at-workers=2",
        "wait_p99-vs-classes.bulk.priority-at-workers=3",
        "wait_p99-vs-classes.bulk.priority-at-workers=4",
        "wait_mean-vs-workers-at-classes.bulk.priority=5",
        "jain-vs-workers-at-classes.bulk.priority=5",
        "tenant_p99_median-vs-workers-at-classes.bulk.priority=5",
        "worst_class_p99-vs-workers-at-classes.bulk.priority=5",
    ] {
        assert!(charts.join(format!("{stem}.svg")).is_file(), "{stem}");
    }
    let svg =
        std::fs::read_to_string(charts.join("wait_p99-vs-workers-at-classes.bulk.priority=5.svg")).unwrap();
    assert!(svg.contains("mm2 — p99 wait vs workers at classes.bulk.priority=5"), "title");
    assert!(svg.contains("p99 wait of all jobs (s)") && svg.contains(">workers<"), "axis labels");
    // one line per policy, in the sweep's order
    let series = elements(&svg, "g", "series");
    assert_eq!(series.iter().map(|g| attr(g, "data-policy")).collect::<Vec<_>>(), ["fifo", "priority"]);
    assert_eq!(elements(&svg, "polyline", "mean").len(), 2);
    // markers differ per policy (a circle for the first, a polygon for the second)
    let group = |p: &str| {
        let at = svg.find(&format!("<g class=\"series\" data-policy=\"{p}\">")).unwrap();
        &svg[at..at + svg[at..].find("</g>").unwrap()]
    };
    assert_eq!(group("fifo").matches("<circle class=\"marker\"").count(), 3);
    assert_eq!(group("priority").matches("<polygon class=\"marker\"").count(), 3);
    assert!(!group("priority").contains("<circle"));

    let want = intervals(&out, "wait_p99", ("classes.bulk.priority", "5"));
    let plot = elements(&svg, "g", "plot")[0];
    let [x0, x1, px0, px1, y0, y1, py0, py1] =
        ["data-x0", "data-x1", "data-px0", "data-px1", "data-y0", "data-y1", "data-py0", "data-py1"]
            .map(|a| num(attr(plot, a)));
    let log = attr(plot, "data-y-scale") == "log";
    // the inverse of the drawing's mapping: pixel -> value
    let x_of = |px: f64| x0 + (px - px0) / (px1 - px0) * (x1 - x0);
    let y_of = |py: f64| {
        let f = (py0 - py) / (py0 - py1);
        if log {
            10f64.powf(y0.log10() + f * (y1.log10() - y0.log10()))
        } else {
            y0 + f * (y1 - y0)
        }
    };
    let bands = elements(&svg, "polygon", "ci");
    assert_eq!(bands.len(), 2);
    for band in bands {
        let policy = attr(band, "data-policy");
        let lows: Vec<&str> = attr(band, "data-ci-low").split(' ').collect();
        let highs: Vec<&str> = attr(band, "data-ci-high").split(' ').collect();
        let pts: Vec<(f64, f64)> = attr(band, "points")
            .split(' ')
            .map(|p| {
                let (a, b) = p.split_once(',').unwrap();
                (num(a), num(b))
            })
            .collect();
        // three x values: the upper edge left to right, then the lower edge back
        assert_eq!(pts.len(), 6);
        for (k, workers) in ["2", "3", "4"].iter().enumerate() {
            let (lo, hi) = &want[&(workers.to_string(), policy.to_string())];
            // the attributes are sweep.csv's cells, as written
            assert_eq!((lows[k], highs[k]), (lo.as_str(), hi.as_str()), "{policy} workers={workers}");
            // and the polygon is drawn there: coordinates carry two decimals,
            // so a value is recovered to 0.005 px of its axis
            let per_px = (y1 - y0) / (py0 - py1);
            let (up, down) = (pts[k], pts[5 - k]);
            assert!((x_of(up.0) - num(workers)).abs() < 0.01 && (x_of(down.0) - num(workers)).abs() < 0.01);
            let (got_hi, got_lo) = (y_of(up.1), y_of(down.1));
            let tol = |v: f64| if log { v * 1e-4 } else { 0.006 * per_px };
            assert!((got_hi - num(hi)).abs() <= tol(num(hi)), "{policy} {workers}: {got_hi} vs {hi}");
            assert!((got_lo - num(lo)).abs() <= tol(num(lo)), "{policy} {workers}: {got_lo} vs {lo}");
        }
    }
}

#[test]
fn one_point_gets_a_dot_and_whisker_per_policy() {
    let (_d, out) = sweep_yaml(MM2, &["--seeds", "3"]);
    let svg = std::fs::read_to_string(out.join("charts/wait_mean-by-policy.svg")).unwrap();
    let rows = read_csv(&out.join("sweep.csv"));
    let whiskers = elements(&svg, "path", "ci");
    assert_eq!(whiskers.len(), 2);
    for w in whiskers {
        let r = rows
            .iter()
            .find(|r| r["metric"] == "wait_mean" && r["policy"] == attr(w, "data-policy"))
            .unwrap();
        assert_eq!(
            (attr(w, "data-ci-low"), attr(w, "data-ci-high")),
            (r["ci_low"].as_str(), r["ci_high"].as_str())
        );
    }
}

#[test]
fn report_shows_the_grid_and_the_paired_comparison() {
    let (_d, out) = sweep_yaml(MM2, &["--seeds", "6", "--set", "workers=2,3"]);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let command =
        "fairsim sweep t.yaml --seeds 6 --set workers=2,3 --policy fifo --policy priority --baseline fifo";
    assert!(html.contains(command), "provenance command");
    assert!(html.contains("<th>workers</th><td>2, 3</td>"));
    let paired = read_csv(&out.join("paired.csv"));
    let runs = read_csv(&out.join("runs.csv"));
    for workers in ["2", "3"] {
        let r = paired
            .iter()
            .find(|r| r["workers"] == workers && r["policy"] == "priority" && r["metric"] == "wait_p99")
            .unwrap();
        // the ratio of means recomputed from runs.csv: sum over the six
        // seeds of priority's p99 over the same sum for fifo
        let sum = |p: &str| -> f64 {
            runs.iter()
                .filter(|x| x["workers"] == workers && x["policy"] == p)
                .map(|x| num(&x["wait_p99"]))
                .sum()
        };
        let ratio = sum("priority") / sum("fifo");
        assert!((num(&r["ratio"]) - ratio).abs() < 1e-8 * ratio, "{} vs {ratio}", r["ratio"]);
        assert!(num(&r["ratio_low"]) <= ratio && ratio <= num(&r["ratio_high"]));
        // the page says how many times narrower the paired interval is:
        // unpaired half-width / paired half-width, one decimal
        let times = num(&r["unpaired_half_width"]) / num(&r["half_width"]);
        let said = format!("paired CI {times:.1}× narrower than unpaired");
        let line = html
            .split("<h3>")
            .find(|s| s.starts_with(&format!("workers={workers}</h3>\n<ul")))
            .and_then(|s| s.lines().find(|l| l.starts_with("<li>priority vs fifo, p99 wait:")))
            .unwrap_or_else(|| panic!("no p99 line for workers={workers}"));
        assert!(line.contains(&said), "{line} lacks {said}");
    }
    // every chart of the folder is on the page
    let charts = std::fs::read_dir(out.join("charts")).unwrap().count();
    assert!(charts >= 5);
    assert_eq!(html.matches("<figure").count(), charts);
}

const BLOCK: &str = "\
sweep:
  seeds: 3
  set:
    workers: [2, 3]
  policies: [priority, fifo]
  baseline: priority
";

#[test]
fn a_sweep_block_writes_what_its_options_write() {
    let (_a, with_block) = sweep_yaml(&format!("{MM2}{BLOCK}"), &[]);
    let options = ["--seeds", "3", "--set", "workers=2,3", "--policy", "priority", "--policy", "fifo"];
    let (_b, with_options) = sweep_yaml(MM2, &[&options[..], &["--baseline", "priority"]].concat());
    let (a, b) = (files(&with_block), files(&with_options));
    assert_eq!(a.iter().map(|f| &f.0).collect::<Vec<_>>(), b.iter().map(|f| &f.0).collect::<Vec<_>>());
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        match name.as_str() {
            // the files differ by the block itself: the scenario's text and its hash
            "scenario.yaml" => assert_eq!(x.len(), y.len() + BLOCK.len()),
            "manifest.json" => {
                let drop_hash = |t: &[u8]| -> String {
                    String::from_utf8_lossy(t).lines().filter(|l| !l.contains("fnv1a64")).collect()
                };
                assert_eq!(drop_hash(x), drop_hash(y));
            }
            _ => assert!(x == y, "{name} differs"),
        }
    }
    // 2 points x 3 seeds x 2 policies, the baseline the block's
    assert_eq!(read_csv(&with_block.join("runs.csv")).len(), 12);
    assert!(read_csv(&with_block.join("paired.csv")).iter().all(|r| r["baseline"] == "priority"));
    // a command-line option replaces the block's: --seeds 2, and --set drops its grid
    let (_c, over) =
        sweep_yaml(&format!("{MM2}{BLOCK}"), &["--seeds", "2", "--set", "classes.bulk.priority=0,5"]);
    let runs = read_csv(&over.join("runs.csv"));
    assert_eq!(runs.len(), 8);
    assert!(!runs[0].contains_key("workers") && runs[0].contains_key("classes.bulk.priority"));
    // `fairsim run` takes the file and ignores the block: one run per policy
    let (_r, run) = common::run_yaml(&format!("{MM2}{BLOCK}"), &["--logs", "summary", "--no-plots"]);
    assert_eq!(read_csv(&run.join("comparison.csv")).len(), 2);
}

fn sweep_error(text: &str) -> String {
    let dir = tempdir();
    let sc = dir.path().join("t.yaml");
    std::fs::write(&sc, text).unwrap();
    let out = fairsim().arg("sweep").arg(&sc).arg("--out").arg(dir.path().join("out")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!dir.path().join("out").exists(), "a folder was left: {err}");
    err
}

#[test]
fn a_bad_sweep_block_is_refused_at_its_line_and_column() {
    // MM2 has 11 lines: `sweep:` is line 12, its keys on line 13 at column 3;
    // a refused value is placed at its list, the other errors at the value
    for (block, place, says) in [
        ("sweep:\n  seeds: 0\n", "t.yaml:13:10:", "at least one seed"),
        ("sweep:\n  set:\n    workers: []\n", "t.yaml:14:14:", "an empty list"),
        ("sweep:\n  set:\n    workers: [1, 0]\n", "t.yaml:14:14:", "workers = 0 is refused"),
        ("sweep:\n  set:\n    worker: [1]\n", "t.yaml:14:13:", "did you mean `workers`?"),
        ("sweep:\n  policies: [fifo, wfqq]\n", "t.yaml:13:20:", "wfqq"),
        (
            "sweep:\n  policies: [fifo]\n  baseline: priority\n",
            "t.yaml:14:13:",
            "not among the sweep's policies (fifo)",
        ),
    ] {
        let err = sweep_error(&format!("{MM2}{block}"));
        assert!(err.contains(place) && err.contains(says), "{block}: {err}");
    }
    // a misspelt key of the block is the loader's error, for `validate` and `run` too
    let err = validate_error(&format!("{MM2}sweep:\n  seed: 3\n"), "t.yaml");
    assert!(err.contains("t.yaml:13:3:") && err.contains("did you mean `seeds`?"), "{err}");
    let err = sweep_error(&format!("{MM2}sweep:\n  set: {{workers: 8}}\n"));
    assert!(err.contains("t.yaml:13:18:") && err.contains("expected a list"), "{err}");
}

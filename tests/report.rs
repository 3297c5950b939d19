//! Fairness metrics, comparison headline, charts and the HTML report, end to end.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;

fn comparison(dir: &Path) -> HashMap<String, HashMap<String, String>> {
    read_csv(&dir.join("comparison.csv")).into_iter().map(|r| (r["policy"].clone(), r)).collect()
}

fn f(cell: &str) -> f64 {
    secs(cell)
}

#[test]
fn jain_series_matches_the_abc_rotation_by_hand() {
    // Two workers, unit jobs, caps of 1, rotation A B C: in each of the first
    // three ticks two tenants get 1s of service and the third none. Demands are
    // at least 1s each (cap 1 x 1s), so the 2s delivered split 2/3 each:
    // x = (1.5, 1.5, 0), J = 3^2 / (3 x 4.5) = 2/3. In tick 4 only A and B are
    // backlogged and each gets its 1s: J = 1. From tick 5 only A waits: not counted.
    // Gini of the same x: (1.5, 1.5, 0) differ by 1.5 in two of three pairs,
    // sum over ordered pairs 6, over 2 n sum x = 2 x 3 x 3: 1/3; (1, 1): 0.
    let out = tempdir();
    run(&scenario("abc-rotation.yaml"), out.path(), &["--no-plots"]);
    let rows = read_csv(&out.path().join("round_robin").join("fairness.csv"));
    let expect = [
        ("1", "0.666667", "3", "0.333333"),
        ("2", "0.666667", "3", "0.333333"),
        ("3", "0.666667", "3", "0.333333"),
        ("4", "1.000000", "2", "0.000000"),
    ];
    for (r, (time, jain, backlogged, gini)) in rows.iter().zip(expect) {
        assert_eq!(
            (r["time"].as_str(), r["jain"].as_str(), r["backlogged"].as_str(), r["gini"].as_str()),
            (time, jain, backlogged, gini)
        );
    }
    assert!(rows[4..].iter().all(|r| r["jain"].is_empty() && r["gini"].is_empty()));
    let c = comparison(out.path());
    // mean over the four counted windows: (3 x 2/3 + 1) / 4 = 0.75; min 2/3
    assert_eq!(c["round_robin"]["jain"], "0.7500");
    assert_eq!(c["round_robin"]["jain_min"], "0.6667");
    // Gini: (3 x 1/3 + 0) / 4 = 0.25, worst 1/3
    assert_eq!(c["round_robin"]["gini"], "0.2500");
    assert_eq!(c["round_robin"]["gini_max"], "0.3333");
    // median tenant p99: A waits up to 22s, B 3s, C 2s (starts at ticks 3-4 and 2-3);
    // nearest-rank median of (2, 3, 22) = 3
    assert_eq!(c["round_robin"]["tenant_p99_median"], "3");
}

#[test]
fn a_gini_objective_judges_the_mean_over_the_windows() {
    // the A, B, C example: round_robin's mean Gini is 0.25 (above), so a
    // bound of 0.3 holds and 0.2 does not; `gini` is at most its bound
    let dir = tempdir();
    let text = std::fs::read_to_string(scenario("abc-rotation.yaml")).expect("readable");
    let path = dir.path().join("abc.yaml");
    std::fs::write(
        &path,
        format!("{text}objectives:\n  - {{gini: 0.3, name: loose}}\n  - {{gini: 20%, name: tight}}\n"),
    )
    .expect("write");
    let out = dir.path().join("out");
    run(&path, &out, &["--no-plots", "--policy", "round_robin"]);
    let rows = read_csv(&out.join("scorecard.csv"));
    let row = |name: &str| rows.iter().find(|r| r["objective"] == name).expect("a row").clone();
    for (name, pass, margin) in [("loose", "true", 0.05), ("tight", "false", -0.05)] {
        let r = row(name);
        assert_eq!((r["measure"].as_str(), r["direction"].as_str()), ("gini", "at_most"));
        assert!((f(&r["figure"]) - 0.25).abs() < 1e-12, "{r:?}");
        assert_eq!(r["pass"], pass);
        assert!((f(&r["margin"]) - margin).abs() < 1e-12, "{r:?}");
    }
}

#[test]
fn class_series_tracks_queued_running_and_oldest_age() {
    // All 45 jobs arrive at 0 in class default; two start per second. At the end
    // of tick k (time k s) the 2k started have all completed (1s each) and the
    // next pair starts just after the tick closes: queued 45 - 2k, running 0,
    // completed 2k, and the oldest claimable job has waited k seconds.
    let out = tempdir();
    run(&scenario("abc-rotation.yaml"), out.path(), &["--no-plots"]);
    let rows = read_csv(&out.path().join("round_robin").join("classes.csv"));
    for (k, r) in rows.iter().take(4).enumerate() {
        let k = k as u64 + 1;
        assert_eq!(r["class"], "default");
        assert_eq!(r["time"], k.to_string());
        assert_eq!(r["queued"], (45 - 2 * k).to_string());
        assert_eq!(r["completed"], (2 * k).to_string());
        assert_eq!(r["oldest_age"], k.to_string());
    }
    // summary: every job ran 1s after waiting w, so slowdown = w + 1; the last
    // pair waits 22s (45 jobs, 2 at a time): p99 (rank ceil(44.55) = 45) = 23
    let summary = read_csv(&out.path().join("round_robin").join("summary.csv"));
    let all = summary.iter().find(|r| r["scope"] == "all").expect("all row");
    assert_eq!(all["slowdown_p99"], "23.0000");
    assert_eq!(all["share_received"], "1.0000");
    assert_eq!(all["utilization"], "0.9783", "45 busy seconds over 2 workers x 23s");
}

#[test]
fn noisy_neighbor_fifo_is_visibly_less_fair_than_round_robin() {
    let out = tempdir();
    run(&scenario("noisy-neighbor.yaml"), out.path(), &["--no-plots"]);
    let c = comparison(out.path());
    let (fifo, rr) = (&c["fifo"], &c["round_robin"]);
    // The dump is 5000 jobs of mean service 0.5s x exp(0.77^2 / 2) = 0.67s
    // (lognormal, median 0.5s, p99 3s: sigma = ln 6 / 2.326) on 8 workers:
    // about 420s of backlog. Under fifo every small job arriving in it waits
    // for the dump: the typical (median) tenant's p99 is several minutes.
    assert!(f(&fifo["tenant_p99_median"]) > 300.0, "fifo median tenant p99 {}", fifo["tenant_p99_median"]);
    // round_robin serves a small tenant at the next free worker: well under
    // one bulk job's p99 service time (3s).
    assert!(f(&rr["tenant_p99_median"]) < 3.0, "round_robin median tenant p99 {}", rr["tenant_p99_median"]);
    // ... but not at the *first* worker that frees: a newcomer joins the
    // rotation behind bulk and takes the second release, Gamma(2, r) with
    // r = 12.5 releases/s, 98.2th percentile 0.475 s; strict priority takes
    // the first, Exp(r), 0.32 s (derivation in tests/noisy_neighbor.rs). The
    // boundary between the two, 0.39 s, is what tells round robin from
    // priority here: with every small tenant in the top class, priority
    // passes every other round_robin assertion of this test.
    let prio = &c["priority"];
    assert!(f(&rr["tenant_p99_median"]) > 0.39, "round_robin median tenant p99 {}", rr["tenant_p99_median"]);
    assert!(f(&prio["tenant_p99_median"]) < 0.39, "priority median tenant p99 {}", prio["tenant_p99_median"]);
    // While the dump is served alone, the six tenants' x are (>0, 0, 0, 0, 0, 0):
    // J = 1/6. Those windows are about half the counted ones, so fifo's mean is
    // far below round_robin's, whose windows give everyone its share (J near 1).
    assert!(f(&fifo["jain_min"]) < 0.2, "fifo jain_min {}", fifo["jain_min"]);
    assert!(f(&fifo["jain"]) < 0.75, "fifo jain {}", fifo["jain"]);
    assert!(f(&rr["jain"]) > 0.95, "round_robin jain {}", rr["jain"]);
    assert!(f(&rr["jain"]) - f(&fifo["jain"]) > 0.2);
    // starvation events: 5 tenants x 0.5 jobs/s x ~420s of backlog wait past the 10s sla under fifo
    assert!(f(&fifo["sla_misses"]) > 900.0, "fifo sla misses {}", fifo["sla_misses"]);
    assert_eq!(rr["sla_misses"], "0");
}

/// Tags of an SVG file balance (a light well-formedness check).
fn assert_well_formed(svg: &str, name: &str) {
    assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"), "{name}: {}", &svg[..40.min(svg.len())]);
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let j = rest[i..].find('>').unwrap_or_else(|| panic!("{name}: unterminated tag")) + i;
        let tag = &rest[i + 1..j];
        rest = &rest[j + 1..];
        if tag.starts_with('?') || tag.starts_with('!') || tag.ends_with('/') {
            continue;
        }
        let name_of = |t: &str| t.split_whitespace().next().unwrap_or("").to_string();
        if let Some(close) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(close.trim()), "{name}: mismatched </{close}>");
        } else {
            stack.push(name_of(tag));
        }
    }
    assert!(stack.is_empty(), "{name}: unclosed {stack:?}");
}

#[test]
fn charts_and_report_are_written_and_rebuilt_byte_for_byte() {
    let out = tempdir();
    run(&scenario("noisy-neighbor.yaml"), out.path(), &[]);
    let dir = out.path();
    let charts = dir.join("charts");
    let expect = [
        ("fifo-completions", "Cumulative completions per tenant", "jobs completed"),
        ("fifo-oldest-age", "Oldest claimable job age per class", "oldest claimable age"),
        ("round_robin-running", "Running jobs per tenant", "running jobs"),
        ("priority-wait-cdf", "Wait-time CDF per tenant", "wait before first start"),
        ("p99-wait-by-policy", "p99 wait per tenant, by policy", "p99 wait"),
        ("jain-over-time", "Jain&apos;s fairness index per window, by policy", "simulated time"),
        ("strategies-p99", "Strategy comparison: p99 wait of the typical and the worst tenant", "p99 wait"),
        (
            "strategies-jain",
            "Strategy comparison: Jain&apos;s index",
            "Jain&apos;s index over the fairness windows",
        ),
    ];
    for (stem, title, axis) in expect {
        let svg = std::fs::read_to_string(charts.join(format!("{stem}.svg"))).expect(stem);
        assert_well_formed(&svg, stem);
        assert!(svg.contains(title), "{stem}: title");
        assert!(svg.contains(axis), "{stem}: axis label");
        let png = std::fs::read(charts.join(format!("{stem}.png"))).expect(stem);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{stem}.png");
    }
    // the legends name the tenants and the policies
    let p99 = std::fs::read_to_string(charts.join("p99-wait-by-policy.svg")).unwrap();
    for name in ["bulk", "s1", "fifo", "round_robin", "priority"] {
        assert!(p99.contains(name), "p99 chart lacks {name}");
    }
    let html = std::fs::read_to_string(dir.join("report.html")).expect("report.html");
    assert!(html.contains("<h1>fairsim report: noisy-neighbor</h1>"));
    assert!(html.contains("tenant_p99_median"), "comparison table");
    assert!(html.contains("One tenant dumps 5,000 export jobs"), "scenario echoed");
    // four per policy, four across them, and the trade-off (the class SLA is an objective)
    assert_eq!(html.matches("<svg").count(), 3 * 4 + 4 + 1, "every chart inline");
    assert_eq!(
        std::fs::read(dir.join("scenario.yaml")).unwrap(),
        std::fs::read(scenario("noisy-neighbor.yaml")).unwrap()
    );

    // Redrawing an untouched folder gives the same bytes: nothing in the
    // charts or the report depends on the run's memory, the clock or the
    // machine. (Both sides are drawn by the same code from the same CSV
    // files, so this alone does not show that the plotted values are right:
    // `p99_chart_plots_the_hand_derived_waits_and_report_redraws_from_the_csv`
    // reads the bars back against hand-derived waits and an edited CSV.)
    let before: Vec<(String, Vec<u8>)> = std::iter::once(dir.join("report.html"))
        .chain(std::fs::read_dir(&charts).unwrap().map(|e| e.unwrap().path()))
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    std::fs::remove_dir_all(&charts).unwrap();
    std::fs::remove_file(dir.join("report.html")).unwrap();
    fairsim().arg("report").arg(dir).assert().success();
    for (path, bytes) in before {
        assert!(std::fs::read(&path).unwrap() == bytes, "{path} differs after `fairsim report`");
    }
}

/// Attribute `name="..."` of an SVG tag.
fn attr(tag: &str, name: &str) -> Option<f64> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    tag[i..].split('"').next()?.parse().ok()
}

/// The bars of a grouped bar chart, as (policy, tenant, value read off the y axis).
/// Legend entries are an 18-pixel swatch followed by the policy's name; the
/// y axis is linear, its tick labels are right-aligned numbers; x-axis labels
/// (tenants) are centred under their group of bars.
fn bar_values(svg: &str) -> Vec<(String, String, f64)> {
    let mut elements = Vec::new(); // (tag, following text)
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let j = rest[i..].find('>').expect("tag") + i;
        let after = &rest[j + 1..];
        let text = after[..after.find('<').unwrap_or(after.len())].trim().to_string();
        elements.push((rest[i..=j].to_string(), text));
        rest = after;
    }
    let rects: Vec<&String> = elements.iter().map(|(t, _)| t).filter(|t| t.starts_with("<rect")).collect();
    let fill =
        |t: &str| t.split("fill=\"").nth(1).and_then(|f| f.split('"').next()).unwrap_or("").to_string();
    // legend: a swatch, then the text element with the label
    let mut legend: HashMap<String, String> = HashMap::new();
    for (k, (tag, _)) in elements.iter().enumerate() {
        if tag.starts_with("<rect") && attr(tag, "width") == Some(18.0) {
            legend.insert(fill(tag), elements[k + 1].1.clone());
        }
    }
    // y axis: right-aligned numeric labels at their y
    let ticks: Vec<(f64, f64)> = elements
        .iter()
        .filter(|(t, _)| t.starts_with("<text") && t.contains("text-anchor=\"end\""))
        .filter_map(|(t, text)| Some((text.parse::<f64>().ok()?, attr(t, "y")?)))
        .collect();
    let (zero, top) = (ticks.first().expect("axis"), ticks.last().expect("axis"));
    let per_unit = (zero.1 - top.1) / (top.0 - zero.0);
    // x labels: centred text below the plot area
    let tenants: Vec<(f64, String)> = elements
        .iter()
        .filter(|(t, text)| {
            t.starts_with("<text")
                && t.contains("text-anchor=\"middle\"")
                && attr(t, "y").is_some_and(|y| y > zero.1)
                && text.len() < 20
        })
        .filter(|(_, text)| text != "tenant")
        .filter_map(|(t, text)| Some((attr(t, "x")?, text.clone())))
        .collect();
    rects
        .iter()
        .filter(|t| attr(t, "width").is_some_and(|w| w > 18.0) && legend.contains_key(&fill(t)))
        .map(|t| {
            let centre = attr(t, "x").unwrap() + attr(t, "width").unwrap() / 2.0;
            let tenant = tenants
                .iter()
                .min_by(|a, b| (a.0 - centre).abs().total_cmp(&(b.0 - centre).abs()))
                .expect("tenant labels");
            (legend[&fill(t)].clone(), tenant.1.clone(), attr(t, "height").unwrap() / per_unit)
        })
        .collect()
}

fn bar(bars: &[(String, String, f64)], policy: &str, tenant: &str) -> f64 {
    bars.iter().find(|(p, t, _)| p == policy && t == tenant).unwrap_or_else(|| panic!("{policy} {tenant}")).2
}

#[test]
fn p99_chart_plots_the_hand_derived_waits_and_report_redraws_from_the_csv() {
    // The A, B, C example (two workers, unit jobs, caps of 1), p99 wait per
    // tenant (nearest rank: with at most 40 jobs, the largest wait):
    // round_robin: A's last job starts at 22 s (4 ticks of the article's table,
    // then 37 jobs as 18 pairs and one single), B's at 3 s, C's at 2 s.
    // round_robin-hold: A never runs two jobs, and misses tick 3 (B, C): its
    // 40th job starts at 40 s; B and C as under lend: 3 and 2.
    // fifo: A runs alone on one worker for ticks 1-5 while B (0, 1, 2) and
    // then C (3, 4) take the other, then 35 jobs in pairs from t = 5: last
    // start 5 + 17 = 22 s; B 2 s, C 4 s.
    // Bars are read off the pixel heights and the y axis labels; one pixel
    // is about 0.1 s on this axis (0 to 40 s over ~436 px), so 0.2 s allowed.
    let out = tempdir();
    run(&scenario("abc-rotation.yaml"), out.path(), &[]);
    let svg =
        |dir: &Path| std::fs::read_to_string(dir.join("charts").join("p99-wait-by-policy.svg")).unwrap();
    let bars = bar_values(&svg(out.path()));
    assert_eq!(bars.len(), 9, "{bars:?}");
    let expected = [
        ("round_robin", [22.0, 3.0, 2.0]),
        ("round_robin-hold", [40.0, 3.0, 2.0]),
        ("fifo", [22.0, 2.0, 4.0]),
    ];
    for (policy, values) in expected {
        for (tenant, want) in ["A", "B", "C"].into_iter().zip(values) {
            let got = bar(&bars, policy, tenant);
            assert!((got - want).abs() < 0.2, "{policy} {tenant}: bar {got:.2} s, expected {want} s");
        }
    }
    // The strategy comparison: the median over A, B, C of their p99 (the
    // typical tenant) and the largest: round_robin 3 and 22, hold 3 and 40,
    // fifo 4 and 22.
    let strategies =
        bar_values(&std::fs::read_to_string(out.path().join("charts/strategies-p99.svg")).unwrap());
    assert_eq!(strategies.len(), 6, "{strategies:?}");
    for (policy, median, worst) in
        [("round_robin", 3.0, 22.0), ("round_robin-hold", 3.0, 40.0), ("fifo", 4.0, 22.0)]
    {
        let got =
            (bar(&strategies, "median tenant p99", policy), bar(&strategies, "worst tenant p99", policy));
        assert!((got.0 - median).abs() < 0.2 && (got.1 - worst).abs() < 0.2, "{policy}: {got:?}");
    }
    // `fairsim report` draws from the CSV files alone: change round_robin's
    // p99 for A in summary.csv from 22 to 11 and the redrawn bar halves,
    // while every other bar (and so the axis, up to hold's 40 s) stays.
    let summary = out.path().join("round_robin").join("summary.csv");
    let text = std::fs::read_to_string(&summary).unwrap();
    let row = "tenant,A,40,40,0,11.900000,12,21,22,";
    assert!(text.contains(row), "{text}");
    std::fs::write(&summary, text.replace(row, "tenant,A,40,40,0,11.900000,12,21,11,")).unwrap();
    std::fs::remove_dir_all(out.path().join("charts")).unwrap();
    fairsim().arg("report").arg(out.path()).assert().success();
    let redrawn = bar_values(&svg(out.path()));
    assert!((bar(&redrawn, "round_robin", "A") - 11.0).abs() < 0.2, "{redrawn:?}");
    for (p, t, v) in &bars {
        if (p.as_str(), t.as_str()) != ("round_robin", "A") {
            assert!((bar(&redrawn, p, t) - v).abs() < 1e-9, "{p} {t}");
        }
    }
}

#[test]
fn report_on_a_folder_with_a_missing_csv_fails_with_exit_2() {
    let out = tempdir();
    run(&scenario("abc-rotation.yaml"), out.path(), &[]);
    std::fs::remove_file(out.path().join("fifo").join("tenants.csv")).unwrap();
    let a = fairsim().arg("report").arg(out.path()).assert().code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("tenants.csv") && err.contains("missing"), "{err}");
    std::fs::remove_file(out.path().join("comparison.csv")).unwrap();
    let a = fairsim().arg("report").arg(out.path()).assert().code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("comparison.csv") && err.contains("missing"), "{err}");
    fairsim().arg("report").arg(out.path().join("nope")).assert().code(2);
}

#[test]
fn no_plots_and_summary_logs() {
    let out = tempdir();
    run(&scenario("abc-rotation.yaml"), out.path(), &["--no-plots"]);
    assert!(!out.path().join("report.html").exists());
    assert!(!out.path().join("charts").exists());
    // summary logs: the report has the charts summary.csv and
    // comparison.csv allow (it used to say "No charts"), and
    // `report` rebuilds it byte for byte
    let out = tempdir();
    run(&scenario("abc-rotation.yaml"), out.path(), &["--logs", "summary"]);
    let html = std::fs::read_to_string(out.path().join("report.html")).unwrap();
    assert!(html.contains("--logs summary"));
    // strategy p99, strategy Jain, p99 by policy; no charts over time
    assert_eq!(html.matches("<svg").count(), 3);
    assert!(!out.path().join("charts/jain-over-time.svg").exists());
    // The p99 bars are the hand-derived waits of
    // `p99_chart_plots_the_hand_derived_waits_and_report_redraws_from_the_csv`.
    std::fs::remove_dir_all(out.path().join("charts")).unwrap();
    fairsim().arg("report").arg(out.path()).assert().success();
    assert_eq!(std::fs::read_to_string(out.path().join("report.html")).unwrap(), html);
    let svg = std::fs::read_to_string(out.path().join("charts/p99-wait-by-policy.svg")).unwrap();
    let bars = bar_values(&svg);
    for (policy, values) in [("round_robin", [22.0, 3.0, 2.0]), ("fifo", [22.0, 2.0, 4.0])] {
        for (tenant, want) in ["A", "B", "C"].into_iter().zip(values) {
            let got = bar(&bars, policy, tenant);
            assert!((got - want).abs() < 0.2, "{policy} {tenant}: bar {got:.2} s, expected {want} s");
        }
    }
}

#[test]
fn the_fairness_window_is_its_own_setting_and_changes_only_the_fairness_figures() {
    // One worker, A and B with two 1 s jobs each at t = 0, round robin: A B A B.
    // Windows of one tick (1 s): in each of ticks 1-3 one tenant gets the
    // whole second while the other waits, x = (2, 0), J = 4 / (2 x 4) = 1/2;
    // in tick 4 only B is backlogged, so it is not counted: jain 0.5.
    // Windows of 2 s: each window gives A and B one second each against an
    // entitlement of one each, x = (1, 1), J = 1: jain 1.0, from two windows.
    // The observation log (ticks.csv) is the same in both runs.
    let dir = tempdir();
    let body = "workers: 1\nworkload:\n  - {tenant: A, count: 2, service: 1s}\n  - {tenant: B, count: 2, service: 1s}\npolicies: [round_robin]\n";
    let mut jain = Vec::new();
    let mut ticks = Vec::new();
    for (name, log) in [("tick", "log: {tick: 1s}\n"), ("window", "log: {tick: 1s, window: 2s}\n")] {
        let sc = dir.path().join(format!("{name}.yaml"));
        std::fs::write(&sc, format!("{log}{body}")).expect("write");
        let out = dir.path().join(name);
        run(&sc, &out, &["--no-plots"]);
        let c = comparison(&out);
        jain.push((c["round_robin"]["jain"].clone(), c["round_robin"]["jain_min"].clone()));
        let windows = read_csv(&out.join("round_robin").join("fairness.csv"));
        let times: Vec<&str> = windows.iter().map(|r| r["time"].as_str()).collect();
        assert_eq!(times, if name == "tick" { vec!["1", "2", "3", "4"] } else { vec!["2", "4"] }, "{name}");
        ticks.push(std::fs::read_to_string(out.join("round_robin").join("ticks.csv")).expect("ticks"));
    }
    assert_eq!(jain[0], ("0.5000".to_string(), "0.5000".to_string()));
    assert_eq!(jain[1], ("1.0000".to_string(), "1.0000".to_string()));
    assert_eq!(ticks[0], ticks[1]);
}

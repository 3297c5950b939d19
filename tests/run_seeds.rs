//! `fairsim run --seeds N`: the scorecard over seeds against figures
//! derived here, from each seed's own single-seed run (its jobs.csv, p99 by
//! nearest rank) with the mean and the Student t interval computed in the
//! test from a table's t quantile; a deterministic scenario whose seeds all
//! agree; a bound inside the interval; the per-label files of the first seed.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;

/// Two tenants on 2 workers with random arrivals and service: the p99
/// wait and the utilization change with the seed. Every job is served
/// (the arrivals stop at 200 s and ρ = 0.8).
const RANDOM: &str = "workers: 2
seed: 100
workload:
  - {tenant: A, arrivals: {poisson: 1/s, stop: 200s}, service: {exponential: 1s}}
  - {tenant: B, arrivals: {poisson: 0.6/s, stop: 200s}, service: {exponential: 1s}}
policies: [fifo, round_robin]
objectives:
  - {wait_p99: BOUND}
  - {utilization: 50%}
";

/// t(0.975, df) from a table of Student's t.
fn t975(df: usize) -> f64 {
    match df {
        4 => 2.776,
        9 => 2.262,
        _ => panic!("no table entry for df {df}"),
    }
}

/// Mean and the 95% half-width of a sample.
fn mean_half_width(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let sd = (xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)).sqrt();
    (mean, t975(xs.len() - 1) * sd / n.sqrt())
}

/// Nearest-rank p99 of the waits of the started jobs of a jobs.csv.
fn p99_of(jobs: &Path) -> f64 {
    let mut w: Vec<f64> =
        read_csv(jobs).iter().filter(|r| !r["wait"].is_empty()).map(|r| secs(&r["wait"])).collect();
    w.sort_by(f64::total_cmp);
    w[((0.99 * w.len() as f64).ceil() as usize).max(1) - 1]
}

/// The rows of `scorecard.csv` by (policy, objective).
fn scorecard(out: &Path) -> HashMap<(String, String), HashMap<String, String>> {
    read_csv(&out.join("scorecard.csv"))
        .into_iter()
        .map(|r| ((r["policy"].clone(), r["objective"].clone()), r))
        .collect()
}

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!((got - want).abs() <= tol, "{what}: {got} vs {want} (tolerance {tol})");
}

#[test]
fn the_scorecard_over_five_seeds_is_the_mean_and_t_interval_of_each_seeds_own_run() {
    let dir = tempdir();
    let sc = write_scenario(dir.path(), "t.yaml", &RANDOM.replace("BOUND", "30s"));
    let out = dir.path().join("five");
    run(&sc, &out, &["--seeds", "5", "--no-plots"]);
    // each seed on its own: 100 .. 104, each label's p99 from its jobs.csv
    let mut p99: HashMap<&str, Vec<f64>> = HashMap::new();
    for k in 0..5 {
        let one = dir.path().join(format!("seed{k}"));
        run(&sc, &one, &["--seed", &(100 + k).to_string(), "--no-plots"]);
        for label in ["fifo", "round_robin"] {
            p99.entry(label).or_default().push(p99_of(&one.join(label).join("jobs.csv")));
        }
    }
    assert!(p99["fifo"].iter().any(|x| *x != p99["fifo"][0]), "the seeds differ: {:?}", p99["fifo"]);
    let card = scorecard(&out);
    for label in ["fifo", "round_robin"] {
        let row = &card[&(label.to_string(), "wait_p99".to_string())];
        let (mean, h) = mean_half_width(&p99[label]);
        close(secs(&row["figure"]), mean, 1e-9, "figure = mean over the seeds");
        // the table's 2.776 against the exact 2.7764: 2e-4 of the half-width
        close(secs(&row["lo"]), mean - h, 2e-4 * h + 1e-9, "lo");
        close(secs(&row["hi"]), mean + h, 2e-4 * h + 1e-9, "hi");
        assert_eq!(row["seeds"], "5");
        let status = if mean + h <= 30.0 {
            "pass"
        } else if mean - h > 30.0 {
            "fail"
        } else {
            "uncertain"
        };
        assert_eq!(row["status"], status, "{label}");
        assert_eq!(row["pass"], (status == "pass").to_string());
        close(secs(&row["margin"]), 30.0 - mean, 1e-6, "margin from the mean");
    }
    // seeds.csv: one row per entry and seed, each seed's figure
    let seeds = read_csv(&out.join("seeds.csv"));
    assert_eq!(seeds.len(), 10);
    for r in &seeds {
        let k = r["seed"].parse::<usize>().unwrap() - 100;
        close(secs(&r["objective:wait_p99"]), p99[r["policy"].as_str()][k], 1e-9, "seeds.csv figure");
    }
    // the paired difference round_robin - fifo: the mean of the per-seed differences
    let diffs: Vec<f64> = p99["round_robin"].iter().zip(&p99["fifo"]).map(|(a, b)| a - b).collect();
    let (mean, h) = mean_half_width(&diffs);
    let paired = read_csv(&out.join("seeds_paired.csv"));
    let row = paired
        .iter()
        .find(|r| {
            r["policy"] == "round_robin" && r["versus"] == "fifo" && r["figure"] == "objective:wait_p99"
        })
        .expect("round_robin against the first entry");
    close(secs(&row["difference"]), mean, 1e-9, "paired difference");
    close(secs(&row["lo"]), mean - h, 2e-4 * h + 1e-9, "paired lo");
    close(secs(&row["hi"]), mean + h, 2e-4 * h + 1e-9, "paired hi");
    assert_eq!(row["within_noise"], (mean - h <= 0.0 && 0.0 <= mean + h).to_string());
}

#[test]
fn a_bound_inside_the_interval_is_uncertain() {
    let dir = tempdir();
    // fifo's p99 at seeds 100 .. 104, each from its own run
    let probe = write_scenario(dir.path(), "probe.yaml", &RANDOM.replace("BOUND", "30s"));
    let mut p99 = Vec::new();
    for k in 0..5 {
        let one = dir.path().join(format!("seed{k}"));
        run(&probe, &one, &["--seed", &(100 + k).to_string(), "--no-plots", "--policy", "fifo"]);
        p99.push(p99_of(&one.join("fifo/jobs.csv")));
    }
    let (mean, h) = mean_half_width(&p99);
    assert!(h > 0.0);
    // the bound at the mean: inside the interval, on neither side of it
    let bound = format!("{}ms", (mean * 1000.0).round());
    let sc = write_scenario(dir.path(), "t.yaml", &RANDOM.replace("BOUND", &bound));
    let out = dir.path().join("out");
    let cmd = fairsim()
        .args(["run", sc.to_str().unwrap(), "--seeds", "5", "--no-plots", "--policy", "fifo", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(cmd.status.success(), "{}", String::from_utf8_lossy(&cmd.stderr));
    let row = &scorecard(&out)[&("fifo".to_string(), "wait_p99".to_string())];
    assert_eq!((row["status"].as_str(), row["pass"].as_str()), ("uncertain", "false"));
    let stdout = String::from_utf8_lossy(&cmd.stdout);
    assert!(stdout.contains("fifo is uncertain: `wait_p99 <= "), "{stdout}");
    assert!(stdout.contains("scorecard over 5 seeds"), "{stdout}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("fairsim-results.json")).unwrap()).unwrap();
    let v = &doc["verdict"];
    assert_eq!(v["seeds"], 5);
    assert_eq!(v["uncertain"][0]["policy"], "fifo");
    assert_eq!(v["uncertain"][0]["objectives"][0]["objective"], "wait_p99");
    close(v["uncertain"][0]["objectives"][0]["lo"].as_f64().unwrap(), mean - h, 2e-4 * h + 1e-9, "JSON lo");
    assert_eq!(v["passing"].as_array().unwrap().len(), 0);
}

/// Fixed arrivals and constant service (tests/scorecard.rs's SMALL): every
/// seed gives the same waits. The fast class waits 19, 19, 19 s.
const FIXED: &str = "workers: 2
classes:
  fast: {sla: 2s}
  slow: {}
workload:
  - {tenant: A, class: slow, count: 4, at: 0s, service: 10s}
  - {tenant: B, class: fast, count: 2, at: 1s, service: 1s}
  - {tenant: C, class: fast, count: 1, at: 2s, service: 1s}
  - {tenant: C, class: slow, count: 1, at: 3s, service: 2s}
policies: [fifo]
objectives:
  - {class: fast, wait_p99: 19s, name: at the figure}
  - {class: fast, wait_p99: 18s, name: below it}
";

#[test]
fn seeds_that_agree_give_an_interval_of_width_zero_and_never_uncertain() {
    let (_dir, out) = run_yaml(FIXED, &["--seeds", "4", "--no-plots"]);
    let card = scorecard(&out);
    for (name, status) in [("at the figure", "pass"), ("below it", "fail")] {
        let row = &card[&("fifo".to_string(), name.to_string())];
        assert_eq!((secs(&row["figure"]), secs(&row["lo"]), secs(&row["hi"])), (19.0, 19.0, 19.0), "{name}");
        assert_eq!((row["status"].as_str(), row["seeds"].as_str()), (status, "4"), "{name}");
    }
    assert_eq!(read_csv(&out.join("seeds.csv")).len(), 4);
}

#[test]
fn zero_seeds_is_a_usage_error() {
    let dir = tempdir();
    let sc = write_scenario(dir.path(), "t.yaml", FIXED);
    let cmd = fairsim()
        .args(["run", sc.to_str().unwrap(), "--seeds", "0", "--out"])
        .arg(dir.path().join("o"))
        .output()
        .unwrap();
    assert_eq!(cmd.status.code(), Some(2));
    let err = String::from_utf8_lossy(&cmd.stderr);
    assert!(err.contains("--seeds 0: give at least 1"), "{err}");
    assert!(!dir.path().join("o").exists(), "no folder for a refused command");
}

/// The results document without what names the command and the folder.
fn document(dir: &Path) -> serde_json::Value {
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("fairsim-results.json")).unwrap()).unwrap();
    for k in ["command", "out", "started"] {
        doc.as_object_mut().unwrap().remove(k);
    }
    doc
}

#[test]
fn the_per_label_files_are_the_first_seeds_and_one_seed_is_the_default() {
    let dir = tempdir();
    let sc = write_scenario(dir.path(), "t.yaml", &RANDOM.replace("BOUND", "30s"));
    let (none, one, five, five_serial) =
        (dir.path().join("none"), dir.path().join("one"), dir.path().join("five"), dir.path().join("five1"));
    run(&sc, &none, &["--no-plots"]);
    run(&sc, &one, &["--no-plots", "--seeds", "1"]);
    run(&sc, &five, &["--no-plots", "--seeds", "5"]);
    run(&sc, &five_serial, &["--no-plots", "--seeds", "5", "--jobs", "1"]);
    // --seeds 1 is no option at all: every file the same
    let json = |(n, _): &(String, Vec<u8>)| n == "fairsim-results.json";
    let strip = |d: &Path| files(d).into_iter().filter(|f| !json(f)).collect::<Vec<_>>();
    assert_eq!(strip(&none), strip(&one));
    assert_eq!(document(&none), document(&one));
    // with five seeds, the per-label folders are the first seed's, byte for byte
    for label in ["fifo", "round_robin"] {
        for f in ["jobs.csv", "summary.csv", "ticks.csv"] {
            let a = std::fs::read(none.join(label).join(f)).unwrap();
            assert_eq!(a, std::fs::read(five.join(label).join(f)).unwrap(), "{label}/{f}");
        }
    }
    // the threads do not change a byte
    assert_eq!(strip(&five), strip(&five_serial));
    // the first seed's row of seeds.csv is the one-seed scorecard's figure
    let first = read_csv(&five.join("seeds.csv"));
    let card = scorecard(&none);
    let one_p99 = &card[&("fifo".to_string(), "wait_p99".to_string())]["figure"];
    let row = first.iter().find(|r| r["policy"] == "fifo" && r["seed"] == "100").unwrap();
    assert_eq!(&row["objective:wait_p99"], one_p99);
    assert!(!none.join("seeds_paired.csv").exists(), "no pairs with one seed");
}

/// The `data-lo`, `data-hi` of the trade-off chart's whisker for `policy`
/// along `axis` in report.html.
fn whisker(html: &str, policy: &str, axis: &str) -> (f64, f64) {
    let key = |t: &str, n: &str| -> String {
        let k = format!(" {n}=\"");
        let i = t.find(&k).unwrap_or_else(|| panic!("{n} in {t}")) + k.len();
        t[i..].split('"').next().unwrap().to_string()
    };
    let tag = html
        .split("<line class=\"whisker\"")
        .skip(1)
        .find(|t| key(t, "data-policy") == policy && key(t, "data-axis") == axis)
        .unwrap_or_else(|| panic!("no {axis} whisker for {policy}"));
    (key(tag, "data-lo").parse().unwrap(), key(tag, "data-hi").parse().unwrap())
}

#[test]
fn the_trade_off_whiskers_are_the_scorecards_interval_up_and_the_seeds_utilization_across() {
    // no cost objective: utilization is drawn across, its interval from
    // seeds.csv's figure per seed, computed here with the table's t
    let text = RANDOM.replace("  - {utilization: 50%}\n", "").replace("BOUND", "30s");
    let (_dir, out) = run_yaml(&text, &["--seeds", "5"]);
    let html = std::fs::read_to_string(out.join("report.html")).expect("report");
    let card = scorecard(&out);
    let seeds = read_csv(&out.join("seeds.csv"));
    for label in ["fifo", "round_robin"] {
        let row = &card[&(label.to_string(), "wait_p99".to_string())];
        let want: (f64, f64) = (row["lo"].parse().unwrap(), row["hi"].parse().unwrap());
        assert_eq!(whisker(&html, label, "y"), want, "{label}: up, scorecard.csv's interval");
        let u: Vec<f64> = seeds
            .iter()
            .filter(|r| r["policy"] == label)
            .map(|r| r["utilization"].parse().unwrap())
            .collect();
        assert_eq!(u.len(), 5);
        let (mean, h) = mean_half_width(&u);
        let (lo, hi) = whisker(&html, label, "x");
        close(lo, mean - h, 2e-4 * h + 1e-12, "utilization lo");
        close(hi, mean + h, 2e-4 * h + 1e-12, "utilization hi");
    }
    // one seed: no whisker
    let (_one, single) = run_yaml(&text, &[]);
    let html = std::fs::read_to_string(single.join("report.html")).expect("report");
    assert!(!html.contains("class=\"whisker\""), "a whisker with one seed");
}

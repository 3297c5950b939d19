//! `fairsim calibrate --seeds N`: the band of simulated waits over N seeds
//! is a point for a deployment that draws nothing, and a record shifted by
//! a known amount lies outside it by exactly that amount; a weighted poll
//! gives a band whose two edges are the two orders a hand count allows.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::{fairsim, files, read_csv, secs, tempdir};

/// Two workers, a strict poll of critical before bulk: nothing is drawn.
const STRICT: &str = "name: strict
workers: 2
seed: 5
classes: {critical: {}, bulk: {}}
workload:
  - {tenant: a, class: critical, count: 5, service: 1s}
  - {tenant: b, class: bulk, count: 3, service: 2s}
topologies:
  sidekiq:
    queues: [critical, bulk]
    route: [{class: critical, to: critical}, {to: bulk}]
    pools: [{name: threads, workers: 2, queues: [critical, bulk]}]
policies:
  - {policy: fifo, topology: sidekiq, label: strict}
";

/// One worker polling critical and bulk 1:1 at random.
const WEIGHTED: &str = "name: weighted
workers: 1
seed: 5
classes: {critical: {}, bulk: {}}
topologies:
  sidekiq:
    queues: [critical, bulk]
    route: [{class: critical, to: critical}, {to: bulk}]
    pools: [{name: threads, workers: 1, queues: [critical, bulk], poll: weighted, weights: [1, 1]}]
policies:
  - {policy: fifo, topology: sidekiq, label: weighted}
";

/// A trace row: tenant, class, arrival, service, recorded start (seconds).
type Row = (String, String, f64, f64, f64);

fn write_trace(dir: &Path, name: &str, rows: &[Row]) -> PathBuf {
    let mut csv = String::from("id,created_at,tenant,queue,service,started_at\n");
    for (k, (t, c, a, s, st)) in rows.iter().enumerate() {
        csv.push_str(&format!("j{k},{a:.6},{t},{c},{s:.6},{st:.6}\n"));
    }
    let p = dir.join(name);
    std::fs::write(&p, csv).expect("write trace");
    p
}

fn calibrate(sc: &Path, trace: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    fairsim()
        .arg("calibrate")
        .arg(sc)
        .arg("--trace")
        .arg(trace)
        .arg("--policy")
        .arg(sc.file_stem().unwrap())
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("run fairsim")
}

/// band.csv as (group, name, metric) -> row.
fn bands(out: &Path) -> HashMap<(String, String, String), HashMap<String, String>> {
    read_csv(&out.join("calibration/band.csv"))
        .into_iter()
        .map(|r| ((r["group"].clone(), r["name"].clone(), r["metric"].clone()), r))
        .collect()
}

fn at<'a>(
    b: &'a HashMap<(String, String, String), HashMap<String, String>>,
    group: &str,
    name: &str,
    metric: &str,
) -> &'a HashMap<String, String> {
    &b[&(group.to_string(), name.to_string(), metric.to_string())]
}

/// The strict scenario's own run, as a trace: (tenant, class, arrival, service, start).
fn own_record(dir: &Path, sc: &Path) -> Vec<Row> {
    common::run(sc, &dir.join("run"), &[]);
    read_csv(&dir.join("run/strict/jobs.csv"))
        .into_iter()
        .map(|r| {
            (
                r["tenant"].clone(),
                r["class"].clone(),
                secs(&r["arrival"]),
                secs(&r["service"]),
                secs(&r["start"]),
            )
        })
        .collect()
}

#[test]
fn a_deployment_that_draws_nothing_has_a_point_band_and_a_shift_lands_outside_by_itself() {
    let dir = tempdir();
    let sc = common::write_scenario(dir.path(), "strict.yaml", STRICT);
    let rows = own_record(dir.path(), &sc);
    // by hand: a's five 1 s critical jobs take the two workers first (starts
    // 0, 0, 1, 1, 2: waits mean 0.8 s, p99 2 s); b's 2 s bulk jobs start when
    // a worker frees with critical empty: 2, 3, 4 (mean 3 s, p99 4 s)
    let trace = write_trace(dir.path(), "own.csv", &rows);
    let out = dir.path().join("own");
    let o = calibrate(&sc, &trace, &out, &["--seeds", "5", "--require-band"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let b = bands(&out);
    for ((g, n, m), want) in [
        (("tenant", "a", "mean_wait"), 0.8),
        (("tenant", "a", "p99_wait"), 2.0),
        (("tenant", "b", "mean_wait"), 3.0),
        (("tenant", "b", "p99_wait"), 4.0),
        (("class", "critical", "p99_wait"), 2.0),
        (("class", "bulk", "mean_wait"), 3.0),
    ] {
        let r = at(&b, g, n, m);
        for col in ["recorded", "simulated_min", "simulated_median", "simulated_max"] {
            assert!((secs(&r[col]) - want).abs() < 1e-9, "{g} {n} {m} {col}: {r:?}");
        }
        assert_eq!((r["inside"].as_str(), secs(&r["outside_by"]), r["seeds"].as_str()), ("true", 0.0, "5"));
    }
    // every recorded start 0.25 s later (service kept): every wait, so every
    // mean and p99, is 0.25 s above the point band
    let late: Vec<Row> =
        rows.iter().map(|(t, c, a, s, st)| (t.clone(), c.clone(), *a, *s, st + 0.25)).collect();
    let trace = write_trace(dir.path(), "late.csv", &late);
    let out = dir.path().join("late");
    let o = calibrate(&sc, &trace, &out, &["--seeds", "5"]);
    assert!(o.status.success(), "without --require-band the exit is calibrate's own");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("0 of 10 recorded figures inside the band"), "{stdout}");
    assert!(stdout.contains("OUTSIDE, 0.25 s above"), "{stdout}");
    for r in bands(&out).values() {
        assert_eq!(r["inside"], "false", "{r:?}");
        assert!((secs(&r["outside_by"]) - 0.25).abs() < 1e-9, "{r:?}");
    }
    let o = calibrate(&sc, &trace, &dir.path().join("late2"), &["--seeds", "5", "--require-band"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("10 of 10 recorded figures lie outside"));
}

#[test]
fn one_seed_writes_what_calibrate_always_wrote() {
    let dir = tempdir();
    let sc = common::write_scenario(dir.path(), "strict.yaml", STRICT);
    let trace = write_trace(dir.path(), "own.csv", &own_record(dir.path(), &sc));
    let (plain, one) = (dir.path().join("plain"), dir.path().join("one"));
    let a = calibrate(&sc, &trace, &plain, &[]);
    let b = calibrate(&sc, &trace, &one, &["--seeds", "1"]);
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(files(&plain), files(&one));
    assert!(!plain.join("calibration/band.csv").exists());
}

#[test]
fn a_weighted_poll_gives_a_band_between_the_two_possible_orders() {
    // one worker busy with z's job from 0 to 1 s; a (critical) arrives at
    // 0.5 s, b (bulk) at 0.6 s, 1 s each. At 1 s the poll takes critical or
    // bulk first with probability 1/2 each: a waits 0.5 s and b 1.4 s, or b
    // waits 0.4 s and a 1.5 s. Over 20 seeds both orders occur (all 20 the
    // same has probability 2^-19), so those are the band's edges.
    let dir = tempdir();
    let sc = common::write_scenario(dir.path(), "weighted.yaml", WEIGHTED);
    let s = |t: &str, c: &str, a: f64, st: f64| (t.to_string(), c.to_string(), a, 1.0, st);
    let rows = [s("z", "critical", 0.0, 0.0), s("a", "critical", 0.5, 1.0), s("b", "bulk", 0.6, 2.0)];
    let trace = write_trace(dir.path(), "rec.csv", &rows);
    let out = dir.path().join("out");
    let o = calibrate(&sc, &trace, &out, &["--seeds", "20", "--require-band"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let b = bands(&out);
    for (name, lo, hi, rec) in [("a", 0.5, 1.5, 0.5), ("b", 0.4, 1.4, 1.4)] {
        for metric in ["mean_wait", "p99_wait"] {
            let r = at(&b, "tenant", name, metric);
            assert!((secs(&r["simulated_min"]) - lo).abs() < 1e-9, "{r:?}");
            assert!((secs(&r["simulated_max"]) - hi).abs() < 1e-9, "{r:?}");
            let med = secs(&r["simulated_median"]);
            assert!((med - lo).abs() < 1e-9 || (med - hi).abs() < 1e-9, "{r:?}");
            assert!((secs(&r["recorded"]) - rec).abs() < 1e-9 && r["inside"] == "true", "{r:?}");
        }
    }
    // class critical holds z (wait 0) and a: mean 0.25 or 0.75 s
    let r = at(&b, "class", "critical", "mean_wait");
    assert!(
        (secs(&r["simulated_min"]) - 0.25).abs() < 1e-9 && (secs(&r["simulated_max"]) - 0.75).abs() < 1e-9
    );
    // b recorded a second later than either order allows: 1 s above the band
    let late = [rows[0].clone(), rows[1].clone(), s("b", "bulk", 0.6, 3.0)];
    let trace = write_trace(dir.path(), "late.csv", &late);
    let out = dir.path().join("late");
    let o = calibrate(&sc, &trace, &out, &["--seeds", "20", "--require-band"]);
    assert_eq!(o.status.code(), Some(1));
    let r = &bands(&out)[&("tenant".into(), "b".into(), "p99_wait".into())];
    assert!((secs(&r["outside_by"]) - 1.0).abs() < 1e-9, "{r:?}");
}

#[test]
fn seeds_must_be_a_positive_number() {
    let dir = tempdir();
    let sc = common::write_scenario(dir.path(), "weighted.yaml", WEIGHTED);
    let trace = write_trace(dir.path(), "rec.csv", &[("a".into(), "bulk".into(), 0.0, 1.0, 0.0)]);
    let out = dir.path().join("out");
    for bad in ["0", "many"] {
        let o = calibrate(&sc, &trace, &out, &["--seeds", bad]);
        assert_eq!(o.status.code(), Some(2), "--seeds {bad}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("--seeds"), "--seeds {bad}");
    }
    assert!(!out.exists(), "nothing is simulated on a bad --seeds");
    let o = calibrate(&sc, &trace, &out, &["--require-band"]);
    assert_eq!(o.status.code(), Some(2));
}

//! Defects reproduced from issue reports, each with its input and the answer
//! derived by hand: the engine's lending, the rotation's newcomers, the
//! observation log's skips, DRR's debt rounds.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::*;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write scenario");
    p
}

/// Start times of each tenant's jobs, in job id order, from `jobs.csv`
/// (whose rows come in the order jobs end).
fn starts(out: &Path, label: &str) -> HashMap<String, Vec<f64>> {
    let mut rows = read_csv(&out.join(label).join("jobs.csv"));
    rows.sort_by_key(|r| r["job"].parse::<u64>().expect("job id"));
    let mut m: HashMap<String, Vec<f64>> = HashMap::new();
    for r in rows {
        m.entry(r["tenant"].clone()).or_default().push(secs(&r["start"]));
    }
    m
}

#[test]
fn a_reserve_held_for_another_class_is_not_lent_over_a_cap() {
    // 3 workers, 2 reserved for class r. A (cap 1) has 4 r-jobs, B 6
    // default jobs, all 1 s at t = 0. A runs one job at a time (cap 1) on a
    // reserved worker; B takes the unreserved one; the second reserved worker
    // is held for r (A's queued jobs) and stays idle: A may not borrow it,
    // because B has claimable work (`spare: lend` lends over a cap only while
    // no other tenant has claimable work). So A starts at 0, 1, 2, 3. B starts
    // at 0, 1, 2; at 3 A's last job leaves r with nothing queued, so the
    // reserve is lent to B: two B jobs start at 3, the last at 4. (The
    // defect: A was lent the held worker and ran 2 at once from t = 0.)
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "reserve.yaml",
        "workers: 3\ntenants: {A: {cap: 1}, B: {}}\nclasses: {r: {}}\n\
         workload:\n  - {tenant: A, class: r, count: 4, service: 1s}\n  - {tenant: B, count: 6, service: 1s}\n\
         policies: [{policy: reserve, class: r, workers: 2, spare: lend}]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let s = starts(&out, "reserve");
    assert_eq!(s["A"], [0.0, 1.0, 2.0, 3.0]);
    assert_eq!(s["B"], [0.0, 1.0, 2.0, 3.0, 3.0, 4.0]);
}

#[test]
fn round_robin_newcomers_join_the_back_in_arrival_order() {
    // One worker; declaration order A, B, C. A's 10 s job starts at 1000 s;
    // C gets work at 1001 s, B at 1002 s. Each joins the back of the rotation
    // when its first job arrives, so C (earlier) goes before B: C starts
    // when A's job ends at 1010 s, B at 1011 s. Sorting newcomers by the
    // declared order instead would start B first.
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "rr.yaml",
        "workers: 1\ntenants: {A: {}, B: {}, C: {}}\nworkload:\n\
           - {tenant: A, count: 1, at: 1000s, service: 10s}\n\
           - {tenant: C, count: 1, at: 1001s, service: 1s}\n\
           - {tenant: B, count: 1, at: 1002s, service: 1s}\n\
         policies: [round_robin]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let s = starts(&out, "round_robin");
    assert_eq!((s["A"][0], s["C"][0], s["B"][0]), (1000.0, 1010.0, 1011.0));
}

#[test]
fn a_lent_worker_goes_to_the_tenant_refused_longest_ago() {
    // 3 workers; D and F capped at 1; drr over tenants, cost jobs, quantum 2,
    // spare lend. At t = 0, in this order: D 0.5 s, F 1 s, F 1 s, B 0.75 s,
    // D 1 s, D 1 s. t = 0: D, F and B each start one job; D's and F's
    // second jobs are refused at their caps (D first, then F). t = 0.5: D's
    // job ends, its next (1 s) starts, its third is refused again: D is now
    // the most recently refused. t = 0.75: B's job ends and only D and F wait,
    // both at their caps: the idle worker is lent, to F, refused at t = 0 and
    // waiting since, not to D, refused at 0.5. So F's second job starts at
    // 0.75 s and D's third when a worker frees after that, at 1 s (F's first).
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "drr.yaml",
        "workers: 3\ntenants: {D: {cap: 1}, B: {}, F: {cap: 1}}\nworkload:\n\
           - {tenant: D, count: 1, service: 500ms}\n\
           - {tenant: F, count: 2, service: 1s}\n\
           - {tenant: B, count: 1, service: 750ms}\n\
           - {tenant: D, count: 2, service: 1s}\n\
         policies: [{policy: drr, cost: jobs, quantum: 2, spare: lend}]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let s = starts(&out, "drr");
    assert_eq!(s["F"], [0.0, 0.75]);
    assert_eq!(s["D"], [0.0, 0.5, 1.0]);
}

#[test]
fn the_log_lists_a_passed_over_tenant_in_every_tick_it_waits_refused() {
    // 2 workers, A capped at 1, fifo (spare lend). At 1000 s A has a 10 s and
    // a 1 s job, B four 1 s jobs. At 1000 A's 10 s job starts, its 1 s job is
    // refused at the cap and B's first starts; B's others start at 1001, 1002
    // and 1003, each time with A's job waiting refused. What happens at an
    // instant counts in the tick that begins there (a tick closes before the
    // arrivals and dispatch of its end instant), so the ticks ending at 1001,
    // 1002, 1003 and 1004 all list A:at_cap (the defect listed it only in
    // the first, when A was first refused). At 1004 only A waits: the free
    // worker is lent and A's 1 s job starts, in the tick ending at 1005.
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "skips.yaml",
        "workers: 2\ntenants: {A: {cap: 1}, B: {}}\nworkload:\n\
           - {tenant: A, count: 1, at: 1000s, service: 10s}\n\
           - {tenant: A, count: 1, at: 1000s, service: 1s}\n\
           - {tenant: B, count: 4, at: 1000s, service: 1s}\n\
         policies: [fifo]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let ticks: HashMap<String, HashMap<String, String>> =
        read_csv(&out.join("fifo").join("ticks.csv")).into_iter().map(|r| (r["time"].clone(), r)).collect();
    for t in ["1001", "1002", "1003", "1004"] {
        assert_eq!(ticks[t]["skipped"], "A:at_cap", "tick ending at {t}");
        assert_eq!(ticks[t]["chosen"], if t == "1001" { "A B" } else { "B" }, "tick ending at {t}");
    }
    assert_eq!(ticks["1005"]["chosen"], "A");
    assert_eq!(starts(&out, "fifo")["A"], [1000.0, 1004.0]);
}

#[test]
fn drr_with_a_quantum_far_below_the_jobs_jumps_its_debt_rounds() {
    // One worker, A and B with three 1000 s jobs each, drr cost work,
    // quantum 1us. The first visits give each 1us of credit, enough to start
    // a job (credit > 0), leaving a debt of 999.999999 s: a billion visits
    // each before the next start. A is ahead in the rotation and its debt is
    // no larger, so the starts alternate A B A B A B, 1000 s apart. Visiting
    // one round at a time (with a skip record each) took 15 s and 8 GB for
    // two jobs; the debt rounds are jumped over now.
    let dir = tempdir();
    let sc = write(
        dir.path(),
        "drr-tiny.yaml",
        "workers: 1\nworkload:\n  - {tenant: A, count: 3, service: 1000s}\n  - {tenant: B, count: 3, service: 1000s}\n\
         policies: [{policy: drr, cost: work, quantum: 1us}]\n",
    );
    let out = dir.path().join("out");
    run(&sc, &out, &["--logs", "summary"]);
    fairsim().arg("run").arg(&sc).arg("--out").arg(&out).arg("--quiet").arg("--no-plots").assert().success();
    let s = starts(&out, "drr");
    assert_eq!(s["A"], [0.0, 2000.0, 4000.0]);
    assert_eq!(s["B"], [1000.0, 3000.0, 5000.0]);
}

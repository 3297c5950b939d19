//! `on_cap: {delay: D, refuse: each}`: a PostgreSQL worker's claim loop,
//! which refuses every row of a capped tenant it claims (each refusal
//! costing `costs.refusal` of worker time and delaying that row D) until
//! it finds one it may run, and a refused row that comes back keeps its
//! place in `ORDER BY created_at`. Each answer is derived by hand in the
//! test's comment; `fairsim check` passes on each folder.

mod common;

use std::path::Path;

use common::*;

/// Runs `text` with full logs, checks the folder, and returns the starts
/// of label `label` by job id and its pools.csv overhead (seconds; 0
/// without costs).
fn starts(text: &str, label: &str) -> (Vec<f64>, f64) {
    let (_dir, out) = run_yaml(text, &["--no-plots", "--logs", "full"]);
    let check = fairsim().arg("check").arg(&out).output().expect("fairsim check runs");
    assert!(
        check.status.success(),
        "check failed:\n{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let mut rows = read_csv(&out.join(label).join("jobs.csv"));
    rows.sort_by_key(|j| j["job"].parse::<u64>().expect("job id"));
    let pools = out.join(label).join("pools.csv");
    let overhead = if Path::new(&pools).exists() { secs(&read_csv(&pools)[0]["overhead"]) } else { 0.0 };
    (rows.iter().map(|r| secs(&r["start"])).collect(), overhead)
}

/// 2 workers, F capped at 1 with four 1 s jobs at 0 (jobs 0-3), then B's
/// 1 s job at 0 (job 4), a refusal costing 0.5 ms, delay 1 s; caps held
/// (a SQL cap lends nothing; `refuse: each` never sets F aside to lend to).
fn flooder_ahead(refuse: &str) -> String {
    format!(
        "workers: 2
tenants: {{F: {{cap: 1}}}}
costs: {{refusal: 500us}}
workload:
  - {{tenant: F, count: 4, service: 1s}}
  - {{tenant: B, count: 1, service: 1s}}
policies:
  - {{policy: fifo, label: pg, spare: hold, on_cap: {{delay: 1s, refuse: {refuse}}}}}
"
    )
}

#[test]
fn a_worker_refuses_every_capped_row_ahead_of_another_tenants_job() {
    // refuse: each. 0: worker 1 starts job 0 (F runs 1, ends 1.0); worker 2
    // claims job 1, refused (F at its cap): busy 0.5 ms, job 1 back at 1.0.
    // 0.0005: it claims job 2, refused, back at 1.0005; 0.001: job 3,
    // refused, back at 1.001; 0.0015: B's job 4 starts (ends 1.0015).
    // 1.0: job 0 ends and job 1 comes back: worker 1 starts it (ends 2.0).
    // 1.0015: B ends; worker 2 claims job 2 (F at its cap again): refused,
    // back at 2.0015; 1.002: job 3, refused, back at 2.002.
    // 2.0: job 1 ends, nothing claimable. 2.0015: job 2 starts (ends
    // 3.0015); 2.002: job 3 refused (F at its cap), back at 3.002.
    // 3.002: job 3 starts. Starts 0, 1, 2.0015, 3.002 and B 0.0015; six
    // refusals of 0.5 ms: 3 ms of overhead.
    let (got, overhead) = starts(&flooder_ahead("each"), "pg");
    assert_eq!(got, [0.0, 1.0, 2.0015, 3.002, 0.0015]);
    assert!((overhead - 0.003).abs() < 1e-9, "overhead {overhead}");
}

#[test]
fn refuse_first_refuses_one_row_per_stretch_at_the_cap() {
    // The same with refuse: first (one refusal, then F is set aside until
    // its cap frees). 0: job 0 starts; job 1 refused (worker 2 busy 0.5 ms,
    // back at 1.0, claimable from then). 0.0005: job 2 finds F at its cap:
    // set aside, so B's job 4 starts at 0.0005. 1.0: job 0 ends, F
    // claimable: job 2 (claimable since 0) goes before job 1 (since 1.0):
    // starts 1.0. 1.0005: B ends; job 3 is the stretch's first refusal:
    // back at 2.0005 (worker busy to 1.001); 1.001: job 1 finds F at its
    // cap: set aside. 2.0: job 2 ends, job 1 starts. 2.0005: job 3 back,
    // refused (a new stretch), back at 3.0005. 3.0005: job 3 starts (job 1
    // ended at 3.0). Three refusals: 1.5 ms; B starts 1 ms earlier than
    // under each, and F's jobs out of their order.
    let (got, overhead) = starts(&flooder_ahead("first"), "pg");
    assert_eq!(got, [0.0, 2.0, 1.0, 3.0005, 0.0005]);
    assert!((overhead - 0.0015).abs() < 1e-9, "overhead {overhead}");
}

#[test]
fn a_refused_row_comes_back_in_its_created_at_place() {
    // 2 workers, F capped at 1, delay 1 s, refuse: each, no costs. F's job
    // 0 (1.5 s) and job 1 (1 s) at 0, B's job 2 (2 s) at 0, B's job 3 (1 s)
    // at 0.5. 0: job 0 starts on worker 1; worker 2 claims job 1, refused
    // (back at 1.0), then job 2 starts (ends 2.0). 0.5: job 3 waits.
    // 1.0: job 1 is back, no worker free. 1.5: job 0 ends; the free worker
    // claims the oldest row: job 1 (created at 0) before job 3 (at 0.5),
    // F is below its cap: job 1 starts at 1.5. 2.0: job 2 ends, job 3
    // starts. Had job 1 come back claimable from 1.0 (as under refuse:
    // first), job 3 (0.5) would start at 1.5 and job 1 at 2.0.
    let (got, _) = starts(
        "workers: 2
tenants: {F: {cap: 1}}
workload:
  - {tenant: F, count: 1, service: 1500ms}
  - {tenant: F, count: 1, service: 1s}
  - {tenant: B, count: 1, service: 2s}
  - {tenant: B, count: 1, at: 500ms, service: 1s}
policies:
  - {policy: fifo, label: pg, on_cap: {delay: 1s, refuse: each}}
",
        "pg",
    );
    assert_eq!(got, [0.0, 1.5, 0.0, 2.0]);
}

/// A flood of `n` 1 s jobs of F capped at 1 on 2 workers, with `on_cap`.
fn flood(n: u32, on_cap: &str) -> String {
    format!(
        "workers: 2
tenants: {{F: {{cap: 1}}}}
workload:
  - {{tenant: F, count: {n}, service: 1s}}
policies:
  - {{policy: fifo, on_cap: {on_cap}}}
"
    )
}

#[test]
fn validate_counts_the_refusals_and_refuses_past_the_limit() {
    // 1,000 jobs of 1 s through a cap of 1 take 1,000 s; each is refused
    // once when first claimed and at most once per delay while it waits,
    // at most those 1,000 s: with a 1 s delay 1,000 x (1 + 1000 / 1) =
    // 1,001,000 refusals at most
    let dir = tempdir();
    let validate = |text: &str| {
        let sc = write_scenario(dir.path(), "f.yaml", text);
        let o = fairsim().arg("validate").arg(&sc).output().expect("validate runs");
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let out = validate(&flood(1000, "{delay: 1s, refuse: each}"));
    assert!(out.contains("refusals: about 1001000 for all policies"), "{out}");
    // refuse: first refuses one job per stretch at the cap: no such line
    let out = validate(&flood(1000, "{delay: 1s}"));
    assert!(!out.contains("refusals:"), "{out}");
    // with a 1 ms delay: 1,000 x (1 + 1000 / 0.001) = 1.000001e9, past the
    // 2 x 10^8 events a run may have: refused at the policy entry (line 6)
    let msg = validate_error(&flood(1000, "{delay: 1ms, refuse: each}"), "f.yaml");
    assert!(msg.contains("f.yaml:6:") && msg.contains("1.000e9") && msg.contains("longer `delay`"), "{msg}");
}

#[test]
fn a_bad_refuse_is_refused_at_its_place() {
    let msg = validate_error(&flood(2, "{delay: 1s, refuse: all}"), "r.yaml");
    assert!(msg.contains("r.yaml:6:") && msg.contains("`first`") && msg.contains("`each`"), "{msg}");
    let msg = validate_error(&flood(2, "{refuse: each}"), "d.yaml");
    assert!(msg.contains("d.yaml:6:") && msg.contains("{delay: 5s, refuse: each}"), "{msg}");
    let msg = validate_error(&flood(2, "{delay: 1s, refuse: each, per: row}"), "k.yaml");
    assert!(msg.contains("k.yaml:6:") && msg.contains("unknown key `per`"), "{msg}");
}

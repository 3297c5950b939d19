//! The Solid Queue preset: start times derived by hand from Solid Queue's
//! worker (solid_queue 1.5.0, `worker.rb`, `queue_selector.rb`,
//! `ready_execution.rb`), `config/queue.yml` read as Solid Queue reads it,
//! the preset against the same topology written by hand, and its errors.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::*;

fn starts(out: &Path, label: &str) -> HashMap<String, Vec<f64>> {
    let mut m: HashMap<String, Vec<f64>> = HashMap::new();
    for r in read_csv(&out.join(label).join("jobs.csv")) {
        m.entry(r["class"].clone()).or_default().push(secs(&r["start"]));
    }
    for v in m.values_mut() {
        v.sort_by(f64::total_cmp);
    }
    m
}

/// Three queues: mailers' jobs at priority 1, the others at 5 (smaller
/// first, as in Solid Queue).
const WORKLOAD: &str =
    "classes: {real_time: {priority: 5}, background: {priority: 5}, mailers/p1: {priority: 1}}
workload:
  - {tenant: A, class: background, at: 100ms, count: 1, service: 1s}
  - {tenant: B, class: mailers/p1, at: 100ms, count: 1, service: 1s}
  - {tenant: C, class: real_time, at: 200ms, count: 1, service: 1s}
";

/// The README's shape, in a `config/queue.yml` with an anchor, a merge
/// key, ERB and environment sections.
const QUEUE_YML: &str = "default: &default
  dispatchers:
    - polling_interval: 1
      batch_size: 500
  workers:
    - queues: \"*\"
      threads: 1
      polling_interval: 1
    - queues: [ real_time, background ]
      threads: <%= ENV.fetch(\"RT_THREADS\", 1) %>
      polling_interval: 0.25

development:
  <<: *default

production:
  <<: *default
";

fn with_file(file: &str, preset: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    std::fs::create_dir(dir.path().join("config")).expect("mkdir");
    std::fs::write(dir.path().join("config/queue.yml"), file).expect("write");
    let text = format!(
        "workers: 2\n{WORKLOAD}topologies:\n  sq: {{solid_queue: {preset}}}\npolicies: [{{topology: sq}}]\n"
    );
    let sc = write_scenario(dir.path(), "s.yaml", &text);
    (dir, sc)
}

#[test]
fn star_takes_jobs_by_priority_across_queues_and_lists_in_order() {
    // worker 0 polls "*" every 1 s, worker 1 polls [real_time, background]
    // every 0.25 s, one thread each; both find nothing at 0 and sleep.
    // bg (background, 0.1), mail (mailers, priority 1, 0.1), rt (real_time,
    // 0.2). At 0.25 worker 1 polls: real_time first, rt starts (to 1.25).
    // At 1 worker 0 polls: `*` is one query by priority, job_id over every
    // queue, so mail (1) before bg (5): mail at 1. At 1.25 rt ends and its
    // thread wakes worker 1 (pool.rb on_idle): real_time is empty, bg
    // starts at 1.25. (Polling `*` queue by queue would have run bg at 1.)
    let (dir, sc) = with_file(QUEUE_YML, "{config: config/queue.yml, environment: production}");
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let s = starts(&out, "sq");
    assert_eq!(s["real_time"], [0.25]);
    assert_eq!(s["mailers/p1"], [1.0]);
    assert_eq!(s["background"], [1.25]);
    let v = fairsim().arg("validate").arg(&sc).output().unwrap();
    let stdout = String::from_utf8_lossy(&v.stdout);
    assert!(stdout.contains("queues: [real_time, background, mailers]"), "{stdout}");
    assert!(stdout.contains("{name: worker0, workers: 1, queues: [real_time, background, mailers], poll: merged, costs: {claim: 0s, refusal: 0s, finish: 0s, poll_interval: 1s}}"), "{stdout}");
    assert!(stdout.contains("{name: worker1, workers: 1, queues: [real_time, background], costs: {claim: 0s, refusal: 0s, finish: 0s, poll_interval: 0.25s}}"), "{stdout}");
    assert!(stdout.contains("order inside a queue is `priority`"), "{stdout}");
    assert!(stdout.contains("note: dispatchers move scheduled jobs"), "{stdout}");
}

#[test]
fn erb_takes_the_presets_env() {
    // RT_THREADS = 2: worker 1 has two threads; its poll at 0.25 claims
    // for both idle threads, rt and then bg (real_time, then background),
    // both starting at 0.25; worker 0 takes mail at 1
    let (dir, sc) =
        with_file(QUEUE_YML, "{config: config/queue.yml, environment: development, env: {RT_THREADS: 2}}");
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let s = starts(&out, "sq");
    assert_eq!(s["real_time"], [0.25]);
    assert_eq!(s["background"], [0.25]);
    assert_eq!(s["mailers/p1"], [1.0]);
}

#[test]
fn the_preset_runs_as_the_topology_written_by_hand() {
    // a busier run of the README's workers (3 processes of 2 threads on
    // the lists, 3 threads on "*"), inline, against the hand-written
    // topology with explicit class rules
    let head = format!(
        "workers: 2\nseed: 5\n{WORKLOAD}  - {{tenant: D, class: background, arrivals: {{poisson: 6/s, stop: 30s}}, service: {{exponential: 500ms}}}}\n  - {{tenant: E, class: mailers/p1, arrivals: {{poisson: 3/s, stop: 30s}}, service: 200ms}}\n  - {{tenant: F, class: real_time, arrivals: {{poisson: 2/s, stop: 30s}}, service: 300ms}}\n"
    );
    let preset = format!(
        "{head}topologies:
  sq:
    solid_queue:
      workers:
        - {{queues: \"*\", threads: 3, polling_interval: 2}}
        - {{queues: [real_time, background], threads: 2, processes: 3, polling_interval: 0.1}}
policies: [{{topology: sq, label: x}}]
"
    );
    let hand = format!(
        "{head}topologies:
  sq:
    queues: [real_time, background, mailers]
    route: [{{class: real_time, to: real_time}}, {{class: background, to: background}}, {{class: mailers/p1, to: mailers}}]
    pools:
      - {{name: worker0, workers: 3, queues: [background, mailers, real_time], poll: merged, costs: {{poll_interval: 2s}}}}
      - {{name: worker1, workers: 6, queues: [real_time, background], costs: {{poll_interval: 100ms}}}}
policies: [{{policy: priority, topology: sq, label: x}}]
"
    );
    let (_a, p) = run_yaml(&preset, &["--no-plots"]);
    let (_b, h) = run_yaml(&hand, &["--no-plots"]);
    let p = std::fs::read(p.join("x/jobs.csv")).expect("jobs");
    let h = std::fs::read(h.join("x/jobs.csv")).expect("jobs");
    assert!(p.len() > 10_000, "a run of some size");
    assert!(p == h, "the preset's jobs.csv differs from the hand-written topology's");
}

#[test]
fn a_prefix_takes_the_known_queues_it_matches_in_order() {
    // one worker, queues [staging*, background]: the staging queues (the
    // classes staging_a and staging_b, in the order declared) then
    // background, strictly. Jobs at 0: bg, sb, sa (1 s each, one thread):
    // the first poll at 0 takes staging_a's sa, then at 1 staging_b's sb,
    // at 2 background's bg
    let text = "workers: 1
classes: {background: {}, staging_a: {}, staging_b: {}}
workload:
  - {tenant: A, class: background, count: 1, service: 1s}
  - {tenant: B, class: staging_b, count: 1, service: 1s}
  - {tenant: C, class: staging_a, count: 1, service: 1s}
topologies:
  sq: {solid_queue: {workers: [{queues: [\"staging*\", background], threads: 1}]}}
policies: [{topology: sq}]
";
    let (_d, out) = run_yaml(text, &["--no-plots"]);
    let s = starts(&out, "sq");
    assert_eq!(s["staging_a"], [0.0]);
    assert_eq!(s["staging_b"], [1.0]);
    assert_eq!(s["background"], [2.0]);
}

#[test]
fn bad_configs_are_errors_at_their_place() {
    let scenario_line = 8;
    let cases: [(&str, &str, String); 6] = [
        (QUEUE_YML, "{config: config/queue.yml}", format!("s.yaml:{scenario_line}:")),
        (
            QUEUE_YML,
            "{config: config/queue.yml, environment: staging}",
            "has no section `staging` (it has default, development, production)".into(),
        ),
        (
            "workers:\n  - queues: \"*\"\n    thread: 2\n",
            "{config: config/queue.yml}",
            "queue.yml:3:5: unknown key `thread` in a worker; did you mean `threads`?".into(),
        ),
        (
            "workers:\n  - queues: \"*\"\n    batch_size: 2\n",
            "{config: config/queue.yml}",
            "queue.yml:3:5: `batch_size` is a dispatcher's setting".into(),
        ),
        (
            "workers:\n  - queues: \"*_x\"\n",
            "{config: config/queue.yml}",
            "`*_x`: a wildcard stands alone".into(),
        ),
        (
            "workers:\n  - threads: <% 3 %>\n",
            "{config: config/queue.yml}",
            "queue.yml:2:14: ERB code `<% 3 %>` is not run by fairsim".into(),
        ),
    ];
    for (file, preset, want) in cases {
        let (_dir, sc) = with_file(file, preset);
        let v = fairsim().arg("validate").arg(&sc).output().unwrap();
        assert_eq!(v.status.code(), Some(2));
        let err = String::from_utf8_lossy(&v.stderr);
        assert!(err.contains(&want), "{preset} with {file:?}:\nwant {want}\ngot  {err}");
    }
}

#[test]
fn the_results_folder_holds_the_config_file_so_check_reads_the_same_topology() {
    // `check` and `report` load the echoed scenario.yaml from the folder;
    // its `config: config/queue.yml` is copied beside it, at that path
    let (dir, sc) = with_file(QUEUE_YML, "{config: config/queue.yml, environment: production}");
    let out = dir.path().join("out");
    run(&sc, &out, &["--logs", "full", "--no-plots"]);
    assert_eq!(std::fs::read_to_string(out.join("config/queue.yml")).unwrap(), QUEUE_YML);
    let o = fairsim().arg("check").arg(&out).output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    // a path outside the scenario's folder is read where it is, not copied
    let outside = tempdir();
    std::fs::write(outside.path().join("q.yml"), QUEUE_YML).unwrap();
    let text = std::fs::read_to_string(&sc)
        .unwrap()
        .replace("config/queue.yml", &outside.path().join("q.yml").display().to_string());
    std::fs::write(&sc, text).unwrap();
    let out = dir.path().join("out-abs");
    run(&sc, &out, &["--logs", "full", "--no-plots"]);
    assert!(!out.join("q.yml").exists());
    let o = fairsim().arg("check").arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

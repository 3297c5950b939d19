//! The Sidekiq preset (`topologies: {NAME: {sidekiq: ...}}`): start times
//! derived by hand from Sidekiq's fetch (sidekiq 8.1.7, `fetch.rb` and
//! `capsule.rb`), the preset against the same topology written by hand,
//! `sidekiq.yml` read as Sidekiq reads it, and its errors.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;

/// Each job's start by (tenant, class, arrival), in `out/LABEL/jobs.csv`.
fn starts(out: &Path, label: &str) -> HashMap<String, Vec<f64>> {
    let mut m: HashMap<String, Vec<f64>> = HashMap::new();
    for r in read_csv(&out.join(label).join("jobs.csv")) {
        m.entry(format!("{}/{}", r["tenant"], r["class"])).or_default().push(secs(&r["start"]));
    }
    for v in m.values_mut() {
        v.sort_by(f64::total_cmp);
    }
    m
}

const WORKLOAD: &str = "classes: {critical: {}, default: {}, bulk: {}}
workload:
  - {tenant: B, class: bulk, count: 4, service: 1s}
  - {tenant: D, class: default, at: 200ms, count: 1, service: 1s}
  - {tenant: C, class: critical, at: 500ms, count: 2, service: 1s}
";

#[test]
fn strict_queues_are_fetched_in_list_order() {
    // `sidekiq -c 2 -q critical -q default -q bulk`: no weights, so strict
    // (capsule.rb: every weight 0) and BRPOP takes the first non-empty
    // queue of the list. At 0 only bulk has jobs: b0 and b1 start at 0 and
    // run to 1. d0 (0.2) and c0, c1 (0.5) wait. At 1 both threads fetch:
    // critical holds c0, c1: they start at 1. At 2: default's d0, then
    // bulk's b2; at 3 the last, b3. (One fifo queue would have run b2 and
    // b3 at 1.)
    let text = format!(
        "workers: 2\n{WORKLOAD}topologies:\n  sk: {{sidekiq: {{concurrency: 2, queues: [critical, default, bulk]}}}}\npolicies: [{{topology: sk}}]\n"
    );
    let (_d, out) = run_yaml(&text, &["--no-plots"]);
    let s = starts(&out, "sk");
    assert_eq!(s["B/bulk"], [0.0, 0.0, 2.0, 3.0]);
    assert_eq!(s["D/default"], [2.0]);
    assert_eq!(s["C/critical"], [1.0, 1.0]);
}

#[test]
fn the_preset_runs_as_the_topology_written_by_hand() {
    // the same deployment three ways: strict, weighted (`-q critical,6 -q
    // default,3 -q bulk` is weighted with bulk listed once, max(0, 1)) and
    // random (every weight 1), each against its hand-written topology with
    // explicit class rules, under the same topology name (its random
    // stream is drawn from the name): the files must be the same byte for
    // byte
    let lists = [
        ("[critical, default, bulk]", ""),
        ("[\"critical,6\", [default, 3], bulk]", ", poll: weighted, weights: [6, 3, 1]"),
        ("[\"critical,1\", \"default,1\", \"bulk,1\"]", ", poll: random"),
    ];
    let head = format!(
        "workers: 3\nseed: 11\n{WORKLOAD}  - {{tenant: E, class: default, arrivals: {{poisson: 4/s, stop: 20s}}, service: {{exponential: 400ms}}}}\n"
    );
    for (queues, poll) in lists {
        let preset = format!("{head}topologies:\n  sk: {{sidekiq: {{concurrency: 3, queues: {queues}}}}}\npolicies: [{{topology: sk, label: x}}]\n");
        let hand = format!(
            "{head}topologies:
  sk:
    queues: [critical, default, bulk]
    route: [{{class: critical, to: critical}}, {{class: default, to: default}}, {{class: bulk, to: bulk}}]
    pools: [{{name: default, workers: 3, queues: [critical, default, bulk]{poll}}}]
policies: [{{policy: fifo, topology: sk, label: x}}]
"
        );
        let (_a, p) = run_yaml(&preset, &["--no-plots"]);
        let (_b, h) = run_yaml(&hand, &["--no-plots"]);
        let p = std::fs::read(p.join("x/jobs.csv")).expect("jobs");
        let h = std::fs::read(h.join("x/jobs.csv")).expect("jobs");
        assert!(p.len() > 2000, "{queues}: a run of some size");
        assert!(p == h, "{queues}: the preset's jobs.csv differs from the hand-written topology's");
    }
}

#[test]
fn weighted_lists_take_a_queue_first_in_proportion_to_its_weight() {
    // `-q a,3 -q b,1` on one thread, both queues holding 2,000 10 ms jobs
    // from 0 (neither empties in the first 1,000 fetches): each fetch
    // takes a first with probability 3 / 4 (fetch.rb shuffles a list with
    // a three times and b once). Of the first 1,000 starts (before 10 s)
    // a takes 750, standard deviation sqrt(1000 x 3/4 x 1/4) = 13.7; five
    // of them: within 68.
    let text = "workers: 1
classes: {a: {}, b: {}}
workload:
  - {tenant: A, class: a, count: 2000, service: 10ms}
  - {tenant: B, class: b, count: 2000, service: 10ms}
topologies:
  sk: {sidekiq: {concurrency: 1, queues: [\"a,3\", \"b,1\"]}}
policies: [{topology: sk}]
";
    let (_d, out) = run_yaml(text, &["--no-plots"]);
    let rows = read_csv(&out.join("sk/jobs.csv"));
    let first: usize = rows.iter().filter(|r| secs(&r["start"]) < 9.995 && r["class"] == "a").count();
    let all: usize = rows.iter().filter(|r| secs(&r["start"]) < 9.995).count();
    assert_eq!(all, 1000);
    assert!(first.abs_diff(750) <= 68, "{first} of 1000 from a");
}

/// A scenario beside `sidekiq.yml` (text `file`), running the preset `preset`.
fn with_file(file: &str, preset: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempdir();
    std::fs::create_dir(dir.path().join("config")).expect("mkdir");
    std::fs::write(dir.path().join("config/sidekiq.yml"), file).expect("write");
    let text = format!(
        "workers: 2\n{WORKLOAD}topologies:\n  sk: {{sidekiq: {preset}}}\npolicies: [{{topology: sk}}]\n"
    );
    let sc = write_scenario(dir.path(), "s.yaml", &text);
    (dir, sc)
}

#[test]
fn sidekiq_yml_is_read_with_its_environment_and_erb_and_flags_win() {
    // Sidekiq's own file: symbol keys, ERB with an ENV default, a
    // production section merged over the top level (cli.rb parse_config).
    // production's queues are strict critical, default, bulk with
    // RAILS_MAX_THREADS = 2 threads from `env`: the start times of the
    // first test. The scenario's `concurrency: 1` would then win over the
    // file (a flag): one thread runs b0 (0-1), then c0, c1 (1, 2), d0 (3),
    // b1, b2, b3 (4, 5, 6).
    let file = "---
:concurrency: <%= ENV.fetch(\"RAILS_MAX_THREADS\") { 5 } %>
:timeout: 25
:queues:
  - bulk
production:
  :queues: [critical, default, bulk]
";
    let (dir, sc) =
        with_file(file, "{config: config/sidekiq.yml, environment: production, env: {RAILS_MAX_THREADS: 2}}");
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let s = starts(&out, "sk");
    assert_eq!(s["B/bulk"], [0.0, 0.0, 2.0, 3.0]);
    assert_eq!(s["C/critical"], [1.0, 1.0]);
    let text = std::fs::read_to_string(&sc)
        .unwrap()
        .replace("env: {RAILS_MAX_THREADS: 2}}", "env: {RAILS_MAX_THREADS: 2}, concurrency: 1}");
    std::fs::write(&sc, text).unwrap();
    let out = dir.path().join("out1");
    run(&sc, &out, &["--no-plots"]);
    let s = starts(&out, "sk");
    assert_eq!(s["B/bulk"], [0.0, 4.0, 5.0, 6.0]);
    assert_eq!(s["C/critical"], [1.0, 2.0]);
    assert_eq!(s["D/default"], [3.0]);
    // validate prints the expansion and the order
    let v = fairsim().arg("validate").arg(&sc).output().unwrap();
    let stdout = String::from_utf8_lossy(&v.stdout);
    assert!(stdout.contains("a `sidekiq` preset (from "), "{stdout}");
    assert!(
        stdout
            .contains("pools:\n            - {name: default, workers: 1, queues: [critical, default, bulk]}"),
        "{stdout}"
    );
    assert!(
        stdout.contains("note: left aside, as they do not change which job runs when: :timeout"),
        "{stdout}"
    );
}

#[test]
fn capsules_are_pools_of_their_own() {
    // `:capsules: {single: {concurrency: 1, queues: [bulk]}}` beside the
    // default capsule (2 threads on critical, default): bulk's four jobs
    // run one after another on the capsule's one thread (0, 1, 2, 3), and
    // the default capsule takes d0 at 0.2 and c0, c1 at 0.5 and 1.2
    let file = ":concurrency: 2\n:queues: [critical, default]\n:capsules:\n  single:\n    :concurrency: 1\n    :queues: [bulk]\n";
    let (dir, sc) = with_file(file, "{config: config/sidekiq.yml}");
    let out = dir.path().join("out");
    run(&sc, &out, &["--no-plots"]);
    let s = starts(&out, "sk");
    assert_eq!(s["B/bulk"], [0.0, 1.0, 2.0, 3.0]);
    assert_eq!(s["D/default"], [0.2]);
    assert_eq!(s["C/critical"], [0.5, 1.2]);
}

/// `validate` and `run` of the scenario refuse it alike (exit 2); the
/// error text.
fn refused(sc: &Path) -> String {
    let v = fairsim().arg("validate").arg(sc).output().unwrap();
    assert_eq!(v.status.code(), Some(2), "validate: {}", String::from_utf8_lossy(&v.stderr));
    let r = fairsim()
        .arg("run")
        .arg(sc)
        .arg("--out")
        .arg(sc.with_extension("out"))
        .arg("--quiet")
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(!sc.with_extension("out").exists(), "nothing written");
    let (a, b) =
        (String::from_utf8_lossy(&v.stderr).into_owned(), String::from_utf8_lossy(&r.stderr).into_owned());
    assert_eq!(a, b, "validate and run say the same");
    a
}

#[test]
fn bad_presets_and_files_are_errors_at_their_place() {
    let cases: [(&str, &str, &str); 7] = [
        // a misspelt preset, with the one it resembles
        ("", "{sidekik: {concurrency: 2}}", "s.yaml:7:8: unknown field `sidekik`"),
        (
            "",
            "{sidekiq: {concurency: 2}}",
            "s.yaml:7:18: unknown key `concurency` in `sidekiq`; did you mean `concurrency`?",
        ),
        ("", "{sidekiq: {config: config/nope.yml}}", "s.yaml:7:26: cannot read `config/nope.yml`"),
        (
            ":concurency: 3\n",
            "{sidekiq: {config: config/sidekiq.yml}}",
            "sidekiq.yml:1:1: unknown key `:concurency` in sidekiq.yml; did you mean `concurrency`?",
        ),
        (":queues: [a\n", "{sidekiq: {config: config/sidekiq.yml}}", "sidekiq.yml:1:10: unclosed bracket"),
        ("production:\n  :concurrency: 3\n", "{sidekiq: {config: config/sidekiq.yml}}", "s.yaml:7:26: `"),
        (
            ":queues: [\"a,x\"]\n",
            "{sidekiq: {config: config/sidekiq.yml}}",
            "sidekiq.yml:1:11: weight `x` of queue `a`",
        ),
    ];
    for (file, preset, want) in cases {
        let dir = tempdir();
        std::fs::create_dir(dir.path().join("config")).unwrap();
        std::fs::write(dir.path().join("config/sidekiq.yml"), file).unwrap();
        let text = format!("workers: 2\nclasses: {{a: {{}}}}\nworkload:\n  - {{tenant: A, class: a, count: 1, service: 1s}}\n\ntopologies:\n  sk: {preset}\npolicies: [{{topology: sk}}]\n");
        let sc = write_scenario(dir.path(), "s.yaml", &text);
        let err = refused(&sc);
        assert!(err.contains(want), "{preset} with {file:?}:\nwant {want}\ngot  {err}");
        if want.starts_with("sidekiq.yml") {
            assert!(err.contains("(the file `config` names at "), "{err}");
            assert!(err.contains("s.yaml:7:"), "the scenario's place too: {err}");
        }
    }
}

#[test]
fn a_class_no_queue_serves_is_refused() {
    // class `a` is in no queue list: Sidekiq would leave its jobs in Redis
    let err = validate_error(
        "workers: 1\nclasses: {a: {}}\nworkload:\n  - {tenant: A, class: a, count: 1, service: 1s}\ntopologies:\n  sk: {sidekiq: {queues: [b]}}\npolicies: [{topology: sk}]\n",
        "s.yaml",
    );
    assert!(
        err.contains("s.yaml:6:17: topology `sk`: class `a` sends its jobs to queue `a`, which no worker"),
        "{err}"
    );
}

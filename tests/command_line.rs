//! Command-line conventions: inline `--policy` entries, the JSON document
//! (`--format json` and the folder's `fairsim-results.json`), and stdout
//! holding only the table.

mod common;

use common::*;

/// Two tenants on one worker, six 1 s jobs each at t = 0, weights 3 and 7:
/// small enough to derive by hand.
const TWO: &str = "
name: two
seed: 7
workers: 1
tenants: {A: {weight: 3}, B: {weight: 7}}
workload:
  - {tenant: A, arrivals: {batch: 6, at: 0s}, service: 1s}
  - {tenant: B, arrivals: {batch: 6, at: 0s}, service: 1s}
policies:
  - fifo
  - {policy: wfq, label: wfq-file}
";

#[test]
fn an_inline_policy_runs_like_the_same_entry_written_in_the_file() {
    // wfq, all backlogged from t = 0: B's jobs get finish tags k/7 (k =
    // 1..6, the last 6/7 = 0.857) and A's k/3; the tags below 6/7 are B's
    // six and A's 1/3 and 2/3, so B's last job is the eighth one-second
    // job: it ends at 8 s (no ties, so no tie-breaking rule involved)
    let (_d, out) = run_yaml(TWO, &["--policy", "wfq-file", "--policy", "{policy: wfq, label: inline}"]);
    let file = std::fs::read(out.join("wfq-file/summary.csv")).expect("file entry");
    let inline = std::fs::read(out.join("inline/summary.csv")).expect("inline entry");
    assert_eq!(file, inline, "the same entry, from the file or the option, gives the same figures");
    let tenants = read_csv(&out.join("inline/jobs.csv"));
    let b_last =
        tenants.iter().filter(|r| r["tenant"] == "B").map(|r| secs(&r["finish"])).fold(0.0, f64::max);
    assert_eq!(b_last, 8.0, "B's sixth job after six of B's and two of A's");
}

#[test]
fn inline_policies_without_labels_are_labelled_by_their_policy() {
    let (_d, out) = run_yaml(TWO, &["--policy", "{policy: drr}", "--policy", "{policy: drr, cost: work}"]);
    let labels: Vec<String> =
        read_csv(&out.join("comparison.csv")).iter().map(|r| r["policy"].clone()).collect();
    assert_eq!(labels, ["drr", "drr-2"]);
}

#[test]
fn a_bad_inline_policy_names_the_option_and_the_column() {
    let dir = tempdir();
    let sc = dir.path().join("t.yaml");
    std::fs::write(&sc, TWO).unwrap();
    for (entry, column, says) in [
        // `cots` starts at column 15 of `{policy: wfq, cots: work}`
        ("{policy: wfq, cots: work}", 15, "did you mean `cost`?"),
        // `wrk` starts at column 21
        ("{policy: wfq, cost: wrk}", 21, "expected one of jobs, work"),
        // reserve's class is checked against the scenario's classes
        ("{policy: reserve, class: nope, workers: 1}", 26, "class `nope` is not declared"),
        // parameters checked when the policy is built: 1 worker in the pool
        ("{policy: reserve, class: default, workers: 2}", 44, "between 1 and the pool's 1 workers"),
    ] {
        let out = fairsim()
            .args(["run", sc.to_str().unwrap(), "--quiet", "--no-plots", "--policy", entry])
            .arg("--out")
            .arg(dir.path().join("out"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("--policy '{entry}':1:{column}:")), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(!dir.path().join("out").exists(), "no folder for a refused run");
    }
}

#[test]
fn the_json_document_is_the_folder_s_record_with_every_group() {
    let dir = tempdir();
    let out = dir.path().join("out");
    let cmd = fairsim()
        .env("SOURCE_DATE_EPOCH", "951782400")
        .args(["run", scenario("noisy-neighbor.yaml").to_str().unwrap(), "--no-plots", "--format", "json"])
        .arg("--out")
        .arg(&out)
        .args(["--policy", "fifo", "--policy", "{policy: drr, cost: work}"])
        .output()
        .unwrap();
    assert!(cmd.status.success());
    let kept = std::fs::read(out.join("fairsim-results.json")).unwrap();
    assert_eq!(cmd.stdout, kept, "stdout is the folder's document, byte for byte");
    let doc: serde_json::Value = serde_json::from_slice(&kept).unwrap();
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["fairsim"], env!("CARGO_PKG_VERSION"));
    assert_eq!(doc["scenario"], "noisy-neighbor");
    assert_eq!(doc["seed"], 42, "the file's seed");
    // SOURCE_DATE_EPOCH 951782400 is 2000-02-29 00:00:00 UTC
    assert_eq!(doc["started"], "2000-02-29T00:00:00Z");
    assert_eq!(doc["logs"], "full");
    let command = doc["command"].as_str().unwrap();
    assert!(command.starts_with("fairsim run "), "{command}");
    assert!(command.ends_with("--policy fifo --policy '{policy: drr, cost: work}'"), "{command}");
    let policies = doc["policies"].as_array().unwrap();
    assert_eq!(policies.len(), 2);
    let drr = &policies[1];
    assert_eq!(drr["comparison"]["policy"], "drr");
    assert_eq!(drr["comparison"]["kind"], "drr");
    // 5,000 dumped + 5 tenants x 30/min x 15 min on average; the exact
    // count is the sum of the tenant rows, and each row matches the CSV
    let groups = drr["groups"].as_array().unwrap();
    let count = |scope: &str| groups.iter().filter(|g| g["scope"] == scope).count();
    assert_eq!((count("all"), count("class"), count("tenant")), (1, 2, 6));
    let summary = read_csv(&out.join("drr/summary.csv"));
    for (row, g) in summary.iter().zip(groups) {
        assert_eq!(row["name"], g["name"].as_str().unwrap());
        assert_eq!(row["jobs"].parse::<u64>().unwrap(), g["jobs"].as_u64().unwrap());
        let p99 = g["wait_p99"].as_f64().unwrap();
        assert!((secs(&row["wait_p99"]) - p99).abs() < 1e-6, "{} p99", row["name"]);
    }
    let tenant_jobs: u64 =
        groups.iter().filter(|g| g["scope"] == "tenant").map(|g| g["jobs"].as_u64().unwrap()).sum();
    assert_eq!(tenant_jobs, drr["comparison"]["jobs"].as_u64().unwrap());
}

#[test]
fn stdout_holds_the_results_and_status_goes_to_stderr() {
    let dir = tempdir();
    let cmd = fairsim()
        .args(["run", scenario("noisy-neighbor.yaml").to_str().unwrap(), "--no-plots"])
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(cmd.status.success());
    let stdout = String::from_utf8_lossy(&cmd.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    // header, rule, one row per policy (fifo, round_robin, priority); then
    // the scorecard of the SLA the interactive class implies (a blank line,
    // its title, header, rule, three rows), and the verdict's three lines
    // and the one-seed note after a blank line
    assert_eq!(lines.len(), 5 + 7 + 5, "{stdout}");
    assert!(lines[16].starts_with("one seed: no intervals"), "{stdout}");
    assert!(lines[0].starts_with("policy") && lines[2].starts_with("fifo"));
    assert_eq!((lines[5], lines[6]), ("", "scorecard"));
    assert!(lines[13].starts_with("No `objectives:` declared"), "{stdout}");
    assert!(lines[15].starts_with("fifo breaks `interactive p99 <= 10.0 s` first"), "{stdout}");
    let stderr = String::from_utf8_lossy(&cmd.stderr);
    assert!(stderr.contains("results in"));
    // stderr is a pipe here, not a terminal: no progress bar
    assert!(!stderr.contains("ETA") && !stderr.contains('\r'), "{stderr}");
}

#[test]
fn completion_scripts_follow_each_shell_s_convention() {
    // each shell's own marker: bash registers a function with `complete -F`,
    // zsh's file starts with #compdef, fish uses `complete -c`
    for (shell, marker) in
        [("bash", "complete -F _fairsim"), ("zsh", "#compdef fairsim"), ("fish", "complete -c fairsim")]
    {
        let out = fairsim().args(["completions", shell]).output().unwrap();
        assert!(out.status.success());
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(script.contains(marker), "{shell}: {marker} missing");
        for command in ["run", "validate", "policies", "report"] {
            assert!(script.contains(command), "{shell}: {command} missing");
        }
    }
    let bad = fairsim().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn the_manual_has_a_page_per_command() {
    let out = fairsim().arg("man").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(".TH fairsim 1"));
    let dir = tempdir();
    fairsim().args(["man", "--dir"]).arg(dir.path()).assert().success();
    for page in ["fairsim.1", "fairsim-run.1", "fairsim-validate.1", "fairsim-report.1", "fairsim-policies.1"]
    {
        assert!(dir.path().join(page).is_file(), "{page}");
    }
    let run = std::fs::read_to_string(dir.path().join("fairsim-run.1")).unwrap();
    assert!(run.contains("policy") && run.contains("trace"), "the run page lists run's options");
}

#[test]
fn colour_follows_the_option_and_no_color() {
    let error_of = |args: &[&str], no_color: bool| {
        let mut cmd = fairsim();
        if no_color {
            cmd.env("NO_COLOR", "1");
        } else {
            cmd.env_remove("NO_COLOR");
        }
        let out = cmd.args(args).args(["validate", "/no/such/scenario.yaml"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let red = "\x1b[1;31merror:\x1b[0m";
    assert!(error_of(&["--color", "always"], false).starts_with(red));
    // NO_COLOR governs auto, not an explicit always
    assert!(error_of(&["--color=always"], true).starts_with(red));
    assert!(error_of(&["--color", "never"], false).starts_with("error: "));
    // auto with stderr not a terminal (a pipe here): no colour
    assert!(error_of(&[], false).starts_with("error: "));
    assert!(error_of(&[], true).starts_with("error: "));
}

/// `fairsim validate FILE | head -1`: the pipe closes after one line, while
/// validate still has 10,000 entry lines to print; it must end quietly by
/// SIGPIPE (as `cat` does), not panic with exit 101.
#[test]
fn a_closed_stdout_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/bench/entries-10k-many.yaml");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("fairsim"))
        .arg("validate")
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.ends_with(": ok\n"), "{first}");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.signal(), Some(libc_sigpipe()), "{:?}", out.status);
}

/// SIGPIPE's number on Linux.
fn libc_sigpipe() -> i32 {
    13
}

#[test]
fn a_tenant_name_of_65536_characters_prints_without_a_panic() {
    // The table padded cells with a `{:>w$}` width, which panics past 65,535.
    let dir = tempdir();
    let name = "n".repeat(65_536);
    let sc = write_scenario(
        dir.path(),
        "long.yaml",
        &format!("workers: 1\nworkload:\n  - {{tenant: {name}, count: 2, service: 1s}}\n"),
    );
    let o = fairsim()
        .current_dir(dir.path())
        .args(["run", sc.to_str().expect("utf8"), "--out", "o", "--no-plots"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    // the table shows it cut to 40 characters; the CSV files keep it whole
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("({}…)", "n".repeat(39))));
    let jobs = std::fs::read_to_string(dir.path().join("o/fifo/jobs.csv")).expect("jobs");
    assert!(jobs.contains(&name));
}

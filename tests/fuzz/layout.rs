//! A case as files and commands, shared by the scratch run and the kept
//! finding, so that the command printed in a report is the one that ran.

use std::path::{Path, PathBuf};

use super::cases::{contains, Case, Flags};

/// The files of a case and its commands. `stem` names the files of a kept
/// finding (`STEM.yaml`, `STEM.t0.csv`, ...); without it, the names used in
/// the scratch folder. `shown` is the folder the printed commands refer to.
pub struct Layout {
    pub files: Vec<(PathBuf, Vec<u8>)>,
    pub commands: Vec<(&'static str, Vec<String>)>,
}

pub fn layout(case: &Case, stem: Option<&str>, shown: &str, out: &str) -> Layout {
    let name = |suffix: &str| match stem {
        Some(s) => format!("{s}.{suffix}"),
        None => format!("case.{suffix}"),
    };
    let shown_path = |f: &str| if shown.is_empty() { f.to_string() } else { format!("{shown}/{f}") };
    let mut files = Vec::new();
    let run_args = |scenario: &str, flags: &Flags, trace: Option<(&str, &str)>| {
        let mut a: Vec<String> = vec!["run".into(), scenario.into()];
        a.extend(["--logs", "summary", "--no-plots", "--out", out].map(String::from));
        if flags.quiet {
            a.push("--quiet".into());
        }
        if flags.json {
            a.extend(["--format".into(), "json".into()]);
        }
        if flags.audit {
            a.push("--audit".into());
        }
        if let Some(s) = &flags.seed {
            a.extend(["--seed".into(), s.clone()]);
        }
        if let Some(p) = &flags.policy {
            a.extend(["--policy".into(), p.clone()]);
        }
        if flags.skip_bad_rows {
            a.push("--skip-bad-rows".into());
        }
        if let Some((t, _)) = trace {
            a.extend(["--trace".into(), t.to_string()]);
            if let Some(f) = flags.trace_format {
                a.extend(["--trace-format".into(), f.into()]);
            }
        }
        a
    };
    let commands = match case {
        Case::Scenario { yaml, traces, shipped_traces, flags, .. } => {
            let prefix = match stem {
                Some(s) => format!("{s}."),
                None => String::new(),
            };
            let yaml = replace_bytes(yaml, b"@@P@@", prefix.as_bytes());
            for (tname, bytes) in traces {
                if contains(&yaml, format!("{prefix}{tname}").as_bytes()) || stem.is_none() {
                    files.push((PathBuf::from(format!("{prefix}{tname}")), bytes.clone()));
                }
            }
            if *shipped_traces {
                let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/traces");
                for f in ["jobs.csv", "cluster.swf"] {
                    files.push((Path::new("traces").join(f), std::fs::read(dir.join(f)).unwrap()));
                }
            }
            let sc = name("yaml");
            files.push((PathBuf::from(&sc), yaml));
            let shown_sc = shown_path(&sc);
            // `full` and `check` run only when validate and run both exit 0
            // (runner::execute): fairsim's own full logs must pass its own
            // checker
            let full_out = format!("{out}-full");
            let mut full: Vec<String> = vec!["run".into(), shown_sc.clone()];
            full.extend(["--logs", "full", "--no-plots", "--quiet", "--out", &full_out].map(String::from));
            if let Some(s) = &flags.seed {
                full.extend(["--seed".into(), s.clone()]);
            }
            if let Some(p) = &flags.policy {
                full.extend(["--policy".into(), p.clone()]);
            }
            vec![
                ("validate", vec!["validate".to_string(), shown_sc.clone()]),
                ("run", run_args(&shown_sc, flags, None)),
                ("full", full),
                ("check", vec!["check".to_string(), full_out]),
            ]
        }
        Case::Trace { base, trace, ext, flags, .. } => {
            let sc = name("yaml");
            let tr = name(ext);
            files.push((PathBuf::from(&sc), base.clone()));
            files.push((PathBuf::from(&tr), trace.clone()));
            let shown_tr = shown_path(&tr);
            vec![("run", run_args(&shown_path(&sc), flags, Some((&shown_tr, ext))))]
        }
    };
    Layout { files, commands }
}

fn replace_bytes(hay: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hay.len());
    let mut i = 0;
    while i < hay.len() {
        if hay[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(hay[i]);
            i += 1;
        }
    }
    out
}

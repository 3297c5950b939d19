//! A case, the unit the fuzzer runs, keeps and shrinks: one input
//! (generated or mutated) with its run flags. Its size decides which input of
//! a cause is kept.

use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use proptest::sample::Index;

use super::mutate::{apply, mutation};
use super::presets;
use super::scalars::{noisy, opt, pick, pick_static, G};
use super::scenario::scenario_doc;
use super::traces::{csv_trace, swf_trace, Header};

/// The shipped files the mutations start from.
#[derive(Debug)]
pub struct Shipped {
    pub scenarios: Vec<(String, Vec<u8>)>,
    pub jobs_csv: Vec<u8>,
    pub cluster_swf: Vec<u8>,
    pub trace_csv_yaml: Vec<u8>,
    pub trace_swf_yaml: Vec<u8>,
}

impl Shipped {
    pub fn load() -> Self {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let mut scenarios: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
            .expect("scenarios/")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
            .collect();
        scenarios.sort();
        assert!(!scenarios.is_empty(), "no scenarios/*.yaml");
        let read = |p: &str| std::fs::read(dir.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
        Shipped {
            jobs_csv: read("traces/jobs.csv"),
            cluster_swf: read("traces/cluster.swf"),
            trace_csv_yaml: read("trace-jobs-csv.yaml"),
            trace_swf_yaml: read("trace-cluster-swf.yaml"),
            scenarios,
        }
    }
}

/// Run options besides `--logs summary --no-plots --out DIR`.
#[derive(Debug, Clone)]
pub struct Flags {
    pub quiet: bool,
    pub json: bool,
    pub audit: bool,
    pub seed: Option<String>,
    pub skip_bad_rows: bool,
    pub policy: Option<String>,
    pub trace_format: Option<&'static str>,
}

fn flags(trace: bool, g: G) -> BoxedStrategy<Flags> {
    let policy = noisy(
        g,
        pick(&["fifo", "drr", "round_robin", "edf", "wfq"]),
        pick(&["x", "drr-work", "fifo-2", "nope", "p1"]),
    );
    (
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.5),
        prop::bool::weighted(0.2),
        opt(
            0.08,
            noisy(
                g,
                any::<u64>().prop_map(|n| n.to_string()).boxed(),
                pick(&["-1", "x", "18446744073709551616"]),
            ),
        ),
        prop::bool::weighted(if trace { 0.3 } else { 0.08 }),
        opt(0.1, policy),
        opt(
            if trace && g.noise > 0 { 0.3 } else { 0.0 },
            pick_static(&["csv", "swf", "txt", "CSV", "good_jobs", "bullmq", "celery_events", "sidekiq_log"]),
        ),
    )
        .prop_map(|(quiet, json, audit, seed, skip_bad_rows, policy, trace_format)| Flags {
            quiet,
            json,
            audit,
            seed,
            skip_bad_rows,
            policy,
            trace_format,
        })
        .boxed()
}

#[derive(Debug, Clone)]
pub enum Case {
    /// A scenario file, validated then run; `traces` are written beside it
    /// (their names prefixed where the YAML says `@@P@@`), `shipped_traces`
    /// puts the shipped traces in `traces/` (for mutated shipped scenarios).
    Scenario {
        origin: String,
        yaml: Vec<u8>,
        traces: Vec<(&'static str, Vec<u8>)>,
        shipped_traces: bool,
        flags: Flags,
    },
    /// A trace replayed with `run BASE --trace FILE`.
    Trace { origin: String, base: Vec<u8>, trace: Vec<u8>, ext: &'static str, flags: Flags },
}

impl Case {
    pub fn size(&self) -> usize {
        match self {
            Case::Scenario { yaml, traces, .. } => {
                let used: usize =
                    traces.iter().filter(|(n, _)| contains(yaml, n.as_bytes())).map(|(_, b)| b.len()).sum();
                yaml.len() + used
            }
            Case::Trace { base, trace, .. } => base.len() + trace.len(),
        }
    }

    pub fn origin(&self) -> &str {
        match self {
            Case::Scenario { origin, .. } | Case::Trace { origin, .. } => origin,
        }
    }
}

pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

const BASE_CSV: &str = "name: fuzz-csv\nworkers: 2\nresources: {cpu: 4}\nworkload:\n  - trace: {path: x.csv, columns: {cost: {cpu: cpu}, priority: priority, deadline: deadline}}\npolicies: [fifo, drr, edf]\n";

const BASE_PLAIN: &str =
    "workers: 1\nworkload:\n  - {tenant: A, count: 2, service: 1s}\npolicies: [round_robin, {policy: wfq, cost: work}]\n";

const BASE_SWF: &str =
    "workers: 3\nworkload:\n  - trace: {path: x.swf, slots: none}\npolicies: [fifo, drf]\n";

const BASE_PROCS: &str = "resources: {procs: 8}\nworkload:\n  - {tenant: A, count: 1, service: 1s}\n";

pub fn case_strategy(shipped: Arc<Shipped>, wild: bool, noise: u8) -> BoxedStrategy<Case> {
    let g = G { wild, noise, res: false };
    let generated = any::<bool>().prop_flat_map(move |res| {
        let g = G { res, ..g };
        let files = (presets::sidekiq_yml(g), presets::queue_yml(g), presets::event_log(g));
        (scenario_doc(g), csv_trace(g, Header::Default), swf_trace(g), flags(false, g), files).prop_map(
            |(yaml, csv, swf, flags, (sidekiq, queue, log))| Case::Scenario {
                origin: "generated scenario".into(),
                yaml: yaml.into_bytes(),
                traces: vec![
                    ("t0.csv", csv),
                    ("t1.swf", swf),
                    ("t2.jsonl", log),
                    ("sidekiq.yml", sidekiq),
                    ("queue.yml", queue),
                ],
                shipped_traces: false,
                flags,
            },
        )
    });
    let s1 = shipped.clone();
    let mutated_scenario = (any::<Index>(), prop::collection::vec(mutation(wild), 1..6), flags(false, g))
        .prop_map(move |(i, muts, flags)| {
            let (name, bytes) = &s1.scenarios[i.index(s1.scenarios.len())];
            Case::Scenario {
                origin: format!("mutated scenarios/{name}"),
                yaml: apply(bytes, &muts),
                traces: Vec::new(),
                shipped_traces: true,
                flags,
            }
        });
    let s2 = shipped.clone();
    let generated_csv = (0usize..3).prop_flat_map(move |b| {
        let header = [Header::Shipped, Header::Costed, Header::Default][b];
        let s2 = s2.clone();
        (csv_trace(g, header), flags(true, g)).prop_map(move |(trace, flags)| {
            let base = match b {
                0 => s2.trace_csv_yaml.clone(),
                1 => BASE_CSV.as_bytes().to_vec(),
                _ => BASE_PLAIN.as_bytes().to_vec(),
            };
            Case::Trace { origin: "generated CSV trace".into(), base, trace, ext: "csv", flags }
        })
    });
    let s3 = shipped.clone();
    let generated_swf = (swf_trace(g), 0usize..3, flags(true, g)).prop_map(move |(trace, b, flags)| {
        let base = match b {
            0 => s3.trace_swf_yaml.clone(),
            1 => BASE_SWF.as_bytes().to_vec(),
            _ => BASE_PROCS.as_bytes().to_vec(),
        };
        Case::Trace { origin: "generated SWF trace".into(), base, trace, ext: "swf", flags }
    });
    let s4 = shipped;
    let mutated_trace = (any::<bool>(), prop::collection::vec(mutation(wild), 1..6), flags(true, g))
        .prop_map(move |(csv, muts, flags)| {
            let (base, trace, ext) = if csv {
                (&s4.trace_csv_yaml, &s4.jobs_csv, "csv")
            } else {
                (&s4.trace_swf_yaml, &s4.cluster_swf, "swf")
            };
            Case::Trace {
                origin: format!("mutated scenarios/traces/{}", if csv { "jobs.csv" } else { "cluster.swf" }),
                base: base.clone(),
                trace: apply(trace, &muts),
                ext,
                flags,
            }
        });
    prop_oneof![
        10 => generated,
        3 => mutated_scenario,
        2 => generated_csv,
        2 => generated_swf,
        2 => mutated_trace,
    ]
    .boxed()
}

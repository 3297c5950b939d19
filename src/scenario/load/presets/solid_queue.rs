//! Solid Queue (read from rails/solid_queue 1.5.0: `lib/solid_queue/
//! configuration.rb`, `worker.rb`, `processes/poller.rb`, `pool.rb`,
//! `app/models/solid_queue/queue_selector.rb`, `ready_execution.rb`,
//! `execution.rb`; docs/background.md).
//!
//! Each entry of `workers:` runs `processes` processes (default 1) of
//! `threads` threads (default 3). A worker claims jobs for its idle threads
//! from its queue list (`queues`, default `"*"`), each queue's jobs by
//! `priority, job_id` (smaller priority first: `priority` inside each
//! queue): exact names and `prefix*` patterns are taken in the order
//! written, one queue after another; `*` (alone or in a list) is one query
//! over every queue by `priority, job_id`, so those queues act as one
//! (`poll: merged`). When a poll leaves a thread idle the worker sleeps
//! `polling_interval` (default 0.1 s); a thread that finishes wakes it.
//! A worker claims one job per idle thread (`ReadyExecution.claim(queues,
//! pool.idle_threads)`), so there is no claim batch: `batch_size` is the
//! dispatchers', which move scheduled jobs to ready, and jobs here are
//! ready when they arrive.
//!
//! `config/queue.yml` is read as `Configuration#config_from` does: ERB,
//! YAML with `<<: *default` merges, the environment's section when the
//! file has it, then `workers`, `dispatchers` and `scheduler` from it;
//! with no settings at all, one default worker.

use serde_saphyr::Spanned;

use super::config;
use super::sidekiq::env_of;
use super::value::Src;
use super::{Described, Group, Pat, PresetCosts, Select};
use crate::error::Result;
use crate::scenario::load::Builder;
use crate::scenario::raw::RawValue;
use crate::time::Time;

const OPTIONS: [&str; 5] = ["config", "environment", "env", "workers", "costs"];
const WORKER_KEYS: [&str; 4] = ["queues", "threads", "processes", "polling_interval"];
const DISPATCHER_KEYS: [&str; 4] =
    ["polling_interval", "batch_size", "concurrency_maintenance", "concurrency_maintenance_interval"];
const SCHEDULER_KEYS: [&str; 2] = ["dynamic_tasks_enabled", "polling_interval"];
const SECTIONS: [&str; 3] = ["workers", "dispatchers", "scheduler"];

/// Solid Queue's `WORKER_DEFAULTS`: 3 threads, 0.1 s between polls.
const THREADS: u64 = 3;
const POLLING: Time = 100_000;

pub(super) fn read(b: &Builder, src: &Src, v: &Spanned<RawValue>) -> Result<Described> {
    let entries = src.entries(v, "`solid_queue`", &OPTIONS)?;
    let find = |k: &str| entries.iter().find(|e| e.key == k);
    let env = env_of(src, find("env"))?;
    let mut source = "the scenario".to_string();
    let mut notes = Vec::new();
    let costs = match find("costs") {
        Some(c) => b.preset_costs(src, c.value)?,
        None => PresetCosts::default(),
    };
    let mut groups = Vec::new();
    let mut files = Vec::new();
    let workers = find("workers");
    match (find("config"), workers) {
        (Some(c), None) => {
            let (fsrc, doc) = config::read(src, b.path, "config", c.value, &env, false)?;
            files.push((src.text(c.value, "config")?, fsrc.file.clone()));
            let environment = find("environment").map(|e| src.text(e.value, "environment")).transpose()?;
            source = fsrc.file.display().to_string();
            let chosen = section(
                &fsrc,
                &doc,
                environment.as_deref(),
                c.value,
                find("environment").map(|e| e.value),
                src,
            )?;
            if let Some(e) = &environment {
                source.push_str(&format!(", environment {e}"));
            }
            from_config(&fsrc, chosen, &mut groups, &mut notes)?;
        }
        (None, Some(w)) => {
            if let Some(e) = find("environment") {
                return Err(src.err(e.at, "`environment` chooses a section of `config`; remove it"));
            }
            worker_list(src, w.value, &mut groups)?;
        }
        (Some(_), Some(w)) => {
            return Err(src.err(
                w.at,
                "give the workers in `config` (the file Solid Queue reads) or in `workers`, not both",
            ))
        }
        (None, None) => {
            if let Some(e) = find("environment") {
                return Err(src.err(e.at, "`environment` chooses a section of `config`; remove it"));
            }
            notes.push("no workers given: Solid Queue's default worker (queues \"*\", 3 threads, polling every 0.1 s)".into());
            groups.push(default_worker(src, v));
        }
    }
    if groups.is_empty() {
        return Err(src.err(v, "this configuration runs no worker (only dispatchers or a scheduler), so no job would run; add `workers:`"));
    }
    Ok(Described { processor: "solid_queue", order: "priority", groups, source, notes, costs, files })
}

fn default_worker(src: &Src, v: &Spanned<RawValue>) -> Group {
    Group {
        name: "worker0".into(),
        workers: THREADS,
        select: Select::Merged(vec![Pat::All]),
        poll_interval: POLLING,
        claim: None,
        limiter: None,
        file: src.file.clone(),
        via: src.via.clone(),
        at: super::super::pos(v),
    }
}

/// The settings the deployment runs with: the environment's section when
/// the file has one (`config[env] ? config[env] : config`).
fn section<'d>(
    fsrc: &Src,
    doc: &'d Spanned<RawValue>,
    environment: Option<&str>,
    config_at: &Spanned<RawValue>,
    env_at: Option<&Spanned<RawValue>>,
    src: &Src,
) -> Result<&'d Spanned<RawValue>> {
    let m = match &doc.value {
        RawValue::Map(m) => m.as_slice(),
        RawValue::Null => return Ok(doc),
        _ => {
            return Err(fsrc.err(
                doc,
                "a config/queue.yml is a map: `workers:`, `dispatchers:`, or one section per environment",
            ))
        }
    };
    let sections: Vec<&str> = m
        .iter()
        .filter(|(k, v)| !SECTIONS.contains(&k.value.as_str()) && matches!(v.value, RawValue::Map(_)))
        .map(|(k, _)| k.value.as_str())
        .collect();
    match environment {
        Some(e) => match m.iter().find(|(k, _)| k.value == e) {
            Some((_, s)) => Ok(s),
            None if sections.is_empty() => Ok(doc),
            None => Err(src.err(
                env_at.expect("an environment was given"),
                format!("`{}` has no section `{e}` (it has {})", fsrc.file.display(), sections.join(", ")),
            )),
        },
        None if sections.is_empty() => Ok(doc),
        None => Err(src.err(
            config_at,
            format!(
                "`{}` has sections for {}; say which the deployment runs with `environment:` beside `config`",
                fsrc.file.display(),
                sections.join(", ")
            ),
        )),
    }
}

/// `workers`, `dispatchers` and `scheduler` of the chosen settings; other
/// keys (an anchor's holder such as `default: &default`) are not read, as
/// `config.slice(:workers, :dispatchers, :scheduler)` leaves them.
fn from_config(
    fsrc: &Src,
    chosen: &Spanned<RawValue>,
    groups: &mut Vec<Group>,
    notes: &mut Vec<String>,
) -> Result<()> {
    let m = match &chosen.value {
        RawValue::Map(m) => m.as_slice(),
        RawValue::Null => &[],
        _ => {
            return Err(fsrc
                .err(chosen, "an environment's section is a map: `workers:`, `dispatchers:`, `scheduler:`"))
        }
    };
    let mut any = false;
    for (k, v) in m {
        match k.value.as_str() {
            "workers" => {
                any = true;
                worker_list(fsrc, v, groups)?;
            }
            "dispatchers" => {
                any = true;
                for d in fsrc.items(v) {
                    fsrc.entries(d, "a dispatcher", &DISPATCHER_KEYS)?;
                }
                notes.push("dispatchers move scheduled jobs to ready; here every job is ready when it arrives, so they change nothing".into());
            }
            "scheduler" => {
                any = true;
                fsrc.entries(v, "`scheduler`", &SCHEDULER_KEYS)?;
                notes.push("the scheduler enqueues recurring tasks; give those as workload entries".into());
            }
            _ if matches!(v.value, RawValue::Map(_)) => {}
            other => {
                if let Some(k2) = crate::policy::closest(other, &SECTIONS) {
                    return Err(fsrc.err(k, format!("unknown key `{other}`; did you mean `{k2}`?")));
                }
            }
        }
    }
    if !any {
        notes.push("no settings in the file: Solid Queue's default worker (queues \"*\", 3 threads, polling every 0.1 s)".into());
        groups.push(default_worker(fsrc, chosen));
    }
    Ok(())
}

/// A `workers:` list.
fn worker_list(src: &Src, v: &Spanned<RawValue>, groups: &mut Vec<Group>) -> Result<()> {
    let RawValue::List(items) = &v.value else {
        return Err(src.err(v, "`workers` is a list of workers, e.g. `- {queues: \"*\", threads: 3}`"));
    };
    for w in items {
        let i = groups.len();
        groups.push(worker(src, w, i)?);
    }
    Ok(())
}

fn worker(src: &Src, w: &Spanned<RawValue>, i: usize) -> Result<Group> {
    let mut threads = THREADS;
    let mut processes = 1;
    let mut poll = POLLING;
    let mut select = Select::Merged(vec![Pat::All]);
    let keys = WORKER_KEYS;
    let m = match &w.value {
        RawValue::Map(m) => m,
        _ => return Err(src.err(w, "a worker is a map: {queues, threads, processes, polling_interval}")),
    };
    for (k, v) in m {
        match k.value.as_str() {
            "threads" => threads = src.whole(v, "threads", 1, 1_000_000)?,
            "processes" => processes = src.whole(v, "processes", 1, 1_000_000)?,
            "polling_interval" => {
                poll = src.seconds(v, "polling_interval")?;
                if poll == 0 {
                    return Err(src.err(v, "`polling_interval` must be above 0 (Solid Queue sleeps it between polls that leave a thread idle)"));
                }
            }
            "queues" => select = queues(src, v)?,
            "batch_size" => {
                return Err(src.err(k, "`batch_size` is a dispatcher's setting (scheduled jobs moved per poll); a worker claims one job per idle thread, so remove it here"))
            }
            other => return Err(src.unknown(k, other, "a worker", &keys)),
        }
    }
    Ok(Group {
        name: format!("worker{i}"),
        workers: threads * processes,
        select,
        poll_interval: poll,
        claim: None,
        limiter: None,
        file: src.file.clone(),
        via: src.via.clone(),
        at: super::super::pos(w),
    })
}

/// `queues`: a name, `prefix*`, `*`, or a list of them (`QueueSelector`).
fn queues(src: &Src, v: &Spanned<RawValue>) -> Result<Select> {
    let mut pats = Vec::new();
    for item in src.items(v) {
        let q = src.text(item, "queues")?.trim().to_string();
        if q == "*" {
            // with `*` anywhere the list behaves like `*` alone
            return Ok(Select::Merged(vec![Pat::All]));
        }
        match q.find('*') {
            None if q.is_empty() => return Err(src.err(item, "a queue name is empty")),
            None => pats.push(Pat::Name(q)),
            Some(i) if i + 1 == q.len() => pats.push(Pat::Prefix(q[..i].to_string())),
            Some(_) => {
                return Err(src.err(
                    item,
                    format!("`{q}`: a wildcard stands alone (`*`) or ends a prefix (`staging*`); Solid Queue ignores any other, so its worker would take nothing from it"),
                ))
            }
        }
    }
    if pats.is_empty() {
        return Ok(Select::Merged(vec![Pat::All]));
    }
    Ok(Select::Strict(pats))
}

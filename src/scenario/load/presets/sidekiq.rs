//! Sidekiq (read from sidekiq/sidekiq 8.1.7: `lib/sidekiq/capsule.rb`,
//! `fetch.rb`, `cli.rb`, `config.rb`; docs/background.md).
//!
//! A process runs `concurrency` threads (default 5; `RAILS_MAX_THREADS`
//! when set) per capsule; each thread fetches with `BRPOP` over its
//! capsule's queue list, so an idle thread takes a new job at once. The
//! list's weights decide the order (`Capsule#queues=`): every weight 0
//! (none written) is strict list order; every weight 1 is random (a fresh
//! shuffle per fetch); otherwise each queue is listed max(w, 1) times and
//! the list shuffled per fetch, so the first non-empty queue is q with
//! probability w_q / (sum over the non-empty queues), which is fairsim's
//! weighted poll. A job runs in the order its queue (a Redis list) holds
//! it: `fifo` inside each queue.
//!
//! `sidekiq.yml` is read as `cli.rb`'s `parse_config` does: ERB, YAML,
//! keys as symbols or strings, the environment's section merged over the
//! top level; the scenario's own keys then win, as command-line flags do.

use serde_saphyr::Spanned;

use super::config;
use super::value::{Entry, Src};
use super::{Described, Group, PresetCosts, Select};
use crate::error::Result;
use crate::scenario::load::Builder;
use crate::scenario::raw::RawValue;

const OPTIONS: [&str; 8] =
    ["config", "environment", "env", "concurrency", "queues", "capsules", "processes", "costs"];

/// The keys of `sidekiq.yml` that decide which job runs when.
const USED: [&str; 3] = ["concurrency", "queues", "capsules"];

/// Keys Sidekiq reads from `sidekiq.yml` that change nothing fairsim
/// models (logging, shutdown, retries' bookkeeping, the scheduler's poll
/// of scheduled jobs, Redis): accepted and left aside.
const IGNORED: [&str; 24] = [
    "require",
    "environment",
    "timeout",
    "verbose",
    "logfile",
    "pidfile",
    "tag",
    "labels",
    "strict",
    "max_retries",
    "dead_max_jobs",
    "dead_timeout_in_seconds",
    "poll_interval_average",
    "average_scheduled_poll_interval",
    "logged_job_attributes",
    "skip_default_job_logging",
    "on_complex_arguments",
    "max_iteration_runtime",
    "redis",
    "redis_idle_timeout",
    "lifecycle_events",
    "error_handlers",
    "death_handlers",
    "backtrace_cleaner",
];

/// Most copies of a queue a weight may ask for (Sidekiq lists the queue
/// that many times; fairsim's weights stop at 1000).
const MAX_WEIGHT: u64 = 1000;

/// What a capsule (or the default one) says.
#[derive(Default, Clone)]
struct Capsule {
    concurrency: Option<u64>,
    /// (name, weight as written, 0 when none), with where it was written.
    queues: Option<(Vec<(String, u64)>, Place)>,
}

#[derive(Clone)]
struct Place {
    file: std::path::PathBuf,
    via: String,
    at: (usize, usize),
}

#[derive(Default)]
struct Settings {
    main: Capsule,
    capsules: Vec<(String, Capsule, Place)>,
}

pub(super) fn read(b: &Builder, src: &Src, v: &Spanned<RawValue>) -> Result<Described> {
    let entries = src.entries(v, "`sidekiq`", &OPTIONS)?;
    let find = |k: &str| entries.iter().find(|e| e.key == k);
    let env = env_of(src, find("env"))?;
    let mut s = Settings::default();
    let mut source = "the scenario".to_string();
    let mut notes = Vec::new();
    let mut files = Vec::new();
    if let Some(c) = find("config") {
        let (fsrc, doc) = config::read(src, b.path, "config", c.value, &env, true)?;
        files.push((src.text(c.value, "config")?, fsrc.file.clone()));
        let environment = match find("environment") {
            Some(e) => Some(src.text(e.value, "environment")?),
            None => None,
        };
        source = format!("{}", fsrc.file.display());
        if let Some(e) = &environment {
            source.push_str(&format!(", environment {e}"));
        }
        let env_at = find("environment").map(|e| e.value);
        from_file(&fsrc, &doc, environment.as_deref(), (c.value, env_at), src, &mut s, &mut notes)?;
    } else if let Some(e) = find("environment") {
        return Err(src.err(
            e.at,
            "`environment` chooses a section of `config`; give `config: config/sidekiq.yml` or remove it",
        ));
    }
    // the scenario's keys win, as Sidekiq's command-line flags win over the file
    settings(src, &entries, &mut s)?;
    let processes = match find("processes") {
        Some(p) => src.whole(p.value, "processes", 1, 1_000_000)?,
        None => 1,
    };
    let costs = match find("costs") {
        Some(c) => b.preset_costs(src, c.value)?,
        None => PresetCosts::default(),
    };
    // Sidekiq's default: RAILS_MAX_THREADS when set, else 5
    let default_threads = match env.iter().find(|(k, _)| k == "RAILS_MAX_THREADS") {
        Some((_, n)) => n.trim().parse::<u64>().ok().filter(|n| *n >= 1).ok_or_else(|| {
            src.err(
                find("env").expect("env gave it").value,
                format!("`RAILS_MAX_THREADS: {n}` must be a whole number of threads, 1 or more"),
            )
        })?,
        None => 5,
    };
    let here = Place { file: src.file.clone(), via: src.via.clone(), at: super::super::pos(v) };
    let mut groups = vec![group("default", &s.main, default_threads, processes, &here)?];
    for (name, c, at) in &s.capsules {
        let Some(_) = c.concurrency else {
            return Err(crate::error::Error::input(
                &at.file,
                at.at.0,
                at.at.1,
                format!("capsule `{name}` has no `concurrency`; give its threads{}", at.via),
            ));
        };
        if c.queues.is_none() {
            return Err(crate::error::Error::input(
                &at.file,
                at.at.0,
                at.at.1,
                format!("capsule `{name}` has no `queues`; list the queues it processes{}", at.via),
            ));
        }
        groups.push(group(name, c, 5, processes, at)?);
    }
    Ok(Described { processor: "sidekiq", order: "fifo", groups, source, notes, costs, files })
}

/// The preset's `env: {NAME: value}`, for the file's ERB and Sidekiq's defaults.
pub(super) fn env_of(src: &Src, e: Option<&Entry>) -> Result<Vec<(String, String)>> {
    let Some(e) = e else { return Ok(Vec::new()) };
    let RawValue::Map(m) = &e.value.value else {
        return Err(src.err(e.value, "`env` is a map of environment variables, e.g. `{JOB_CONCURRENCY: 4}`"));
    };
    m.iter().map(|(k, v)| Ok((k.value.clone(), src.text(v, &k.value)?))).collect()
}

/// One capsule's pool: `concurrency` × `processes` threads polling its list.
fn group(name: &str, c: &Capsule, default_threads: u64, processes: u64, at: &Place) -> Result<Group> {
    let threads = c.concurrency.unwrap_or(default_threads);
    let (list, place) = match &c.queues {
        Some((l, p)) => (l.clone(), p.clone()),
        None => (vec![("default".to_string(), 0)], at.clone()),
    };
    // the mode comes from each name's last weight, as `@weights[name]` keeps it
    let mut last: Vec<(&str, u64)> = Vec::new();
    for (n, w) in &list {
        match last.iter_mut().find(|(m, _)| *m == n.as_str()) {
            Some(x) => x.1 = *w,
            None => last.push((n, *w)),
        }
    }
    let select = if last.iter().all(|(_, w)| *w == 0) {
        Select::Strict(last.iter().map(|(n, _)| super::Pat::Name(n.to_string())).collect())
    } else {
        // every weight 1 is Sidekiq's `random`: the same shuffle with one copy each
        Select::Weighted(list.iter().map(|(n, w)| (n.clone(), (*w).max(1) as f64)).collect())
    };
    Ok(Group {
        name: name.to_string(),
        workers: threads * processes,
        select,
        poll_interval: 0,
        claim: None,
        limiter: None,
        file: place.file,
        via: place.via,
        at: place.at,
    })
}

/// The keys of a settings map (the scenario's, the file's top level, an
/// environment's section) that decide which job runs when.
fn settings(src: &Src, entries: &[Entry], s: &mut Settings) -> Result<()> {
    for e in entries {
        match e.key.as_str() {
            "concurrency" => s.main.concurrency = Some(src.whole(e.value, "concurrency", 1, 1_000_000)?),
            "queues" => s.main.queues = Some(queues(src, e.value)?),
            "capsules" => {
                let RawValue::Map(m) = &e.value.value else {
                    return Err(
                        src.err(e.value, "`capsules` is a map of capsule name: {concurrency, queues}")
                    );
                };
                // a later `capsules` replaces the whole map, as Ruby's `merge` does
                s.capsules.clear();
                for (name, c) in m {
                    let mut cap = Capsule::default();
                    for ce in
                        src.entries(c, &format!("capsule `{}`", name.value), &["concurrency", "queues"])?
                    {
                        match ce.key.as_str() {
                            "concurrency" => {
                                cap.concurrency = Some(src.whole(ce.value, "concurrency", 1, 1_000_000)?)
                            }
                            _ => cap.queues = Some(queues(src, ce.value)?),
                        }
                    }
                    let place =
                        Place { file: src.file.clone(), via: src.via.clone(), at: super::super::pos(name) };
                    let key = name.value.trim_start_matches(':').to_string();
                    if key == "default" {
                        return Err(src.err(name, "the capsule `default` is Sidekiq's own (the top-level `concurrency` and `queues`); name this one differently"));
                    }
                    if s.capsules.iter().any(|(n, _, _)| *n == key) {
                        return Err(
                            src.err(name, format!("capsule `{key}` is declared twice; declare it once"))
                        );
                    }
                    s.capsules.push((key, cap, place));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A queue list: `[critical, "default,3", [low, 1]]`, or one such item.
fn queues(src: &Src, v: &Spanned<RawValue>) -> Result<(Vec<(String, u64)>, Place)> {
    let mut out = Vec::new();
    for item in src.items(v) {
        let (name, weight) = match &item.value {
            RawValue::Scalar(t) => match t.text.split(',').collect::<Vec<_>>().as_slice() {
                [n] => (n.to_string(), None),
                [n, w] => (n.to_string(), Some(w.trim().to_string())),
                _ => {
                    return Err(src.err(
                        item,
                        format!("`{}` is a queue and at most one weight, e.g. `critical,6`", t.text),
                    ))
                }
            },
            RawValue::List(l) if (1..=2).contains(&l.len()) => {
                let n = src.text(&l[0], "queue")?;
                (n, l.get(1).map(|w| src.text(w, "weight")).transpose()?)
            }
            _ => return Err(src.err(item, "a queue is a name, `name,weight` or `[name, weight]`")),
        };
        let name = name.trim().to_string();
        if name.is_empty() {
            return Err(src.err(item, "a queue name is empty; name the queue"));
        }
        let weight = match weight {
            None => 0,
            Some(w) => match w.parse::<u64>() {
                Ok(x) if x <= MAX_WEIGHT => x,
                _ => {
                    return Err(src.err(
                        item,
                        format!(
                            "weight `{w}` of queue `{name}` must be a whole number from 0 to {MAX_WEIGHT}"
                        ),
                    ))
                }
            },
        };
        out.push((name, weight));
    }
    if out.is_empty() {
        return Err(src.err(v, "`queues` is empty; list the queues in the order Sidekiq polls them"));
    }
    Ok((out, Place { file: src.file.clone(), via: src.via.clone(), at: super::super::pos(v) }))
}

/// `sidekiq.yml`: the top level, then the chosen environment's section
/// merged over it (`opts.merge(opts.delete(environment))`).
fn from_file(
    fsrc: &Src,
    doc: &Spanned<RawValue>,
    environment: Option<&str>,
    (config_at, env_at): (&Spanned<RawValue>, Option<&Spanned<RawValue>>),
    src: &Src,
    s: &mut Settings,
    notes: &mut Vec<String>,
) -> Result<()> {
    let m = match &doc.value {
        RawValue::Map(m) => m.as_slice(),
        RawValue::Null => &[],
        _ => {
            return Err(
                fsrc.err(doc, "a sidekiq.yml is a map of settings (`:concurrency: 10`, `:queues: [...]`)")
            )
        }
    };
    let mut known: Vec<&str> = USED.to_vec();
    known.extend(IGNORED);
    let (mut top, mut sections) = (Vec::new(), Vec::new());
    let mut ignored = Vec::new();
    for (k, v) in m {
        let key = k.value.trim_start_matches(':');
        if known.contains(&key) {
            if IGNORED.contains(&key) {
                ignored.push(format!(":{key}"));
            }
            top.push((k, v));
            continue;
        }
        // any other map is an environment's section, unless it is a
        // misspelt setting
        match &v.value {
            RawValue::Map(_) if crate::policy::closest(key, &USED).is_none() => {
                sections.push((key.to_string(), k, v))
            }
            _ => return Err(fsrc.unknown(k, key, "sidekiq.yml", &known)),
        }
    }
    let one: Vec<Entry> = top.iter().map(|(k, v)| entry(k, v)).collect();
    settings(fsrc, &one, s)?;
    let names: Vec<&str> = sections.iter().map(|(n, _, _)| n.as_str()).collect();
    match environment {
        None if sections.is_empty() => {}
        None => {
            return Err(src.err(
                config_at,
                format!(
                "`{}` has sections for {}; say which the deployment runs with `environment:` beside `config`",
                fsrc.file.display(),
                names.join(", ")
            ),
            ))
        }
        Some(e) => match sections.iter().find(|(n, _, _)| n == e) {
            Some((_, _, sec)) => {
                let entries = fsrc.entries(sec, &format!("section `{e}`"), &known)?;
                for x in &entries {
                    if IGNORED.contains(&x.key.as_str()) {
                        ignored.push(format!(":{}", x.key));
                    }
                }
                settings(fsrc, &entries, s)?;
            }
            None if sections.is_empty() => {}
            None => {
                let at = env_at.expect("an environment was given");
                return Err(src.err(
                    at,
                    format!("`{}` has no section `{e}` (it has {})", fsrc.file.display(), names.join(", ")),
                ));
            }
        },
    }
    ignored.sort();
    ignored.dedup();
    if !ignored.is_empty() {
        notes.push(format!("left aside, as they do not change which job runs when: {}", ignored.join(", ")));
    }
    Ok(())
}

fn entry<'v>(k: &'v Spanned<String>, v: &'v Spanned<RawValue>) -> Entry<'v> {
    Entry { key: k.value.trim_start_matches(':').to_string(), at: k, value: v }
}

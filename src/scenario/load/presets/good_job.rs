//! GoodJob (read from bensheldon/good_job 4.19.2: `lib/good_job/
//! configuration.rb`, `multi_scheduler.rb`, `scheduler.rb`,
//! `app/models/good_job/job.rb`; docs/background.md).
//!
//! The queue string (`queues`, default `*`) is split at `;` into
//! schedulers, each `QUEUES:THREADS` with `max_threads` (default 5) when no
//! count is given (`MultiScheduler.from_configuration`). `Job.queue_parser`
//! reads each: `*` is every queue, `-a,b` every queue but a and b, `a,b`
//! only a and b, each of these one query by `priority ASC, created_at`
//! (the queues act as one: `poll: merged`); `+a,b` orders by the list
//! first (`queue_ordered`), so a before b (`poll: strict`). Smaller
//! priority first: `priority` inside each queue. With LISTEN/NOTIFY (on by
//! default) a new job wakes a scheduler with a free thread at once, and a
//! thread that performed a job looks for the next; without it schedulers
//! poll every `poll_interval` seconds (default 10).

use serde_saphyr::Spanned;

use super::value::Src;
use super::{Described, Group, Pat, PresetCosts, Select};
use crate::error::Result;
use crate::scenario::load::Builder;
use crate::scenario::raw::RawValue;
use crate::time::SECOND;

const OPTIONS: [&str; 6] =
    ["queues", "max_threads", "poll_interval", "enable_listen_notify", "processes", "costs"];

/// GoodJob's `DEFAULT_MAX_THREADS` and `DEFAULT_POLL_INTERVAL`.
const MAX_THREADS: u64 = 5;
const POLL_INTERVAL: u64 = 10;

pub(super) fn read(b: &Builder, src: &Src, v: &Spanned<RawValue>) -> Result<Described> {
    let entries = src.entries(v, "`good_job`", &OPTIONS)?;
    let find = |k: &str| entries.iter().find(|e| e.key == k);
    let max_threads = match find("max_threads") {
        Some(e) => src.whole(e.value, "max_threads", 1, 1_000_000)?,
        None => MAX_THREADS,
    };
    let processes = match find("processes") {
        Some(e) => src.whole(e.value, "processes", 1, 1_000_000)?,
        None => 1,
    };
    let notify = match find("enable_listen_notify") {
        Some(e) => src.flag(e.value, "enable_listen_notify")?,
        None => true,
    };
    let interval = match find("poll_interval") {
        Some(e) => src.seconds(e.value, "poll_interval")?,
        None => POLL_INTERVAL * SECOND,
    };
    let mut notes = Vec::new();
    let poll_interval = if notify {
        0
    } else {
        if interval == 0 {
            let at = find("poll_interval").map_or(v, |e| e.value);
            return Err(src.err(
                at,
                "without LISTEN/NOTIFY GoodJob finds new jobs only by polling; give `poll_interval` above 0",
            ));
        }
        notes.push("without LISTEN/NOTIFY each GoodJob scheduler starts one more thread per poll; here every idle thread looks each interval, so a burst reaches full concurrency sooner".into());
        interval
    };
    let costs = match find("costs") {
        Some(c) => b.preset_costs(src, c.value)?,
        None => PresetCosts::default(),
    };
    let (string, at) = match find("queues") {
        Some(e) => (src.text(e.value, "queues")?, e.value),
        None => ("*".to_string(), v),
    };
    let mut groups = Vec::new();
    for (i, segment) in string.split(';').enumerate() {
        let (queues, threads) = match segment.split_once(':') {
            Some((q, t)) => (q, Some(t.trim())),
            None => (segment, None),
        };
        let threads = match threads.filter(|t| !t.is_empty()) {
            None => max_threads,
            Some(t) => match t.parse::<u64>() {
                Ok(n) if (1..=1_000_000).contains(&n) => n,
                _ => {
                    return Err(src.err(
                        at,
                        format!(
                            "`{}`: the thread count after `:` must be a whole number from 1 to 1000000",
                            segment.trim()
                        ),
                    ))
                }
            },
        };
        groups.push(Group {
            name: format!("scheduler{i}"),
            workers: threads * processes,
            select: parse(src, at, queues)?,
            poll_interval,
            claim: None,
            limiter: None,
            file: src.file.clone(),
            via: src.via.clone(),
            at: super::super::pos(at),
        });
    }
    Ok(Described {
        processor: "good_job",
        order: "priority",
        groups,
        source: "the scenario".into(),
        notes,
        costs,
        files: Vec::new(),
    })
}

/// One scheduler's queues, as `Job.queue_parser` reads them.
fn parse(src: &Src, at: &Spanned<RawValue>, s: &str) -> Result<Select> {
    let s = s.trim();
    let s = if s.is_empty() { "*" } else { s };
    let (mode, rest) = match s.as_bytes()[0] {
        b'-' => ('-', &s[1..]),
        b'+' => ('+', &s[1..]),
        _ => (' ', s),
    };
    let names: Vec<String> = rest.split(',').map(|q| q.trim().to_string()).collect();
    if names.iter().any(|n| n == "*") {
        return Ok(Select::Merged(vec![Pat::All]));
    }
    if let Some(n) = names.iter().find(|n| n.is_empty() || n.contains('*')) {
        let why = if n.is_empty() {
            "an empty queue name"
        } else {
            "a `*` inside a name (GoodJob matches names exactly)"
        };
        return Err(src.err(at, format!("`{s}` has {why}; write names separated by commas")));
    }
    Ok(match mode {
        '-' => Select::MergedExcept(names),
        '+' => Select::Strict(names.into_iter().map(Pat::Name).collect()),
        _ => Select::Merged(names.into_iter().map(Pat::Name).collect()),
    })
}

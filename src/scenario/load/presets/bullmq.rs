//! BullMQ (read from taskforcesh/bullmq 6.2.0: `src/commands/
//! moveToActive-11.lua`, `includes/prepareJobForProcessing.lua`,
//! `includes/getRateLimitTTL.lua`, `includes/getPriorityScore.lua`,
//! `includes/moveJobFromPrioritizedToActive.lua`; docs/background.md).
//!
//! A `Worker` serves one queue with up to `concurrency` jobs at once
//! (default 1), woken at once by the queue's marker. `moveToActive` takes
//! the jobs without a priority first (the wait list), then the prioritized
//! set by score priority × 2^32 + insertion counter: priority 1 before 2,
//! first in first out within one: `priority` inside the queue, a job
//! without priority being priority 0. The queue's limiter `{max,
//! duration}` counts every job moved to active and expires the count
//! `duration` after the first (`PEXPIRE` when the counter is 1): fairsim's
//! `limiter: {max, duration}`. BullMQ writes durations in milliseconds, and
//! so does this preset: `duration: 1000` is one second.

use serde_saphyr::Spanned;

use super::value::Src;
use super::{Described, Group, Pat, PresetCosts, Select};
use crate::error::Result;
use crate::model::StartLimit;
use crate::scenario::load::Builder;
use crate::scenario::raw::RawValue;

const OPTIONS: [&str; 2] = ["workers", "costs"];
const WORKER_KEYS: [&str; 3] = ["queue", "concurrency", "limiter"];

pub(super) fn read(b: &Builder, src: &Src, v: &Spanned<RawValue>) -> Result<Described> {
    let entries = src.entries(v, "`bullmq`", &OPTIONS)?;
    let find = |k: &str| entries.iter().find(|e| e.key == k);
    let costs = match find("costs") {
        Some(c) => b.preset_costs(src, c.value)?,
        None => PresetCosts::default(),
    };
    let Some(w) = find("workers") else {
        return Err(
            src.err(v, "a `bullmq` preset needs `workers:`, e.g. `[{queue: emails, concurrency: 8}]`")
        );
    };
    let RawValue::List(items) = &w.value.value else {
        return Err(src.err(w.value, "`workers` is a list, e.g. `[{queue: emails, concurrency: 8, limiter: {max: 20, duration: 1000}}]`"));
    };
    // workers of one queue are one pool: the limiter is the queue's, shared
    let mut groups: Vec<Group> = Vec::new();
    for item in items {
        let (mut queue, mut concurrency, mut limiter) = (None, 1, None);
        for e in src.entries(item, "a worker", &WORKER_KEYS)? {
            match e.key.as_str() {
                "queue" => queue = Some(src.text(e.value, "queue")?),
                "concurrency" => concurrency = src.whole(e.value, "concurrency", 1, 1_000_000)?,
                _ => limiter = Some((limit(src, e.value)?, e.value)),
            }
        }
        let Some(queue) = queue.filter(|q| !q.trim().is_empty()) else {
            return Err(src.err(item, "a worker needs the `queue` it serves"));
        };
        match groups.iter_mut().find(|g| g.name == queue) {
            Some(g) => {
                if let Some((l, at)) = limiter {
                    if g.limiter.is_some_and(|x| x != l) {
                        return Err(src.err(at, format!("queue `{queue}` has a different limiter on another worker; the limiter is the queue's, so give it once")));
                    }
                    g.limiter = Some(l);
                }
                g.workers += concurrency;
            }
            None => groups.push(Group {
                name: queue.clone(),
                workers: concurrency,
                select: Select::Strict(vec![Pat::Name(queue)]),
                poll_interval: 0,
                claim: None,
                limiter: limiter.map(|(l, _)| l),
                file: src.file.clone(),
                via: src.via.clone(),
                at: super::super::pos(item),
            }),
        }
    }
    if groups.is_empty() {
        return Err(src.err(w.value, "`workers` is empty; list at least one worker"));
    }
    Ok(Described {
        processor: "bullmq",
        order: "priority",
        groups,
        source: "the scenario".into(),
        notes: Vec::new(),
        costs,
        files: Vec::new(),
    })
}

/// `limiter: {max, duration}`, duration in milliseconds.
fn limit(src: &Src, v: &Spanned<RawValue>) -> Result<StartLimit> {
    let (mut max, mut duration) = (None, None);
    for e in src.entries(v, "`limiter`", &["max", "duration"])? {
        match e.key.as_str() {
            "max" => max = Some(src.whole(e.value, "max", 1, u64::from(u32::MAX))? as u32),
            _ => {
                let d = src.millis(e.value, "duration")?;
                if d == 0 {
                    return Err(
                        src.err(e.value, "`duration` must be above 0 (milliseconds, as BullMQ writes it)")
                    );
                }
                duration = Some(d);
            }
        }
    }
    match (max, duration) {
        (Some(max), Some(duration)) => Ok(StartLimit::Anchored { max, duration }),
        _ => Err(src.err(v, "BullMQ's limiter is `{max: N, duration: MS}`: at most N jobs start in a window of MS milliseconds")),
    }
}

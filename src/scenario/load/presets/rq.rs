//! RQ (read from rq/rq 2.10.0: `rq/queue.py` `Queue.dequeue_any` and
//! `lpop`, `rq/worker/base.py` `reorder_queues`, `fork_work_horse`;
//! docs/background.md).
//!
//! `rq worker high default low` runs one job at a time, taken with `BLPOP`
//! over the queues in the order given (woken at once; strict order, `fifo`
//! inside a queue). `--dequeue-strategy random` shuffles the list before
//! each dequeue (`poll: random`); `round_robin` rotates each worker's own
//! list after every job, an order per worker that a pool does not keep, so
//! it is refused. The default `Worker` forks a work horse per job: its cost
//! (`fork`, measured on the deployment) is worker time before each job's
//! service, fairsim's claim cost.

use serde_saphyr::Spanned;

use super::value::Src;
use super::{Described, Group, Pat, PresetCosts, Select};
use crate::error::Result;
use crate::scenario::load::Builder;
use crate::scenario::raw::RawValue;

const OPTIONS: [&str; 3] = ["workers", "fork", "costs"];
const WORKER_KEYS: [&str; 3] = ["count", "queues", "dequeue_strategy"];

pub(super) fn read(b: &Builder, src: &Src, v: &Spanned<RawValue>) -> Result<Described> {
    let entries = src.entries(v, "`rq`", &OPTIONS)?;
    let find = |k: &str| entries.iter().find(|e| e.key == k);
    let costs = match find("costs") {
        Some(c) => b.preset_costs(src, c.value)?,
        None => PresetCosts::default(),
    };
    let fork = find("fork").map(|e| src.seconds(e.value, "fork")).transpose()?;
    let Some(w) = find("workers") else {
        return Err(
            src.err(v, "an `rq` preset needs `workers:`, e.g. `[{count: 4, queues: [high, default, low]}]`")
        );
    };
    let RawValue::List(items) = &w.value.value else {
        return Err(
            src.err(w.value, "`workers` is a list, e.g. `[{count: 4, queues: [high, default, low]}]`")
        );
    };
    let mut groups = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let (mut count, mut queues, mut random) = (1, None, false);
        for e in src.entries(item, "a worker", &WORKER_KEYS)? {
            match e.key.as_str() {
                "count" => count = src.whole(e.value, "count", 1, 1_000_000)?,
                "queues" => {
                    let mut names = Vec::new();
                    for q in src.items(e.value) {
                        let n = src.text(q, "queues")?.trim().to_string();
                        if n.is_empty() {
                            return Err(src.err(q, "a queue name is empty"));
                        }
                        names.push(n);
                    }
                    queues = Some(names);
                }
                _ => {
                    random = match src.text(e.value, "dequeue_strategy")?.as_str() {
                        "default" => false,
                        "random" => true,
                        "round_robin" => {
                            return Err(src.err(e.value, "`round_robin` rotates each RQ worker's own queue list after every job, an order per worker that fairsim's pools do not keep; use `default` or `random`"))
                        }
                        other => {
                            return Err(src.err(e.value, format!("`dequeue_strategy: {other}` is not RQ's; use default, random or round_robin")))
                        }
                    }
                }
            }
        }
        // `rq worker` with no queue serves `default`
        let names = queues.filter(|q| !q.is_empty()).unwrap_or_else(|| vec!["default".into()]);
        let select = if random {
            Select::Weighted(names.into_iter().map(|n| (n, 1.0)).collect())
        } else {
            Select::Strict(names.into_iter().map(Pat::Name).collect())
        };
        groups.push(Group {
            name: format!("workers{i}"),
            workers: count,
            select,
            poll_interval: 0,
            claim: fork,
            limiter: None,
            file: src.file.clone(),
            via: src.via.clone(),
            at: super::super::pos(item),
        });
    }
    if groups.is_empty() {
        return Err(src.err(w.value, "`workers` is empty; list at least one worker"));
    }
    Ok(Described {
        processor: "rq",
        order: "fifo",
        groups,
        source: "the scenario".into(),
        notes: Vec::new(),
        costs,
        files: Vec::new(),
    })
}

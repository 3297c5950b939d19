//! Merged polling (`poll: merged`): a pool whose queues act as one, as
//! Solid Queue's `queues: "*"` (one `ORDER BY priority, job_id` over every
//! queue) and GoodJob's unordered lists (`a,b`: `ORDER BY priority,
//! created_at` over both) do, while other pools may poll the same queues
//! one by one.
//!
//! Each queue a merged pool polls keeps its jobs in the order of the
//! entry's policy, which must be `fifo` (claimable since, job id) or
//! `priority` (class priority, then the same): the gate refuses others, so
//! a queue's first key here is the job its own policy proposes (unless a
//! cap parks that job's tenant). A fetch tries the pool's non-empty queues
//! by their first keys: O(k log k) for k of them, and O(log n) per job
//! queued or claimed, paid only by topologies with a merged pool.

use std::collections::BTreeSet;

use crate::core::{Job, Slot};
use crate::model::{Poll, QueueId, Scenario, TopologySpec};
use crate::time::Time;

/// (class priority, or 0 under `fifo`; claimable since; job id).
type Key = (i32, Time, u64);

pub struct MergedOrder {
    /// Per class: its priority, under `priority`; empty under `fifo`.
    priority: Vec<i32>,
    /// Per queue a merged pool polls: its jobs in the policy's order.
    queues: Vec<Option<BTreeSet<Key>>>,
    /// Per slot: the key its job was queued under.
    keys: Vec<Key>,
    scratch: Vec<(Key, QueueId)>,
}

impl MergedOrder {
    /// `None` when no pool of `topology` polls merged.
    pub fn new(sc: &Scenario, topology: &TopologySpec, policy: &str) -> Option<Self> {
        let mut queues: Vec<Option<BTreeSet<Key>>> = vec![None; topology.queues.len()];
        for pool in topology.pools.iter().filter(|p| p.poll == Poll::Merged) {
            for &q in &pool.queues {
                queues[q as usize].get_or_insert_with(BTreeSet::new);
            }
        }
        if queues.iter().all(Option::is_none) {
            return None;
        }
        let priority = match policy {
            "priority" => sc.classes.iter().map(|c| c.priority).collect(),
            _ => Vec::new(),
        };
        Some(MergedOrder { priority, queues, keys: Vec::new(), scratch: Vec::new() })
    }

    /// `job`, in `slot`, joined queue `q`.
    pub fn push(&mut self, q: QueueId, job: &Job, slot: Slot) {
        let Some(set) = self.queues[q as usize].as_mut() else { return };
        let prio = self.priority.get(job.class as usize).copied().unwrap_or(0);
        let key = (prio, job.ready, job.seq);
        let i = slot as usize;
        if self.keys.len() <= i {
            self.keys.resize(i + 1, (0, 0, 0));
        }
        self.keys[i] = key;
        set.insert(key);
    }

    /// The job in `slot` left queue `q` (claimed or expired).
    pub fn remove(&mut self, q: QueueId, slot: Slot) {
        if let Some(set) = self.queues[q as usize].as_mut() {
            set.remove(&self.keys[slot as usize]);
        }
    }

    /// `nonempty` (queues of a merged pool that hold jobs) in the order a
    /// fetch tries them: the queue holding the first job comes first.
    pub fn order(&mut self, nonempty: impl Iterator<Item = QueueId>, out: &mut Vec<QueueId>) {
        self.scratch.clear();
        for q in nonempty {
            // a queue's depth and its keys change together; were they ever
            // apart, the queue would still be polled, last
            let first = self.queues[q as usize].as_ref().and_then(|s| s.first());
            self.scratch.push((first.copied().unwrap_or((i32::MAX, Time::MAX, u64::MAX)), q));
        }
        self.scratch.sort_unstable();
        out.clear();
        out.extend(self.scratch.iter().map(|&(_, q)| q));
    }
}

//! A pool's `prefetch:` (reservation ahead): the pool is one worker node
//! that reserves up to `multiplier` x `workers` jobs from its queues, as a
//! Celery worker does under `worker_prefetch_multiplier`
//! (docs/scenario.md, Reservation ahead).

use super::Builder;
use crate::error::Result;
use crate::model::{Costs, Handoff, Prefetch};
use crate::scenario::raw::RawPool;
use crate::time::SECOND;

/// Longest `refetch`: a node always has an event sooner (it was full, so
/// one of its jobs starts or ends), and kombu's loop waits 10 s at most.
const MAX_REFETCH: u64 = 60 * SECOND;

impl Builder<'_> {
    /// The pool's `prefetch`, refused beside what a reserved job would slip
    /// past: a claim batch or a start limiter (both decide at a fetch that
    /// a reserved job skips), a poll interval (a node blocks on its broker
    /// and is woken by the next message), tenant caps and resources (both
    /// checked when a job starts, long after the node took it).
    pub(super) fn build_prefetch(&self, r: &RawPool, batch: u32, costs: &Costs) -> Result<Option<Prefetch>> {
        let Some(at) = &r.prefetch else { return Ok(None) };
        let refuse = |why: &str| Err(self.err_at(at, format!("reservation ahead {why}")));
        if batch > 1 {
            return refuse("with claim batching is not modelled (the node's reservation is its batch); remove `batch` or `prefetch`");
        }
        if r.limiter.is_some() {
            return refuse("with a start limiter is not modelled (a reserved job starts without a fetch); remove `limiter` or `prefetch`");
        }
        if costs.poll_interval > 0 {
            return refuse("with a poll interval is not modelled (a node waits on its broker and takes the next job at once); set `poll_interval: 0s` in this pool's `costs`");
        }
        if !self.resources.is_empty() {
            return refuse("with `resources:` is not modelled (a reserved job would hold no resources until it starts); remove `prefetch` or `resources`");
        }
        if self.tenants.any_cap() {
            return refuse("with tenant caps is not modelled (a cap is checked when a job starts, after the node reserved it); remove `prefetch` or the caps");
        }
        let p = &at.value;
        let m = p.multiplier.value;
        let limit = match m {
            0 => u32::MAX,
            m => match m.checked_mul(r.workers.value).filter(|&l| l < u32::MAX) {
                Some(l) => l,
                None => {
                    return Err(self.err_at(
                        &p.multiplier,
                        format!("`multiplier: {m}` x {} workers is past 4,294,967,294 reserved jobs; use `multiplier: 0` for no limit", r.workers.value),
                    ))
                }
            },
        };
        let handoff = match p.handoff.as_ref().map(|h| (h, h.value.as_str())) {
            None => Handoff::Fair,
            Some((_, "fair")) => Handoff::Fair,
            Some((_, "fcfs")) => Handoff::Fcfs,
            Some((h, other)) => {
                return Err(self.err_at(
                    h,
                    format!("`handoff: {other}` is not a hand-off strategy; use fair (a reserved job goes only to an idle worker, Celery's default) or fcfs (written at once to the node's first worker, busy or not)"),
                ))
            }
        };
        let refetch = match &p.refetch {
            Some(d) => match self.dur(d, "refetch")? {
                t if t > MAX_REFETCH => {
                    return Err(self.err_at(d, "`refetch` must be at most 60s (Celery's event loop waits at most 10 s for its next event)"))
                }
                t => t,
            },
            None => 0,
        };
        Ok(Some(Prefetch {
            limit,
            handoff,
            acks_late: p.acks_late.as_ref().is_some_and(|a| a.value),
            refetch,
        }))
    }
}

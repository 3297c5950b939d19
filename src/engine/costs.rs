//! Dispatch costs (`costs:`, docs/scenario.md): a claimed job's service
//! starts `claim` after its worker took it; a worker is busy `finish` after
//! an attempt ends and `refusal` after an `on_cap` refusal before it can
//! claim again; and, for the default pool, idle workers sleep between polls
//! (a topology's pools sleep in the dispatcher, [`crate::topology`]).
//!
//! None of this exists in a run without costs: the engine holds no
//! [`Overheads`] and its loop never looks at these times.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{Attempt, Engine};
use crate::core::Slot;
use crate::model::{Costs, PoolId, Scenario};
use crate::time::Time;
use crate::topology::poll::Sleepers;

/// What the engine keeps for a run with costs.
pub(super) struct Overheads {
    /// Claimed jobs whose service has not started: (service start, job id,
    /// slot, service end).
    claiming: BinaryHeap<Reverse<(Time, u64, Slot, Time)>>,
    /// Workers busy finishing or after a refusal: (free again, job id, pool).
    releasing: BinaryHeap<Reverse<(Time, u64, PoolId)>>,
    /// The default pool's idle workers between polls (`None` under a
    /// topology, whose pools poll in the dispatcher, or without an interval).
    pub(super) sleepers: Option<Sleepers>,
    /// Per pool: worker-microseconds spent claiming, refused and finishing;
    /// attempts started.
    pub(super) overhead: crate::accounting::Overhead,
}

impl Overheads {
    /// `None` when no pool of the run has a cost.
    pub(super) fn new(sc: &Scenario) -> Option<Box<Self>> {
        if !sc.uses_costs() {
            return None;
        }
        let pools = sc.run_topology().map_or(1, |t| t.pools.len());
        let sleepers = match sc.run_topology() {
            None if sc.costs.poll_interval > 0 => Some(Sleepers::new(sc.costs.poll_interval, sc.workers)),
            _ => None,
        };
        Some(Box::new(Overheads {
            claiming: BinaryHeap::new(),
            releasing: BinaryHeap::new(),
            sleepers,
            overhead: crate::accounting::Overhead { per_pool: vec![0; pools], started: 0 },
        }))
    }

    /// The next instant a claim ends, a worker is freed or a sleeper polls.
    pub(super) fn next(&self, queued: bool) -> Time {
        let claim = self.claiming.peek().map_or(Time::MAX, |r| r.0 .0);
        let free = self.releasing.peek().map_or(Time::MAX, |r| r.0 .0);
        // with nothing queued a poll would find nothing: no event for it
        let poll = match (&self.sleepers, queued) {
            (Some(s), true) => s.next_look(),
            _ => Time::MAX,
        };
        claim.min(free).min(poll)
    }
}

impl Engine<'_> {
    /// The dispatch costs of the pool that placed the job in `slot`.
    pub(super) fn costs_at(&self, slot: Slot) -> (PoolId, Costs) {
        let pool = if self.placed { self.policy.placement(slot).1 } else { 0 };
        (pool, self.sc.pool_costs(pool))
    }

    /// Charges `d` of worker time to pool `p`'s overhead.
    pub(super) fn charge_overhead(&mut self, p: PoolId, d: Time) {
        if let Some(o) = self.costs.as_mut() {
            o.overhead.per_pool[p as usize] += u128::from(d);
        }
    }

    /// The job in `slot`, claimed now, starts its service at `start` and
    /// ends it at `end`.
    /// Counts an attempt started (claimed) under costs.
    pub(super) fn count_start(&mut self) {
        if let Some(o) = self.costs.as_mut() {
            o.overhead.started += 1;
        }
    }

    pub(super) fn defer_start(&mut self, slot: Slot, start: Time, end: Time) {
        let seq = self.jobs.get(slot).seq;
        let o = self.costs.as_mut().expect("a claim cost is a cost");
        o.claiming.push(Reverse((start, seq, slot, end)));
    }

    /// The worker that ran or was refused job `seq` in pool `p` is busy
    /// until `until`.
    pub(super) fn hold_worker(&mut self, seq: u64, p: PoolId, until: Time) {
        let o = self.costs.as_mut().expect("a held worker is a cost");
        o.releasing.push(Reverse((until, seq, p)));
    }

    /// At `now`: frees the workers whose finish or refusal ends, starts the
    /// service of the jobs whose claim ends, wakes the sleepers whose poll
    /// is due and, with work queued, has every other sleeper plan its next
    /// look. `other`: something besides the costs' own events happened now.
    pub(super) fn run_costs(&mut self, other: bool) {
        let now = self.now;
        let Some(mut o) = self.costs.take() else { return };
        let mut changed = other;
        while let Some(&Reverse((at, seq, p))) = o.releasing.peek() {
            if at > now {
                break;
            }
            o.releasing.pop();
            changed = true;
            self.free_workers += 1;
            self.policy.release(seq, p, now);
        }
        while let Some(&Reverse((at, seq, slot, end))) = o.claiming.peek() {
            if at > now {
                break;
            }
            o.claiming.pop();
            changed = true;
            self.running.push(Attempt::new(end, seq, slot));
            self.rec.on_claimed_start(self.jobs.get(slot), now);
        }
        if let Some(s) = o.sleepers.as_mut() {
            self.free_workers += s.wake(now);
            // only a change can make a job claimable: after nothing but
            // sleepers' looks that found nothing (a capped or unfitting job
            // waiting), a look one interval on would find nothing either,
            // and planning it made the run one event per interval (a 1 us
            // poll over a half-hour run: 10^9 events)
            if self.queued_total > 0 && changed {
                s.plan(now);
            }
        }
        self.costs = Some(o);
    }

    /// After a dispatch: the default pool's workers still free found
    /// nothing, and sleep one poll interval.
    pub(super) fn idle_after_dispatch(&mut self) {
        let now = self.now;
        if let Some(s) = self.costs.as_mut().and_then(|o| o.sleepers.as_mut()) {
            s.sleep(now, self.free_workers);
            self.free_workers = 0;
        }
        self.policy.after_dispatch(now);
    }

    /// Idle workers, asleep or not (for the logs' snapshots).
    pub(super) fn idle_workers(&self) -> u32 {
        let asleep = self.costs.as_ref().and_then(|o| o.sleepers.as_ref()).map_or(0, Sleepers::asleep);
        self.free_workers + asleep
    }
}

//! What keeps a topology's free workers from fetching at once: a pool's
//! poll interval (its idle workers sleep between looks, [`super::poll`])
//! and its start limiter ([`super::limiter`]). Both wake the pool through
//! the policy's wake-up, so neither polls busily.

use super::{poll, Dispatcher};
use crate::core::{Gate, Skip};
use crate::model::{PoolId, QueueId};
use crate::time::Time;

impl Dispatcher<'_> {
    /// Whether pool `p`'s start limiter, if any, allows a start now; when
    /// not, the tenants in its queues are passed over `rate_limited`.
    pub(super) fn limiter_allows(&mut self, p: PoolId, gate: &mut Gate, now: Time) -> bool {
        let Some(l) = self.pools[p as usize].limiter.as_mut() else { return true };
        if l.allows(now) {
            return true;
        }
        if gate.logs_skips() {
            let pool = &self.pools[p as usize];
            let queues: Vec<QueueId> = pool.nonempty.iter().map(|&i| pool.queues[i as usize]).collect();
            for q in queues {
                self.list(q, Skip::RateLimited, gate, now);
            }
        }
        false
    }

    /// The next instant a sleeping worker looks or a limited pool may start.
    pub(super) fn next_pool_wakeup(&self) -> Option<Time> {
        let looks = self.polling.iter().filter_map(|&p| self.pools[p as usize].sleepers.as_ref());
        let look = looks.map(poll::Sleepers::next_look).min().filter(|&t| t < Time::MAX);
        let held =
            self.limited.iter().filter_map(|&p| self.pools[p as usize].limiter.as_ref()?.held_until).min();
        let deaf = self.nodes.as_ref().and_then(|ns| ns.next_wake());
        look.into_iter().chain(held).chain(deaf).min()
    }

    /// Something may have become claimable at `now`: sleepers plan their next look.
    pub(super) fn plan_sleepers(&mut self, now: Time) {
        for &p in &self.polling {
            if let Some(s) = self.pools[p as usize].sleepers.as_mut() {
                s.plan(now);
            }
        }
    }

    /// Offers a fetch to the pools whose limiter allows a start again and
    /// whose sleepers' look is due.
    pub(super) fn wake_pools(&mut self, now: Time) {
        if let Some(ns) = self.nodes.as_mut() {
            ns.wake_deaf(now);
        }
        for &p in &self.limited {
            let pool = &mut self.pools[p as usize];
            let l = pool.limiter.as_mut().expect("a limited pool has a limiter");
            if l.held_until.is_some_and(|t| t <= now) {
                l.held_until = None;
                if pool.free > 0 && !pool.nonempty.is_empty() {
                    self.ready.insert(p);
                }
            }
        }
        for &p in &self.polling {
            let pool = &mut self.pools[p as usize];
            let woken = pool.sleepers.as_mut().map_or(0, |s| s.wake(now));
            pool.free += woken;
            if woken > 0 && !pool.nonempty.is_empty() {
                self.ready.insert(p);
            }
        }
    }

    /// After a dispatch: the free workers of polling pools found nothing and sleep.
    pub(super) fn sleep_idle(&mut self, now: Time) {
        for &p in &self.polling {
            let pool = &mut self.pools[p as usize];
            if pool.free > 0 {
                let s = pool.sleepers.as_mut().expect("a polling pool has sleepers");
                s.sleep(now, pool.free);
                pool.free = 0;
                self.ready.remove(&p);
            }
        }
    }
}

//! Tenants the gate parked (at their cap, or not fitting): lending idle
//! workers over caps, `on_cap` delays, and listing the parked in the log.

use super::Engine;
use crate::core::{Skip, Slot};
use crate::model::TenantId;

impl Engine<'_> {
    /// Whether every queued job belongs to a tenant the gate parked, with at
    /// least one at its cap: only then may a worker be lent over a cap. A
    /// policy that holds work back itself (a reserve kept for another class)
    /// leaves claimable work unparked, and a cap then holds (`spare: lend`
    /// lends only while no other tenant has claimable work).
    pub(super) fn only_parked_wait(&mut self) -> bool {
        if self.parked_at_cap.is_empty() {
            return false;
        }
        self.dedup_parked();
        let loads = &self.loads;
        // a tenant a start limit set aside is not claimable either (once:
        // a group lists each tenant it sets aside once until it lets them go)
        let limited = self.limits.as_ref().into_iter().flat_map(|l| l.parked());
        let parked_queued: u64 = (self.parked_at_cap.iter().chain(&self.parked_no_fit).copied())
            .filter(|&t| matches!(loads[t as usize].parked, Some(Skip::AtCap | Skip::NoFit)))
            .chain(limited.filter(|&t| loads[t as usize].parked == Some(Skip::RateLimited)))
            .map(|t| loads[t as usize].queued)
            .sum();
        parked_queued >= self.queued_total
    }

    /// Unparks the tenants at their cap, in the order they were (last)
    /// parked: the one refused longest ago first.
    pub(super) fn lend(&mut self) {
        for t in std::mem::take(&mut self.parked_at_cap) {
            if self.loads[t as usize].parked == Some(Skip::AtCap) {
                self.loads[t as usize].parked = None;
                self.policy.unpark(t, &self.jobs, self.now);
            }
        }
    }

    /// Drops the stale entries of the parked lists: tenants no longer parked
    /// for that reason, and all but the last entry of a tenant parked again
    /// after an unpark (its place in the queue of refused tenants is its
    /// latest refusal).
    pub(super) fn dedup_parked(&mut self) {
        let loads = &self.loads;
        for (list, reason) in
            [(&mut self.parked_at_cap, Some(Skip::AtCap)), (&mut self.parked_no_fit, Some(Skip::NoFit))]
        {
            let mut seen = std::collections::HashSet::with_capacity(list.len());
            let mut kept: Vec<TenantId> = Vec::with_capacity(list.len());
            for &t in list.iter().rev() {
                if loads[t as usize].parked == reason && seen.insert(t) {
                    kept.push(t);
                }
            }
            kept.reverse();
            *list = kept;
        }
    }

    /// The observation log lists, in each tick with a dispatch decision,
    /// every tenant passed over with work waiting: those refused in the tick
    /// (the gate's skips) and these, refused earlier and still parked.
    pub(super) fn log_still_parked(&mut self) {
        self.dedup_parked();
        let loads = &self.loads;
        let parked = self.parked_at_cap.iter().chain(&self.parked_no_fit).filter_map(|&t| {
            let l = &loads[t as usize];
            l.parked.filter(|_| l.queued > 0).map(|r| (t, r))
        });
        // a job refused at the cap, now waiting out its `on_cap` delay
        let delayed = self.delayed_tenants.keys().map(|&t| (t, Skip::Delayed));
        let limited = (self.limits.as_ref().into_iter().flat_map(|l| l.parked()))
            .filter(|&t| loads[t as usize].parked == Some(Skip::RateLimited) && loads[t as usize].queued > 0)
            .map(|t| (t, Skip::RateLimited));
        let delayed = delayed.chain(limited);
        self.rec.on_still_parked(parked.chain(delayed));
    }

    /// A running attempt of tenant `t` ended: below its cap again, the
    /// tenant is claimable (unparked) and, under `on_cap: {delay}`, its next
    /// refusal at the cap starts a new stretch there.
    #[inline]
    pub(super) fn running_ended(&mut self, t: TenantId) {
        let load = &mut self.loads[t as usize];
        load.running -= 1;
        if load.running < load.cap {
            load.delay_refusal = self.cap_delay.is_some();
            if load.parked == Some(Skip::AtCap) {
                load.parked = None;
                self.policy.unpark(t, &self.jobs, self.now);
            }
        }
    }

    /// Whether the tenant of the job in `slot` is at its cap.
    pub(super) fn at_cap(&self, slot: Slot) -> bool {
        let l = &self.loads[self.jobs.get(slot).tenant as usize];
        l.running >= l.cap
    }

    /// `on_cap: {delay}`: the gate refused the job in `slot` at its tenant's
    /// cap and the policy handed it over: it leaves the queue and becomes
    /// claimable again one delay later (the SQL claim's `available_at`). To
    /// the policy the refused claim is a claim that ended at once, as a
    /// stopped attempt is.
    ///
    /// Under `refuse: each` the tenant stays claimable, so the next claim
    /// of its jobs is refused too (the worker's loop claims again at once,
    /// or after the refusal's cost), and the job comes back with the
    /// claimable time it had: a refused row keeps its `created_at`, so
    /// `ORDER BY priority, created_at` puts it back in its place.
    pub(super) fn delay_refused(&mut self, slot: Slot) {
        let d = self.cap_delay.expect("only under on_cap: {delay}");
        let now = self.now;
        let job = self.jobs.get_mut(slot);
        let back_as = if self.refuse_each { job.ready } else { now + d };
        // a later `ready` also retires the job's entries in the logs' oldest-age queues
        job.ready = now + d;
        let (t, seq) = (job.tenant as usize, job.seq);
        self.loads[t].queued -= 1;
        self.queued_total -= 1;
        if self.refuse_each {
            self.loads[t].delay_refusal = true;
        }
        if self.placed {
            // the queue and pool that made the refused claim are the ones to free,
            // not those of the job's last attempt
            let job = self.jobs.get_mut(slot);
            (job.queue, job.pool) = self.policy.placement(slot);
        }
        let (pool, costs) = match self.costs.is_some() {
            true => self.costs_at(slot),
            false => (0, crate::model::Costs::default()),
        };
        let held = costs.refusal > 0;
        self.policy.on_refused(self.jobs.get(slot), now, held);
        if held {
            self.free_workers -= 1;
            self.hold_worker(seq, pool, now + costs.refusal);
            self.charge_overhead(pool, costs.refusal);
        }
        let job = self.jobs.get(slot);
        self.rec.on_withdrawn(job, self.loads[t].queued);
        self.delayed.push(std::cmp::Reverse((now + d, seq, slot, back_as)));
        *self.delayed_tenants.entry(t as TenantId).or_default() += 1;
    }

    /// Puts back the refused jobs whose `on_cap` delay ends now.
    pub(super) fn end_delays(&mut self) {
        while let Some(&std::cmp::Reverse((at, _, slot, back_as))) = self.delayed.peek() {
            if at > self.now {
                break;
            }
            self.delayed.pop();
            let job = self.jobs.get_mut(slot);
            let t = job.tenant;
            if let std::collections::btree_map::Entry::Occupied(mut e) = self.delayed_tenants.entry(t) {
                *e.get_mut() -= 1;
                if *e.get() == 0 {
                    e.remove();
                }
            }
            if back_as == job.ready {
                self.enqueue(slot);
            } else {
                job.ready = back_as;
                self.enqueue_in_place(slot);
            }
        }
    }

    /// Queues the job in `slot`, which comes back from a refusal with an
    /// earlier claimable time than the jobs queued since: the policy orders
    /// it by that time, and the logs' oldest-age queues take it in its place.
    fn enqueue_in_place(&mut self, slot: Slot) {
        self.enqueue(slot);
        self.rec.put_in_place(self.jobs.get(slot));
    }

    /// Files tenants the gate just parked under their reason.
    #[inline(always)]
    pub(super) fn sort_parked(&mut self) {
        // almost every pick parks nobody
        if !self.gate_parked.is_empty() {
            self.file_parked();
        }
    }

    #[inline(never)]
    fn file_parked(&mut self) {
        for t in self.gate_parked.drain(..) {
            match self.loads[t as usize].parked {
                Some(Skip::AtCap) => self.parked_at_cap.push(t),
                // its group keeps it, and lets it go when its limiter allows a start
                Some(Skip::RateLimited) | None => {}
                Some(_) => self.parked_no_fit.push(t),
            }
        }
        if self.parked_at_cap.len() > 64 + 2 * self.loads.len() {
            self.dedup_parked();
        }
    }
}

//! Queues, pools and routing: a [`Dispatcher`] runs a topology's queues,
//! each ordered by its own instance of the run's policy, behind the
//! [`Policy`] interface, so the engine (caps, fit, lending, accounting) is
//! the same for every topology and the default topology pays nothing.
//!
//! At enqueue the [`route::Router`] places a job in one queue (a retry goes
//! back to the queue it came from). When the engine has a free worker, the
//! dispatcher takes the lowest-numbered pool that has a free worker and may
//! have work, and lets it poll its non-empty queues in its poll order; the
//! first queue whose policy proposes a job the gate admits wins. A pool that
//! finds nothing is set aside until one of its queues gets a job, a tenant
//! in them is unparked, or one of its workers finishes.
//!
//! Claim batching (`batch: N`, the priority-classes article's `LIMIT N`): the
//! fetch goes on claiming from the same poll order, the winning queue first,
//! until the worker holds N jobs; the worker runs them one after another
//! (the engine asks for a job when it is free, and gets the next of the
//! batch before any pool polls). Until it starts, a claimed job still counts
//! as waiting for its tenant.

pub mod limiter;
mod node;
pub mod planner;
pub mod poll;
pub mod pools;
pub mod route;
mod stats;
mod waits;

pub use stats::TopologyStats;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;

use rand_pcg::Pcg64;

use crate::core::{Gate, Job, JobTable, Skip, Slot};
use crate::model::{PolicySpec, PoolId, QueueId, RouteAction, Scenario, TenantId, TopologySpec};
use crate::policy::{flows::label_hash, Explain, Hints, Policy};
use crate::time::Time;
use crate::workload::rng::{self, Purpose};

use pools::Pool;
use route::Router;

pub struct Dispatcher<'s> {
    sc: &'s Scenario,
    /// Per queue: its policy, built when the queue gets its first job. A
    /// policy holds per-tenant state, so building one per declared queue
    /// made memory grow with queues x tenants (20,000 x 20,000 took 2.7 GB
    /// for 200 jobs); built on first use, it grows with the queues used.
    queues: Vec<Option<Box<dyn Policy>>>,
    /// What builds a queue's policy (the first one built is checked here).
    spec: PolicySpec,
    /// A policy built and not yet given to a queue.
    spare: Option<Box<dyn Policy>>,
    depth: Vec<u64>,
    /// Per queue: (pool, position of the queue in the pool's list).
    subscribers: Vec<Vec<(PoolId, u32)>>,
    pools: Vec<Pool>,
    /// Pools with a free worker that may find work.
    ready: BTreeSet<PoolId>,
    router: Router,
    /// Per slot: the job's queue and the pool that started it.
    placement: Vec<(QueueId, PoolId)>,
    /// Per parked tenant: the queues whose policy parked it.
    parked_in: HashMap<TenantId, Vec<QueueId>>,
    rng: Pcg64,
    order: Vec<QueueId>,
    /// Claim batches: the jobs each batch still holds, the batch of each
    /// running job (by job id) and the batches whose worker is free and
    /// runs its next job at the engine's next pick.
    batches: Vec<VecDeque<Slot>>,
    spare_batches: Vec<u32>,
    batch_of: HashMap<u64, u32>,
    continuing: VecDeque<u32>,
    /// For the observation log: the jobs of each tenant in each queue, the
    /// queues a throttle sends jobs to, the non-empty queues, and the tick
    /// whose log last listed each queue's tenants (and last looked for
    /// queues no idle worker polls).
    members: Vec<BTreeMap<TenantId, u32>>,
    throttled_into: Vec<bool>,
    nonempty: BTreeSet<QueueId>,
    listed: Vec<u64>,
    scanned: u64,
    wakes: bool,
    /// Pools with a poll interval (`costs: {poll_interval}`), whose idle
    /// workers sleep between looks.
    polling: Vec<PoolId>,
    /// Pools with a start limiter (`limiter:`).
    limited: Vec<PoolId>,
    stats: Rc<RefCell<TopologyStats>>,
    /// Jobs (ids) whose claim was refused at the cap, to come back to their queue.
    refused: HashSet<u64>,
    /// Pools that reserve ahead (`prefetch:`); `None` when none does.
    nodes: Option<Box<node::Nodes>>,
}

impl<'s> Dispatcher<'s> {
    /// A dispatcher for `topology`, a `spec` policy per queue (`first` is
    /// one, already built).
    fn new(
        sc: &'s Scenario,
        topology: &TopologySpec,
        spec: &PolicySpec,
        first: Box<dyn Policy>,
        stats: Rc<RefCell<TopologyStats>>,
    ) -> Self {
        let n = topology.queues.len();
        let mut subscribers = vec![Vec::new(); n];
        for (p, pool) in topology.pools.iter().enumerate() {
            for (i, &q) in pool.queues.iter().enumerate() {
                subscribers[q as usize].push((p as PoolId, i as u32));
            }
        }
        // the reservation counters only where some pool reserves ahead
        let prefetching =
            if topology.pools.iter().any(|p| p.prefetch.is_some()) { topology.pools.len() } else { 0 };
        {
            let mut s = stats.borrow_mut();
            *s = TopologyStats {
                routed: vec![0; n],
                started: vec![0; n],
                max_depth: vec![0; n],
                wait_sum: vec![0; n],
                wait_max: vec![0; n],
                pool_started: vec![0; topology.pools.len()],
                pool_busy: vec![0; topology.pools.len()],
                rule_matched: vec![0; topology.route.len()],
                unrouted: 0,
                reserved: vec![0; prefetching],
                held_max: vec![0; prefetching],
                held_sum: vec![0; prefetching],
                planner: None,
                last_note: None,
            };
        }
        // every queue's policy is built alike, so one answers for all
        let wakes = first.may_wake();
        let polling: Vec<PoolId> = (topology.pools.iter().enumerate())
            .filter(|(_, p)| p.costs.poll_interval > 0)
            .map(|(i, _)| i as PoolId)
            .collect();
        let limited: Vec<PoolId> = (topology.pools.iter().enumerate())
            .filter(|(_, p)| p.limiter.is_some())
            .map(|(i, _)| i as PoolId)
            .collect();
        Dispatcher {
            sc,
            queues: (0..n).map(|_| None).collect(),
            spec: spec.clone(),
            spare: Some(first),
            depth: vec![0; n],
            subscribers,
            pools: topology.pools.iter().map(Pool::new).collect(),
            ready: BTreeSet::new(),
            router: Router::new(&topology.route, sc, &topology.name),
            placement: Vec::new(),
            parked_in: HashMap::new(),
            rng: rng::stream(sc.seed, label_hash(&topology.name) ^ 1, Purpose::Routing),
            order: Vec::new(),
            batches: Vec::new(),
            spare_batches: Vec::new(),
            batch_of: HashMap::new(),
            continuing: VecDeque::new(),
            members: vec![BTreeMap::new(); n],
            throttled_into: {
                let mut v = vec![false; n];
                for r in &topology.route {
                    if let RouteAction::Throttle { to, .. } = r.action {
                        v[to as usize] = true;
                    }
                }
                v
            },
            nonempty: BTreeSet::new(),
            listed: vec![0; n],
            scanned: 0,
            wakes,
            polling,
            limited,
            stats,
            refused: HashSet::new(),
            nodes: node::Nodes::new(sc, topology),
        }
    }

    /// Builds the per-queue policies of `spec` and the dispatcher.
    pub fn build(
        sc: &'s Scenario,
        spec: &PolicySpec,
        topology: &TopologySpec,
        stats: Rc<RefCell<TopologyStats>>,
    ) -> Result<Self, crate::model::policy::ParamError> {
        let first = crate::policy::build(spec, sc)?;
        Ok(Dispatcher::new(sc, topology, spec, first, stats))
    }

    /// Queue `q`'s policy, built now if the queue never had a job.
    fn queue(&mut self, q: QueueId) -> &mut dyn Policy {
        let (spare, spec, sc) = (&mut self.spare, &self.spec, self.sc);
        &mut **self.queues[q as usize].get_or_insert_with(|| {
            spare.take().unwrap_or_else(|| {
                crate::policy::build(spec, sc).expect("the same spec built once already in `build`")
            })
        })
    }

    /// Offers the pools that poll queue `q` another fetch.
    fn wake_subscribers(&mut self, q: QueueId) {
        for &(p, _) in &self.subscribers[q as usize] {
            let pool = &self.pools[p as usize];
            if pool.free > 0 && !pool.node {
                self.ready.insert(p);
            }
        }
        if let Some(ns) = self.nodes.as_mut() {
            ns.pushed(q);
        }
    }

    fn set_depth(&mut self, q: QueueId, depth: u64) {
        let was = self.depth[q as usize];
        self.depth[q as usize] = depth;
        if (was == 0) != (depth == 0) {
            if depth == 0 {
                self.nonempty.remove(&q);
            } else {
                self.nonempty.insert(q);
            }
            for &(p, i) in &self.subscribers[q as usize] {
                let pool = &mut self.pools[p as usize];
                if depth == 0 {
                    pool.nonempty.remove(&i);
                } else {
                    pool.nonempty.insert(i);
                }
            }
        }
    }

    /// Asks queue `q`'s policy for a job; keeps the depth and the parked
    /// tenants' queues up to date.
    fn claim(&mut self, q: QueueId, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot> {
        let (parked, expired) = (gate.parked.len(), gate.expired.len());
        let pick = self.queue(q).pick(jobs, gate, now);
        for &t in &gate.parked[parked..] {
            let list = self.parked_in.entry(t).or_default();
            if !list.contains(&q) {
                list.push(q);
            }
        }
        for &s in gate.expired[expired..].iter().chain(&pick) {
            leave(&mut self.members[q as usize], jobs.get(s).tenant);
        }
        let dropped = (gate.expired.len() - expired) as u64;
        let claimed = u64::from(pick.is_some());
        self.set_depth(q, self.depth[q as usize] - dropped - claimed);
        pick
    }

    /// Lets pool `p` poll its queues; the job it starts, if any.
    fn fetch(&mut self, p: PoolId, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot> {
        let mut order = std::mem::take(&mut self.order);
        self.pools[p as usize].fetch_order(&mut self.rng, &mut order);
        let mut found = None;
        for (k, &q) in order.iter().enumerate() {
            if let Some(slot) = self.claim(q, jobs, gate, now) {
                found = Some((slot, k));
                break;
            }
        }
        let Some((slot, k)) = found else {
            self.order = order;
            return None;
        };
        let pool = &mut self.pools[p as usize];
        pool.free -= 1;
        if pool.free == 0 {
            self.ready.remove(&p);
        }
        self.placement[slot as usize].1 = p;
        let batch = pool.batch as usize;
        if batch > 1 {
            let b = self.claim_batch(p, batch - 1, &order[k..], jobs, gate, now);
            self.batch_of.insert(jobs.get(slot).seq, b);
        }
        if gate.logs_skips() {
            // the queues this fetch did not reach hold tenants passed over;
            // named when their jobs are there because of a throttle
            for &q in &order[k + 1..] {
                if self.throttled_into[q as usize] {
                    self.list(q, Skip::Throttled, gate, now);
                }
            }
        }
        self.order = order;
        self.note_start(slot, p, jobs, now);
        Some(slot)
    }

    /// Claims up to `n` more jobs for a worker of pool `p` from `order`,
    /// each queue until it has nothing; the batch that holds them.
    fn claim_batch(
        &mut self,
        p: PoolId,
        n: usize,
        order: &[QueueId],
        jobs: &JobTable,
        gate: &mut Gate,
        now: Time,
    ) -> u32 {
        let b = self.spare_batches.pop().unwrap_or_else(|| {
            self.batches.push(VecDeque::new());
            (self.batches.len() - 1) as u32
        });
        let mut held = VecDeque::new();
        'queues: for &q in order {
            while held.len() < n {
                match self.claim(q, jobs, gate, now) {
                    Some(s) => {
                        self.placement[s as usize].1 = p;
                        held.push_back(s);
                    }
                    None => continue 'queues,
                }
            }
            break;
        }
        self.batches[b as usize] = held;
        b
    }

    /// Counts the start of the job in `slot` by a worker of pool `p`.
    fn note_start(&mut self, slot: Slot, p: PoolId, jobs: &JobTable, now: Time) {
        let q = self.placement[slot as usize].0;
        let job = jobs.get(slot);
        // a first start waited since arrival, whatever held it before it was
        // claimable (docs/metrics.md, Wait); a retry since it was re-queued;
        // the service starts after the pool's claim cost
        let from = if job.slices == 0 { job.arrival } else { job.ready };
        let wait = now + self.pools[p as usize].costs.claim - from;
        self.stats.borrow_mut().note_start(q, p, wait);
    }

    /// Notes every tenant with jobs in queue `q` as passed over, once per tick.
    fn list(&mut self, q: QueueId, reason: Skip, gate: &mut Gate, now: Time) {
        let tick = tick_of(now, self.sc.tick);
        if self.listed[q as usize] == tick {
            return;
        }
        self.listed[q as usize] = tick;
        for &t in self.members[q as usize].keys() {
            gate.note_skip(t, reason);
        }
    }

    /// With idle workers and nothing they may claim: the tenants in queues
    /// no idle worker's pool polls are passed over (once per tick).
    fn list_unpolled(&mut self, gate: &mut Gate, now: Time) {
        let tick = tick_of(now, self.sc.tick);
        if self.scanned == tick {
            return;
        }
        self.scanned = tick;
        // a node takes jobs only while it has room (then it waits on its queues)
        let nodes = self.nodes.as_deref();
        let takes = |p: PoolId| match nodes.filter(|ns| ns.is_node(p)) {
            Some(ns) => ns.waits(p),
            None => self.pools[p as usize].idle(),
        };
        let unpolled: Vec<QueueId> = self
            .nonempty
            .iter()
            .copied()
            .filter(|&q| self.subscribers[q as usize].iter().all(|&(p, _)| !takes(p)))
            .collect();
        let reasons: Vec<(QueueId, Skip)> = unpolled
            .into_iter()
            .map(|q| match self.throttled_into[q as usize] {
                true => (q, Skip::Throttled),
                // the nodes polling it are full of reserved jobs
                false if nodes.is_some_and(|ns| ns.polled(q)) => (q, Skip::Prefetched),
                false => (q, Skip::NotSubscribed),
            })
            .collect();
        for (q, reason) in reasons {
            self.list(q, reason, gate, now);
        }
    }

    /// The next job of a claim batch whose worker just became free.
    fn continue_batch(&mut self, jobs: &JobTable, now: Time) -> Option<Slot> {
        let b = self.continuing.pop_front()?;
        let slot = self.batches[b as usize].pop_front().expect("a continuing batch holds a job");
        self.batch_of.insert(jobs.get(slot).seq, b);
        let p = self.placement[slot as usize].1;
        self.note_start(slot, p, jobs, now);
        Some(slot)
    }
}

/// Index of the log tick a dispatch at `now` is logged in: the engine
/// closes tick k (which ends at k len) before it dispatches at k len, so
/// dispatches in [(k - 1) len, k len) fall in tick k.
pub(crate) fn tick_of(now: Time, len: Time) -> u64 {
    now / len + 1
}

/// One job of `tenant` left the queue whose counts are `members`.
fn leave(members: &mut BTreeMap<TenantId, u32>, tenant: TenantId) {
    if let Some(n) = members.get_mut(&tenant) {
        *n -= 1;
        if *n == 0 {
            members.remove(&tenant);
        }
    }
}

impl Policy for Dispatcher<'_> {
    fn push(&mut self, job: &Job, slot: Slot, now: Time) {
        let i = slot as usize;
        if self.placement.len() <= i {
            self.placement.resize(i + 1, (0, 0));
        }
        let q = if job.attempts > 0 || (!self.refused.is_empty() && self.refused.remove(&job.seq)) {
            // a retry, or a claim refused at the cap, goes back where it came
            // from, without a new draw (a refused SQL row stays in its table)
            self.placement[i].0
        } else {
            let (q, rule) = self.router.route(job, now, self.sc);
            let mut s = self.stats.borrow_mut();
            s.routed[q as usize] += 1;
            match rule {
                Some(r) => s.rule_matched[r] += 1,
                None => s.unrouted += 1,
            }
            q
        };
        self.placement[i].0 = q;
        *self.members[q as usize].entry(job.tenant).or_default() += 1;
        self.queue(q).push(job, slot, now);
        let depth = self.depth[q as usize] + 1;
        self.set_depth(q, depth);
        let mut s = self.stats.borrow_mut();
        s.max_depth[q as usize] = s.max_depth[q as usize].max(depth);
        drop(s);
        self.wake_subscribers(q);
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot> {
        self.plan_sleepers(now);
        if !self.continuing.is_empty() {
            return self.continue_batch(jobs, now);
        }
        if let Some(slot) = self.start_held(jobs, gate, now) {
            return Some(slot);
        }
        while let Some(&p) = self.ready.first() {
            if !self.limiter_allows(p, gate, now) {
                // asleep until the limiter allows a start (see `on_wakeup`)
                self.ready.remove(&p);
                continue;
            }
            if let Some(slot) = self.fetch(p, jobs, gate, now) {
                if let Some(l) = self.pools[p as usize].limiter.as_mut() {
                    l.count(now);
                }
                return Some(slot);
            }
            // nothing claimable for this pool until something changes
            self.ready.remove(&p);
        }
        if gate.logs_skips() {
            if !self.nonempty.is_empty() {
                self.list_unpolled(gate, now);
            }
            self.list_held(gate, now);
        }
        None
    }

    fn reserves_ahead(&self) -> bool {
        self.nodes.is_some()
    }

    fn reserve(&mut self, jobs: &JobTable, gate: &mut Gate, now: Time) {
        if self.nodes.is_some() {
            self.reserve_ahead(jobs, gate, now);
        }
    }

    fn unpark(&mut self, tenant: TenantId, jobs: &JobTable, now: Time) {
        for q in self.parked_in.remove(&tenant).unwrap_or_default() {
            self.queue(q).unpark(tenant, jobs, now);
            self.wake_subscribers(q);
        }
    }

    fn on_finish(&mut self, job: &Job, now: Time) {
        self.on_finish_held(job, now);
        self.release(job.seq, job.pool, now);
    }

    fn on_finish_held(&mut self, job: &Job, now: Time) {
        self.queue(job.queue).on_finish(job, now);
    }

    // a refused claim ran nothing: its pool's busy time stays
    fn on_refused(&mut self, job: &Job, now: Time, held: bool) {
        self.stats.borrow_mut().unnote_start(job.queue, job.pool);
        self.refused.insert(job.seq);
        self.queue(job.queue).on_finish(job, now);
        if !held {
            self.release(job.seq, job.pool, now);
        }
    }

    fn on_ran(&mut self, job: &Job, ran: Time) {
        self.stats.borrow_mut().pool_busy[job.pool as usize] += u128::from(ran);
    }

    fn release(&mut self, seq: u64, p: PoolId, now: Time) {
        if self.pools[p as usize].batch > 1 {
            if let Some(b) = self.batch_of.remove(&seq) {
                if !self.batches[b as usize].is_empty() {
                    // the worker stays busy with its batch
                    self.continuing.push_back(b);
                    return;
                }
                self.spare_batches.push(b);
            }
        }
        if self.release_node(p, now) {
            return;
        }
        let pool = &mut self.pools[p as usize];
        pool.free += 1;
        if !pool.nonempty.is_empty() {
            self.ready.insert(p);
        }
    }

    /// Workers of one pool may idle while another pool's queues hold work.
    fn work_conserving(&self) -> bool {
        false
    }

    fn next_wakeup(&self) -> Option<Time> {
        let look = self.next_pool_wakeup();
        if !self.wakes {
            return look;
        }
        let queues = self.queues.iter().flatten().filter_map(|q| q.next_wakeup()).min();
        queues.into_iter().chain(look).min()
    }

    fn may_wake(&self) -> bool {
        self.wakes
            || !self.polling.is_empty()
            || !self.limited.is_empty()
            || self.nodes.as_ref().is_some_and(|ns| ns.refetches)
    }

    fn on_wakeup(&mut self, _jobs: &mut JobTable, now: Time) {
        self.wake_pools(now);
        if let (true, Some(ns)) = (self.wakes, self.nodes.as_mut()) {
            ns.all_pushed();
        }
    }

    fn after_dispatch(&mut self, now: Time) {
        self.sleep_idle(now);
    }

    fn placement(&self, slot: Slot) -> (QueueId, PoolId) {
        self.placement[slot as usize]
    }
}

impl Hints for Dispatcher<'_> {}

impl Explain for Dispatcher<'_> {}

#[cfg(test)]
mod tests;

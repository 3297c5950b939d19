//! Reservation ahead (`prefetch:`): a pool that is one worker node taking
//! jobs from its queues before a worker is free for them, as a Celery
//! worker does (docs/scenario.md, Reservation ahead; docs/background.md
//! cites the sources).
//!
//! A node holds at most `limit` unacknowledged jobs (Celery's
//! `worker_prefetch_multiplier` x concurrency, kombu's `can_consume`). A
//! job is acknowledged when it starts, or when its attempt ends under
//! `acks_late`. While a node has room it waits on every queue it polls, and
//! a job pushed to a queue goes to the node that has waited longest for one
//! (Redis serves the client blocked longest on `BRPOP`); a node that takes a
//! job and still has room waits again at the back, so nodes with room take
//! a burst in turns. The nodes' first places are drawn from the seed (which
//! node's `BRPOP` came first is a race). A node that gets room back while
//! its queues hold jobs takes them at once, in its poll order.
//!
//! Inside the node, `fair` hands a reserved job only to an idle worker, in
//! reservation order; `fcfs` writes every job at once to the node's first
//! worker, busy or not (Celery's asynpool restarts its write counter at
//! every write round, so the first writable pipe gets each job), where the
//! jobs run one after another while its other workers stay idle.
//!
//! Reserved jobs stay queued for the engine (their tenant's jobs wait until
//! they start) but have left their queue: only this node's workers can run
//! them, and a tenant whose job is held while a worker idles elsewhere is
//! passed over `prefetched`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rand::Rng;

use super::{leave, tick_of, Dispatcher};
use crate::core::{Gate, JobTable, Skip, Slot};
use crate::model::{Handoff, PoolId, QueueId, Scenario, TenantId, TopologySpec};
use crate::policy::flows::label_hash;
use crate::time::Time;
use crate::workload::rng::{self, Purpose};

/// How close after an acknowledgement an event of the node falls in the
/// same turn of its loop, which handles every event ready at its `poll` at
/// once: such an event does not wake the node. In the ground-truth
/// records, a process whose node had its next event within a millisecond
/// of the acknowledgement waited for the one after (docs/validation.md).
const TURN: Time = 1_000;

/// The first tick of a timer every `period` on `phase` strictly after `now`.
fn next_timer(phase: Time, period: Time, now: Time) -> Time {
    match now.checked_sub(phase) {
        None => phase,
        Some(since) => phase + (since / period + 1) * period,
    }
}

/// One node's reservation.
struct Node {
    limit: u32,
    acks_late: bool,
    fcfs: bool,
    /// Jobs taken and not yet acknowledged.
    unacked: u32,
    /// Reserved jobs not started yet, in reservation order, with the
    /// instant each was taken.
    held: VecDeque<(Slot, Time)>,
    /// Tenants with held jobs, for the log.
    members: BTreeMap<TenantId, u32>,
    /// `fcfs`: whether the first worker runs a job.
    first_busy: bool,
    /// Its place in its queues' waiting lines while it waits with room.
    place: Option<u64>,
    /// The tick whose log last listed its held tenants.
    listed: u64,
    /// See [`crate::model::Prefetch::refetch`]: its loop's timer period,
    /// and the timer's phase, drawn from the seed.
    refetch: Time,
    phase: Time,
    /// Set while an acknowledgement gave the full node room and it has not
    /// asked again: (the acknowledgement, when it asks at the latest).
    deaf: Option<(Time, Time)>,
}

impl Node {
    fn room(&self) -> bool {
        self.unacked < self.limit
    }
}

/// The reserving nodes of a topology and the lines they wait in.
pub(super) struct Nodes {
    /// Per pool: its node, when it reserves ahead.
    nodes: Vec<Option<Node>>,
    /// Per queue: the nodes waiting for its next job, by (place, pool).
    lines: Vec<BTreeSet<(u64, PoolId)>>,
    next_place: u64,
    /// Queues that got a job while nodes waited on them, in that order.
    dirty: VecDeque<QueueId>,
    is_dirty: Vec<bool>,
    /// Nodes that got room back (a job acknowledged at its end), in that order.
    hungry: VecDeque<PoolId>,
    /// Nodes with a held job and a worker that may run it now.
    startable: BTreeSet<PoolId>,
    /// Nodes holding jobs.
    holding: BTreeSet<PoolId>,
    /// Per queue: whether a node polls it.
    polled: Vec<bool>,
    /// Deaf nodes by (the latest instant they ask again, pool).
    deaf: BTreeSet<(Time, PoolId)>,
    /// Whether some node defers its fetch after an acknowledgement.
    pub(super) refetches: bool,
}

impl Nodes {
    /// The nodes of `t`, `None` when no pool reserves ahead. Every node
    /// starts waiting on its queues, in an order drawn from the seed.
    pub(super) fn new(sc: &Scenario, t: &TopologySpec) -> Option<Box<Self>> {
        if t.pools.iter().all(|p| p.prefetch.is_none()) {
            return None;
        }
        let mut ns = Nodes {
            nodes: t
                .pools
                .iter()
                .map(|p| {
                    p.prefetch.map(|f| Node {
                        limit: f.limit,
                        acks_late: f.acks_late,
                        fcfs: f.handoff == Handoff::Fcfs,
                        unacked: 0,
                        held: VecDeque::new(),
                        members: BTreeMap::new(),
                        first_busy: false,
                        place: None,
                        listed: 0,
                        refetch: f.refetch,
                        phase: 0,
                        deaf: None,
                    })
                })
                .collect(),
            lines: vec![BTreeSet::new(); t.queues.len()],
            next_place: 0,
            dirty: VecDeque::new(),
            is_dirty: vec![false; t.queues.len()],
            hungry: VecDeque::new(),
            startable: BTreeSet::new(),
            holding: BTreeSet::new(),
            polled: vec![false; t.queues.len()],
            deaf: BTreeSet::new(),
            refetches: t.pools.iter().any(|p| p.prefetch.is_some_and(|f| f.refetch > 0)),
        };
        let mut first: Vec<PoolId> =
            (0..t.pools.len()).filter(|&p| t.pools[p].prefetch.is_some()).map(|p| p as PoolId).collect();
        // its own stream: a topology without nodes draws nothing more
        let mut draw = rng::stream(sc.seed, label_hash(&t.name) ^ 2, Purpose::Routing);
        // Fisher-Yates on the raw 64-bit draws (the modulo's bias is below
        // 2^-40 for these counts), so the order does not depend on how a
        // `rand` release samples a range
        for i in (1..first.len()).rev() {
            let j = (draw.next_u64() % (i as u64 + 1)) as usize;
            first.swap(i, j);
        }
        for n in ns.nodes.iter_mut().flatten().filter(|n| n.refetch > 0) {
            n.phase = draw.next_u64() % n.refetch;
        }
        for p in first {
            for &q in &t.pools[p as usize].queues {
                ns.polled[q as usize] = true;
            }
            ns.join(p, &t.pools[p as usize].queues);
        }
        Some(Box::new(ns))
    }

    /// Node `p` waits on `queues` from now, behind every node waiting already.
    fn join(&mut self, p: PoolId, queues: &[QueueId]) {
        let place = self.next_place;
        self.next_place += 1;
        for &q in queues {
            self.lines[q as usize].insert((place, p));
        }
        self.node(p).place = Some(place);
    }

    /// Node `p` stops waiting on `queues`.
    fn leave_lines(&mut self, p: PoolId, queues: &[QueueId]) {
        if let Some(place) = self.node(p).place.take() {
            for &q in queues {
                self.lines[q as usize].remove(&(place, p));
            }
        }
    }

    fn node(&mut self, p: PoolId) -> &mut Node {
        self.nodes[p as usize].as_mut().expect("a reserving pool has a node")
    }

    pub(super) fn is_node(&self, p: PoolId) -> bool {
        self.nodes[p as usize].is_some()
    }

    /// Whether some node waits on queue `q`.
    pub(super) fn polled(&self, q: QueueId) -> bool {
        self.polled[q as usize]
    }

    /// Whether node `p` would take a job now.
    pub(super) fn waits(&self, p: PoolId) -> bool {
        self.nodes[p as usize].as_ref().is_some_and(|n| n.place.is_some())
    }

    /// Queue `q` got a job: the nodes waiting on it take it at the next reservation.
    pub(super) fn pushed(&mut self, q: QueueId) {
        let i = q as usize;
        if !self.lines[i].is_empty() && !self.is_dirty[i] {
            self.is_dirty[i] = true;
            self.dirty.push_back(q);
        }
    }

    /// Every queue with a waiting node may hold a job claimable now (a queue's policy woke).
    pub(super) fn all_pushed(&mut self) {
        for q in 0..self.lines.len() {
            self.pushed(q as QueueId);
        }
    }

    /// An acknowledgement at `now` gave full node `p` room: it takes jobs
    /// again at once, or under a `refetch` at its next event or its loop's
    /// next timer; `true`: at once.
    fn acked_full(&mut self, p: PoolId, now: Time) -> bool {
        let n = self.node(p);
        if n.refetch == 0 {
            return true;
        }
        let until = next_timer(n.phase, n.refetch, now);
        n.deaf = Some((now, until));
        self.deaf.insert((until, p));
        false
    }

    /// Node `p` has an event at `now` (a job of its own starts or ends):
    /// deaf since a turn of its loop before, it asks again.
    fn wake(&mut self, p: PoolId, now: Time) {
        let n = self.node(p);
        if let Some((_, until)) = n.deaf.filter(|&(acked, _)| now >= acked + TURN) {
            n.deaf = None;
            self.deaf.remove(&(until, p));
            self.hungry.push_back(p);
        }
    }

    /// The deaf nodes whose wait ended by `now` ask again.
    pub(super) fn wake_deaf(&mut self, now: Time) {
        while let Some(&(until, p)) = self.deaf.first() {
            if until > now {
                break;
            }
            self.deaf.pop_first();
            self.node(p).deaf = None;
            self.hungry.push_back(p);
        }
    }

    /// When the next deaf node asks again at the latest.
    pub(super) fn next_wake(&self) -> Option<Time> {
        self.deaf.first().map(|&(t, _)| t)
    }

    fn can_start(&self, p: PoolId, free: u32) -> bool {
        let n = self.nodes[p as usize].as_ref().expect("a reserving pool has a node");
        !n.held.is_empty() && if n.fcfs { !n.first_busy } else { free > 0 }
    }
}

impl Dispatcher<'_> {
    /// Lets the nodes that got room back take jobs, then the queues that got
    /// jobs serve the nodes waiting on them, longest waiting first.
    pub(super) fn reserve_ahead(&mut self, jobs: &JobTable, gate: &mut Gate, now: Time) {
        self.ns().wake_deaf(now);
        while let Some(p) = self.ns().hungry.pop_front() {
            self.fill(p, jobs, gate, now);
        }
        while let Some(q) = self.ns().dirty.pop_front() {
            self.ns().is_dirty[q as usize] = false;
            while let Some(&(_, p)) = self.ns().lines[q as usize].first() {
                let Some(slot) = self.claim(q, jobs, gate, now) else { break };
                let queues = std::mem::take(&mut self.pools[p as usize].queues);
                self.ns().leave_lines(p, &queues);
                self.take(p, slot, jobs, now);
                if self.ns().node(p).room() {
                    self.ns().join(p, &queues);
                }
                self.pools[p as usize].queues = queues;
            }
        }
    }

    fn ns(&mut self) -> &mut Nodes {
        self.nodes.as_mut().expect("only a topology with nodes reserves")
    }

    /// Node `p` has room: it takes jobs from its queues in its poll order
    /// until it is full or they are empty, then waits on them if it has room.
    fn fill(&mut self, p: PoolId, jobs: &JobTable, gate: &mut Gate, now: Time) {
        let queues = std::mem::take(&mut self.pools[p as usize].queues);
        self.ns().leave_lines(p, &queues);
        self.pools[p as usize].queues = queues;
        let mut order = std::mem::take(&mut self.order);
        self.pools[p as usize].fetch_order(&mut self.rng, &mut order);
        'queues: for &q in &order {
            while self.ns().node(p).room() {
                match self.claim(q, jobs, gate, now) {
                    Some(slot) => self.take(p, slot, jobs, now),
                    None => continue 'queues,
                }
            }
            break;
        }
        self.order = order;
        if self.ns().node(p).room() {
            let queues = std::mem::take(&mut self.pools[p as usize].queues);
            self.ns().join(p, &queues);
            self.pools[p as usize].queues = queues;
        }
    }

    /// Node `p` reserves the job in `slot`, claimed from its queue at `now`.
    fn take(&mut self, p: PoolId, slot: Slot, jobs: &JobTable, now: Time) {
        self.placement[slot as usize].1 = p;
        let free = self.pools[p as usize].free;
        let tenant = jobs.get(slot).tenant;
        let ns = self.nodes.as_mut().expect("only a topology with nodes reserves");
        let n = ns.node(p);
        n.unacked += 1;
        n.held.push_back((slot, now));
        *n.members.entry(tenant).or_default() += 1;
        let held = n.held.len() as u64;
        ns.holding.insert(p);
        if ns.can_start(p, free) {
            ns.startable.insert(p);
        }
        let mut s = self.stats.borrow_mut();
        s.reserved[p as usize] += 1;
        s.held_max[p as usize] = s.held_max[p as usize].max(held);
    }

    /// Starts the next held job of a node with a worker for it, if any.
    pub(super) fn start_held(&mut self, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot> {
        let ns = self.nodes.as_mut()?;
        let &p = ns.startable.first()?;
        let n = ns.node(p);
        let (slot, at) = n.held.pop_front().expect("a startable node holds a job");
        // its worker's answer that it took the job is an event of the node
        ns.wake(p, now);
        let n = ns.node(p);
        leave(&mut n.members, jobs.get(slot).tenant);
        n.first_busy |= n.fcfs;
        let (emptied, acked_full) = (n.held.is_empty(), !n.acks_late && !n.room());
        if !n.acks_late {
            n.unacked -= 1;
        }
        if emptied {
            ns.holding.remove(&p);
        }
        self.pools[p as usize].free -= 1;
        if !ns.can_start(p, self.pools[p as usize].free) {
            ns.startable.remove(&p);
        }
        self.stats.borrow_mut().held_sum[p as usize] += u128::from(now - at);
        // acknowledged at its start: the full node has room again
        if acked_full && self.ns().acked_full(p, now) {
            self.fill(p, jobs, gate, now);
        }
        self.note_start(slot, p, jobs, now);
        Some(slot)
    }

    /// A worker of pool `p` is free again; `false` when `p` is not a node
    /// (the caller frees it as a polling pool's).
    pub(super) fn release_node(&mut self, p: PoolId, now: Time) -> bool {
        let Some(ns) = self.nodes.as_mut().filter(|ns| ns.is_node(p)) else { return false };
        self.pools[p as usize].free += 1;
        // the job's end is an event of the node
        ns.wake(p, now);
        let n = ns.node(p);
        n.first_busy = false;
        // acknowledged at its end: a full node takes jobs again
        let refill = n.acks_late && !n.room();
        if n.acks_late {
            n.unacked -= 1;
        }
        if refill && ns.acked_full(p, now) {
            ns.hungry.push_back(p);
        }
        if ns.can_start(p, self.pools[p as usize].free) {
            ns.startable.insert(p);
        }
        true
    }

    /// With a worker idle somewhere: the tenants whose jobs wait held by a
    /// node that cannot start them are passed over `prefetched` (once per
    /// node per tick).
    pub(super) fn list_held(&mut self, gate: &mut Gate, now: Time) {
        let tick = tick_of(now, self.sc.tick);
        let Some(ns) = self.nodes.as_mut() else { return };
        let holding: Vec<PoolId> = ns.holding.iter().copied().filter(|p| !ns.startable.contains(p)).collect();
        for p in holding {
            let n = ns.node(p);
            if n.listed == tick {
                continue;
            }
            n.listed = tick;
            for &t in n.members.keys() {
                gate.note_skip(t, Skip::Prefetched);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::next_timer;

    #[test]
    fn a_timer_ticks_on_its_phase_strictly_after_now() {
        // every 10 on phase 3: ticks 3, 13, 23, ...; after 12 comes 13, after
        // 13 comes 23 (strictly later), before the first tick the first
        assert_eq!(next_timer(3, 10, 12), 13);
        assert_eq!(next_timer(3, 10, 13), 23);
        assert_eq!(next_timer(3, 10, 0), 3);
        assert_eq!(next_timer(0, 10, 0), 10);
    }
}

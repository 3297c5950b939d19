//! The backlog index shared by every policy that orders jobs by a key
//! (arrival order, class priority, deadline, virtual finish time).
//!
//! Jobs sit in per-tenant queues (`TenantQueue`: O(1) for jobs pushed in
//! key order, a heap otherwise); a global heap holds each unparked tenant's
//! head key. `pick` pops the best tenant, asks the gate, and either starts that
//! tenant's head job or parks the tenant. Per dispatch: O(log n) in tenants
//! plus at most O(log m) in that tenant's jobs, never a scan. (`fifo` has its
//! own layout, see its module: its global order needs no per-tenant queues.)
//!
//! Ties between equal keys go to the lower job id (arrival order).

use std::collections::VecDeque;

use crate::core::{Gate, JobTable, Slot};
use crate::model::TenantId;
use crate::prefetch::prefetch_item;
use crate::quad_heap::QuadHeap;

/// A priority queue specialised for items that mostly arrive in order: the
/// best item inline, the others in an ordered run or a heap. Items pushed in
/// order (fifo's arrival order, wfq's per-tenant finish tags) go to the back
/// of `run`, O(1) and sequential in memory; only out-of-order pushes
/// (priority, edf) pay for the heap. The best item is the smaller of the two
/// fronts. fifo's global queue; the per-tenant queues below are the same
/// idea with the run linked through slots instead of a buffer per tenant.
#[derive(Debug)]
pub(crate) struct RunQueue<T> {
    head: Option<T>,
    run: VecDeque<T>,
    rest: QuadHeap<T>,
}

impl<T: Ord + Copy> RunQueue<T> {
    pub(crate) fn new() -> Self {
        RunQueue { head: None, run: VecDeque::new(), rest: QuadHeap::default() }
    }

    pub(crate) fn push(&mut self, item: T) {
        let item = match self.head {
            None => {
                self.head = Some(item);
                return;
            }
            Some(h) if item < h => {
                self.head = Some(item);
                h
            }
            Some(_) => item,
        };
        if self.run.back().is_none_or(|&b| b < item) {
            self.run.push_back(item);
        } else {
            self.rest.push(item);
        }
    }

    pub(crate) fn peek(&self) -> Option<&T> {
        self.head.as_ref()
    }

    /// The items in order (head, then the run), and the out-of-order rest
    /// unordered (for fifo's explanation).
    pub(crate) fn parts(&self) -> (impl Iterator<Item = &T> + '_, std::slice::Iter<'_, T>) {
        (self.head.iter().chain(self.run.iter()), self.rest.iter())
    }

    pub(crate) fn pop(&mut self) -> Option<T> {
        let h = self.head.take();
        if h.is_some() {
            self.head = match (self.run.front(), self.rest.peek()) {
                (Some(a), Some(b)) if b < a => self.rest.pop(),
                (Some(_), _) => self.run.pop_front(),
                (None, _) => self.rest.pop(),
            };
        }
        h
    }
}

/// A queued job: (key, job id, slot), ordered by key, then job id.
type Item<K> = (K, u64, Slot);

/// One tenant's jobs, in one cache line for the common keys. Jobs pushed in
/// key order (aging's and reserve's ready times, wfq's finish tags) form a run:
/// its front item is here, and every item of the run records the item after
/// it in [`KeyedQueue::after`], at its slot. Taking the front then reads only
/// the taken job's own record, which `hint` has prefetched, and a push
/// writes the old back's record. Why not a `VecDeque` per tenant: with
/// 100,000 tenants its separate buffer was one more cache miss per job (a
/// third of a 100,000-tenant wfq pick), and growing 100,000 buffers
/// reallocated all run long. Out-of-order pushes (priority, edf, re-queued
/// jobs) go to a heap, allocated on first use.
#[derive(Debug)]
#[repr(align(64))]
struct TenantQueue<K> {
    run_front: Item<K>,
    run_back: Item<K>,
    run_len: u32,
    rest: Option<Box<QuadHeap<Item<K>>>>,
    /// The global heap holds a live entry for this tenant: the one whose
    /// (key, job id) is its best job's (older entries are stale). Unparked
    /// tenants with jobs are always listed.
    listed: bool,
    parked: bool,
}

impl<K: Ord + Copy + Default> Default for TenantQueue<K> {
    fn default() -> Self {
        let none = (K::default(), 0, 0);
        TenantQueue { run_front: none, run_back: none, run_len: 0, rest: None, listed: false, parked: false }
    }
}

impl<K: Ord + Copy + Default> TenantQueue<K> {
    /// The tenant's best job.
    fn best(&self) -> Option<Item<K>> {
        let run = (self.run_len > 0).then_some(self.run_front);
        match (run, self.rest.as_ref().and_then(|h| h.peek())) {
            (Some(a), Some(&b)) => Some(a.min(b)),
            (a, b) => a.or(b.copied()),
        }
    }

    fn push(&mut self, item: Item<K>, after: &mut Vec<Item<K>>) {
        if self.run_len == 0 {
            self.run_front = item;
        } else if self.run_back < item {
            let back = self.run_back.2 as usize;
            if after.len() <= back {
                // amortised O(1): `resize` grows the capacity geometrically
                after.resize(back + 1, (K::default(), 0, 0));
            }
            after[back] = item;
        } else {
            self.rest.get_or_insert_with(Default::default).push(item);
            return;
        }
        self.run_back = item;
        self.run_len += 1;
    }

    /// Removes the best job.
    fn pop(&mut self, after: &[Item<K>]) -> Option<Item<K>> {
        let best = self.best()?;
        if self.run_len > 0 && self.run_front == best {
            self.run_len -= 1;
            if self.run_len > 0 {
                self.run_front = after[best.2 as usize];
            }
        } else if let Some(rest) = &mut self.rest {
            rest.pop();
        }
        Some(best)
    }

    /// Whether the global-heap entry `(key, seq)` is this tenant's live one.
    fn is_live(&self, key: K, seq: u64) -> bool {
        self.listed && !self.parked && self.best().is_some_and(|(k, s, _)| (k, s) == (key, seq))
    }
}

/// Per-tenant queues of jobs ordered by `(K, job id)`, plus a heap of tenants.
#[derive(Debug)]
pub struct KeyedQueue<K: Ord + Copy + Default> {
    tenants: Vec<TenantQueue<K>>,
    /// At each queued job's slot, the item after it in its tenant's run
    /// (see [`TenantQueue`]); meaningless for the back of a run. Its length
    /// follows the highest slot queued, so the number of live jobs.
    after: Vec<Item<K>>,
    /// (key, job id, tenant, slot) of each listed tenant's best job; the
    /// slot rides along (ordering is by the unique job id before it) so the
    /// next job is known without reading the tenant's queue (see `hint`).
    heads: QuadHeap<(K, u64, TenantId, Slot)>,
}

impl<K: Ord + Copy + Default> KeyedQueue<K> {
    pub fn new(tenants: usize) -> Self {
        KeyedQueue {
            tenants: (0..tenants).map(|_| TenantQueue::default()).collect(),
            after: Vec::new(),
            heads: QuadHeap::new(),
        }
    }

    /// Adds a job with its key.
    pub fn push(&mut self, tenant: TenantId, key: K, seq: u64, slot: Slot) {
        let tq = &mut self.tenants[tenant as usize];
        let best = tq.best().is_none_or(|(k, s, _)| (key, seq) < (k, s));
        tq.push((key, seq, slot), &mut self.after);
        if !tq.parked && (best || !tq.listed) {
            tq.listed = true;
            self.heads.push((key, seq, tenant, slot));
        }
    }

    fn relist(&mut self, tenant: TenantId) {
        let tq = &mut self.tenants[tenant as usize];
        tq.listed = false;
        if tq.parked {
            return;
        }
        if let Some((k, s, slot)) = tq.best() {
            tq.listed = true;
            self.heads.push((k, s, tenant, slot));
        }
    }

    /// The best job whose tenant the gate admits; parks refused tenants.
    pub fn pick(&mut self, jobs: &JobTable, gate: &mut Gate) -> Option<Slot> {
        self.pick_keyed(jobs, gate).map(|(_, slot)| slot)
    }

    /// [`KeyedQueue::pick`], with the job's key.
    pub fn pick_keyed(&mut self, jobs: &JobTable, gate: &mut Gate) -> Option<(K, Slot)> {
        while let Some((k, s, tenant, slot)) = self.heads.pop() {
            let tq = &mut self.tenants[tenant as usize];
            if !tq.is_live(k, s) {
                continue; // stale entry: the tenant's head changed or it was parked
            }
            // a live entry is the tenant's best job, slot included
            if gate.admit(jobs.get(slot)) {
                tq.pop(&self.after);
                self.relist(tenant);
                return Some((k, slot));
            }
            tq.parked = true;
            tq.listed = false;
        }
        None
    }

    /// Lets a parked tenant compete again.
    pub fn unpark(&mut self, tenant: TenantId) {
        let tq = &mut self.tenants[tenant as usize];
        if tq.parked {
            tq.parked = false;
            self.relist(tenant);
        }
    }

    /// Removes and returns the best job of one tenant (for policies that
    /// choose the tenant themselves).
    pub fn pop_tenant(&mut self, tenant: TenantId) -> Option<Slot> {
        let slot = self.tenants[tenant as usize].pop(&self.after).map(|(_, _, s)| s);
        self.relist(tenant);
        slot
    }

    /// The best job of any unparked tenant, without removing it:
    /// `(key, job id, tenant, slot)`. Drops stale head entries on the way
    /// (amortised O(log n)). Take it with [`KeyedQueue::pop_tenant`].
    pub fn peek(&mut self) -> Option<(K, u64, TenantId, Slot)> {
        while let Some(&(k, s, tenant, _)) = self.heads.peek() {
            let tq = &self.tenants[tenant as usize];
            match tq.best() {
                Some((_, _, slot)) if tq.is_live(k, s) => return Some((k, s, tenant, slot)),
                _ => {
                    self.heads.pop();
                }
            }
        }
        None
    }

    /// `(key, job id, tenant, slot)` of every unparked tenant's best job, in
    /// no order (for [`super::Policy::explain`]): the live entries of the
    /// tenant heap, so O(tenants with work and stale entries), not O(tenants).
    pub fn heads(&self) -> impl Iterator<Item = (K, u64, TenantId, Slot)> + '_ {
        let mut seen = std::collections::HashSet::new();
        // an unparked tenant may have its live entry twice (pushed again on unpark)
        self.heads.iter().filter_map(move |&(k, s, t, _)| {
            let tq = &self.tenants[t as usize];
            let (_, _, slot) = tq.best().filter(|_| tq.is_live(k, s))?;
            seen.insert(t).then_some((k, s, t, slot))
        })
    }

    /// Prefetches the queue a push for `tenant` touches.
    pub fn warm(&self, tenant: TenantId) {
        prefetch_item(&self.tenants, tenant as usize);
    }

    /// Prefetches the record a push for `tenant` links the new job in (see
    /// [`super::Policy::warm_queue_back`]).
    pub fn warm_back(&self, tenant: TenantId) {
        if let Some(tq) = self.tenants.get(tenant as usize).filter(|tq| tq.run_len > 0) {
            prefetch_item(&self.after, tq.run_back.2 as usize);
        }
    }

    /// The job at the top of the tenant heap and its tenant, perhaps from a
    /// stale entry (a guess for [`super::Policy::next_hint`]); prefetches
    /// the tenant's queue, which `pick` reads to check the entry, and the
    /// job's record of the item after it, which taking it reads.
    pub fn hint(&self) -> Option<(Slot, TenantId)> {
        let &(_, _, tenant, slot) = self.heads.peek()?;
        prefetch_item(&self.tenants, tenant as usize);
        prefetch_item(&self.after, slot as usize);
        Some((slot, tenant))
    }

    /// Sets a tenant aside (the gate refused it elsewhere) until
    /// [`KeyedQueue::unpark`]; its stale head entry is dropped lazily.
    pub fn park(&mut self, tenant: TenantId) {
        let tq = &mut self.tenants[tenant as usize];
        tq.parked = true;
        tq.listed = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_queue_pops_in_key_order_for_in_order_and_shuffled_pushes() {
        // runs of increasing keys broken by smaller ones, interleaved with
        // pops; the reference is a sorted list of what is inside
        let mut next = crate::test_rng::xorshift(7);
        let mut jobs = RunQueue::new();
        let mut inside: Vec<(u64, u64, Slot)> = Vec::new();
        let mut key = 0u64;
        for seq in 0..5000u64 {
            // mostly ascending keys (fifo-like), sometimes a smaller one (priority-like)
            key = if next(5) == 0 { next(key + 1) } else { key + next(3) };
            jobs.push((key, seq, seq as Slot));
            inside.push((key, seq, seq as Slot));
            if next(3) == 0 {
                inside.sort_unstable();
                let want = inside.remove(0);
                assert_eq!(jobs.peek(), Some(&want));
                assert_eq!(jobs.pop(), Some(want));
            }
        }
        inside.sort_unstable();
        let got: Vec<_> = std::iter::from_fn(|| jobs.pop()).collect();
        assert_eq!(got, inside);
        // pushes in key order never touch the heap: 1 inline, 99 in the run
        let mut fifo = RunQueue::new();
        for seq in 0..100u64 {
            fifo.push((seq / 3, seq, seq as Slot));
        }
        assert_eq!((fifo.run.len(), fifo.rest.len()), (99, 0));
    }

    #[test]
    fn a_better_job_pushed_later_becomes_its_tenants_head() {
        // priority (a lower number first, then ready time) over one
        // KeyedQueue: A's lo job at 0s, B's lo job at 1s, A's hi job at 2s.
        // Keys (5, 0s), (5, 1s), (1, 2s): A's hi job, A's lo job, B's lo
        // job: A A B. A's hi job beats A's listed head, so it needs a head
        // entry of its own; without one A's old entry is stale, A is dropped
        // and only B runs.
        let sc = crate::scenario::load_str(
            concat!(
                "workers: 99\ntenants: {A: {}, B: {}}\nclasses: {hi: {priority: 1}, lo: {priority: 5}}\n",
                "workload:\n  - {tenant: A, class: lo, arrivals: {batch: 1, at: 0s}, service: 1s}\n",
                "  - {tenant: B, class: lo, arrivals: {batch: 1, at: 1s}, service: 1s}\n",
                "  - {tenant: A, class: hi, arrivals: {batch: 1, at: 2s}, service: 1s}\npolicies: [priority]\n",
            ),
            std::path::Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = crate::policy::testkit::Kit::new(&sc);
        kit.push_all();
        let first = kit.pick().expect("A's hi job");
        assert_eq!(kit.jobs.get(first).seq, 2);
        assert_eq!(kit.pick_n(9), "AB");
    }

    #[test]
    fn tenant_queues_pop_in_key_order_with_shared_links_and_reused_slots() {
        // three tenants' queues share one `after` array; keys mostly ascend
        // per tenant (run), sometimes drop (heap); slots are reused after a
        // pop, as the job table does. Reference: a sorted list per tenant.
        let mut next = crate::test_rng::xorshift(23);
        let mut after = Vec::new();
        let mut queues: Vec<TenantQueue<u64>> = (0..3).map(|_| TenantQueue::default()).collect();
        let mut inside: Vec<Vec<Item<u64>>> = vec![Vec::new(); 3];
        let mut keys = [0u64; 3];
        let mut free: Vec<Slot> = Vec::new();
        let mut fresh: Slot = 0;
        for seq in 0..20_000u64 {
            let t = next(3) as usize;
            if next(5) < 3 {
                keys[t] = if next(6) == 0 { next(keys[t] + 1) } else { keys[t] + next(3) };
                let slot = free.pop().unwrap_or_else(|| {
                    fresh += 1;
                    fresh - 1
                });
                queues[t].push((keys[t], seq, slot), &mut after);
                inside[t].push((keys[t], seq, slot));
            } else {
                inside[t].sort_unstable();
                let want = (!inside[t].is_empty()).then(|| inside[t].remove(0));
                assert_eq!(queues[t].best(), want);
                assert_eq!(queues[t].pop(&after), want);
                free.extend(want.map(|(_, _, slot)| slot));
            }
        }
        for t in 0..3 {
            inside[t].sort_unstable();
            let got: Vec<_> = std::iter::from_fn(|| queues[t].pop(&after)).collect();
            assert_eq!(got, inside[t]);
        }
        // in-order pushes stay in the run: no heap is ever allocated
        let mut q: TenantQueue<u64> = TenantQueue::default();
        for seq in 0..100u64 {
            q.push((seq / 3, seq, seq as Slot), &mut after);
        }
        assert!(q.rest.is_none());
        assert_eq!(q.run_len, 100);
    }
}

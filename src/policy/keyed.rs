//! The backlog index shared by every policy that orders jobs by a key
//! (arrival order, class priority, deadline, virtual finish time).
//!
//! Jobs sit in per-tenant heaps; a global heap holds each unparked tenant's
//! head key. `pick` pops the best tenant, asks the gate, and either starts
//! that tenant's head job or parks the tenant. Per dispatch: O(log n) in
//! tenants plus O(log m) in that tenant's jobs, never a scan.
//!
//! Ties between equal keys go to the lower job id (arrival order).

use crate::engine::{Gate, JobTable, Slot};
use crate::quad_heap::QuadHeap;
use crate::scenario::TenantId;

/// One tenant's jobs: the best one inline, the others in a heap. Most
/// tenants hold zero or one job at a time, so most pushes and pops touch only
/// the tenant's entry and never a heap buffer of their own (a cache miss per
/// job with 10,000 tenants, 14% of a fifo run before this).
#[derive(Debug)]
struct TenantJobs<K> {
    head: Option<(K, u64, Slot)>,
    rest: QuadHeap<(K, u64, Slot)>,
}

impl<K: Ord + Copy> TenantJobs<K> {
    fn push(&mut self, job: (K, u64, Slot)) {
        match self.head {
            None => self.head = Some(job),
            Some(h) if job < h => {
                self.rest.push(h);
                self.head = Some(job);
            }
            Some(_) => self.rest.push(job),
        }
    }

    fn peek(&self) -> Option<&(K, u64, Slot)> {
        self.head.as_ref()
    }

    fn pop(&mut self) -> Option<(K, u64, Slot)> {
        let h = self.head.take();
        if h.is_some() {
            self.head = self.rest.pop();
        }
        h
    }
}

#[derive(Debug)]
struct TenantQueue<K> {
    jobs: TenantJobs<K>,
    /// The global heap holds a live entry for this tenant: the one whose
    /// (key, job id) is its best job's (older entries are stale). Unparked
    /// tenants with jobs are always listed.
    listed: bool,
    parked: bool,
}

impl<K: Ord + Copy> TenantQueue<K> {
    /// Whether the global-heap entry `(key, seq)` is this tenant's live one.
    fn is_live(&self, key: K, seq: u64) -> bool {
        self.listed && !self.parked && self.jobs.peek().is_some_and(|&(k, s, _)| (k, s) == (key, seq))
    }
}

impl<K: Ord + Copy> Default for TenantQueue<K> {
    fn default() -> Self {
        TenantQueue {
            jobs: TenantJobs { head: None, rest: QuadHeap::default() },
            listed: false,
            parked: false,
        }
    }
}

/// Per-tenant heaps of jobs ordered by `(K, job id)`, plus a heap of tenants.
#[derive(Debug)]
pub struct KeyedQueue<K: Ord + Copy> {
    tenants: Vec<TenantQueue<K>>,
    heads: QuadHeap<(K, u64, TenantId)>,
}

impl<K: Ord + Copy> KeyedQueue<K> {
    pub fn new(tenants: usize) -> Self {
        KeyedQueue { tenants: (0..tenants).map(|_| TenantQueue::default()).collect(), heads: QuadHeap::new() }
    }

    /// Adds a job with its key.
    pub fn push(&mut self, tenant: TenantId, key: K, seq: u64, slot: Slot) {
        let tq = &mut self.tenants[tenant as usize];
        let best = tq.jobs.peek().is_none_or(|&(k, s, _)| (key, seq) < (k, s));
        tq.jobs.push((key, seq, slot));
        if !tq.parked && (best || !tq.listed) {
            tq.listed = true;
            self.heads.push((key, seq, tenant));
        }
    }

    fn relist(&mut self, tenant: TenantId) {
        let tq = &mut self.tenants[tenant as usize];
        tq.listed = false;
        if tq.parked {
            return;
        }
        if let Some(&(k, s, _)) = tq.jobs.peek() {
            tq.listed = true;
            self.heads.push((k, s, tenant));
        }
    }

    /// The best job whose tenant the gate admits; parks refused tenants.
    pub fn pick(&mut self, jobs: &JobTable, gate: &mut Gate) -> Option<Slot> {
        while let Some((k, s, tenant)) = self.heads.pop() {
            let tq = &mut self.tenants[tenant as usize];
            if !tq.is_live(k, s) {
                continue; // stale entry: the tenant's head changed or it was parked
            }
            let Some(&(_, _, slot)) = tq.jobs.peek() else { continue };
            if gate.admit(jobs.get(slot)) {
                tq.jobs.pop();
                self.relist(tenant);
                return Some(slot);
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
        let slot = self.tenants[tenant as usize].jobs.pop().map(|(_, _, s)| s);
        self.relist(tenant);
        slot
    }

    /// The best job of any unparked tenant, without removing it:
    /// `(key, job id, tenant, slot)`. Drops stale head entries on the way
    /// (amortised O(log n)). Take it with [`KeyedQueue::pop_tenant`].
    pub fn peek(&mut self) -> Option<(K, u64, TenantId, Slot)> {
        while let Some(&(k, s, tenant)) = self.heads.peek() {
            let tq = &self.tenants[tenant as usize];
            match tq.jobs.peek() {
                Some(&(_, _, slot)) if tq.is_live(k, s) => return Some((k, s, tenant, slot)),
                _ => {
                    self.heads.pop();
                }
            }
        }
        None
    }

    /// Sets a tenant aside (the gate refused it elsewhere) until
    /// [`KeyedQueue::unpark`]; its stale head entry is dropped lazily.
    pub fn park(&mut self, tenant: TenantId) {
        let tq = &mut self.tenants[tenant as usize];
        tq.parked = true;
        tq.listed = false;
    }
}

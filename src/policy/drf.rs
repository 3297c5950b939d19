//! `drf`: dominant resource fairness (Ghodsi et al., NSDI 2011; the backpressure article).
//!
//! Each job holds a resource vector while it runs (`cost: {cpu: 1, mem: 4}`
//! in the workload, dimensions declared under `resources:`). A tenant's
//! dominant share is the largest, over the dimensions, of what its running
//! jobs hold divided by the pool's capacity; with a finite `workers`, the
//! workers count as one more dimension (each job holds one), so on a plain
//! worker pool DRF reduces to weighted fair sharing of running slots. The next
//! job comes from the tenant with the smallest weighted dominant share
//! (dominant share / weight), its oldest job first; ties go to the tenant
//! whose share changed least recently.
//!
//! Placement (the backpressure article: head-of-line blocking): if that job does not fit in
//! the free capacity, the gate parks the tenant (`no_fit`) and the next tenant
//! is tried, so one tenant's large job never blocks compatible jobs of others.
//! The parked tenant is reconsidered when resources are freed. Within a
//! tenant, jobs run in arrival order: its oldest job waits for room even if a
//! later, smaller one would fit (no backfilling inside a tenant).
//!
//! Allocations are updated when a job starts (pick) and when an attempt ends
//! (`on_finish`). Tenants sit in a heap keyed by weighted dominant share with
//! lazy invalidation (each tenant's current key is remembered; entries with
//! another key are skipped), so a dispatch is O(log n) amortised.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::flows::OrdF64;
use super::ranking::{keep_best, Ask, Candidate, KeyKind};
use super::PolicyInfo;
use super::{Explain, Hints, Policy};
use crate::core::{Gate, Job, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{PolicySpec, Scenario, TenantId, MAX_RESOURCES};
use crate::time::Time;

pub struct Drf {
    queues: Vec<VecDeque<Slot>>,
    parked: Vec<bool>,
    weight: Vec<f64>,
    /// Capacity of each declared resource dimension.
    capacity: Vec<f64>,
    /// Workers, when finite (one more dimension).
    workers: Option<f64>,
    /// Per tenant: what its running jobs hold, per dimension.
    held: Vec<[u64; MAX_RESOURCES]>,
    running: Vec<u32>,
    heap: BinaryHeap<Reverse<(OrdF64, u64, TenantId)>>,
    /// The key of each tenant's live heap entry, if it is listed.
    listed: Vec<Option<(OrdF64, u64)>>,
    clock: u64,
}

pub const INFO: PolicyInfo = PolicyInfo {
    name: "drf",
    summary:
        "dominant resource fairness: the tenant with the smallest dominant share / weight whose job fits",
    params: &[],
    build,
};

pub fn build(_spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    let n = sc.tenants.len();
    Ok(Box::new(Drf {
        queues: vec![VecDeque::new(); n],
        parked: vec![false; n],
        weight: sc.tenants.weights(),
        capacity: sc.resources.iter().map(|(_, c)| *c as f64).collect(),
        workers: (sc.workers != u32::MAX).then_some(sc.workers as f64),
        held: vec![[0; MAX_RESOURCES]; n],
        running: vec![0; n],
        heap: BinaryHeap::new(),
        listed: vec![None; n],
        clock: 0,
    }))
}

impl Drf {
    /// Weighted dominant share of a tenant.
    fn share(&self, t: usize) -> f64 {
        let mut dominant = self.workers.map_or(0.0, |w| self.running[t] as f64 / w);
        for (d, cap) in self.capacity.iter().enumerate() {
            if *cap > 0.0 {
                dominant = dominant.max(self.held[t][d] as f64 / cap);
            }
        }
        dominant / self.weight[t]
    }

    /// Puts a tenant in the heap under its current share, if it can run a job.
    fn relist(&mut self, t: TenantId) {
        let i = t as usize;
        self.listed[i] = None;
        if self.parked[i] || self.queues[i].is_empty() {
            return;
        }
        self.clock += 1;
        let key = (OrdF64(self.share(i)), self.clock);
        self.listed[i] = Some(key);
        self.heap.push(Reverse((key.0, key.1, t)));
        // stale entries are dropped as they surface; bound the heap anyway
        if self.heap.len() > 2 * self.listed.len() + 64 {
            let listed = &self.listed;
            self.heap.retain(|Reverse((k, s, t))| listed[*t as usize] == Some((*k, *s)));
        }
    }
}

impl Policy for Drf {
    fn push(&mut self, job: &Job, slot: Slot, _now: Time) {
        let t = job.tenant;
        self.queues[t as usize].push_back(slot);
        if self.listed[t as usize].is_none() {
            self.relist(t);
        }
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, _now: Time) -> Option<Slot> {
        while let Some(Reverse((k, s, t))) = self.heap.pop() {
            let i = t as usize;
            if self.listed[i] != Some((k, s)) {
                continue;
            }
            let Some(&slot) = self.queues[i].front() else {
                self.listed[i] = None;
                continue;
            };
            let job = jobs.get(slot);
            if gate.admit(job) {
                self.queues[i].pop_front();
                for (h, c) in self.held[i].iter_mut().zip(job.cost) {
                    *h += c;
                }
                self.running[i] += 1;
                self.relist(t);
                return Some(slot);
            }
            // at its cap, or its oldest job does not fit: try the next tenant
            self.parked[i] = true;
            self.listed[i] = None;
        }
        None
    }

    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, _now: Time) {
        let i = tenant as usize;
        if self.parked[i] {
            self.parked[i] = false;
            self.relist(tenant);
        }
    }

    fn on_finish(&mut self, job: &Job, _now: Time) {
        let i = job.tenant as usize;
        // saturating: a composition that forwards a finish this policy did not
        // start must not wrap the allocation around
        for (h, c) in self.held[i].iter_mut().zip(job.cost) {
            *h = h.saturating_sub(c);
        }
        self.running[i] = self.running[i].saturating_sub(1);
        if self.listed[i].is_some() {
            self.relist(job.tenant);
        }
    }
}

impl Hints for Drf {}

impl Explain for Drf {
    fn key_kind(&self) -> KeyKind {
        KeyKind::DominantShare
    }

    fn explain(&self, jobs: &JobTable, _now: Time, ask: &Ask, out: &mut Vec<Candidate>) {
        // the heap's live entries: one per listed tenant (O(heap), not O(tenants))
        let items = (self.heap.iter())
            .filter(|Reverse((k, s, t))| {
                !self.parked[*t as usize] && self.listed[*t as usize] == Some((*k, *s))
            })
            .filter_map(|Reverse((OrdF64(share), stamp, t))| {
                Some((*share, *stamp, *t, *self.queues[*t as usize].front()?))
            })
            .filter(|(_, _, _, slot)| (ask.claimable)(jobs.get(*slot)))
            .map(|(share, stamp, tenant, slot)| {
                ((share, stamp), Candidate { tenant, slot, key: Some(share) })
            })
            .collect();
        keep_best(items, ask.limit, out);
    }
}

#[cfg(test)]
mod tests {
    use crate::policy::testkit::Kit;
    use crate::scenario::load_str;
    use std::path::Path;

    #[test]
    fn ghodsi_example_progressive_filling_order() {
        // Capacity <9 CPU, 18 GB>; A's tasks <1, 4> (dominant: memory, 4/18 = 2/9
        // per task), B's <3, 1> (dominant: CPU, 3/9 = 1/3 per task).
        // Shares after each start: A 2/9; B 1/3; A 4/9; B 2/3; A 2/3; then A and B tie
        // at 2/3 (B's share changed less recently, so it is asked first) and neither
        // fits (CPU 9 of 9 used): A 3 tasks, B 2.
        // Plain alternation gives the same ABABA here (A, B, A, B, A fit and
        // nothing more does), so this example alone cannot tell DRF from round
        // robin: `progressive_filling_is_not_alternation` can.
        let sc = load_str(
            "resources: {cpu: 9, mem: 18}\nworkload:\n  - {tenant: A, count: 10, service: 100s, cost: {cpu: 1, mem: 4}}\n  - {tenant: B, count: 10, service: 100s, cost: {cpu: 3, mem: 1}}\npolicies: [drf]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        assert_eq!(kit.pick_n(10), "ABABA");
        assert_eq!(kit.skips, ["B:no_fit", "A:no_fit"]);
    }

    #[test]
    fn progressive_filling_is_not_alternation() {
        // Capacity 10 CPU, 10 GB (no worker limit); A's tasks <1, 1> (dominant
        // share 0.1 per task), B's <4, 1> (dominant: CPU, 0.4 per task).
        // Smallest share first, ties to the tenant whose share changed least
        // recently: A (0 -> 0.1), B (0 -> 0.4, CPU 5), A 0.2, 0.3, 0.4 (CPU 8);
        // A and B tie at 0.4 and B is older: 4 CPU needed, 2 free: no_fit; A
        // 0.5, 0.6 (CPU 10); A no_fit. A 6 tasks, B 1: "ABAAAAA".
        // Alternation (DRF's share forced to 0: every key ties, the least
        // recently served goes) gives "ABAB" (CPU 10) and A 2, B 2.
        let sc = load_str(
            "resources: {cpu: 10, mem: 10}\nworkload:\n  - {tenant: A, count: 20, service: 1h, cost: {cpu: 1, mem: 1}}\n  - {tenant: B, count: 20, service: 1h, cost: {cpu: 4, mem: 1}}\npolicies: [drf]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        assert_eq!(kit.pick_n(40), "ABAAAAA");
        assert_eq!(kit.skips, ["B:no_fit", "A:no_fit"]);
    }

    #[test]
    fn the_weight_divides_the_dominant_share() {
        // 10 CPU; A (weight 1) and B (weight 4) both run <1 CPU> tasks: 0.1 of
        // the CPU each, so a task adds 0.1 to A's weighted share and 0.025 to
        // B's. A (tie at 0, A listed first) -> 0.1; B 0.025 .. 0.1 (4 tasks);
        // tie at 0.1, A older -> A 0.2; B 0.125 .. 0.2 (CPU 10); then nothing
        // fits. "ABBBBABBBB": A 2, B 8 = 1 : 4. Ignoring the weight alternates,
        // "ABABABABAB", 5 : 5.
        let sc = load_str(
            "resources: {cpu: 10}\ntenants: {A: {weight: 1}, B: {weight: 4}}\nworkload:\n  - {tenant: A, count: 20, service: 1h, cost: {cpu: 1}}\n  - {tenant: B, count: 20, service: 1h, cost: {cpu: 1}}\npolicies: [drf]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        assert_eq!(kit.pick_n(40), "ABBBBABBBB");
        assert_eq!(kit.skips, ["A:no_fit", "B:no_fit"]);
    }

    #[test]
    fn a_job_that_does_not_fit_does_not_block_another_tenant() {
        // 4 CPU. A holds 3 with its first job; its next job needs 3 and does not
        // fit, B's 1-CPU job does: B runs although A's job is older.
        let sc = load_str(
            "resources: {cpu: 4}\nworkload:\n  - {tenant: A, count: 2, service: 10s, cost: {cpu: 3}}\n  - {tenant: B, count: 1, at: 1s, service: 10s, cost: {cpu: 1}}\npolicies: [drf]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        // A (0) first, then B (0 < 3/4)
        let a = kit.pick().expect("A's first job");
        assert_eq!(kit.pick_n(5), "B");
        assert_eq!(kit.skips, ["A:no_fit"]);
        // A's first job ends: A is unparked and its second job fits.
        kit.finish(a);
        assert_eq!(kit.pick_n(5), "A");
    }

    #[test]
    fn the_worker_count_is_a_resource_of_the_dominant_share() {
        // 4 workers and 100 CPU. A's tasks take 30 CPU: a task adds 1/4 of
        // the workers and 0.3 of the CPU, dominant 0.3 per task; B's take 1
        // CPU, dominant the workers, 0.25 per task. A (tie at 0, A listed
        // first) -> 0.3; B 0 -> 0.25; B 0.25 < 0.3 -> 0.5; A 0.3 < 0.5 ->
        // max(2/4, 0.6) = 0.6; the 4 workers are busy: "ABBA". Counting the
        // workers as running x workers (or running mod workers, = running
        // below 4) instead of running / workers makes both shares 1 per task
        // and alternates: "ABAB".
        let sc = load_str(
            "workers: 4\nresources: {cpu: 100}\nworkload:\n  - {tenant: A, count: 9, service: 1h, cost: {cpu: 30}}\n  - {tenant: B, count: 9, service: 1h, cost: {cpu: 1}}\npolicies: [drf]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        assert_eq!(kit.pick_n(9), "ABBA");
        assert!(kit.skips.is_empty(), "{:?}", kit.skips);
    }

    #[test]
    fn a_parked_tenant_is_not_listed_again_by_a_new_job() {
        // 10 workers; A (cap 1) queues 2 jobs, B 2, at t = 0. A (tie at 0,
        // listed first) starts -> 0.1; B 0 -> 0.1; tie, A older: refused at
        // its cap, parked (one skip); B -> 0.2; B's queue is empty, A parked:
        // nothing more, "ABB". A third job of A arrives while A is parked: A
        // stays aside until the engine unparks it, so the next pick asks
        // nobody and the log keeps its single skip. Listing a parked tenant
        // on a push would ask the gate again: a second `A:at_cap`.
        let sc = load_str(
            "workers: 10\ntenants: {A: {cap: 1}}\nworkload:\n  - {tenant: A, count: 2, service: 1s}\n  - {tenant: B, count: 2, service: 1s}\n  - {tenant: A, count: 1, at: 1s, service: 1s}\npolicies: [drf]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_n(4);
        assert_eq!(kit.pick_n(9), "ABB");
        assert_eq!(kit.skips, ["A:at_cap"]);
        kit.push_n(1);
        assert_eq!(kit.pick_n(9), "");
        assert_eq!(kit.skips, ["A:at_cap"]);
    }

    #[test]
    fn a_finished_job_gives_its_share_back() {
        // 2 workers, no other resource: a running job is 1/2 of the pool. A
        // (tie at 0, listed first) -> 1/2, B -> 1/2. B's job ends: B is back
        // at 0 < A's 1/2, so B's next job takes the free worker. If the finish
        // were not subtracted, A and B would tie at 1/2 and A, whose share
        // changed first, would go: "A".
        let sc = load_str(
            "workers: 2\nworkload:\n  - {tenant: A, count: 5, service: 1s}\n  - {tenant: B, count: 5, service: 1s}\npolicies: [drf]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        let _a = kit.pick().expect("A starts");
        let b = kit.pick().expect("B starts");
        assert_eq!(kit.jobs.get(b).tenant, 1);
        kit.finish(b);
        assert_eq!(kit.pick_n(1), "B");
    }

    #[test]
    fn compacting_the_heap_keeps_every_listed_tenant() {
        // One worker, A and B with 200 jobs each, every job finished before
        // the next pick. Each finish relists its tenant at share 0 and leaves
        // its older entry (share 1) stale in the heap: one more stale entry per
        // job, so the heap passes 2 x 2 + 64 entries after about 66 jobs and is
        // compacted, more than once. Shares tie at 0 after every finish and the
        // tenant whose share changed least recently goes: A, B, A, B, ... for
        // all 400 jobs. A compaction that kept the stale entries and dropped
        // the live ones would leave nothing to pick after the first.
        let sc = load_str(
            "workers: 1\nworkload:\n  - {tenant: A, count: 200, service: 1s}\n  - {tenant: B, count: 200, service: 1s}\npolicies: [drf]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        let mut order = String::new();
        while let Some(slot) = kit.pick() {
            order.push(if kit.jobs.get(slot).tenant == 0 { 'A' } else { 'B' });
            kit.finish(slot);
        }
        assert_eq!(order, "AB".repeat(200));
    }
}

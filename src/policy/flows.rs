//! Flows: what the fair-share policies (drr, wfq, lottery, share) divide the
//! workers among — tenants (default) or classes (`over: class`) — and the
//! queues of each flow's claimable jobs.
//!
//! Caps and resource fit stay per tenant: the engine's gate refuses a job and
//! parks its *tenant*. With flows = tenants that simply sets the flow aside.
//! With flows = classes a class holds the jobs of many tenants, so each class
//! keeps one arrival-ordered queue per tenant plus a heap of the unparked
//! tenants' oldest jobs: the class offers its oldest job whose tenant is not
//! parked, without scanning the jobs of parked tenants. A tenant parked while
//! a class is being served is set aside in every class it has jobs in, so no
//! class proposes it again before the engine unparks it (O(classes) per park
//! and per unpark, never per dispatch, and never O(tenants)).

use std::cmp::Ordering;
use std::collections::{BTreeMap, VecDeque};

use super::slot_list::{SlotLinks, SlotList};
use crate::core::{Gate, Job, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{Param, ParamDefault, ParamKind, Params, Scenario, TenantId};
use crate::prefetch::prefetch_item;
use crate::quad_heap::QuadHeap;
use crate::time::SECOND;

/// Index of a flow: a tenant id or a class id, depending on [`Over`].
pub type FlowId = u32;

/// What a policy divides capacity among.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Over {
    Tenant,
    Class,
}

/// What one job costs a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cost {
    /// Every job costs the same (job-count fairness).
    Jobs,
    /// A job costs its service time (work fairness), or what its tenant
    /// declares of it (see [`super::charge`]).
    Work,
}

/// Cost units per job for `cost: jobs`, so both units are integers and one
/// job weighs as much as one second of work (a quantum of `1` means one job
/// or one second).
pub const UNITS_PER_JOB: u64 = SECOND;

/// `over`: what a fair-share policy divides the workers among.
pub const OVER: Param = Param {
    name: "over",
    kind: ParamKind::Word(&["tenant", "tenants", "class", "classes"]),
    default: ParamDefault::Word("tenant"),
    doc: "what the weights divide: tenants, or classes",
};

/// `cost`: what one job costs its flow.
pub const COST: Param = Param {
    name: "cost",
    kind: ParamKind::Word(&["jobs", "work"]),
    default: ParamDefault::Word("jobs"),
    doc: "jobs: every job costs 1 (job-count fairness); work: a job costs its service time",
};

/// The `over` of a spec.
pub fn parse_over(p: &Params) -> Result<Over, ParamError> {
    Ok(match p.get::<&str>(&OVER)? {
        "class" | "classes" => Over::Class,
        _ => Over::Tenant,
    })
}

/// The `cost` of a spec.
pub fn parse_cost(p: &Params) -> Result<Cost, ParamError> {
    Ok(match p.get::<&str>(&COST)? {
        "work" => Cost::Work,
        _ => Cost::Jobs,
    })
}

/// Number of flows and the weight of each.
pub fn weights(sc: &Scenario, over: Over) -> Vec<f64> {
    match over {
        Over::Tenant => sc.tenants.weights(),
        Over::Class => sc.classes.iter().map(|c| c.weight).collect(),
    }
}

/// An `f64` with a total order (via `total_cmp`), for keys such as virtual
/// finish tags and dominant shares. Keys are never NaN: they are built from
/// finite weights (> 0) and counts.
#[derive(Debug, Clone, Copy, Default)]
pub struct OrdF64(pub f64);

impl PartialEq for OrdF64 {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0) == Ordering::Equal
    }
}
impl Eq for OrdF64 {}
impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrdF64 {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Result of asking a flow for its next job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    /// The gate admitted this job; it has left the queue.
    Started(Slot),
    /// The flow has jobs, but every one belongs to a parked tenant.
    Blocked,
    /// The flow has no queued jobs.
    Empty,
}

/// One tenant's jobs inside one class, in arrival order.
#[derive(Debug, Default)]
struct Member {
    jobs: VecDeque<(u64, Slot)>,
    /// The class's head heap holds a live entry for this member's front job.
    listed: bool,
}

#[derive(Debug, Default)]
struct ClassQueue {
    /// Tenants with queued jobs in this class (entries are removed when empty).
    members: BTreeMap<TenantId, Member>,
    /// (arrival order, tenant) of each unparked member's front job; entries
    /// whose member was parked or served since are stale and skipped.
    heads: QuadHeap<(u64, TenantId)>,
    /// Members not parked: the class is claimable while this is > 0.
    unparked: usize,
    len: usize,
}

impl ClassQueue {
    fn list(&mut self, tenant: TenantId) {
        if let Some(m) = self.members.get_mut(&tenant) {
            if let Some(&(order, _)) = m.jobs.front() {
                m.listed = true;
                self.heads.push((order, tenant));
            }
        }
    }

    /// Drops stale heap tops; returns the live top without removing it.
    fn top(&mut self, parked: &[bool]) -> Option<(TenantId, Slot)> {
        while let Some(&(order, t)) = self.heads.peek() {
            if !parked[t as usize] {
                if let Some(m) = self.members.get(&t) {
                    if let Some(&(o, slot)) = m.jobs.front() {
                        if m.listed && o == order {
                            return Some((t, slot));
                        }
                    }
                }
            }
            self.heads.pop();
        }
        None
    }
}

/// The claimable jobs of every flow, with per-tenant parking.
#[derive(Debug)]
pub struct FlowQueues {
    over: Over,
    parked: Vec<bool>,
    /// `over: tenant`: each tenant's jobs in arrival order, linked through `links`.
    tenants: Vec<SlotList>,
    links: SlotLinks,
    /// `over: class`.
    classes: Vec<ClassQueue>,
    /// Arrival order of pushes (pushes happen in time order).
    next_order: u64,
}

impl FlowQueues {
    pub fn new(sc: &Scenario, over: Over) -> Self {
        let n = sc.tenants.len();
        FlowQueues {
            over,
            parked: vec![false; n],
            tenants: match over {
                Over::Tenant => vec![SlotList::default(); n],
                Over::Class => Vec::new(),
            },
            classes: match over {
                Over::Tenant => Vec::new(),
                Over::Class => (0..sc.classes.len()).map(|_| ClassQueue::default()).collect(),
            },
            links: SlotLinks::new(),
            next_order: 0,
        }
    }

    /// The flow a job belongs to.
    pub fn flow_of(&self, job: &Job) -> FlowId {
        match self.over {
            Over::Tenant => job.tenant,
            Over::Class => job.class as FlowId,
        }
    }

    /// Queues a job behind the other jobs of its flow; returns the flow.
    pub fn push(&mut self, job: &Job, slot: Slot) -> FlowId {
        let f = self.flow_of(job);
        match self.over {
            Over::Tenant => self.links.push_back(&mut self.tenants[f as usize], slot),
            Over::Class => {
                let order = self.next_order;
                self.next_order += 1;
                let t = job.tenant;
                let parked = self.parked[t as usize];
                let c = &mut self.classes[f as usize];
                c.len += 1;
                let m = c.members.entry(t).or_default();
                m.jobs.push_back((order, slot));
                if m.jobs.len() == 1 && !parked {
                    c.unparked += 1;
                    c.list(t);
                }
            }
        }
        f
    }

    /// Whether the flow has a job whose tenant is not parked.
    pub fn has_claimable(&self, f: FlowId) -> bool {
        match self.over {
            Over::Tenant => !self.parked[f as usize] && !self.tenants[f as usize].is_empty(),
            Over::Class => self.classes[f as usize].unparked > 0,
        }
    }

    /// The tenant whose job the flow would offer next (for skip reasons).
    pub fn next_tenant(&mut self, f: FlowId) -> Option<TenantId> {
        match self.over {
            Over::Tenant => self.has_claimable(f).then_some(f),
            Over::Class => self.classes[f as usize].top(&self.parked).map(|(t, _)| t),
        }
    }

    /// The job the flow would offer next and its tenant, without asking the
    /// gate (for [`super::Policy::explain`]; O(tenants of a class)).
    pub fn head(&self, f: FlowId) -> Option<(TenantId, Slot)> {
        match self.over {
            Over::Tenant => match self.parked[f as usize] {
                true => None,
                false => self.tenants[f as usize].front().map(|s| (f, s)),
            },
            Over::Class => self.classes[f as usize]
                .members
                .iter()
                .filter(|(t, _)| !self.parked[**t as usize])
                .filter_map(|(t, m)| m.jobs.front().map(|&(order, slot)| (order, *t, slot)))
                .min()
                .map(|(_, t, slot)| (t, slot)),
        }
    }

    /// Prefetches the queue a push of a job of `tenant` touches (flows of
    /// tenants; with flows of classes, the few class queues stay in cache).
    pub fn warm(&self, tenant: TenantId) {
        if self.over == Over::Tenant {
            prefetch_item(&self.tenants, tenant as usize);
        }
    }

    /// Prefetches the link a push of a job of `tenant` writes (flows of tenants).
    pub fn warm_back(&self, tenant: TenantId) {
        if let Some(list) = self.tenants.get(tenant as usize) {
            self.links.warm_back(list);
        }
    }

    /// The slot of the flow's oldest job, for a hint (flows of tenants only;
    /// `None` for classes). Prefetches for the two flows the hints after this
    /// one will read: `after`'s list ends, and the link that taking `then`'s
    /// front job reads, so that each step finds its data in the cache.
    pub fn hint(&self, f: FlowId, then: Option<FlowId>, after: Option<FlowId>) -> Option<Slot> {
        if self.over != Over::Tenant {
            return None;
        }
        if let Some(a) = after {
            prefetch_item(&self.tenants, a as usize);
        }
        if let Some(front) = then.and_then(|t| self.tenants.get(t as usize)).and_then(|q| q.front()) {
            self.links.warm(front);
        }
        self.tenants.get(f as usize)?.front()
    }

    /// Offers the flow's next job to the gate: the tenant's oldest job, or for
    /// a class its oldest job of an unparked tenant. A refused tenant is
    /// parked everywhere and, for a class, the next tenant's job is tried.
    pub fn take(&mut self, f: FlowId, jobs: &JobTable, gate: &mut Gate) -> Take {
        match self.over {
            Over::Tenant => {
                let t = f as usize;
                let Some(slot) = self.tenants[t].front() else {
                    return Take::Empty;
                };
                if self.parked[t] {
                    return Take::Blocked;
                }
                if gate.admit(jobs.get(slot)) {
                    self.links.pop_front(&mut self.tenants[t]);
                    Take::Started(slot)
                } else {
                    self.parked[t] = true;
                    Take::Blocked
                }
            }
            Over::Class => loop {
                let c = &mut self.classes[f as usize];
                let Some((t, slot)) = c.top(&self.parked) else {
                    return if c.len == 0 { Take::Empty } else { Take::Blocked };
                };
                if gate.admit(jobs.get(slot)) {
                    c.heads.pop();
                    c.len -= 1;
                    let m = c.members.get_mut(&t).expect("listed member exists");
                    m.jobs.pop_front();
                    if m.jobs.is_empty() {
                        c.members.remove(&t);
                        c.unparked -= 1;
                    } else {
                        c.list(t);
                    }
                    return Take::Started(slot);
                }
                self.park(t);
            },
        }
    }

    /// Sets a tenant aside in every class it has jobs in.
    fn park(&mut self, tenant: TenantId) {
        self.parked[tenant as usize] = true;
        for c in &mut self.classes {
            if let Some(m) = c.members.get_mut(&tenant) {
                m.listed = false;
                c.unparked -= 1;
            }
        }
    }

    /// Lets a parked tenant compete again; appends to `woke` the flows that
    /// were not claimable and now are.
    pub fn unpark(&mut self, tenant: TenantId, woke: &mut Vec<FlowId>) {
        let t = tenant as usize;
        if !self.parked[t] {
            return;
        }
        self.parked[t] = false;
        match self.over {
            Over::Tenant => {
                if !self.tenants[t].is_empty() {
                    woke.push(tenant);
                }
            }
            Over::Class => {
                for (i, c) in self.classes.iter_mut().enumerate() {
                    if c.members.contains_key(&tenant) {
                        c.unparked += 1;
                        c.list(tenant);
                        if c.unparked == 1 {
                            woke.push(i as FlowId);
                        }
                    }
                }
            }
        }
    }
}

/// FNV-1a hash of a policy label: the index of a policy's own random stream,
/// so the same label and seed give the same draws whatever other policies run.
pub fn label_hash(label: &str) -> u64 {
    label.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testkit::Kit;
    use crate::scenario::load_str;
    use std::path::Path;

    fn scenario(yaml: &str) -> Scenario {
        load_str(yaml, Path::new("t.yaml")).expect("valid scenario")
    }

    #[test]
    fn label_hash_is_fnv_1a() {
        // the FNV-1a 64-bit test vectors: the empty string is the offset
        // basis; "a" and "foobar" from the reference implementation's suite
        assert_eq!(label_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(label_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(label_hash("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn a_flow_that_runs_out_of_jobs_leaves_with_its_debt() {
        // drr, cost: work, quantum 1s, flows A and B (tenants, or one class
        // each). A's first visit (+1) runs its 3s job: deficit -2, and A has
        // no job left, so it leaves the rotation keeping the debt. B runs
        // three 1s jobs alone, with no skip. A's second job then arrives: A
        // rejoins behind B with -2, so its visits go -1 (skip), 0 (skip), +1
        // (runs): B B B A, skips A A. A flow believed claimable with no job
        // would stay in the rotation, be visited (and, as a tenant, noted)
        // while empty, and work its debt off before its job arrives.
        for (over, classes, x, y) in
            [("tenant", "", "", ""), ("class", "classes: {x: {}, y: {}}\n", ", class: x", ", class: y")]
        {
            let sc = scenario(&format!(
                "workers: 99\n{classes}workload:\n\
                 - {{tenant: A{x}, arrivals: {{batch: 1, at: 0s}}, service: 3s}}\n\
                 - {{tenant: B{y}, arrivals: {{batch: 6, at: 0s}}, service: 1s}}\n\
                 - {{tenant: A{x}, arrivals: {{batch: 1, at: 10s}}, service: 1s}}\n\
                 policies: [{{policy: drr, over: {over}, cost: work, quantum: 1s}}]\n"
            ));
            let mut kit = Kit::new(&sc);
            kit.push_n(7);
            assert_eq!(kit.pick_n(4), "ABBB", "over {over}");
            assert!(kit.skips.is_empty(), "over {over}: {:?}", kit.skips);
            kit.push_n(1);
            assert_eq!(kit.pick_n(4), "BBBA", "over {over}");
            assert_eq!(kit.skips, ["A:deficit", "A:deficit"], "over {over}");
        }
    }

    #[test]
    fn a_class_offers_its_oldest_job_of_an_unparked_tenant() {
        // drr over classes X and Y (quantum 1 job); A has cap 1. Arrivals, in
        // order: A's Y1 and Y2, B's X1 and X2, A's X1, B's X3, A's X2. Y is
        // first in the rotation (first arrival).
        // 1: Y runs A's Y1 (A at its cap). 2: X runs B's X1, the older job.
        // 3: Y's A job is refused: A is parked in Y and X; X runs B's X2.
        // A's Y1 ends: A is unparked in both. 4: X's oldest job is A's X1.
        // It ends. 5: Y runs A's Y2. It ends. 6: X's oldest job is B's X3,
        // older than A's X2: A B B A A B.
        // Class X's heap entry for A's X1 outlived A's parking (B's jobs were
        // above it), so unparking listed A's X1 a second time; a stale entry
        // taken as live would offer A's X2 in 6 at the place of A's X1.
        // Without arrival orders (all equal), ties by tenant id would offer
        // A's X2 before B's X3 in 6.
        let sc = scenario(concat!(
            "workers: 99\ntenants: {A: {cap: 1}, B: {}}\nclasses: {X: {}, Y: {}}\nworkload:\n",
            "  - {tenant: A, class: Y, arrivals: {batch: 2, at: 0s}, service: 1s}\n",
            "  - {tenant: B, class: X, arrivals: {batch: 2, at: 1s}, service: 1s}\n",
            "  - {tenant: A, class: X, arrivals: {batch: 1, at: 2s}, service: 1s}\n",
            "  - {tenant: B, class: X, arrivals: {batch: 1, at: 3s}, service: 1s}\n",
            "  - {tenant: A, class: X, arrivals: {batch: 1, at: 4s}, service: 1s}\n",
            "policies: [{policy: drr, over: class}]\n",
        ));
        let mut kit = Kit::new(&sc);
        kit.push_all();
        let y1 = kit.pick().expect("A's Y1");
        let mut order = sc.tenants.name(kit.jobs.get(y1).tenant).to_string();
        order += &kit.pick_n(2);
        kit.finish(y1);
        for _ in 0..2 {
            let a = kit.pick().expect("A's X1, then Y2");
            order.push_str(&sc.tenants.name(kit.jobs.get(a).tenant));
            kit.finish(a);
        }
        order += &kit.pick_n(1);
        assert_eq!(order, "ABBAAB");
        assert_eq!(kit.skips, ["A:at_cap"]);
    }
}

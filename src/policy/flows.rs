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
    /// A job costs its service time (work fairness).
    Work,
}

/// Cost units per job for `cost: jobs`, so both units are integers and one
/// job weighs as much as one second of work (a quantum of `1` means one job
/// or one second).
pub const UNITS_PER_JOB: u64 = SECOND;

impl Cost {
    /// The job's cost in integer units: microseconds of service for `work`,
    /// [`UNITS_PER_JOB`] for `jobs`.
    pub fn units(self, job: &Job) -> u64 {
        match self {
            Cost::Jobs => UNITS_PER_JOB,
            Cost::Work => job.service,
        }
    }
}

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

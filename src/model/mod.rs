//! The validated, typed scenario: every name resolved to an index, every
//! duration in microseconds. Nothing downstream of the loader
//! ([`crate::scenario`]) sees YAML.
//!
//! [`workload`] holds the generator entries, [`trace`] the trace-replay
//! entries, [`policy`] the policy entries with their typed parameters.

pub mod admission;
pub mod costs;
pub mod faults;
pub mod objectives;
pub mod policy;
pub mod profile;
mod refusals;
pub mod tenants;
pub mod topology;
pub mod trace;
pub mod workload;

pub use admission::{Action, AdmissionChoice, AdmissionRule, AdmissionSet, Bound, Limit, Predictor, Scope};
pub use costs::Costs;
pub use faults::{Backoff, CapacityChange, Loss, RetrySpec, Slowdown};
pub use objectives::{Direction, Limit as ObjectiveLimit, Measure, Objective, TenantScope};
pub use policy::{Param, ParamDefault, ParamKind, Params, PolicySpec, Spare, Value};
pub use profile::{Bursts, RateProfile};
pub use tenants::{GeneratedSet, TenantChange, TenantSpec, Tenants, MAX_TENANTS};
pub use topology::{
    queue_of_class, Busy, Handoff, PlannerSpec, Poll, PoolId, PoolSpec, Prefetch, PresetNote, QueueId,
    RouteAction, RouteRule, StartGroup, StartLimit, Throttle, TopologySpec, MAX_QUEUES,
};
pub use trace::{CsvColumns, EventKind, EventLog, Spill, TimeFormat, TraceFormat, TraceScan, TraceSpec};
pub use workload::{
    pareto_mean, ArrivalSpec, Declared, EntrySpec, FailureSpec, Histogram, ServiceSpec, Slicing,
};

use std::path::PathBuf;

use crate::time::Time;

/// Index of a tenant in [`Scenario::tenants`] (declaration order).
pub type TenantId = u32;
/// Index of a class in [`Scenario::classes`]; class 0 is always `default`.
pub type ClassId = u16;

/// Maximum number of resource dimensions a pool may declare (besides workers).
pub const MAX_RESOURCES: usize = 4;
/// A resource vector: one amount per dimension in [`Scenario::resources`];
/// unused dimensions are 0.
pub type Res = [u64; MAX_RESOURCES];

/// A whole scenario, ready to simulate.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Output folder name (`output/<name>/`).
    pub name: String,
    /// The file it was loaded from (for messages and the report).
    pub source: PathBuf,
    /// Root seed; each workload entry derives its own stream from (seed, entry index).
    pub seed: u64,
    /// Number of workers: the maximum number of jobs running at once.
    /// `u32::MAX` when the scenario declares only resource `capacity`.
    pub workers: u32,
    /// Named resource dimensions and their capacity (e.g. cpu 9, mem 18); empty by default.
    pub resources: Vec<(String, u64)>,
    /// Observation-log granularity: one `ticks.csv` row per tick.
    pub tick: Time,
    /// Length of a fairness window (one Jain's index each); `log: {window}`,
    /// by default the tick.
    pub window: Time,
    /// Tenants in declaration order; tenants referenced only by the workload are
    /// appended in order of first reference (weight 1, no cap).
    pub tenants: Tenants,
    /// Classes; index 0 is `default` (priority 5, weight 1) unless the scenario
    /// declares `default` itself.
    pub classes: Vec<ClassSpec>,
    /// Workload entries in file order.
    pub workload: Vec<EntrySpec>,
    /// Trace-replay entries (`- trace: {...}` in `workload`, or `--trace FILE`),
    /// in file order. Merged with the generators; at one instant generator
    /// arrivals come first, then traces in this order.
    pub traces: Vec<TraceSpec>,
    /// Policies in file order (labels unique).
    pub policies: Vec<PolicySpec>,
    /// Named topologies (`topologies:`), in file order; a policy entry picks
    /// one with `topology: NAME` (see [`PolicySpec::topology`]).
    pub topologies: Vec<TopologySpec>,
    /// The topologies processor presets wrote, and how (for `validate`).
    pub presets: Vec<PresetNote>,
    /// The topology of the run this copy of the scenario is for (see
    /// [`Scenario::for_run`]); `None` as loaded, and for the default topology.
    pub topology: Option<usize>,
    /// Admission rules (`admission:`), checked in order at each arrival.
    /// In the copy [`Scenario::for_run`] makes for a policy entry with its
    /// own `admission:`, that entry's rules.
    pub admission: Vec<AdmissionRule>,
    /// Worker count changes (`capacity:`), by time.
    pub capacity: Vec<CapacityChange>,
    /// Dependency slowdowns (`slowdowns:`).
    pub slowdowns: Vec<Slowdown>,
    /// Backoff and budget of retries after failed attempts (`retry:`).
    pub retry: Option<RetrySpec>,
    /// Named rule sets (`admission_sets:`) a policy entry may pick instead.
    pub admission_sets: Vec<AdmissionSet>,
    /// What must hold for an entry to pass (`objectives:`), in file order;
    /// empty when the scenario declares none.
    pub objectives: Vec<Objective>,
    /// The default pool's dispatch costs (top-level `costs:`); topology
    /// pools carry their own, this filled in for the keys they leave out.
    pub costs: Costs,
    /// The default pool's start limiter (top-level `limiter:`); a
    /// topology's pools have their own.
    pub limiter: Option<StartLimit>,
    /// Limits on the starts of groups of tenants (`start_limits:`), under
    /// every topology; a tenant is in at most one group.
    pub start_limits: Vec<StartGroup>,
    /// What the run's entries use, in the copy [`Scenario::for_run`] makes:
    /// that copy's own rules are its entry's, so it can no longer tell
    /// whether another entry has admission. `None` as loaded (then
    /// [`Scenario::features`] works it out from the entries).
    pub features: Option<Features>,
}

/// The features some entry of a run uses, decided over every entry so that
/// each entry's log files have the same columns (a column whose feature no
/// entry uses is left out; `accounting::logs::columns`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Features {
    /// Some entry runs under a topology (`queue`, `pool` columns).
    pub topology: bool,
    /// Some entry has admission rules (`admission_rule`).
    pub admission: bool,
    /// The scenario replays a trace (`trace_id`).
    pub trace: bool,
}

impl Scenario {
    /// The scenario as one policy's run sees it: under a topology, a copy
    /// whose `workers` is the pools' total and whose `topology` is set; for
    /// an entry with its own `admission:`, a copy with those rules; for an
    /// entry with its own `tenants:`, a copy whose tenants carry that
    /// entry's weights and caps (so the engine's caps, the weighted
    /// policies, the topology and the accounting all read the entry's).
    pub fn for_run(&self, spec: &PolicySpec) -> std::borrow::Cow<'_, Scenario> {
        if spec.topology.is_none() && spec.admission == AdmissionChoice::Shared && spec.tenants.is_empty() {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut sc = self.clone();
        sc.features = Some(self.features());
        if let Some(i) = spec.topology {
            sc.workers = self.topologies[i].workers();
            sc.topology = Some(i);
        }
        match spec.admission {
            AdmissionChoice::Shared => {}
            AdmissionChoice::Off => sc.admission.clear(),
            AdmissionChoice::Set(i) => sc.admission.clone_from(&self.admission_sets[i].rules),
        }
        for change in &spec.tenants {
            sc.tenants.apply(change);
        }
        std::borrow::Cow::Owned(sc)
    }

    /// What the run's entries use, over every entry (see [`Features`]).
    /// The copy for one run also counts what that run itself uses, so an
    /// entry run on its own (the benches, tests) still has its columns.
    pub fn features(&self) -> Features {
        let entries = self.features.unwrap_or_else(|| Features {
            topology: self.policies.iter().any(|p| p.topology.is_some()),
            admission: self.policies.iter().any(|p| match p.admission {
                AdmissionChoice::Shared => !self.admission.is_empty(),
                AdmissionChoice::Off => false,
                AdmissionChoice::Set(i) => self.admission_sets.get(i).is_some_and(|s| !s.rules.is_empty()),
            }),
            trace: !self.traces.is_empty(),
        });
        Features {
            topology: entries.topology || self.topology.is_some(),
            admission: entries.admission || !self.admission.is_empty(),
            trace: entries.trace || !self.traces.is_empty(),
        }
    }

    /// The topology of this run, if any.
    pub fn run_topology(&self) -> Option<&TopologySpec> {
        self.topology.map(|i| &self.topologies[i])
    }

    /// The dispatch costs of pool `p` in this run (the default pool's
    /// without a topology).
    pub fn pool_costs(&self, p: PoolId) -> Costs {
        match self.run_topology() {
            Some(t) => t.pools.get(p as usize).map_or(self.costs, |pool| pool.costs),
            None => self.costs,
        }
    }

    /// Whether the scenario declares dispatch costs anywhere (then every
    /// run's `pools.csv` reports overhead, so their columns line up).
    pub fn declares_costs(&self) -> bool {
        self.costs.any() || self.topologies.iter().flat_map(|t| &t.pools).any(|p| p.costs.any())
    }

    /// Whether a start limit may hold claimable work back while a worker
    /// of the run is free: the default pool's limiter (without a
    /// topology) or a group's.
    pub fn limits_starts(&self) -> bool {
        !self.start_limits.is_empty() || (self.limiter.is_some() && self.run_topology().is_none())
    }

    /// Whether any pool of this run has a dispatch cost or a poll interval.
    pub fn uses_costs(&self) -> bool {
        match self.run_topology() {
            Some(t) => t.pools.iter().any(|p| p.costs.any()),
            None => self.costs.any(),
        }
    }
}

/// One job class.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassSpec {
    pub name: String,
    /// Lower number runs first (1 before 5), as in Solid Queue.
    pub priority: i32,
    /// Relative share for class-level weighted policies (> 0).
    pub weight: f64,
    /// Wait beyond which a job counts as a starvation event (optional).
    pub sla: Option<Time>,
}

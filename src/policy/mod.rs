//! Ordering policies: which claimable job runs next.
//!
//! A policy owns its backlog index and answers `pick`. The engine owns
//! everything else: caps and resource fit are checked through the
//! [`Gate`], and a tenant that fails a check is *parked*: the policy sets it
//! aside (no further scans) until the engine calls [`Policy::unpark`].
//! This keeps each dispatch O(1) or O(log n) in active tenants.

mod aging;
mod bands;
mod compose;
mod drf;
mod drr;
mod edf;
mod fifo;
pub mod flows;
mod hierarchical;
mod keyed;
pub mod lottery;
mod priority;
mod reserve;
mod round_robin;
mod share;
mod slot_list;
#[cfg(test)]
mod testkit;
mod wfq;

use crate::engine::{Gate, Job, JobTable, Slot};
use crate::scenario::{PolicyParams, PolicySpec, Scenario, TenantId};
use crate::time::Time;

pub use keyed::KeyedQueue;

/// An ordering policy.
pub trait Policy {
    /// A job became claimable (arrived, or re-queued after a failed attempt).
    fn push(&mut self, job: &Job, slot: Slot, now: Time);
    /// Removes and returns the next job to start, or `None` when no job it
    /// holds may start now. Must call `gate.admit(job)` for the job it
    /// proposes and, when refused, park that job's tenant and try the next.
    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot>;
    /// A parked tenant may be claimable again: put it back in the running.
    fn unpark(&mut self, tenant: TenantId, jobs: &JobTable, now: Time);
    /// A started job finished an attempt (for policies that account service).
    fn on_finish(&mut self, _job: &Job, _now: Time) {}
    /// Whether the policy promises never to leave a worker idle while a
    /// claimable job that fits is waiting (checked by the audit).
    fn work_conserving(&self) -> bool {
        true
    }
    /// The next time the policy wants to be asked again even if nothing else
    /// happens (planners, throttles); `None` when it does not need a timer.
    fn next_wakeup(&self) -> Option<Time> {
        None
    }
    /// A cheap guess, from what the policy has at hand, of the job (and its
    /// tenant) that its next `pick` will propose; `None` when it has no
    /// guess. The engine only prefetches their memory (see
    /// [`crate::prefetch`]), so a wrong or stale guess costs nothing but
    /// the hint; a policy may also prefetch its own state for that pick here.
    fn next_hint(&self) -> Option<(Slot, TenantId)> {
        None
    }
    /// A job of `tenant` arrives soon: prefetch what `push` will touch for
    /// it (see [`crate::prefetch`]). Must not change state.
    fn warm_tenant(&self, _tenant: TenantId) {}
    /// Second stage of [`Policy::warm_tenant`], a few arrivals later, when
    /// what the first stage loaded is in the cache: prefetch what `push`
    /// reaches through it (the back of the tenant's queue, which a push
    /// links the new job behind). Must not change state.
    fn warm_queue_back(&self, _tenant: TenantId) {}
}

/// Builds a policy from its spec; `Err` is a message for the user.
pub type Builder = fn(&PolicySpec, &Scenario) -> Result<Box<dyn Policy>, String>;

/// Description of a registered policy, for `fairsim policies` and validation.
pub struct PolicyInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// (parameter, meaning) pairs it accepts besides `label` and `spare`.
    pub params: &'static [(&'static str, &'static str)],
    pub build: Builder,
}

/// Every policy fairsim knows, in the order `fairsim policies` lists them.
pub fn registry() -> &'static [PolicyInfo] {
    &[
        PolicyInfo {
            name: "fifo",
            summary: "one global queue in arrival order (the oldest claimable job runs next)",
            params: &[],
            build: fifo::build,
        },
        PolicyInfo {
            name: "priority",
            summary: "strict priority by class (lower number first), arrival order within a class",
            params: &[("then", "policy ordering the tenants inside each class, e.g. round_robin (default: arrival order)")],
            build: priority::build,
        },
        PolicyInfo {
            name: "round_robin",
            summary: "one job per tenant per turn, rotating over tenants with claimable work",
            params: &[("order", "rotation order: a list of tenant names (default: declaration order)")],
            build: round_robin::build,
        },
        PolicyInfo {
            name: "aging",
            summary: "class priority minus one level per `step` waited (at most `max_boost` levels); bounds the wait of low classes",
            params: &[
                ("step", "wait that earns one level of boost (default 1m)"),
                ("max_boost", "most levels a wait can earn (default 3)"),
            ],
            build: aging::build,
        },
        PolicyInfo {
            name: "bands",
            summary: "priority with a floor: each class with a floor gets at least that fraction of the dispatches over a rolling window, strict priority for the rest",
            params: &[
                ("floor", "minimum fraction of dispatches per class, e.g. {bulk: 0.1}"),
                ("window", "rolling window the floors are measured over (default 1m)"),
                ("then", "policy ordering the tenants inside each class, e.g. round_robin (default: arrival order)"),
            ],
            build: bands::build,
        },
        PolicyInfo {
            name: "reserve",
            summary: "reserved capacity with borrowing: `workers` held for `class`, lent to others while that class has no queued job; arrival order otherwise",
            params: &[
                ("class", "the class the workers are reserved for (required)"),
                ("workers", "how many workers are reserved (default 1)"),
            ],
            build: reserve::build,
        },
        PolicyInfo {
            name: "edf",
            summary: "earliest deadline first (or least slack first); jobs without a deadline last; optionally drops jobs that can no longer make it",
            params: &[
                ("order", "`deadline` (default) or `slack` (deadline - now - service)"),
                ("late", "`run` (default): run late jobs anyway; `drop`: expire a job whose slack is negative when it would start"),
            ],
            build: edf::build,
        },
        PolicyInfo {
            name: "hierarchical",
            summary: "strict class priority, then a tenant-level policy inside each class (same as priority with `then`)",
            params: &[
                ("over", "grouping of the top level: only `classes`"),
                ("then", "policy ordering the tenants inside each class (default round_robin)"),
            ],
            build: hierarchical::build,
        },
        PolicyInfo {
            name: "drr",
            summary: "deficit round robin: each visit adds quantum x weight of credit; jobs run while it is positive",
            params: &[
                ("over", "tenant (default) or class: what the weights divide"),
                ("cost", "jobs (default: every job costs 1) or work (a job costs its service time)"),
                ("quantum", "credit per visit per unit of weight: jobs, or seconds for cost: work (default 1 job; for work the mean service time)"),
            ],
            build: drr::build,
        },
        PolicyInfo {
            name: "wfq",
            summary: "weighted fair queueing: smallest virtual finish tag max(F_prev, V) + L/weight first (self-clocked V)",
            params: &[
                ("over", "tenant (default) or class: what the weights divide"),
                ("cost", "jobs (default: L = 1) or work (L = service seconds)"),
            ],
            build: wfq::build,
        },
        PolicyInfo {
            name: "lottery",
            summary: "weighted random choice among flows with claimable work (seeded, O(log n) Fenwick draw)",
            params: &[("over", "tenant (default) or class: what the weights divide")],
            build: lottery::build,
        },
        PolicyInfo {
            name: "share",
            summary: "stateless: the flow whose service in the recent window is furthest below weight / total weight",
            params: &[
                ("over", "tenant (default) or class: what the weights divide"),
                ("cost", "jobs (default) or work: how service in the window is counted"),
                ("window", "how far back service counts (default 1m)"),
            ],
            build: share::build,
        },
        PolicyInfo {
            name: "drf",
            summary: "dominant resource fairness: the tenant with the smallest dominant share / weight whose job fits",
            params: &[],
            build: drf::build,
        },
    ]
}

/// Looks a policy up by name.
pub fn find(name: &str) -> Option<&'static PolicyInfo> {
    registry().iter().find(|p| p.name == name)
}

/// Names of the parameters a spec sets.
fn params_set(p: &PolicyParams) -> Vec<&'static str> {
    let mut v = Vec::new();
    if p.order.is_some() || p.edf_order.is_some() {
        v.push("order");
    }
    for (name, set) in [
        ("over", p.over.is_some()),
        ("cost", p.cost.is_some()),
        ("quantum", p.quantum.is_some()),
        ("step", p.step.is_some()),
        ("max_boost", p.max_boost.is_some()),
        ("window", p.window.is_some()),
        ("floor", p.floors.is_some()),
        ("class", p.class.is_some()),
        ("workers", p.workers.is_some()),
        ("late", p.late.is_some()),
        ("then", p.then.is_some()),
    ] {
        if set {
            v.push(name);
        }
    }
    v
}

/// Checks that `spec.kind` is a known policy and that it sets only parameters
/// that policy accepts. Returns a message naming the valid choices on error.
pub fn validate_params(spec: &PolicySpec) -> Result<(), String> {
    let Some(info) = find(&spec.kind) else {
        let names: Vec<&str> = registry().iter().map(|p| p.name).collect();
        return Err(format!(
            "unknown policy `{}`; choose one of: {} (see `fairsim policies`)",
            spec.kind,
            names.join(", ")
        ));
    };
    for name in params_set(&spec.params) {
        if !info.params.iter().any(|(p, _)| *p == name) {
            let valid: Vec<&str> = info.params.iter().map(|(p, _)| *p).collect();
            let valid = if valid.is_empty() { "none".to_string() } else { valid.join(", ") };
            return Err(format!(
                "policy `{}` does not take `{name}`; its parameters are: {valid} (plus label, spare)",
                spec.kind
            ));
        }
    }
    flows::check_values(&spec.params)?;
    Ok(())
}

/// Builds the policy a spec describes.
pub fn build(spec: &PolicySpec, scenario: &Scenario) -> Result<Box<dyn Policy>, String> {
    validate_params(spec)?;
    let info = find(&spec.kind).ok_or_else(|| format!("unknown policy `{}`", spec.kind))?;
    (info.build)(spec, scenario)
}

#[cfg(test)]
mod hint_tests {
    use super::testkit::Kit;
    use crate::scenario::load_str;
    use std::path::Path;

    /// Picks everything and counts how often `next_hint` named the job the
    /// pick then proposed (slot and tenant), and how often it had no guess.
    fn hits_and_misses(policy: &str) -> (usize, usize, usize) {
        // A (weight 3) 6 jobs, B (2) 4, C (1) 2, all at t = 0, no caps:
        // nothing arrives or is refused between a hint and its pick.
        let yaml = format!(
            "workers: 99\ntenants:\n  A: {{weight: 3}}\n  B: {{weight: 2}}\n  C: {{weight: 1}}\nworkload:\n  - {{tenant: A, count: 6, service: 1s}}\n  - {{tenant: B, count: 4, service: 1s}}\n  - {{tenant: C, count: 2, service: 1s}}\npolicies: [{policy}]\n"
        );
        let sc = load_str(&yaml, Path::new("t.yaml")).expect("valid scenario");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        let (mut hit, mut none, mut wrong) = (0, 0, 0);
        loop {
            let hint = kit.policy.next_hint();
            let Some(slot) = kit.pick() else { break };
            match hint {
                Some(h) if h == (slot, kit.jobs.get(slot).tenant) => hit += 1,
                Some(_) => wrong += 1,
                None => none += 1,
            }
        }
        (hit, none, wrong)
    }

    #[test]
    fn hints_name_the_next_pick_when_nothing_happens_in_between() {
        // fifo, drr and wfq know their next job before every pick: 12 of 12.
        for p in ["fifo", "drr", "wfq"] {
            assert_eq!(hits_and_misses(p), (12, 0, 0), "{p}");
        }
        // round_robin merges newcomers into its rotation at the start of a
        // pick, so before the first pick it has no guess: 11 of 12.
        assert_eq!(hits_and_misses("round_robin"), (11, 1, 0));
        // a policy without hints guesses nothing
        assert_eq!(hits_and_misses("lottery"), (0, 12, 0));
    }
}

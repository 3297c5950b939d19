//! Ordering policies: which claimable job runs next.
//!
//! A policy owns its backlog index and answers `pick`. The engine owns
//! everything else: caps and resource fit are checked through the
//! [`Gate`], and a tenant that fails a check is *parked*: the policy sets it
//! aside (no further scans) until the engine calls [`Policy::unpark`].
//! This keeps each dispatch O(1) or O(log n) in active tenants.
//!
//! A new policy is one file declaring `pub const INFO: PolicyInfo` (name,
//! summary, parameter schema, builder) plus one line in [`registry`]. The
//! sources the policies come from are cited by the short names of
//! docs/background.md ("the backpressure article", ...).

mod aging;
mod bands;
pub mod charge;
mod compose;
mod drf;
mod drr;
mod edf;
mod fifo;
pub mod flows;
mod hierarchical;
mod hints;
mod keyed;
pub mod lottery;
mod priority;
mod ranking;
mod registry;
mod reserve;
mod round_robin;
mod share;
mod slot_list;
#[cfg(test)]
pub(crate) mod testkit;
mod wfq;

use crate::core::{Gate, Job, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{Param, PolicySpec, PoolId, QueueId, Scenario, TenantId};
use crate::time::Time;

pub use hints::Hints;
pub use keyed::KeyedQueue;
pub use ranking::{Ask, Candidate, Explain, KeyKind};
pub use registry::{closest, find, policies_markdown, policies_text, registry, unknown_policy};

/// An ordering policy: the order jobs start in and the promises about it.
/// What it may add besides, each in its own trait with honest defaults:
/// cache [`Hints`] (none) and its [`Explain`]ation for `--decisions`
/// (none).
pub trait Policy: Hints + Explain {
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
    /// As [`Policy::on_finish`] (also said of a claim refused under
    /// `on_cap: {delay}`), but the worker stays busy (a dispatch cost) until
    /// [`Policy::release`]; policies that do not track workers need not care.
    fn on_finish_held(&mut self, job: &Job, now: Time) {
        self.on_finish(job, now);
    }
    /// A claim of `job` refused at its tenant's cap under `on_cap: {delay}`:
    /// to the ordering it ended at once (nothing ran). `held`: a refusal
    /// cost keeps the worker busy until [`Policy::release`].
    fn on_refused(&mut self, job: &Job, now: Time, held: bool) {
        match held {
            true => self.on_finish_held(job, now),
            false => self.on_finish(job, now),
        }
    }
    /// An attempt of `job` ran for `ran` (slowed down, or stopped early),
    /// told before its [`Policy::on_finish`]; only a topology, which reports
    /// each pool's busy time, needs it.
    fn on_ran(&mut self, _job: &Job, _ran: Time) {}
    /// The worker held after job `seq` (id) in pool `pool` is free again.
    fn release(&mut self, _seq: u64, _pool: PoolId, _now: Time) {}
    /// After a dispatch at `now` under dispatch costs: workers still free
    /// found nothing (pools with a poll interval put them to sleep).
    fn after_dispatch(&mut self, _now: Time) {}
    /// Whether the policy takes jobs ahead of free workers (a topology's
    /// pools that reserve ahead); asked once per run, so others pay nothing.
    fn reserves_ahead(&self) -> bool {
        false
    }
    /// At every dispatch of a run whose policy [`Policy::reserves_ahead`],
    /// whether a worker is free or not: lets it take jobs for its nodes.
    /// Taken jobs stay queued for the engine until `pick` returns them.
    fn reserve(&mut self, _jobs: &JobTable, _gate: &mut Gate, _now: Time) {}
    /// Whether the policy promises never to leave a worker idle while a
    /// claimable job that fits is waiting (checked by the audit).
    fn work_conserving(&self) -> bool {
        true
    }
    /// Whether the policy promises turn-taking among claimable tenants (no
    /// tenant served twice while another waits its turn without a logged
    /// reason), which the audit then checks.
    fn promises_rotation(&self) -> bool {
        false
    }
    /// The next time the policy wants to be asked again even if nothing else
    /// happens (planners, throttles); `None` when it does not need a timer.
    fn next_wakeup(&self) -> Option<Time> {
        None
    }
    /// Called at the time [`Policy::next_wakeup`] named, after that
    /// instant's completions and arrivals and before its dispatch. A policy
    /// that moves jobs between its own stages may mark when a job became
    /// claimable (`ready`), as the planner does on promotion.
    fn on_wakeup(&mut self, _jobs: &mut JobTable, _now: Time) {}
    /// Whether [`Policy::next_wakeup`] can ever return a time (so that a
    /// topology asks only the queues whose policy may wake).
    fn may_wake(&self) -> bool {
        false
    }
    /// Under a topology, the queue and pool of the job in `slot` that the
    /// last `pick` returned.
    fn placement(&self, _slot: Slot) -> (QueueId, PoolId) {
        (0, 0)
    }
    /// Whether the policy ever asks for running attempts to be stopped
    /// (asked once per run, so others pay nothing).
    fn preempts(&self) -> bool {
        false
    }
    /// With every worker busy: how many running attempts the policy wants
    /// stopped now, and what stopping one keeps.
    fn preemption(&self) -> Option<Preemption> {
        None
    }
    /// Whether the running attempt of `job` may be stopped.
    fn preemptible(&self, _job: &Job) -> bool {
        false
    }
}

/// Running attempts a policy wants stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preemption {
    pub count: u32,
    /// `None`: the job's progress is lost (it restarts); `Some(c)`: it keeps
    /// its progress less `c`, the work since its last checkpoint.
    pub checkpoint: Option<Time>,
}

/// Builds a policy from its spec and the scenario.
pub type Builder = fn(&PolicySpec, &Scenario) -> Result<Box<dyn Policy>, ParamError>;

/// A policy fairsim knows: its name, a one-line summary, the schema of its
/// parameters and its builder. Each policy file declares one as `INFO`, and
/// [`registry`] lists them.
pub struct PolicyInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// The parameters it accepts besides `label` and `spare`.
    pub params: &'static [Param],
    pub build: Builder,
}

impl PolicyInfo {
    /// The schema entry of parameter `name`.
    pub fn param(&self, name: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.name == name)
    }
}

/// Builds the policy a spec describes.
pub fn build(spec: &PolicySpec, scenario: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    let info = find(&spec.kind).ok_or_else(|| ParamError::from(unknown_policy(&spec.kind)))?;
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

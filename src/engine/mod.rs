//! The discrete-event engine: clock, events, workers, job lifecycle.
//!
//! # Event order
//! Time is an integer number of microseconds. At one instant the engine
//! handles, in this order:
//! 1. completions, by (finish time, job id);
//! 2. the close of a log tick that ends at this instant (so a job finishing
//!    exactly at a tick boundary counts in the tick that ends there);
//! 3. arrivals, in stream order (time, workload entry, order within entry);
//! 4. dispatch: while a worker is free and the policy proposes a job the
//!    gate admits, start it.
//!
//! # Decisions
//! Admission (the [`Admission`] rules) -> ordering (the [`Policy`]) ->
//! placement (a free worker and the job's resource vector, checked by the
//! [`Gate`]) -> execution (start, finish, fail and retry, charged to the same
//! tenant) -> accounting (the [`Recorder`]).

mod arrivals;
mod audit;
mod costs;
mod decisions;
mod dispatch;
mod faults;
mod limits;
mod parked;
mod retry;
mod slicing;

use std::collections::VecDeque;
use std::path::Path;

pub use audit::Audit;
pub use decisions::{Decision, DecisionSink, Other, OTHERS};
use slicing::Sliced;

use crate::accounting::{Recorder, RunStats, Snapshot};
use crate::admission::{rules::Rules, AcceptAll, Admission};
use crate::core::{Arrival, Job, JobState, JobTable, Outcome, Skip, Slot, TenantLoad};
use crate::error::Result;
use crate::model::{Res, Scenario, Spare, TenantId, MAX_RESOURCES};
use crate::policy::Policy;
use crate::prefetch::prefetch_item;
use crate::quad_heap::QuadHeap;
use crate::time::Time;
use crate::workload::stream::Source;

/// Arrivals read ahead of the clock (see [`Engine::read_ahead`]): enough for
/// the prefetches of a burst of arrivals at one instant to overlap.
const READ_AHEAD: usize = 8;

/// Capacity of the pool as a resource vector (workers are counted separately).
fn capacity(sc: &Scenario) -> Res {
    let mut r = [0; MAX_RESOURCES];
    for (i, (_, c)) in sc.resources.iter().enumerate() {
        r[i] = *c;
    }
    r
}

/// A running attempt, ordered by (finish time, job id) packed into one `u128`
/// so the heap compares with one instruction pair instead of a tuple's
/// branches (job ids are unique, so keys are too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Attempt {
    key: u128,
    slot: Slot,
}

impl Attempt {
    fn new(finish: Time, seq: u64, slot: Slot) -> Self {
        Attempt { key: (finish as u128) << 64 | seq as u128, slot }
    }

    fn finish(&self) -> Time {
        (self.key >> 64) as Time
    }
}

impl Ord for Attempt {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

impl PartialOrd for Attempt {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// One simulation of one policy.
pub struct Engine<'s> {
    sc: &'s Scenario,
    admission: Box<dyn Admission>,
    /// Whether admission counts queued jobs (and must hear when one leaves).
    admission_counts: bool,
    put_off: arrivals::PutOff,
    policy: Box<dyn Policy + 's>,
    spare: Spare,
    /// Whether the policy places jobs in queues and pools (a topology).
    placed: bool,
    /// The run's own slicing (a policy entry's `slice`), for jobs whose
    /// entry sets none.
    run_slice: Option<crate::model::Slicing>,
    /// `on_cap: {delay}`: a job refused at its tenant's cap comes back this
    /// much later; the refused jobs waiting it out, by (time, job id, slot,
    /// the claimable time it comes back with).
    cap_delay: Option<Time>,
    delayed: std::collections::BinaryHeap<std::cmp::Reverse<(Time, u64, Slot, Time)>>,
    /// `on_cap: {refuse: each}`: every claim at the cap is refused, and a
    /// refused job comes back in its place (see [`Engine::delay_refused`]).
    refuse_each: bool,
    /// Refused jobs waiting out their delay, per tenant (the log lists
    /// these tenants `delayed`).
    delayed_tenants: std::collections::BTreeMap<TenantId, u64>,
    now: Time,
    jobs: JobTable,
    loads: Vec<TenantLoad>,
    free_workers: u32,
    free_res: Res,
    /// Running attempts by (finish time, job id).
    running: QuadHeap<Attempt>,
    queued_total: u64,
    parked_at_cap: Vec<TenantId>,
    parked_no_fit: Vec<TenantId>,
    gate_parked: Vec<TenantId>,
    skips: Vec<(TenantId, Skip)>,
    expired: Vec<Slot>,
    /// Jobs that run in slices, by slot; `job.service` holds the current slice.
    sliced: std::collections::HashMap<Slot, Sliced>,
    next_seq: u64,
    rec: Recorder,
    progress: Option<&'s dyn Fn(Time, u64)>,
    audit: Option<Audit>,
    faults: faults::Faults<'s>,
    /// Whether the policy may ask for running attempts to be stopped.
    preempts: bool,
    /// Whether the policy may ask for a wake-up ([`Policy::may_wake`]).
    wakes: bool,
    /// Whether the policy takes jobs ahead of free workers ([`Policy::reserves_ahead`]).
    reserves: bool,
    /// Retries counted per tenant for `retry: {budget}`.
    retry_budgets: std::collections::HashMap<TenantId, crate::admission::limit::SlidingWindow>,
    /// `--decisions`: the policy's ranking at each dispatch (none: not asked).
    decisions: Option<decisions::Decisions<'s>>,
    /// Dispatch costs and idle polling (none: the run has no `costs:`).
    costs: Option<Box<costs::Overheads>>,
    /// Start limits of the default pool and of groups of tenants (none:
    /// the run has neither).
    limits: Option<Box<limits::StartLimits>>,
}

impl<'s> Engine<'s> {
    /// An engine for `policy` over `sc`, writing per-run logs into `log_dir` if given.
    pub fn new(
        sc: &'s Scenario,
        policy: Box<dyn Policy + 's>,
        spare: Spare,
        log_dir: Option<&Path>,
    ) -> Result<Self> {
        let admission: Box<dyn Admission> = match sc.admission.is_empty() {
            true => Box::new(AcceptAll),
            false => Box::new(Rules::new(sc)),
        };
        let policy_preempts = policy.preempts();
        let wakes = policy.may_wake();
        let reserves = policy.reserves_ahead();
        let mut loads: Vec<TenantLoad> =
            sc.tenants.caps().into_iter().map(|cap| TenantLoad { cap, ..Default::default() }).collect();
        limits::mark_groups(sc, &mut loads);
        Ok(Engine::with_sleepers(Engine {
            sc,
            admission_counts: admission.counts_queue(),
            admission,
            put_off: arrivals::PutOff::default(),
            policy,
            spare,
            placed: sc.topology.is_some(),
            run_slice: None,
            cap_delay: None,
            delayed: std::collections::BinaryHeap::new(),
            refuse_each: false,
            delayed_tenants: std::collections::BTreeMap::new(),
            now: 0,
            jobs: JobTable::default(),
            loads,
            free_workers: sc.workers,
            free_res: capacity(sc),
            running: QuadHeap::new(),
            queued_total: 0,
            parked_at_cap: Vec::new(),
            parked_no_fit: Vec::new(),
            gate_parked: Vec::new(),
            skips: Vec::new(),
            expired: Vec::new(),
            sliced: std::collections::HashMap::new(),
            next_seq: 0,
            rec: Recorder::new(sc, log_dir)?,
            progress: None,
            audit: None,
            faults: faults::Faults::new(sc),
            preempts: policy_preempts,
            wakes,
            reserves,
            retry_budgets: std::collections::HashMap::new(),
            decisions: None,
            costs: costs::Overheads::new(sc),
            limits: limits::StartLimits::new(sc),
        }))
    }

    /// The default pool's workers start asleep under a poll interval: their
    /// first look is at 0, like every later one on their phase.
    fn with_sleepers(mut self) -> Self {
        if self.costs.as_ref().is_some_and(|o| o.sleepers.is_some()) {
            self.free_workers = 0;
        }
        self
    }

    /// Runs every job longer than `s.slice` in slices, unless its workload
    /// entry sets its own (a policy entry's `slice`).
    pub fn with_slicing(mut self, s: Option<crate::model::Slicing>) -> Self {
        self.run_slice = s;
        self
    }

    /// A job refused at its tenant's cap becomes claimable again `d` later
    /// (a policy entry's `on_cap: {delay}`), not when the cap frees;
    /// `each`: every claim at the cap is refused (`refuse: each`).
    pub fn with_cap_delay(mut self, d: Option<Time>, each: bool) -> Self {
        self.cap_delay = d;
        self.refuse_each = each && d.is_some();
        for l in &mut self.loads {
            l.delay_refusal = d.is_some();
        }
        if d.is_some() {
            self.rec.set_ages_apart();
        }
        self
    }

    /// Records every dispatch with the policy's keys into `sink`.
    pub fn with_decisions(mut self, sink: Box<dyn DecisionSink + 's>) -> Self {
        self.decisions = Some(decisions::Decisions::new(sink, &*self.policy));
        self
    }

    /// Turns on the self-check of caps, work conservation and, for a policy
    /// that promises turn-taking, rotation (see [`Audit`]).
    pub fn with_audit(mut self) -> Self {
        self.audit = Some(Audit::new(self.sc.tenants.len(), self.policy.promises_rotation()));
        self
    }

    /// Where the arrival stream leaves trace ids for `jobs.csv`; see [`crate::workload::trace::TraceIds`].
    pub fn trace_ids(&self) -> Option<crate::workload::trace::TraceIds> {
        self.rec.trace_ids()
    }

    /// Calls `f(now, jobs_arrived)` every few thousand events (for a progress bar).
    pub fn with_progress(mut self, f: &'s dyn Fn(Time, u64)) -> Self {
        self.progress = Some(f);
        self
    }

    /// Runs the whole workload to completion and returns the statistics and,
    /// when it was turned on, the audit's findings.
    pub fn run(mut self, source: &mut impl Source) -> Result<(RunStats, Option<Audit>)> {
        self.simulate(source)?;
        if let Some(d) = self.decisions.as_mut() {
            d.finish()?;
        }
        let mut stats = self.rec.finish(&self.loads)?;
        if self.faults.changes_capacity() {
            stats.worker_time = Some(self.faults.worker_time(stats.makespan));
        }
        stats.overhead = self.costs.map(|o| o.overhead);
        Ok((stats, self.audit))
    }

    /// Closes the ticks and fairness windows that end before `t` (`inclusive`:
    /// also at `t`).
    #[inline]
    fn close_boundaries(&mut self, t: Time, inclusive: bool) -> Result<()> {
        if self.rec.next_boundary() < t || (inclusive && self.rec.next_boundary() == t) {
            let snap = Snapshot { loads: &self.loads, jobs: &self.jobs, free_workers: self.idle_workers() };
            self.rec.close_until(self.sc, &snap, t, inclusive)?;
        }
        Ok(())
    }

    /// Whether the run uses any feature beyond arrivals, a policy's order,
    /// caps and resources, and failures retried at once: timers, admission,
    /// capacity changes, slowdowns, slices, preemption, a topology, `on_cap`
    /// delays, retry backoffs, the audit, `--decisions` or dispatch costs. Decided once per
    /// run from the scenario and the policy, so a run without them takes the
    /// event loop compiled without their checks (each a load and a branch
    /// per event).
    fn uses_extras(&self) -> bool {
        let sc = self.sc;
        self.wakes
            || self.preempts
            || self.placed
            || self.cap_delay.is_some()
            || self.run_slice.is_some()
            || self.audit.is_some()
            || self.decisions.is_some()
            || self.costs.is_some()
            || self.limits.is_some()
            || !sc.admission.is_empty()
            || sc.retry.is_some()
            || !sc.capacity.is_empty()
            || !sc.slowdowns.is_empty()
            || sc.workload.iter().any(|e| e.slice.is_some())
    }

    fn simulate(&mut self, source: &mut impl Source) -> Result<()> {
        match self.uses_extras() {
            true => self.event_loop::<true>(source)?,
            false => self.event_loop::<false>(source)?,
        }
        // close the tick and window holding the last event (or the first ones of an empty run)
        let snap = Snapshot { loads: &self.loads, jobs: &self.jobs, free_workers: self.idle_workers() };
        self.rec.close_last(self.sc, self.now, &snap)?;
        let leftover: Vec<Slot> = self.jobs.live_slots().collect();
        for slot in leftover {
            let job = self.jobs.get(slot).clone();
            self.rec.on_end(self.sc, &job, self.now, Outcome::Unfinished)?;
        }
        Ok(())
    }

    /// The events in time order until none is left. `EXTRAS`: see
    /// [`Engine::uses_extras`]; without, the times of timers, put-off jobs,
    /// `on_cap` delays and capacity changes are never looked at (the run
    /// has none).
    fn event_loop<const EXTRAS: bool>(&mut self, source: &mut impl Source) -> Result<()> {
        // The next arrivals, read ahead so that the memory of each one's
        // tenant is warmed (prefetched) while the ones before it are handled.
        let mut ahead: VecDeque<Arrival> = VecDeque::with_capacity(READ_AHEAD);
        self.read_ahead(source, &mut ahead);
        let mut events: u64 = 0;
        loop {
            // plain u64 minimum (Time::MAX = none): `[..].into_iter().flatten().min()`
            // compiled to a store-forwarding stall that took ~10% of the run
            let t_done = self.running.peek().map_or(Time::MAX, Attempt::finish);
            let t_arr = ahead.front().map_or(Time::MAX, |a| a.time);
            let mut t = t_done.min(t_arr);
            let (mut t_wake, mut t_delay, mut t_back, mut t_cap, mut t_costs, mut t_limits) =
                (Time::MAX, Time::MAX, Time::MAX, Time::MAX, Time::MAX, Time::MAX);
            if EXTRAS {
                if self.wakes && self.queued_total > 0 {
                    t_wake = self.policy.next_wakeup().unwrap_or(Time::MAX);
                }
                t_delay = self.delayed.peek().map_or(Time::MAX, |r| r.0 .0);
                t_back = self.put_off.next();
                if let Some(o) = self.costs.as_ref() {
                    t_costs = o.next(self.queued_total > 0);
                }
                if let Some(l) = self.limits.as_ref() {
                    t_limits = l.next(self.queued_total > 0);
                }
                t = t.min(t_wake).min(t_delay).min(t_back).min(t_costs).min(t_limits);
                // a capacity change after the last job would only stretch the log
                t_cap = self.faults.next_change();
                if t_cap < t && (self.queued_total > 0 || !self.running.is_empty() || !ahead.is_empty()) {
                    t = t_cap;
                }
            }
            if t == Time::MAX && self.running.is_empty() && ahead.is_empty() {
                // (pending claims and held workers have times: `t` is not MAX)
                break;
            }
            debug_assert!(t >= self.now, "time went backwards");
            // ticks and windows that ended strictly before this instant
            self.close_boundaries(t, false)?;
            self.now = t;
            while let Some(&a) = self.running.peek() {
                if a.finish() != t {
                    break;
                }
                self.running.pop();
                self.finish_attempt::<EXTRAS>(a.slot)?;
            }
            self.close_boundaries(t, true)?;
            if EXTRAS && t == t_cap {
                self.change_capacity()?;
            }
            while ahead.front().is_some_and(|a| a.time == t) {
                let a = ahead.pop_front().expect("checked above");
                let job = Job::from_arrival(self.next_seq, &a);
                self.next_seq += 1;
                let slicing = match a.slicing {
                    0 => self.run_slice,
                    i => self.sc.workload[i as usize - 1].slice,
                };
                self.arrive(job, slicing)?;
                self.read_ahead(source, &mut ahead);
            }
            if EXTRAS {
                if t == t_wake {
                    self.policy.on_wakeup(&mut self.jobs, t);
                }
                if t == t_delay {
                    self.end_delays();
                }
                if t == t_back {
                    self.come_back()?;
                }
                if t == t_limits {
                    self.end_limits();
                }
                if self.costs.is_some() {
                    // every event, not only t_costs: an arrival plans the sleepers' looks
                    let other = t == t_done
                        || t == t_arr
                        || t == t_wake
                        || t == t_delay
                        || t == t_back
                        || t == t_cap
                        || t == t_limits;
                    self.run_costs(other);
                }
            }
            self.dispatch::<EXTRAS>()?;
            if EXTRAS && self.costs.is_some() {
                self.idle_after_dispatch();
            }
            events += 1;
            if events.is_multiple_of(8192) {
                if let Some(p) = self.progress {
                    p(self.now, self.next_seq);
                }
            }
        }
        Ok(())
    }

    /// Fills `ahead` up to [`READ_AHEAD`] arrivals from `source`, warming
    /// what each one's arrival will touch. The stream does not depend on the
    /// simulation, so reading it early changes nothing but the cache.
    fn read_ahead(&self, source: &mut impl Source, ahead: &mut VecDeque<Arrival>) {
        while ahead.len() < READ_AHEAD {
            let Some(a) = source.next_arrival() else { break };
            self.warm_tenant(a.tenant);
            self.policy.warm_tenant(a.tenant);
            ahead.push_back(a);
            // the arrival read half the distance ago: its first stage has landed
            if let Some(b) = ahead.len().checked_sub(READ_AHEAD / 2 + 1).and_then(|i| ahead.get(i)) {
                self.policy.warm_queue_back(b.tenant);
            }
        }
    }

    /// Prefetches what the next event of `tenant` touches: its load and
    /// its fairness record (see [`crate::prefetch`]).
    fn warm_tenant(&self, tenant: TenantId) {
        prefetch_item(&self.loads, tenant as usize);
        self.rec.warm_tenant(tenant);
    }

    #[inline(always)]
    fn enqueue(&mut self, slot: Slot) {
        let job = self.jobs.get_mut(slot);
        job.state = JobState::Queued;
        let t = job.tenant as usize;
        self.loads[t].queued += 1;
        self.queued_total += 1;
        let job = self.jobs.get(slot);
        self.rec.on_queued(job, slot, self.loads[t].queued);
        self.policy.push(job, slot, self.now);
        if self.placed {
            self.note_queue(slot);
        }
    }

    /// Records the queue a topology routed the job in `slot` to (for
    /// jobs.csv). Out of line: the default topology never calls it, and
    /// `enqueue` stays small enough to inline.
    #[cold]
    #[inline(never)]
    fn note_queue(&mut self, slot: Slot) {
        self.jobs.get_mut(slot).queue = self.policy.placement(slot).0;
        self.rec.on_routed(self.jobs.get(slot), slot);
    }

    /// Ends the queued jobs the policy expired during the last pick.
    #[inline(always)]
    fn end_expired(&mut self) -> Result<()> {
        // almost every pick expires nothing
        if self.expired.is_empty() {
            return Ok(());
        }
        self.end_expired_now()
    }

    #[inline(never)]
    fn end_expired_now(&mut self) -> Result<()> {
        for slot in std::mem::take(&mut self.expired) {
            let job = self.jobs.get(slot);
            debug_assert_eq!(job.state, JobState::Queued, "only a queued job can expire");
            let t = job.tenant as usize;
            self.loads[t].queued -= 1;
            self.queued_total -= 1;
            let job = job.clone();
            if job.slices == 0 && self.admission_counts {
                self.admission.on_left_queue(&job, self.now);
            }
            // a stale slicing state would be applied to the next job given this slot
            let whole = match self.sliced.remove(&slot) {
                Some(s) => s.total + Time::from(s.done.saturating_sub(1)) * s.overhead,
                None => self.faults.resumed.remove(&slot).unwrap_or(job.service),
            };
            self.rec.on_expired(self.sc, &job, self.now, self.loads[t].queued, whole)?;
            self.jobs.remove(slot);
            if let Some(a) = self.audit.as_mut() {
                if self.loads[t].queued == 0 {
                    a.on_idle(t as TenantId);
                }
            }
        }
        Ok(())
    }

    /// Freed resources may let a job that did not fit fit now: every tenant
    /// parked for `no_fit` is claimable again. Called wherever an attempt
    /// gives its resources back (a finish, a kill, a preemption).
    #[inline]
    pub(super) fn unpark_no_fit(&mut self) {
        if !self.parked_no_fit.is_empty() {
            for u in std::mem::take(&mut self.parked_no_fit) {
                if self.loads[u as usize].parked == Some(Skip::NoFit) {
                    self.loads[u as usize].parked = None;
                    self.policy.unpark(u, &self.jobs, self.now);
                }
            }
        }
    }

    /// Ends the attempt running in `slot`: the job completes, fails, is
    /// retried or takes its next slice. `EXTRAS`: see [`Engine::uses_extras`].
    fn finish_attempt<const EXTRAS: bool>(&mut self, slot: Slot) -> Result<()> {
        let now = self.now;
        let job = self.jobs.get(slot);
        let (t, cost) = (job.tenant, job.cost);
        let ran = match EXTRAS {
            true => self.faults.take_length(slot, job.service),
            false => job.service,
        };
        self.rec.on_attempt_end(job, now, ran);
        if EXTRAS && self.placed {
            self.policy.on_ran(job, ran);
        }
        let finish_cost = match EXTRAS && self.costs.is_some() {
            true => self.sc.pool_costs(job.pool).finish,
            false => 0,
        };
        if finish_cost > 0 {
            // the worker finishes the job's bookkeeping before it claims again
            let (seq, pool) = (job.seq, job.pool);
            self.policy.on_finish_held(job, now);
            self.hold_worker(seq, pool, now + finish_cost);
            self.charge_overhead(pool, finish_cost);
        } else {
            self.policy.on_finish(job, now);
            if !EXTRAS || !self.faults.retires(now) {
                self.free_workers += 1;
            }
        }
        for (free, c) in self.free_res.iter_mut().zip(cost) {
            *free += c;
        }
        self.running_ended(t);
        self.unpark_no_fit();
        // worker time beyond the job's service (a slowdown's), and the time
        // the whole attempt held workers so far: wasted if it fails
        let excess = ran.saturating_sub(self.jobs.get(slot).service);
        let (held, excess) = match !EXTRAS || self.sliced.is_empty() {
            true => (ran, excess),
            false => self.attempt_time(slot, ran, excess),
        };
        if EXTRAS && !self.faults.resumed.is_empty() {
            // a job resumed after a checkpoint ran what was left: whole again
            if let Some(whole) = self.faults.resumed.remove(&slot) {
                self.jobs.get_mut(slot).service = whole;
            }
        }
        if EXTRAS && !self.sliced.is_empty() && self.next_slice(slot) {
            return Ok(());
        }
        let job = self.jobs.get(slot);
        if job.attempts <= u32::from(job.failures) {
            self.rec.on_lost(job, held, false);
            let job = self.jobs.get(slot);
            if job.attempts >= u32::from(job.max_attempts) {
                let job = job.clone();
                self.rec.on_end(self.sc, &job, now, Outcome::Failed)?;
                self.jobs.remove(slot);
            } else {
                self.retry(slot)?;
            }
        } else {
            self.loads[t as usize].completed += 1;
            if excess > 0 {
                self.rec.on_lost(self.jobs.get(slot), excess, false);
            }
            let job = self.jobs.get(slot).clone();
            self.rec.on_end(self.sc, &job, now, Outcome::Completed)?;
            self.jobs.remove(slot);
        }
        Ok(())
    }
}

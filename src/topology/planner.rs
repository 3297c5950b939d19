//! The planner (the fair-by-design article's strategy 4): arriving jobs wait
//! in a ledger ordered by a fairness policy; the workers see only the main
//! queue, ordered by the run's policy. Every `interval` the planner wakes:
//! when the main queue is busy (its oldest job has waited `latency_below`,
//! or it holds `depth_below` jobs) it sleeps again; otherwise it plans for
//! `base + per_active_tenant * tenants in the ledger`, during which nothing
//! is promoted, then moves `batch` jobs from the ledger to the main queue.
//! When planning takes longer than the interval, the next wake-up waits for
//! it: that is the planner's scaling limit.
//!
//! Caps are the engine's, checked when a worker claims from the main queue;
//! the ledger's policy chooses among tenants without them.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use crate::core::{Gate, Job, JobTable, Slot, TenantLoad};
use crate::model::{Busy, PlannerSpec, PolicySpec, Scenario, TenantId, MAX_RESOURCES};
use crate::policy::{self, Explain, Hints, Policy};
use crate::time::Time;

/// One line of `planner.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannerEvent {
    pub time: Time,
    /// `sleep`, `plan` or `promote`.
    pub event: &'static str,
    /// Tenants with jobs in the ledger.
    pub active: u64,
    pub main_depth: u64,
    /// Age of the main queue's oldest job (since its promotion).
    pub main_latency: Time,
    /// For `plan`: how long planning takes.
    pub planning: Time,
    /// For `promote`: jobs moved to the main queue.
    pub promoted: u64,
}

pub struct Planner {
    spec: PlannerSpec,
    ledger: Box<dyn Policy>,
    main: Box<dyn Policy>,
    /// The ledger's gate state: no caps, unbounded resources.
    ledger_loads: Vec<TenantLoad>,
    scratch: (Vec<TenantId>, Vec<(TenantId, crate::core::Skip)>, Vec<Slot>),
    /// Jobs per tenant in the ledger, and the tenants with any.
    waiting: Vec<u32>,
    active: u64,
    /// The main queue in promotion order (promotion time, slot); jobs
    /// already started are skipped lazily via `in_main`.
    promoted: VecDeque<(Time, Slot)>,
    in_main: Vec<bool>,
    main_depth: u64,
    next_wake: Time,
    /// When the current planning ends.
    promote_at: Option<Time>,
    log: Rc<RefCell<Vec<PlannerEvent>>>,
    /// The log tick, and the last tick whose log listed the ledger's tenants.
    tick: Time,
    listed: u64,
}

impl Planner {
    pub fn build(
        sc: &Scenario,
        spec: &PolicySpec,
        planner: &PlannerSpec,
        log: Rc<RefCell<Vec<PlannerEvent>>>,
    ) -> Result<Self, crate::model::policy::ParamError> {
        let ledger_spec = PolicySpec::named(&planner.policy);
        let n = sc.tenants.len();
        Ok(Planner {
            spec: planner.clone(),
            ledger: policy::build(&ledger_spec, sc)?,
            main: policy::build(spec, sc)?,
            ledger_loads: vec![TenantLoad { cap: u32::MAX, ..Default::default() }; n],
            scratch: Default::default(),
            waiting: vec![0; n],
            active: 0,
            promoted: VecDeque::new(),
            in_main: Vec::new(),
            main_depth: 0,
            next_wake: 0,
            promote_at: None,
            log,
            tick: sc.tick,
            listed: 0,
        })
    }

    /// Age of the main queue's oldest job.
    fn latency(&mut self, now: Time) -> Time {
        while let Some(&(_, s)) = self.promoted.front() {
            if self.in_main[s as usize] {
                break;
            }
            self.promoted.pop_front();
        }
        self.promoted.front().map_or(0, |&(t, _)| now - t)
    }

    fn event(&self, now: Time, event: &'static str, latency: Time, planning: Time, promoted: u64) {
        self.log.borrow_mut().push(PlannerEvent {
            time: now,
            event,
            active: self.active,
            main_depth: self.main_depth,
            main_latency: latency,
            planning,
            promoted,
        });
    }

    /// Moves up to `batch` jobs from the ledger to the main queue.
    fn promote(&mut self, jobs: &mut JobTable, now: Time) {
        let mut moved = 0;
        let (parked, skips, expired) = &mut self.scratch;
        while moved < u64::from(self.spec.batch) {
            let mut gate = Gate {
                tenants: &mut self.ledger_loads,
                free: [u64::MAX; MAX_RESOURCES],
                borrow: true,
                parked,
                skips,
                free_workers: u32::MAX,
                expired,
                logged: false,
                groups: None,
                now,
            };
            let Some(slot) = self.ledger.pick(jobs, &mut gate, now) else { break };
            skips.clear();
            // claimable by the workers from now: the main queue orders by it
            jobs.get_mut(slot).ready = now;
            let job = jobs.get(slot);
            let t = job.tenant as usize;
            self.waiting[t] -= 1;
            self.active -= u64::from(self.waiting[t] == 0);
            self.main.push(job, slot, now);
            self.promoted.push_back((now, slot));
            mark(&mut self.in_main, slot, true);
            self.main_depth += 1;
            moved += 1;
        }
        let latency = self.latency(now);
        self.event(now, "promote", latency, 0, moved);
    }

    /// The planner's wake-up: sleep, or start planning.
    fn wake(&mut self, now: Time) {
        let latency = self.latency(now);
        let busy = match self.spec.busy {
            Busy::Latency(l) => latency >= l,
            Busy::Depth(d) => self.main_depth >= d,
        };
        if busy || self.active == 0 {
            self.event(now, "sleep", latency, 0, 0);
            self.next_wake = now + self.spec.interval;
            return;
        }
        let planning = self.spec.cost_base + self.spec.cost_per_tenant.saturating_mul(self.active);
        self.event(now, "plan", latency, planning, 0);
        self.promote_at = Some(now + planning);
        self.next_wake = now + self.spec.interval.max(planning);
    }
}

impl Policy for Planner {
    fn push(&mut self, job: &Job, slot: Slot, now: Time) {
        if job.attempts > 0 {
            // a retry or the next slice stays in the main queue
            self.main.push(job, slot, now);
            mark(&mut self.in_main, slot, true);
            self.promoted.push_back((now, slot));
            self.main_depth += 1;
            return;
        }
        if self.next_wake < now && self.active == 0 && self.main_depth == 0 {
            // the planner's clock kept ticking while the engine, with nothing
            // queued, did not ask: its next wake-up is the next one due
            let behind = (now - self.next_wake).div_ceil(self.spec.interval);
            self.next_wake += behind * self.spec.interval;
        }
        let t = job.tenant as usize;
        self.active += u64::from(self.waiting[t] == 0);
        self.waiting[t] += 1;
        self.ledger.push(job, slot, now);
        mark(&mut self.in_main, slot, false);
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot> {
        if gate.logs_skips() && self.active > 0 {
            let tick = super::tick_of(now, self.tick);
            if self.listed != tick {
                // the ledger's tenants wait for the next promotion
                self.listed = tick;
                for (t, &n) in self.waiting.iter().enumerate() {
                    if n > 0 {
                        gate.note_skip(t as TenantId, crate::core::Skip::Delayed);
                    }
                }
            }
        }
        let slot = self.main.pick(jobs, gate, now)?;
        self.in_main[slot as usize] = false;
        self.main_depth -= 1;
        Some(slot)
    }

    fn unpark(&mut self, tenant: TenantId, jobs: &JobTable, now: Time) {
        self.main.unpark(tenant, jobs, now);
    }

    fn on_finish(&mut self, job: &Job, now: Time) {
        self.main.on_finish(job, now);
    }

    /// Workers idle while jobs wait in the ledger for the next round.
    fn work_conserving(&self) -> bool {
        false
    }

    fn next_wakeup(&self) -> Option<Time> {
        Some(self.promote_at.map_or(self.next_wake, |p| p.min(self.next_wake)))
    }

    fn may_wake(&self) -> bool {
        true
    }

    fn on_wakeup(&mut self, jobs: &mut JobTable, now: Time) {
        if self.promote_at == Some(now) {
            self.promote_at = None;
            self.promote(jobs, now);
        }
        if self.next_wake == now && self.promote_at.is_none() {
            self.wake(now);
        }
    }
}

impl Hints for Planner {}

impl Explain for Planner {}

/// Whether the job in `slot` waits in the main queue (slots are reused, so
/// the flag is set both ways).
fn mark(in_main: &mut Vec<bool>, slot: Slot, on: bool) {
    let i = slot as usize;
    if in_main.len() <= i {
        in_main.resize(i + 1, false);
    }
    in_main[i] = on;
}

//! Test harness for policy unit tests: drives a policy the way the engine
//! does (push, pick through a real [`Gate`], finish, unpark) without time, so
//! a test can assert the exact dispatch order and skip reasons.

use crate::core::{Gate, Job, JobTable, Skip, Slot, TenantLoad};
use crate::model::{Res, Scenario, MAX_RESOURCES};
use crate::time::Time;
use crate::workload::ArrivalStream;

use super::Policy;

pub struct Kit<'s, P: Policy + ?Sized = dyn Policy> {
    sc: &'s Scenario,
    pub policy: Box<P>,
    pub jobs: JobTable,
    loads: Vec<TenantLoad>,
    free: Res,
    free_workers: u32,
    /// Skips logged so far, as `tenant:reason`.
    pub skips: Vec<String>,
    pub now: Time,
    stream: ArrivalStream,
    next_seq: u64,
}

impl<'s> Kit<'s> {
    /// A kit for the scenario's first policy.
    pub fn new(sc: &'s Scenario) -> Self {
        Self::with_policy(sc, super::build(&sc.policies[0], sc).expect("policy builds"))
    }
}

impl<'s, P: Policy + ?Sized> Kit<'s, P> {
    /// A kit for `policy` over the scenario's workload.
    pub fn with_policy(sc: &'s Scenario, policy: Box<P>) -> Self {
        let mut free = [0; MAX_RESOURCES];
        for (i, (_, c)) in sc.resources.iter().enumerate() {
            free[i] = *c;
        }
        Kit {
            sc,
            policy,
            jobs: JobTable::default(),
            loads: sc
                .tenants
                .caps()
                .into_iter()
                .map(|cap| TenantLoad { cap, ..Default::default() })
                .collect(),
            free,
            free_workers: sc.workers,
            skips: Vec::new(),
            now: 0,
            stream: ArrivalStream::new(sc),
            next_seq: 0,
        }
    }

    /// Pushes every remaining arrival of the workload (times ignored).
    pub fn push_all(&mut self) {
        self.push_n(usize::MAX);
    }

    /// Pushes the next `n` arrivals of the workload (times ignored).
    pub fn push_n(&mut self, n: usize) {
        for _ in 0..n {
            let Some(a) = self.stream.next() else { break };
            let job = Job::from_arrival(self.next_seq, &a);
            self.next_seq += 1;
            let slot = self.jobs.insert(job);
            let job = self.jobs.get(slot);
            self.loads[job.tenant as usize].queued += 1;
            self.policy.push(job, slot, self.now);
        }
    }

    /// One pick; the started job's slot.
    pub fn pick(&mut self) -> Option<Slot> {
        if self.free_workers == 0 {
            return None;
        }
        let mut parked = Vec::new();
        let mut skips: Vec<(u32, Skip)> = Vec::new();
        let mut expired = Vec::new();
        let pick = {
            let mut gate = Gate {
                tenants: &mut self.loads,
                free: self.free,
                borrow: false,
                parked: &mut parked,
                skips: &mut skips,
                free_workers: self.free_workers,
                expired: &mut expired,
                logged: true,
                groups: None,
                now: self.now,
            };
            self.policy.pick(&self.jobs, &mut gate, self.now)
        };
        for (t, r) in skips {
            self.skips.push(format!("{}:{}", self.sc.tenants.name(t), r.as_str()));
        }
        let slot = pick?;
        let job = self.jobs.get_mut(slot);
        job.attempts += 1;
        let (t, cost) = (job.tenant as usize, job.cost);
        self.loads[t].queued -= 1;
        self.loads[t].running += 1;
        self.free_workers -= 1;
        for (f, c) in self.free.iter_mut().zip(cost) {
            *f -= c;
        }
        Some(slot)
    }

    /// Up to `n` picks; the tenants' names concatenated.
    pub fn pick_n(&mut self, n: usize) -> String {
        let mut s = String::new();
        for _ in 0..n {
            let Some(slot) = self.pick() else { break };
            s.push_str(&self.sc.tenants.name(self.jobs.get(slot).tenant));
        }
        s
    }

    /// Ends a running job and unparks tenants the engine would unpark.
    pub fn finish(&mut self, slot: Slot) {
        let job = self.jobs.get(slot).clone();
        self.policy.on_finish(&job, self.now);
        self.free_workers += 1;
        for (f, c) in self.free.iter_mut().zip(job.cost) {
            *f += c;
        }
        let t = job.tenant as usize;
        self.loads[t].running -= 1;
        self.jobs.remove(slot);
        for u in 0..self.loads.len() {
            let l = &mut self.loads[u];
            let wake = match l.parked {
                Some(Skip::AtCap) => l.running < l.cap,
                Some(_) => true,
                None => false,
            };
            if wake {
                l.parked = None;
                self.policy.unpark(u as u32, &self.jobs, self.now);
            }
        }
    }
}

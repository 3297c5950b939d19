//! The scenario's admission rules (`admission:`) as an [`Admission`].
//!
//! Each arrival is checked against every rule that matches its tenant and
//! class; the first that refuses decides the action, and only an admitted
//! job is charged to the rules' counts (a refused job spends no token).
//! The queue counts (`max_queued`, `max_queued_work`, the delay
//! predictions) hold admitted jobs that are claimable and have not started
//! yet (a deferred job counts from the moment it becomes claimable).

use std::collections::HashMap;

use super::backlog::{Backlog, Track};
use super::limit::{Bucket, FixedWindow, SlidingWindow};
use super::{Admission, Decision};
use crate::core::{Job, JobState, TenantLoad};
use crate::model::{Action, AdmissionRule, Bound, Limit, Predictor, Scenario, Throttle};
use crate::time::Time;

type Key = (usize, u32, u32);

pub struct Rules {
    rules: Vec<AdmissionRule>,
    /// What each rule counts of its scopes' queues.
    track: Vec<Track>,
    /// Whether a rule needs each job's service remembered until it starts
    /// (a sliced job's `service` is then its first slice).
    remember_work: bool,
    /// Drain rate of `predict: backlog`, µs of service per µs: the run's
    /// workers (now: `capacity:` changes it).
    workers: u128,
    /// Each class's `sla`, for `max_wait: sla`.
    class_sla: Vec<Option<Time>>,
    queues: HashMap<Key, Backlog>,
    /// Service of each admitted job not started yet, by job id.
    work_of: HashMap<u64, Time>,
    buckets: HashMap<Key, Bucket>,
    windows: HashMap<Key, SlidingWindow>,
    fixed: HashMap<Key, FixedWindow>,
}

impl Rules {
    /// The run's rules (`sc.admission`, as [`Scenario::for_run`] chose them).
    pub fn new(sc: &Scenario) -> Self {
        let track: Vec<Track> = sc.admission.iter().map(|r| Track::of(&r.limit)).collect();
        Rules {
            rules: sc.admission.clone(),
            remember_work: track.iter().any(|t| t.work || t.running),
            track,
            workers: u128::from(sc.workers),
            class_sla: sc.classes.iter().map(|c| c.sla).collect(),
            queues: HashMap::new(),
            work_of: HashMap::new(),
            buckets: HashMap::new(),
            windows: HashMap::new(),
            fixed: HashMap::new(),
        }
    }

    fn key(&self, i: usize, job: &Job) -> Key {
        let (t, c) = self.rules[i].key(job.tenant, job.class);
        (i, t, c)
    }

    /// Whether rule `i` lets `job` in now (nothing is charged).
    fn fits(&mut self, i: usize, job: &Job, now: Time) -> bool {
        let key = self.key(i, job);
        match self.rules[i].limit {
            Limit::Queued(n) => self.queues.get(&key).map_or(0, |q| q.jobs) < n,
            Limit::QueuedWork(w) => self.queues.get(&key).map_or(0, |q| q.work) + job.service <= w,
            Limit::Rate(Throttle::Bucket { rate, burst }) => {
                self.buckets.entry(key).or_insert(Bucket::new(now)).fits(now, rate, burst)
            }
            Limit::Rate(Throttle::Window { limit, window }) => {
                self.windows.get(&key).is_none_or(|w| w.fits(now, limit, window))
            }
            Limit::Rate(Throttle::Fixed { limit, per }) => {
                self.fixed.get(&key).is_none_or(|w| w.fits(now, limit, per))
            }
            Limit::Delay { predict, bound } => {
                let Some(allowed) = self.allowed_delay(bound, job, now) else { return true };
                let Some(allowed) = allowed else { return false };
                let Some(q) = self.queues.get_mut(&key) else { return true };
                match predict {
                    // B/μ <= allowed, without dividing
                    Predictor::Backlog => q.outstanding(now) <= u128::from(allowed) * self.workers,
                    Predictor::Oldest => q.oldest_age(now) <= allowed,
                }
            }
        }
    }

    /// The longest predicted delay to start that keeps `job` within
    /// `bound`: `None` when the bound does not apply to it, `Some(None)`
    /// when it is already out of reach. A re-sent job has already waited
    /// since its arrival; against a deadline, its own service must fit too.
    fn allowed_delay(&self, bound: Bound, job: &Job, now: Time) -> Option<Option<Time>> {
        let waited = now - job.arrival;
        let (limit, spent) = match bound {
            Bound::Wait(w) => (w, waited),
            Bound::Sla => (self.class_sla[job.class as usize]?, waited),
            Bound::Deadline => (job.deadline?, now.saturating_add(job.service)),
        };
        Some(limit.checked_sub(spent))
    }

    /// Charges an admitted `job` to the rate limits of the rules it matches.
    fn charge(&mut self, job: &Job, now: Time) {
        for i in 0..self.rules.len() {
            if !self.rules[i].matches(job.tenant, job.class) {
                continue;
            }
            let key = self.key(i, job);
            match self.rules[i].limit {
                Limit::Rate(Throttle::Bucket { .. }) => {
                    self.buckets.entry(key).or_insert(Bucket::new(now)).pour()
                }
                Limit::Rate(Throttle::Window { limit, .. }) => {
                    self.windows.entry(key).or_default().count(now, limit)
                }
                Limit::Rate(Throttle::Fixed { per, .. }) => {
                    self.fixed.entry(key).or_default().count(now, per)
                }
                Limit::Queued(_) | Limit::QueuedWork(_) | Limit::Delay { .. } => {}
            }
        }
    }

    /// Counts `job` (of `work` µs) in the queues of the rules it matches.
    fn count_in(&mut self, job: &Job, work: Time) {
        for i in 0..self.rules.len() {
            if self.track[i].any() && self.rules[i].matches(job.tenant, job.class) {
                let key = self.key(i, job);
                self.queues.entry(key).or_default().add(self.track[i], job.ready, job.seq, work);
            }
        }
    }

    /// Takes `job` out of the queues it was counted in (`started` at that
    /// instant, or expired at `now`).
    fn count_out(&mut self, job: &Job, now: Time, started: bool) {
        let work = match self.remember_work {
            true => self.work_of.remove(&job.seq).expect("an admitted job's work is remembered"),
            false => 0,
        };
        for i in 0..self.rules.len() {
            if self.track[i].any() && self.rules[i].matches(job.tenant, job.class) {
                let key = self.key(i, job);
                let q = self.queues.get_mut(&key).expect("a counted job has its queue");
                q.remove(self.track[i], job.ready, job.seq, work, started.then_some(now));
                if q.is_empty(now) {
                    self.queues.remove(&key);
                }
            }
        }
    }

    fn work_of(&self, job: &Job) -> Time {
        self.work_of.get(&job.seq).copied().unwrap_or(0)
    }
}

impl Admission for Rules {
    fn decide(&mut self, job: &Job, now: Time, _loads: &[TenantLoad]) -> Decision {
        for i in 0..self.rules.len() {
            if !self.rules[i].matches(job.tenant, job.class) || self.fits(i, job, now) {
                continue;
            }
            let rule = i as u16;
            return match self.rules[i].action {
                Action::Reject => Decision::Reject { rule },
                Action::Retry { after, max } => Decision::Retry { rule, after, max },
                Action::Defer { by } => {
                    self.charge(job, now);
                    if self.remember_work {
                        self.work_of.insert(job.seq, job.service);
                    }
                    Decision::Defer { rule, until: now + by }
                }
            };
        }
        self.charge(job, now);
        if self.remember_work {
            self.work_of.insert(job.seq, job.service);
        }
        self.count_in(job, job.service);
        Decision::Accept
    }

    fn on_claimable(&mut self, job: &Job) {
        let work = self.work_of(job);
        self.count_in(job, work);
    }

    fn on_left_queue(&mut self, job: &Job, now: Time) {
        self.count_out(job, now, job.state == JobState::Running);
    }

    fn on_capacity(&mut self, workers: u64) {
        self.workers = u128::from(workers);
    }

    fn counts_queue(&self) -> bool {
        self.track.iter().any(Track::any)
    }

    fn rule_name(&self, rule: u16) -> &str {
        &self.rules[rule as usize].name
    }
}

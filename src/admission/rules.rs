//! The scenario's admission rules (`admission:`) as an [`Admission`].
//!
//! Each arrival is checked against every rule that matches its tenant and
//! class; the first that refuses decides the action, and only an admitted
//! job is charged to the rules' counts (a refused job spends no token).
//! `max_queued` counts admitted jobs that are claimable and have not started
//! yet (a deferred job counts from the moment it becomes claimable).

use std::collections::HashMap;

use super::limit::{Bucket, SlidingWindow};
use super::{Admission, Decision};
use crate::core::{Job, TenantLoad};
use crate::model::{Action, AdmissionRule, Limit, Throttle};
use crate::time::Time;

type Key = (usize, u32, u32);

pub struct Rules {
    rules: Vec<AdmissionRule>,
    queued: HashMap<Key, u64>,
    buckets: HashMap<Key, Bucket>,
    windows: HashMap<Key, SlidingWindow>,
}

impl Rules {
    pub fn new(rules: &[AdmissionRule]) -> Self {
        Rules {
            rules: rules.to_vec(),
            queued: HashMap::new(),
            buckets: HashMap::new(),
            windows: HashMap::new(),
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
            Limit::Queued(n) => self.queued.get(&key).copied().unwrap_or(0) < n,
            Limit::Rate(Throttle::Bucket { rate, burst }) => {
                self.buckets.entry(key).or_insert(Bucket::new(now)).fits(now, rate, burst)
            }
            Limit::Rate(Throttle::Window { limit, window }) => {
                self.windows.get(&key).is_none_or(|w| w.fits(now, limit, window))
            }
        }
    }

    /// Charges an admitted `job` to the rate limits of the rules it matches.
    fn charge(&mut self, job: &Job, now: Time) {
        for i in 0..self.rules.len() {
            if !self.rules[i].matches(job.tenant, job.class) {
                continue;
            }
            let key = self.key(i, job);
            match self.rules[i].limit {
                Limit::Queued(_) => {}
                Limit::Rate(Throttle::Bucket { .. }) => {
                    self.buckets.entry(key).or_insert(Bucket::new(now)).pour()
                }
                Limit::Rate(Throttle::Window { limit, .. }) => {
                    self.windows.entry(key).or_default().count(now, limit)
                }
            }
        }
    }

    /// Adds `delta` to the `max_queued` counts `job` falls in.
    fn count_queued(&mut self, job: &Job, up: bool) {
        for i in 0..self.rules.len() {
            if matches!(self.rules[i].limit, Limit::Queued(_)) && self.rules[i].matches(job.tenant, job.class)
            {
                let key = self.key(i, job);
                let n = self.queued.entry(key).or_insert(0);
                if up {
                    *n += 1;
                } else {
                    *n -= 1;
                    if *n == 0 {
                        self.queued.remove(&key);
                    }
                }
            }
        }
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
                    Decision::Defer { rule, until: now + by }
                }
            };
        }
        self.charge(job, now);
        self.count_queued(job, true);
        Decision::Accept
    }

    fn on_claimable(&mut self, job: &Job) {
        self.count_queued(job, true);
    }

    fn on_left_queue(&mut self, job: &Job) {
        self.count_queued(job, false);
    }

    fn counts_queue(&self) -> bool {
        self.rules.iter().any(|r| matches!(r.limit, Limit::Queued(_)))
    }

    fn rule_name(&self, rule: u16) -> &str {
        &self.rules[rule as usize].name
    }
}

//! Routing at enqueue: the first rule that matches a job chooses its queue.
//!
//! Shard hashes are FNV-1a of the tenant's name (the same on every machine
//! and release); shuffle-shard subsets are drawn by Floyd's algorithm from a
//! stream seeded by (scenario seed, that hash), so a tenant keeps its subset
//! across runs and policies; the job-by-job choice inside the subset comes
//! from the topology's own stream, drawn in arrival order, so every policy
//! on one topology sees the same routing.

use std::collections::HashMap;

use rand_pcg::Pcg64;

use crate::admission::limit::{Bucket, FixedWindow, SlidingWindow};
use crate::core::Job;
use crate::model::{queue_of_class, QueueId, RouteAction, RouteRule, Scenario, TenantId, Throttle};
use crate::policy::flows::label_hash;
use crate::policy::lottery::below;
use crate::time::Time;
use crate::workload::rng::{self, Purpose};

/// The stable shard hash of a tenant name (64-bit FNV-1a).
pub fn shard_hash(name: &str) -> u64 {
    label_hash(name)
}

/// The `k` shard indices (of `n`) a tenant owns under shuffle-sharding,
/// sorted: a uniformly random k-subset, fixed by (seed, tenant name).
pub fn shuffle_subset(seed: u64, name: &str, n: u32, k: u32) -> Vec<u32> {
    let mut rng = rng::stream(seed, shard_hash(name), Purpose::Routing);
    // Floyd: for j in n-k..n, add a uniform draw from 0..=j, or j itself
    // when the draw is taken; each k-subset comes out with equal probability
    let mut out: Vec<u32> = Vec::with_capacity(k as usize);
    for j in (n - k)..n {
        let t = below(&mut rng, u64::from(j) + 1) as u32;
        out.push(if out.contains(&t) { j } else { t });
    }
    out.sort_unstable();
    out
}

pub struct Router {
    rules: Vec<RouteRule>,
    seed: u64,
    rng: Pcg64,
    buckets: HashMap<(usize, TenantId), Bucket>,
    /// Per (rule, tenant): the times of its last `limit` enqueues.
    windows: HashMap<(usize, TenantId), SlidingWindow>,
    fixed: HashMap<(usize, TenantId), FixedWindow>,
    name: String,
    /// Per class: the queue named as it, for `to: "{class}"` rules (empty
    /// without one).
    class_queue: Vec<Option<QueueId>>,
}

impl Router {
    pub fn new(rules: &[RouteRule], sc: &Scenario, topology: &str, queues: &[String]) -> Self {
        // built from the run's classes, which include those a trace declared
        let class_queue = if rules.iter().any(|r| r.action == RouteAction::ClassQueue) {
            let index: HashMap<&str, QueueId> =
                queues.iter().enumerate().map(|(i, q)| (q.as_str(), i as QueueId)).collect();
            // a trace row with a priority and no queue is class `p<N>`: the default queue's
            let queue = |name: &str| match index.get(queue_of_class(name)) {
                Some(&q) => Some(q),
                None if queue_of_class(&format!("default/{name}")) == "default" => {
                    index.get("default").copied()
                }
                None => None,
            };
            sc.classes.iter().map(|c| queue(&c.name)).collect()
        } else {
            Vec::new()
        };
        Router {
            rules: rules.to_vec(),
            seed: sc.seed,
            rng: rng::stream(sc.seed, label_hash(topology), Purpose::Routing),
            buckets: HashMap::new(),
            windows: HashMap::new(),
            fixed: HashMap::new(),
            name: String::new(),
            class_queue,
        }
    }

    /// The queue of an arriving job and the index of the rule that placed
    /// it (`None`: no rule matched, the first queue).
    pub fn route(&mut self, job: &Job, now: Time, sc: &Scenario) -> (QueueId, Option<usize>) {
        for i in 0..self.rules.len() {
            let r = &self.rules[i];
            if (!r.classes.is_empty() && !r.classes.contains(&job.class))
                || (!r.tenants.is_empty() && !r.tenants.contains(&job.tenant))
            {
                continue;
            }
            let q = match &r.action {
                RouteAction::To(q) => *q,
                RouteAction::ClassQueue => match self.class_queue[job.class as usize] {
                    Some(q) => q,
                    None => continue,
                },
                RouteAction::Shard { queues } => {
                    self.name.clear();
                    sc.tenants.write_name(job.tenant, &mut self.name);
                    queues[(shard_hash(&self.name) % queues.len() as u64) as usize]
                }
                RouteAction::ShuffleShard { queues, per_tenant } => {
                    self.name.clear();
                    sc.tenants.write_name(job.tenant, &mut self.name);
                    let own = shuffle_subset(self.seed, &self.name, queues.len() as u32, *per_tenant);
                    queues[own[below(&mut self.rng, own.len() as u64) as usize] as usize]
                }
                RouteAction::Throttle { limit, to } => {
                    let to = *to;
                    let over = match *limit {
                        Throttle::Bucket { rate, burst } => {
                            self.bucket_overflows(i, job.tenant, now, rate, burst)
                        }
                        Throttle::Window { limit, window } => {
                            self.window_overflows(i, job.tenant, now, limit, window)
                        }
                        Throttle::Fixed { limit, per } => {
                            // every enqueue counts, as in the sliding window
                            let w = self.fixed.entry((i, job.tenant)).or_default();
                            let over = !w.fits(now, limit, per);
                            w.count(now, per);
                            over
                        }
                    };
                    if !over {
                        continue;
                    }
                    to
                }
            };
            return (q, Some(i));
        }
        (0, None)
    }

    /// Pours one job into the tenant's bucket; true when it would spill (the
    /// bucket is then left as it was).
    fn bucket_overflows(&mut self, rule: usize, t: TenantId, now: Time, rate: f64, burst: f64) -> bool {
        let b = self.buckets.entry((rule, t)).or_insert(Bucket::new(now));
        let fits = b.fits(now, rate, burst);
        if fits {
            b.pour();
        }
        !fits
    }

    /// Counts the job in the tenant's window (every enqueue counts, as in
    /// sidekiq-fair_tenant); true when `limit` jobs of the tenant were
    /// already enqueued in the `window` before it.
    fn window_overflows(&mut self, rule: usize, t: TenantId, now: Time, limit: u32, window: Time) -> bool {
        let w = self.windows.entry((rule, t)).or_default();
        let over = !w.fits(now, limit, window);
        w.count(now, limit);
        over
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_subsets_are_distinct_sorted_and_fixed_by_seed_and_name() {
        let a = shuffle_subset(7, "tenant-1", 10, 3);
        assert_eq!(a, shuffle_subset(7, "tenant-1", 10, 3));
        assert_eq!(a.len(), 3);
        assert!(a.windows(2).all(|w| w[0] < w[1]) && a.iter().all(|&s| s < 10));
        assert_eq!(shuffle_subset(7, "x", 4, 4), [0, 1, 2, 3]);
    }

    #[test]
    fn every_pair_of_ten_shards_is_equally_likely() {
        // 45 pairs of 10 shards; 90,000 tenants: 2,000 expected per pair,
        // sd sqrt(2000 * 44/45) = 44; every count within 5 sd (220)
        let mut counts = HashMap::new();
        for i in 0..90_000 {
            *counts.entry(shuffle_subset(1, &format!("t{i}"), 10, 2)).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 45);
        assert!(counts.values().all(|&c| c.abs_diff(2000) < 220), "{counts:?}");
    }
}

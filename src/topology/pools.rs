//! Pools of workers and the order in which a free worker polls its queues.
//!
//! Each pool keeps the positions (in its own list) of its queues that hold
//! jobs, so a fetch looks only at non-empty queues: strict polling takes
//! them in list order (a B-tree walk), weighted polling draws them one by
//! one with probability proportional to weight, without replacement, which
//! is exactly the order Sidekiq's shuffled weighted list visits them in.

use std::collections::BTreeSet;

use rand_pcg::Pcg64;

use super::poll::Sleepers;
use crate::model::{Costs, Poll, PoolSpec, QueueId};

pub struct Pool {
    pub free: u32,
    pub queues: Vec<QueueId>,
    /// `None` for strict polling.
    weights: Option<Vec<f64>>,
    /// Positions in `queues` of the queues that hold jobs.
    pub nonempty: BTreeSet<u32>,
    /// Jobs a worker claims per fetch.
    pub batch: u32,
    pub costs: Costs,
    /// Its idle workers between polls, under a poll interval (not in `free`).
    pub sleepers: Option<Sleepers>,
    pub limiter: Option<super::limiter::Limiter>,
    /// Whether it reserves ahead (`prefetch:`): then it never polls when a
    /// worker is free, its node takes jobs for it ([`super::node`]).
    pub node: bool,
}

impl Pool {
    pub fn new(spec: &PoolSpec) -> Self {
        let sleepers =
            (spec.costs.poll_interval > 0).then(|| Sleepers::new(spec.costs.poll_interval, spec.workers));
        Pool {
            // under a poll interval every worker starts asleep, its first look at 0
            free: if sleepers.is_some() { 0 } else { spec.workers },
            queues: spec.queues.clone(),
            weights: match &spec.poll {
                Poll::Strict => None,
                Poll::Weighted(w) => Some(w.clone()),
            },
            nonempty: BTreeSet::new(),
            batch: spec.batch,
            costs: spec.costs,
            sleepers,
            limiter: spec.limiter.map(super::limiter::Limiter::new),
            node: spec.prefetch.is_some(),
        }
    }

    /// Whether a worker of the pool is idle, awake or asleep between polls.
    pub fn idle(&self) -> bool {
        self.free > 0 || self.sleepers.as_ref().is_some_and(|s| s.asleep() > 0)
    }

    /// The non-empty queues in the order this fetch tries them, into `out`.
    pub fn fetch_order(&self, rng: &mut Pcg64, out: &mut Vec<QueueId>) {
        out.clear();
        match &self.weights {
            None => out.extend(self.nonempty.iter().map(|&i| self.queues[i as usize])),
            Some(w) => {
                let mut left: Vec<(u32, f64)> = self.nonempty.iter().map(|&i| (i, w[i as usize])).collect();
                while !left.is_empty() {
                    let total: f64 = left.iter().map(|x| x.1).sum();
                    let mut u = unit(rng) * total;
                    let mut k = left.len() - 1;
                    for (j, x) in left.iter().enumerate() {
                        if u < x.1 {
                            k = j;
                            break;
                        }
                        u -= x.1;
                    }
                    out.push(self.queues[left[k].0 as usize]);
                    left.remove(k);
                }
            }
        }
    }
}

/// A uniform draw in [0, 1) with 53 random bits.
fn unit(rng: &mut Pcg64) -> f64 {
    use rand::Rng;
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::rng::{stream, Purpose};

    #[test]
    fn weighted_order_puts_a_queue_first_in_proportion_to_its_weight() {
        // weights 4 and 1, both non-empty: the first queue leads 4/5 of the
        // fetches; 100,000 fetches: sd sqrt(n p (1-p)) = 126, bound 5 sd
        let spec = PoolSpec {
            name: "p".into(),
            workers: 1,
            queues: vec![0, 1],
            poll: Poll::Weighted(vec![4.0, 1.0]),
            batch: 1,
            costs: Costs::default(),
            limiter: None,
            prefetch: None,
        };
        let mut pool = Pool::new(&spec);
        pool.nonempty.extend([0, 1]);
        let mut rng = stream(3, 4, Purpose::Routing);
        let (mut first, mut order) = (0u32, Vec::new());
        for _ in 0..100_000 {
            pool.fetch_order(&mut rng, &mut order);
            assert_eq!(order.len(), 2);
            first += u32::from(order[0] == 0);
        }
        assert!(first.abs_diff(80_000) < 630, "{first}");
    }

    /// A generator whose next `next_u64` is `x`. `Pcg64::new(state, 0)`
    /// (increment 1) adds the increment and steps once on creation and steps
    /// again before each output, so `state` is the wanted post-step state
    /// walked back two steps; a state whose high half is zero outputs its
    /// low half unrotated (PCG's XSL-RR).
    fn rng_whose_next_draw_is(x: u64) -> Pcg64 {
        const M: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;
        // Newton's iteration for M^-1 mod 2^128: M is its own inverse mod 8
        // and each step doubles the correct low bits (3, 6, ... 192)
        let mut inv = M;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u128.wrapping_sub(M.wrapping_mul(inv)));
        }
        let back = |s: u128| s.wrapping_sub(1).wrapping_mul(inv);
        Pcg64::new(back(back(u128::from(x))).wrapping_sub(1), 0)
    }

    #[test]
    fn the_top_draw_goes_to_the_last_queue_when_rounding_overshoots() {
        // The largest draw, (2^53 - 1) / 2^53, lies above the first three
        // weights' share (445.691 of 1445.691), so the last queue comes first.
        // In floating point the sum is 1445.691, the draw scales to
        // 1445.6909999999998 and taking 356.236, 89.454 and 0.001 off it
        // leaves exactly 1000.0, which is not below the last weight: the walk
        // ends without a choice and the last queue must be the fallback.
        use rand::Rng;
        let mut rng = rng_whose_next_draw_is(u64::MAX);
        assert_eq!(rng.clone().next_u64(), u64::MAX, "the forged generator");
        let spec = PoolSpec {
            name: "p".into(),
            workers: 1,
            queues: vec![10, 11, 12, 13],
            poll: Poll::Weighted(vec![356.236, 89.454, 0.001, 1000.0]),
            batch: 1,
            costs: Costs::default(),
            limiter: None,
            prefetch: None,
        };
        let mut pool = Pool::new(&spec);
        pool.nonempty.extend([0, 1, 2, 3]);
        let mut order = Vec::new();
        pool.fetch_order(&mut rng, &mut order);
        assert_eq!(order[0], 13);
        let mut rest = order[1..].to_vec();
        rest.sort_unstable();
        assert_eq!(rest, [10, 11, 12]);
    }

    #[test]
    fn strict_order_is_list_order_of_the_nonempty_queues() {
        let spec = PoolSpec {
            name: "p".into(),
            workers: 1,
            queues: vec![5, 2, 7],
            poll: Poll::Strict,
            batch: 1,
            costs: Costs::default(),
            limiter: None,
            prefetch: None,
        };
        let mut pool = Pool::new(&spec);
        pool.nonempty.extend([2, 0]);
        let mut order = Vec::new();
        pool.fetch_order(&mut stream(1, 1, Purpose::Routing), &mut order);
        assert_eq!(order, [5, 7]);
    }
}

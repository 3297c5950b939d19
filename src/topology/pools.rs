//! Pools of workers and the order in which a free worker polls its queues.
//!
//! Each pool keeps the positions (in its own list) of its queues that hold
//! jobs, so a fetch looks only at non-empty queues: strict polling takes
//! them in list order (a B-tree walk), weighted polling draws them one by
//! one with probability proportional to weight, without replacement, which
//! is exactly the order Sidekiq's shuffled weighted list visits them in.

use std::collections::BTreeSet;

use rand_pcg::Pcg64;

use crate::model::{Poll, PoolSpec, QueueId};

pub struct Pool {
    pub free: u32,
    pub queues: Vec<QueueId>,
    /// `None` for strict polling.
    weights: Option<Vec<f64>>,
    /// Positions in `queues` of the queues that hold jobs.
    pub nonempty: BTreeSet<u32>,
    /// Jobs a worker claims per fetch.
    pub batch: u32,
}

impl Pool {
    pub fn new(spec: &PoolSpec) -> Self {
        Pool {
            free: spec.workers,
            queues: spec.queues.clone(),
            weights: match &spec.poll {
                Poll::Strict => None,
                Poll::Weighted(w) => Some(w.clone()),
            },
            nonempty: BTreeSet::new(),
            batch: spec.batch,
        }
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

    #[test]
    fn strict_order_is_list_order_of_the_nonempty_queues() {
        let spec =
            PoolSpec { name: "p".into(), workers: 1, queues: vec![5, 2, 7], poll: Poll::Strict, batch: 1 };
        let mut pool = Pool::new(&spec);
        pool.nonempty.extend([2, 0]);
        let mut order = Vec::new();
        pool.fetch_order(&mut stream(1, 1, Purpose::Routing), &mut order);
        assert_eq!(order, [5, 7]);
    }
}

//! The window's fairness indices over the claimants' received-over-entitled
//! values: Jain's index and the Gini coefficient, with the totals each
//! window adds to every claimant.

use super::{Scratch, ServiceWindows};

impl ServiceWindows {
    /// Adds the window's received service and entitlement to every
    /// claimant's totals (the open members left are the unsatisfied ones, at
    /// `lambda` x weight) and returns Jain's index and the Gini coefficient
    /// over them.
    pub(super) fn entitle(
        &mut self,
        sc: &mut Scratch,
        lambda: f64,
        backlogged: usize,
    ) -> (Option<f64>, Option<f64>) {
        for &(_, i) in &sc.open {
            sc.ent[i as usize] = lambda * self.claimants[self.members[i as usize] as usize].weight;
        }
        let ent = &sc.ent;
        let (mut n, mut sx, mut sx2) = (0usize, 0.0f64, 0.0f64);
        sc.xs.clear();
        for (i, &m) in self.members.iter().enumerate() {
            let c = &mut self.claimants[m as usize];
            c.received_total += sc.received[i];
            c.entitled_total += ent[i];
            if ent[i] > 0.0 {
                let x = sc.received[i] / ent[i];
                n += 1;
                sx += x;
                sx2 += x * x;
                // zeros (members that waited without running) need no sort
                if self.gini && x > 0.0 {
                    sc.xs.push(x.to_bits());
                }
            }
        }
        // idle claimants above the level are entitled to lambda x weight (> 0
        // when lambda is), capped ones to their demand; all received 0
        n += if lambda > 0.0 { self.idle_ranked } else { sc.capped_idle.len() };
        let zeros = n - sc.xs.len();
        let before = self.level_sum;
        self.level_sum += lambda;
        for &(m, d) in &sc.capped_idle {
            let c = &mut self.claimants[m];
            c.entitled_total += c.weight * (before - c.settled_at) + d;
            c.settled_at = self.level_sum;
        }
        if backlogged >= 2 && n >= 2 && sx2 != 0.0 {
            let gini = self.gini.then(|| sorted_gini(&mut sc.xs, zeros, sx));
            (Some(sx * sx / (n as f64 * sx2)), gini)
        } else {
            (None, None)
        }
    }
}

/// The Gini coefficient of the values whose bits are `xs` (non-negative)
/// and `zeros` more zeros, summing to `sum` > 0:
/// sum over pairs i < j of |x_i - x_j| / (n sum x). Sorted, the pairs'
/// differences are the gaps between neighbours, the k-th gap counted by the
/// k x (n - k) pairs that straddle it, so equal values give exactly 0.
/// O(m log m) for the m values in `xs` (sorted in place).
pub(super) fn sorted_gini(xs: &mut [u64], zeros: usize, sum: f64) -> f64 {
    // non-negative floats order like their bits: an integer sort
    xs.sort_unstable();
    let n = (xs.len() + zeros) as f64;
    let (mut pairs, mut prev) = (0.0f64, 0.0f64);
    for (i, &b) in xs.iter().enumerate() {
        let x = f64::from_bits(b);
        // the gap below the value at sorted position k = zeros + i (0-based)
        // has k values under it and n - k from it up
        let k = (zeros + i) as f64;
        pairs += (x - prev) * k * (n - k);
        prev = x;
    }
    (pairs / (n * sum)).clamp(0.0, 1.0)
}

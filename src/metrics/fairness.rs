//! Jain's fairness index over max-min fair entitlements, window by window.
//!
//! A fairness window is one log tick. Within it each claimant (tenant or
//! class) that was active (claimable or running work) has
//! - *received*: busy worker-time it held inside the window, counting the
//!   part of each running attempt that overlaps the window;
//! - *demand*: what it could have used: received + the service of its jobs
//!   still claimable at the window's end, at most `limit x window length`
//!   (limit = its cap, or the pool size), and never less than received (a
//!   tenant lent capacity over its cap wanted what it got);
//! - *entitlement*: its weighted max-min fair share (water-filling) of the
//!   capacity actually delivered in the window (the sum of received).
//!
//! x = received / entitlement is 1 for a claimant served exactly its fair
//! share, 0 for one starved. J = (sum x)^2 / (n sum x^2) over the window.
//! Cost: O(1) per start and finish, O(m log m) per window for m active
//! claimants; nothing per dispatch scans the population.

use crate::time::Time;

/// Jain's index J = (sum x)^2 / (n * sum x^2) over `x`; 1 when all equal,
/// 1/n when one value holds everything. `None` for no values or all zero.
pub fn jain(x: &[f64]) -> Option<f64> {
    let n = x.len();
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if n == 0 || s2 == 0.0 {
        return None;
    }
    Some(s * s / (n as f64 * s2))
}

/// Weighted max-min fair shares (water-filling): splits `capacity` among
/// claimants in proportion to `weights`, never giving one more than its
/// `demand`; what a satisfied claimant leaves is split among the others.
/// Claimants with zero demand or weight get nothing. O(n log n).
pub fn water_fill(demand: &[f64], weights: &[f64], capacity: f64) -> Vec<f64> {
    let n = demand.len();
    let mut share = vec![0.0; n];
    let mut open: Vec<usize> = (0..n).filter(|&i| demand[i] > 0.0 && weights[i] > 0.0).collect();
    // claimants whose demand per unit weight is smallest are satisfied first
    open.sort_by(|&a, &b| (demand[a] / weights[a]).total_cmp(&(demand[b] / weights[b])).then(a.cmp(&b)));
    let mut left = capacity.max(0.0);
    let mut wsum: f64 = open.iter().map(|&i| weights[i]).sum();
    for (k, &i) in open.iter().enumerate() {
        let level = left / wsum;
        if demand[i] <= level * weights[i] {
            share[i] = demand[i];
            left -= demand[i];
            wsum -= weights[i];
        } else {
            for &j in &open[k..] {
                share[j] = level * weights[j];
            }
            break;
        }
    }
    share
}

/// The figures of one closed window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// Jain's index, when at least two claimants were backlogged.
    pub jain: Option<f64>,
    /// Claimants that had claimable work at some point in the window.
    pub backlogged: usize,
}

/// Running accounting of service received per claimant, closed window by window.
#[derive(Debug, Clone, Default)]
pub struct ServiceWindows {
    weights: Vec<f64>,
    /// Most workers a claimant can hold at once (its cap, or the pool size).
    limit: Vec<u64>,
    running: Vec<u32>,
    queued: Vec<u64>,
    /// Service of the claimable jobs, microseconds.
    queued_work: Vec<u128>,
    /// Worker-microseconds received in the current window up to `since`.
    acc: Vec<u128>,
    since: Vec<Time>,
    in_window: Vec<bool>,
    backlogged: Vec<bool>,
    members: Vec<u32>,
    /// Sum over windows of received and entitled service (worker-microseconds).
    pub received_total: Vec<f64>,
    pub entitled_total: Vec<f64>,
}

impl ServiceWindows {
    /// Accounting for claimants with these weights and concurrency limits.
    pub fn new(weights: Vec<f64>, limit: Vec<u64>) -> Self {
        let n = weights.len();
        ServiceWindows {
            weights,
            limit,
            running: vec![0; n],
            queued: vec![0; n],
            queued_work: vec![0; n],
            acc: vec![0; n],
            since: vec![0; n],
            in_window: vec![false; n],
            backlogged: vec![false; n],
            members: Vec::new(),
            received_total: vec![0.0; n],
            entitled_total: vec![0.0; n],
        }
    }

    fn join(&mut self, m: usize, now: Time) {
        if !self.in_window[m] {
            self.in_window[m] = true;
            self.since[m] = now;
            self.members.push(m as u32);
        }
    }

    fn advance(&mut self, m: usize, now: Time) {
        self.acc[m] += self.running[m] as u128 * (now - self.since[m]) as u128;
        self.since[m] = now;
    }

    /// A job of `m` needing `service` became claimable at `now`.
    pub fn on_queued(&mut self, m: usize, service: Time, now: Time) {
        self.join(m, now);
        self.queued[m] += 1;
        self.queued_work[m] += service as u128;
        self.backlogged[m] = true;
    }

    /// A claimable job of `m` started an attempt at `now`.
    pub fn on_start(&mut self, m: usize, service: Time, now: Time) {
        self.join(m, now);
        self.advance(m, now);
        self.running[m] += 1;
        self.queued[m] -= 1;
        self.queued_work[m] -= service as u128;
    }

    /// A claimable job of `m` left the queue without starting (expired or
    /// dropped by admission control at `now`).
    pub fn on_dropped(&mut self, m: usize, service: Time, now: Time) {
        self.join(m, now);
        self.queued[m] = self.queued[m].saturating_sub(1);
        self.queued_work[m] = self.queued_work[m].saturating_sub(service as u128);
    }

    /// An attempt of `m` ended at `now`.
    pub fn on_end(&mut self, m: usize, now: Time) {
        self.join(m, now);
        self.advance(m, now);
        self.running[m] -= 1;
    }

    /// Closes the window `[end - len, end)` and opens the next one.
    pub fn close(&mut self, end: Time, len: Time) -> Window {
        let mut received = Vec::with_capacity(self.members.len());
        let mut demand = Vec::with_capacity(self.members.len());
        let mut weights = Vec::with_capacity(self.members.len());
        let mut backlogged = 0;
        for i in 0..self.members.len() {
            let m = self.members[i] as usize;
            self.advance(m, end);
            let got = self.acc[m] as f64;
            let most = self.limit[m] as f64 * len as f64;
            received.push(got);
            demand.push(got.max((got + self.queued_work[m] as f64).min(most)));
            weights.push(self.weights[m]);
            backlogged += self.backlogged[m] as usize;
        }
        let capacity: f64 = received.iter().sum();
        let ent = water_fill(&demand, &weights, capacity);
        let mut x = Vec::with_capacity(ent.len());
        for (i, &m) in self.members.iter().enumerate() {
            let m = m as usize;
            self.received_total[m] += received[i];
            self.entitled_total[m] += ent[i];
            if ent[i] > 0.0 {
                x.push(received[i] / ent[i]);
            }
        }
        let jain = if backlogged >= 2 && x.len() >= 2 { jain(&x) } else { None };
        // claimants with work left stay in the next window; those still claimable are backlogged in it
        let mut keep = Vec::with_capacity(self.members.len());
        for &m in &self.members {
            let mu = m as usize;
            self.acc[mu] = 0;
            self.since[mu] = end;
            self.backlogged[mu] = self.queued[mu] > 0;
            if self.queued[mu] > 0 || self.running[mu] > 0 {
                keep.push(m);
            } else {
                self.in_window[mu] = false;
            }
        }
        self.members = keep;
        Window { jain, backlogged }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn water_fill_caps_by_demand_and_shares_the_rest_by_weight() {
        // capacity 10, demands 2, 100, 100, equal weights: 2, then 4 and 4
        assert_eq!(water_fill(&[2.0, 100.0, 100.0], &[1.0, 1.0, 1.0], 10.0), vec![2.0, 4.0, 4.0]);
        // weights 3:1 with ample demand: 7.5 and 2.5
        assert_eq!(water_fill(&[50.0, 50.0], &[3.0, 1.0], 10.0), vec![7.5, 2.5]);
        // everyone satisfied: shares equal demands
        assert_eq!(water_fill(&[1.0, 2.0], &[1.0, 1.0], 10.0), vec![1.0, 2.0]);
        // cascading: capacity 12, demands 1, 3, 100, 100, weights 1,1,1,1:
        // level 3 -> 1 satisfied (left 11, 3 open, level 11/3 = 3.67) -> 3 satisfied
        // (left 8, 2 open) -> 4 and 4
        assert_eq!(water_fill(&[1.0, 3.0, 100.0, 100.0], &[1.0; 4], 12.0), vec![1.0, 3.0, 4.0, 4.0]);
        // weighted cascade: capacity 10, weights 2,1,1, demands 1, 100, 100:
        // level 10/4 = 2.5 -> A wants 1 <= 5, satisfied; left 9 over weight 2 -> 4.5 each
        assert_eq!(water_fill(&[1.0, 100.0, 100.0], &[2.0, 1.0, 1.0], 10.0), vec![1.0, 4.5, 4.5]);
        // zero demand or weight gets nothing
        assert_eq!(water_fill(&[0.0, 5.0, 5.0], &[1.0, 0.0, 1.0], 10.0), vec![0.0, 0.0, 5.0]);
    }

    #[test]
    fn jain_extremes_and_a_hand_example() {
        assert_eq!(jain(&[1.0, 1.0, 1.0]), Some(1.0));
        // one of four gets everything: 1/4
        assert_eq!(jain(&[4.0, 0.0, 0.0, 0.0]), Some(0.25));
        // (1+2+3)^2 / (3 * (1+4+9)) = 36/42
        assert!((jain(&[1.0, 2.0, 3.0]).unwrap() - 36.0 / 42.0).abs() < 1e-12);
        assert_eq!(jain(&[]), None);
    }

    const S: Time = 1_000_000;

    #[test]
    fn window_where_one_tenant_is_starved() {
        // Two workers, window [0, 10s). A holds both workers all window (two
        // 10s jobs started at 0); B's 1s job is claimable from 0 and never runs.
        // received: A 20, B 0; capacity 20.
        // demand: A = 20 (+ nothing queued), B = 0 + 1 = 1.
        // water-fill of 20 over demands 20 and 1 at equal weight: B gets 1, A 19.
        // x = (20/19, 0): J = (20/19)^2 / (2 (20/19)^2) = 1/2.
        let mut w = ServiceWindows::new(vec![1.0, 1.0], vec![2, 2]);
        w.on_queued(0, 10 * S, 0);
        w.on_queued(0, 10 * S, 0);
        w.on_queued(1, S, 0);
        w.on_start(0, 10 * S, 0);
        w.on_start(0, 10 * S, 0);
        let r = w.close(10 * S, 10 * S);
        assert_eq!(r.backlogged, 2);
        assert!((r.jain.unwrap() - 0.5).abs() < 1e-12, "{r:?}");
        assert_eq!(w.received_total, vec![20.0 * S as f64, 0.0]);
        assert_eq!(w.entitled_total, vec![19.0 * S as f64, 1.0 * S as f64]);
    }

    #[test]
    fn window_where_three_tenants_starve_one_is_served() {
        // Four tenants, one worker held by A for the whole 10s window; B, C, D
        // each have a 5s job claimable. received (10, 0, 0, 0); demands (10, 5, 5, 5);
        // water-fill 10 at equal weights: level 2.5 each. x = (4, 0, 0, 0): J = 1/4.
        let mut w = ServiceWindows::new(vec![1.0; 4], vec![1; 4]);
        w.on_queued(0, 10 * S, 0);
        w.on_start(0, 10 * S, 0);
        for m in 1..4 {
            w.on_queued(m, 5 * S, 0);
        }
        let r = w.close(10 * S, 10 * S);
        assert_eq!(r.backlogged, 4);
        assert!((r.jain.unwrap() - 0.25).abs() < 1e-12, "{r:?}");
    }

    #[test]
    fn window_where_everyone_gets_its_entitlement() {
        // Two workers, window [0, 10s), weights 1 and 1. A runs one job all
        // window and has more queued; B runs one job all window. Each received
        // 10 = half the 20 delivered: entitlements 10 and 10, x = (1, 1), J = 1.
        let mut w = ServiceWindows::new(vec![1.0, 1.0], vec![2, 2]);
        w.on_queued(0, 30 * S, 0);
        w.on_queued(0, 30 * S, 0);
        w.on_queued(1, 30 * S, 0);
        w.on_start(0, 30 * S, 0);
        w.on_start(1, 30 * S, 0);
        let r = w.close(10 * S, 10 * S);
        assert_eq!(r.jain, Some(1.0));
        // next window: service counts partial overlap: B's job ends at 14s, A's queued job starts then
        w.on_end(1, 14 * S);
        w.on_start(0, 30 * S, 14 * S);
        let r = w.close(20 * S, 10 * S);
        // received A = 4 (one worker, 10..14) + 12 (two workers, 14..20) = 16, B = 4.
        // Only A had claimable work in this window, so it does not count for J.
        assert_eq!(r.backlogged, 1);
        assert_eq!(r.jain, None);
        assert_eq!(w.received_total, vec![26.0 * S as f64, 14.0 * S as f64]);
    }

    #[test]
    fn weights_set_the_entitlement() {
        // Weights 3:1, both backlogged, one worker each received 10s of 20s delivered.
        // Entitlements 15 and 5; x = (10/15, 10/5) = (2/3, 2); J = (8/3)^2 / (2 (4/9 + 4)) = 0.8.
        let mut w = ServiceWindows::new(vec![3.0, 1.0], vec![2, 2]);
        for m in 0..2 {
            w.on_queued(m, 100 * S, 0);
            w.on_queued(m, 100 * S, 0);
            w.on_start(m, 100 * S, 0);
        }
        let r = w.close(10 * S, 10 * S);
        assert!((r.jain.unwrap() - 0.8).abs() < 1e-12, "{r:?}");
    }
}

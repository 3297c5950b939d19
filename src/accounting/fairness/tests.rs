//! Tests of the fairness windows: windows derived by hand, and a randomized
//! comparison with plain water-filling (`water_fill` and `jain`) window by window.

use super::*;

const S: Time = 1_000_000;

#[test]
fn fixed_weights_round_like_f64_round() {
    // the reference is the libm rounding the fast path replaces
    for w in [1.0, 1.7, 0.1, 0.25, 3.0, 2.0 / 3.0, 1e-9, 12345.678, 5e6, 8.3e6, 1e7, 1e12] {
        assert_eq!(weight_fixed(w), (w * WEIGHT_SCALE).round() as i128, "weight {w}");
    }
    // a value whose fraction is exactly one half rounds up
    let half = 0.5 / WEIGHT_SCALE;
    assert_eq!(weight_fixed(1.0 + half), (1i128 << 40) + 1);
}

#[test]
fn window_where_one_tenant_is_starved() {
    // Two workers, window [0, 10s). A holds both workers all window (two
    // 10s jobs started at 0); B's 1s job is claimable from 0 and never runs.
    // received: A 20, B 0; capacity 20.
    // demand: A = 20 (+ nothing queued), B = 0 + 1 = 1.
    // water-fill of 20 over demands 20 and 1 at equal weight: B gets 1, A 19.
    // x = (20/19, 0): J = (20/19)^2 / (2 (20/19)^2) = 1/2; Gini: one of
    // two holds everything, (n - 1)/n = 1/2.
    let mut w = ServiceWindows::new(vec![1.0, 1.0], vec![2, 2]).with_gini();
    w.on_queued(0, 10 * S);
    w.on_queued(0, 10 * S);
    w.on_queued(1, S);
    w.on_start(0, 10 * S, 0);
    w.on_start(0, 10 * S, 0);
    let r = w.close(10 * S, 10 * S);
    assert_eq!(r.backlogged, 2);
    assert!((r.jain.unwrap() - 0.5).abs() < 1e-12, "{r:?}");
    assert!((r.gini.unwrap() - 0.5).abs() < 1e-12, "{r:?}");
    assert_eq!(w.received_totals(), vec![20.0 * S as f64, 0.0]);
    assert_eq!(w.entitled_totals(), vec![19.0 * S as f64, 1.0 * S as f64]);
}

#[test]
fn window_where_three_tenants_starve_one_is_served() {
    // Four tenants, one worker held by A for the whole 10s window; B, C, D
    // each have a 5s job claimable. received (10, 0, 0, 0); demands (10, 5, 5, 5);
    // water-fill 10 at equal weights: level 2.5 each. x = (4, 0, 0, 0): J = 1/4,
    // Gini (n - 1)/n = 3/4.
    let mut w = ServiceWindows::new(vec![1.0; 4], vec![1; 4]).with_gini();
    w.on_queued(0, 10 * S);
    w.on_start(0, 10 * S, 0);
    for m in 1..4 {
        w.on_queued(m, 5 * S);
    }
    let r = w.close(10 * S, 10 * S);
    assert_eq!(r.backlogged, 4);
    assert!((r.jain.unwrap() - 0.25).abs() < 1e-12, "{r:?}");
    assert_eq!(r.gini, Some(0.75));
}

#[test]
fn window_where_everyone_gets_its_entitlement() {
    // Two workers, window [0, 10s), weights 1 and 1. A runs one job all
    // window and has more queued; B runs one job all window. Each received
    // 10 = half the 20 delivered: entitlements 10 and 10, x = (1, 1), J = 1,
    // Gini 0 (all equal).
    let mut w = ServiceWindows::new(vec![1.0, 1.0], vec![2, 2]).with_gini();
    w.on_queued(0, 30 * S);
    w.on_queued(0, 30 * S);
    w.on_queued(1, 30 * S);
    w.on_start(0, 30 * S, 0);
    w.on_start(1, 30 * S, 0);
    let r = w.close(10 * S, 10 * S);
    assert_eq!(r.jain, Some(1.0));
    assert_eq!(r.gini, Some(0.0));
    // next window: service counts partial overlap: B's job ends at 14s, A's queued job starts then
    w.on_end(1, 14 * S);
    w.on_start(0, 30 * S, 14 * S);
    let r = w.close(20 * S, 10 * S);
    // received A = 4 (one worker, 10..14) + 12 (two workers, 14..20) = 16, B = 4.
    // Only A had claimable work in this window, so it does not count for J.
    assert_eq!(r.backlogged, 1);
    assert_eq!(r.jain, None);
    assert_eq!(r.gini, None);
    assert_eq!(w.received_totals(), vec![26.0 * S as f64, 14.0 * S as f64]);
}

#[test]
fn weights_set_the_entitlement() {
    // Weights 3:1, both backlogged, one worker each received 10s of 20s delivered.
    // Entitlements 15 and 5; x = (10/15, 10/5) = (2/3, 2); J = (8/3)^2 / (2 (4/9 + 4)) = 0.8.
    // Gini: |2 - 2/3| = 4/3 over n sum x = 2 x 8/3: 1/4.
    let mut w = ServiceWindows::new(vec![3.0, 1.0], vec![2, 2]).with_gini();
    for m in 0..2 {
        w.on_queued(m, 100 * S);
        w.on_queued(m, 100 * S);
        w.on_start(m, 100 * S, 0);
    }
    let r = w.close(10 * S, 10 * S);
    assert!((r.jain.unwrap() - 0.8).abs() < 1e-12, "{r:?}");
    assert!((r.gini.unwrap() - 0.25).abs() < 1e-12, "{r:?}");
}

#[test]
fn idle_claimant_with_tiny_demand_is_capped_at_its_demand() {
    // One worker, 10s windows, weights 1. A runs jobs through both windows;
    // B has a 1s job queued from 0 and never runs, so in window 2 it is idle
    // (no event, nothing running). Window 2: received A 10, B 0; demands
    // A 10 (limit 1 x 10s), B 1. Water-fill 10: level 5, B's 1 <= 5 is
    // capped at 1, A gets 9. x = (10/9, 0): J = 1/2 (one of two served),
    // Gini 1/2 (B, idle, counts as a zero).
    // Totals: A entitled 9 + 9, B 1 + 1 (same split in window 1).
    let mut w = ServiceWindows::new(vec![1.0, 1.0], vec![1, 1]).with_gini();
    w.on_queued(0, 100 * S);
    w.on_queued(0, 100 * S);
    w.on_start(0, 100 * S, 0);
    w.on_queued(1, S);
    let r = w.close(10 * S, 10 * S);
    assert!((r.jain.unwrap() - 0.5).abs() < 1e-12, "{r:?}");
    let r = w.close(20 * S, 10 * S);
    assert_eq!(r.backlogged, 2);
    assert!((r.jain.unwrap() - 0.5).abs() < 1e-12, "{r:?}");
    assert!((r.gini.unwrap() - 0.5).abs() < 1e-12, "{r:?}");
    w.settle();
    assert_eq!(w.entitled_totals(), vec![18.0 * S as f64, 2.0 * S as f64]);
    // window 3 is the same as window 2 (B still idle, still capped at 1):
    // totals grow by 9 and 1 again.
    let r = w.close(30 * S, 10 * S);
    assert!((r.jain.unwrap() - 0.5).abs() < 1e-12, "{r:?}");
    w.settle();
    assert_eq!(w.entitled_totals(), vec![27.0 * S as f64, 3.0 * S as f64]);
}

#[test]
fn idle_claimants_above_the_level_settle_lambda_times_weight() {
    // One worker held by A for 3 windows of 10s; B (weight 1) and C (weight 3)
    // each queue a 1000s job at 0 and stay idle from window 2 on. Demands
    // A 10, B 10, C 10 (limit 1 x 10s); capacity 10 over weight 5: level 2,
    // nobody capped (10 > 2, 10 > 2, 10 > 6): entitlements 2, 2, 6 per window.
    // x = (10/2, 0, 0): J = 1/3 each window, Gini 2/3 (one of three holds
    // all). Totals over 3 windows: 6, 6, 18.
    let mut w = ServiceWindows::new(vec![1.0, 1.0, 3.0], vec![1, 1, 1]).with_gini();
    w.on_queued(0, 1000 * S);
    w.on_start(0, 1000 * S, 0);
    w.on_queued(1, 1000 * S);
    w.on_queued(2, 1000 * S);
    for k in 1..=3 {
        let r = w.close(k * 10 * S, 10 * S);
        // window 1: A's job was claimable at 0, so A, B, C; later only B and C
        assert_eq!(r.backlogged, if k == 1 { 3 } else { 2 }, "window {k}");
        assert!((r.jain.unwrap() - 1.0 / 3.0).abs() < 1e-12, "{r:?}");
        assert!((r.gini.unwrap() - 2.0 / 3.0).abs() < 1e-12, "{r:?}");
    }
    w.settle();
    assert_eq!(w.entitled_totals(), vec![6.0 * S as f64, 6.0 * S as f64, 18.0 * S as f64]);
    // leaving the idle set settles too: C's job starts at 35s, window 4:
    // A 10, C 5 received (capacity 15), demands A 10, B 10, C min(5 + 0, 10) = 5.
    // weights 1, 1, 3: level 15/5 = 3 -> C (5 <= 9) capped at 5; 10 over 2: 5, 5.
    w.on_start(2, 1000 * S, 35 * S);
    let r = w.close(40 * S, 10 * S);
    w.settle();
    assert_eq!(w.entitled_totals(), vec![11.0 * S as f64, 11.0 * S as f64, 23.0 * S as f64]);
    // x = (10/5, 0, 5/5) = (2, 0, 1): J = 9 / (3 * 5) = 0.6; Gini: sorted
    // 0, 1, 2, pair differences 1 + 2 + 1 = 4 over n sum x = 3 x 3: 4/9
    assert!((r.jain.unwrap() - 0.6).abs() < 1e-12, "{r:?}");
    assert!((r.gini.unwrap() - 4.0 / 9.0).abs() < 1e-12, "{r:?}");
}

/// The accounting before idle claimants were aggregated: every claimant
/// with work stays a member and each window runs `water_fill` + `jain`
/// over all of them. The reference for the randomized comparison.
struct Plain {
    weights: Vec<f64>,
    limit: Vec<u64>,
    running: Vec<u32>,
    queued: Vec<u64>,
    queued_work: Vec<u128>,
    acc: Vec<u128>,
    since: Vec<Time>,
    in_window: Vec<bool>,
    backlogged: Vec<bool>,
    members: Vec<u32>,
    entitled_total: Vec<f64>,
    received_total: Vec<f64>,
}

impl Plain {
    fn new(weights: Vec<f64>, limit: Vec<u64>) -> Self {
        let n = weights.len();
        Plain {
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
            entitled_total: vec![0.0; n],
            received_total: vec![0.0; n],
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
    fn close(&mut self, end: Time, len: Time) -> Window {
        let (mut received, mut demand, mut weights, mut backlogged) = (vec![], vec![], vec![], 0);
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
        let ent = water_fill(&demand, &weights, received.iter().sum());
        let mut x = vec![];
        for (i, &m) in self.members.iter().enumerate() {
            self.entitled_total[m as usize] += ent[i];
            self.received_total[m as usize] += received[i];
            if ent[i] > 0.0 {
                x.push(received[i] / ent[i]);
            }
        }
        let (jain, gini) = match backlogged >= 2 && x.len() >= 2 {
            true => (jain(&x), gini(&x)),
            false => (None, None),
        };
        // jain and gini are both given or both not
        let gini = jain.and(gini);
        let mut keep = vec![];
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
        Window { jain, gini, backlogged }
    }
}

#[test]
fn aggregated_idle_set_matches_plain_water_filling() {
    // Random event sequences (fixed xorshift seed) driven into both
    // accountings; most claimants are idle in most windows, some have tiny
    // queued work so idle ones get capped. Expected numbers come from the
    // plain O(members) computation above, independent of the idle set.
    let mut next = crate::test_rng::xorshift(0x9e37_79b9_7f4a_7c15);
    let mut windows_with_jain = 0;
    for case in 0..300 {
        let n = 2 + next(30) as usize;
        let weights: Vec<f64> = (0..n).map(|_| [1.0, 2.0, 3.0, 0.5, 0.25, 1.7][next(6) as usize]).collect();
        let limit: Vec<u64> = (0..n).map(|_| 1 + next(4)).collect();
        let mut fast = ServiceWindows::new(weights.clone(), limit.clone()).with_gini();
        // the sorted walk alone, one round then the walk, and rounds only
        fast.max_rounds = [0, 1, 8][case % 3];
        let mut plain = Plain::new(weights, limit);
        let mut queue: Vec<Vec<Time>> = vec![vec![]; n];
        let mut running: Vec<u32> = vec![0; n];
        let len = 10 * S;
        for k in 1..=12u64 {
            let start = (k - 1) * len;
            let mut now = start;
            for _ in 0..next(8) {
                now += next(len / 8);
                let m = next(n as u64) as usize;
                match next(4) {
                    0 => {
                        let service = if next(3) == 0 { 1 + next(S / 10) } else { 1 + next(40 * S) };
                        queue[m].push(service);
                        fast.on_queued(m, service);
                        plain.join(m, now);
                        plain.queued[m] += 1;
                        plain.queued_work[m] += service as u128;
                        plain.backlogged[m] = true;
                    }
                    1 if !queue[m].is_empty() => {
                        let service = queue[m].pop().unwrap_or(0);
                        running[m] += 1;
                        fast.on_start(m, service, now);
                        plain.join(m, now);
                        plain.advance(m, now);
                        plain.running[m] += 1;
                        plain.queued[m] -= 1;
                        plain.queued_work[m] -= service as u128;
                    }
                    2 if running[m] > 0 => {
                        running[m] -= 1;
                        fast.on_end(m, now);
                        plain.join(m, now);
                        plain.advance(m, now);
                        plain.running[m] -= 1;
                    }
                    3 if !queue[m].is_empty() => {
                        let service = queue[m].pop().unwrap_or(0);
                        fast.on_dropped(m, service);
                        plain.join(m, now);
                        plain.queued[m] -= 1;
                        plain.queued_work[m] -= service as u128;
                    }
                    _ => {}
                }
            }
            let a = fast.close(k * len, len);
            let b = plain.close(k * len, len);
            assert_eq!(a.backlogged, b.backlogged);
            match (a.jain, b.jain) {
                (Some(x), Some(y)) => {
                    assert!((x - y).abs() < 1e-9, "{x} vs {y}");
                    windows_with_jain += 1;
                }
                (x, y) => assert_eq!(x, y),
            }
            // the sorted gaps against the O(n^2) definition
            match (a.gini, b.gini) {
                (Some(x), Some(y)) => assert!((x - y).abs() < 1e-9, "gini {x} vs {y}"),
                (x, y) => assert_eq!(x, y),
            }
        }
        fast.settle();
        for (x, y) in fast.entitled_totals().iter().zip(&plain.entitled_total) {
            assert!((x - y).abs() <= 1e-9 * y.abs().max(1.0), "{x} vs {y}");
        }
        // received service is whole microseconds, summed exactly by both
        assert_eq!(fast.received_totals(), plain.received_total);
    }
    // the comparison exercised real windows, not only empty ones
    assert!(windows_with_jain > 500, "{windows_with_jain}");
}

#[test]
fn a_claimant_waiting_with_zero_length_jobs_is_backlogged_but_not_counted() {
    // One worker, 10s windows, weights 1. A runs one of its two 100s jobs
    // from 0; B queues a zero-length job at 0, which waits for the worker.
    // B's demand is 0: it is entitled to nothing, so only A (received 10,
    // entitled 10, x = 1) counts for J: one value, no index. Backlogged: A
    // (a job queued) and B, as a member in window 1 and idle in window 2.
    // At 25s B's job starts and ends: still backlogged in window 3, gone in 4.
    let mut w = ServiceWindows::new(vec![1.0, 1.0], vec![1, 1]);
    w.on_queued(0, 100 * S);
    w.on_queued(0, 100 * S);
    w.on_start(0, 100 * S, 0);
    w.on_queued(1, 0);
    let mut got = Vec::new();
    for k in 1..=4 {
        if k == 3 {
            w.on_start(1, 0, 25 * S);
            w.on_end(1, 25 * S);
        }
        got.push(w.close(k * 10 * S, 10 * S));
    }
    let backlogged: Vec<usize> = got.iter().map(|r| r.backlogged).collect();
    assert_eq!(backlogged, [2, 2, 2, 1]);
    assert!(got.iter().all(|r| r.jain.is_none()), "{got:?}");
    w.settle();
    assert_eq!(w.entitled_totals(), vec![40.0 * S as f64, 0.0]);
}

#[test]
fn without_a_limit_demand_is_all_the_queued_work() {
    // Limits of u64::MAX (a pool bounded by resources alone): no cap on
    // demand. 10s window; A runs a job all window with 30s more queued, B has
    // 5s queued and never runs. Demands 10 + 30 = 40 and 5; water-filling 10
    // at equal weights: level 5, B satisfied at 5, A 5. x = (10/5, 0): J = 1/2.
    let mut w = ServiceWindows::new(vec![1.0, 1.0], vec![u64::MAX, u64::MAX]);
    w.on_queued(0, 100 * S);
    w.on_start(0, 100 * S, 0);
    w.on_queued(0, 30 * S);
    w.on_queued(1, 5 * S);
    let r = w.close(10 * S, 10 * S);
    assert_eq!(r.jain, Some(0.5));
    assert_eq!(w.entitled_totals(), vec![5.0 * S as f64, 5.0 * S as f64]);
}

#[test]
fn a_new_window_length_reorders_the_idle_claimants() {
    // Weights 1. A (limit 3) runs three jobs from 0 with more queued; B and
    // C (limit 1) queue 15s and 12s at 0 and never run.
    // Window 1, [0, 10s): received A 30; demands A 30, B min(15, 10) = 10,
    // C 10. Level 30/3 = 10: B and C satisfied at 10, A 10. x = (3, 0, 0):
    // J = 1/3. B and C go idle with equal demands per weight (10).
    // Window 2, [10s, 30s), 20s long: one of A's jobs ends at 10s, so A
    // receives 40; demands A 3 x 20 = 60, B 15, C 12: C now comes first.
    // Level 40/3 = 13.3: C (12) is capped, then 28/2 = 14: B (15) and A
    // (60) are above it: A 14, B 14, C 12. J = 1/3 again (one of three
    // served). Kept in the order of the 10s window, B (above) would hide C.
    let mut w = ServiceWindows::new(vec![1.0; 3], vec![3, 1, 1]);
    for _ in 0..4 {
        w.on_queued(0, 1000 * S);
    }
    for _ in 0..3 {
        w.on_start(0, 1000 * S, 0);
    }
    w.on_queued(1, 15 * S);
    w.on_queued(2, 12 * S);
    let r1 = w.close(10 * S, 10 * S);
    w.on_end(0, 10 * S);
    let r2 = w.close(30 * S, 20 * S);
    for r in [r1, r2] {
        assert!((r.jain.unwrap() - 1.0 / 3.0).abs() < 1e-12, "{r:?}");
    }
    w.settle();
    assert_eq!(w.entitled_totals(), vec![24.0 * S as f64, 24.0 * S as f64, 22.0 * S as f64]);
}

#[test]
fn compacting_the_idle_heap_keeps_every_idle_claimant() {
    // One worker held by claimant 0; claimants 1-99 queue a 1000s job at 0
    // and are idle from window 2 on. Every window: capacity 10s over 100
    // claimants of weight 1 whose demands are all 10s (limit 1 x 10s): 0.1s
    // each, whether member or idle. In window 3 claimants 1-90 queue one
    // more job (leaving the idle set, then entering it again): after 82 have
    // left, the heap (99 entries, 17 live) passes 64 + 2 x 17 and is
    // compacted to its live entries, those of 83-99. Four windows: 0.4s each.
    let n = 100;
    let mut w = ServiceWindows::new(vec![1.0; n], vec![1; n]);
    w.on_queued(0, 1000 * S);
    w.on_start(0, 1000 * S, 0);
    for m in 1..n {
        w.on_queued(m, 1000 * S);
    }
    for k in 1..=4 {
        if k == 3 {
            for m in 1..=90 {
                w.on_queued(m, S);
            }
        }
        w.close(k * 10 * S, 10 * S);
    }
    w.settle();
    assert_eq!(w.entitled_totals(), vec![(4 * S / 10) as f64; n]);
}

#[test]
fn repeating_a_quiet_window_adds_it_n_times() {
    // One worker, 10s windows, weights 1. At 0 A starts a 1000s job, B
    // queues 1s, C 1000s; neither B nor C ever runs.
    // Window 1: demands A 10, B 1, C 10; level 10/3: B satisfied at 1, then
    // 9/2 = 4.5: A 4.5, B 1, C 4.5. x = (10/4.5, 0, 0): J = 1/3.
    // Window 2, no events: B and C idle, the same split (B capped at 1, C
    // at the level); backlogged B and C (A has nothing queued): J = 1/3.
    // repeat(3) stands for windows 3-5; window 6 is closed again (A's
    // received 10 needs its running job counted from 50s on). Totals over
    // six windows: received A 60, entitled A 6 x 4.5 = 27, B 6, C 27.
    // Gini of (10/4.5, 0, 0): one of three holds all, 2/3, in every window.
    let mut w = ServiceWindows::new(vec![1.0; 3], vec![1; 3]).with_gini();
    w.on_queued(0, 1000 * S);
    w.on_start(0, 1000 * S, 0);
    w.on_queued(1, S);
    w.on_queued(2, 1000 * S);
    let r1 = w.close(10 * S, 10 * S);
    assert_eq!(r1.backlogged, 3);
    let r2 = w.close(20 * S, 10 * S);
    assert_eq!(r2.backlogged, 2);
    assert_eq!(w.repeat(3, 50 * S), r2);
    assert_eq!(w.close(60 * S, 10 * S), r2);
    for r in [r1, r2] {
        assert!((r.jain.unwrap() - 1.0 / 3.0).abs() < 1e-12, "{r:?}");
        assert!((r.gini.unwrap() - 2.0 / 3.0).abs() < 1e-12, "{r:?}");
    }
    w.settle();
    assert_eq!(w.received_totals(), vec![60.0 * S as f64, 0.0, 0.0]);
    assert_eq!(w.entitled_totals(), vec![27.0 * S as f64, 6.0 * S as f64, 27.0 * S as f64]);
}

#[test]
fn sorted_gaps_give_the_gini_of_the_definition() {
    // n = 5 with two zeros: (0, 0, 1, 1, 3); sorted gaps 1 at k = 2
    // (2 x 3 pairs) and 2 at k = 4 (4 x 1 pairs): 6 + 8 = 14 over
    // n sum x = 5 x 5: 14/25 = 0.56, as the definition's 28 / (2 x 5 x 5)
    let mut xs: Vec<u64> = [3.0f64, 1.0, 1.0].iter().map(|x| x.to_bits()).collect();
    assert!((sorted_gini(&mut xs, 2, 5.0) - 0.56).abs() < 1e-15);
    assert!((gini(&[0.0, 0.0, 1.0, 1.0, 3.0]).unwrap() - 0.56).abs() < 1e-15);
    // equal values: exactly 0, whatever their value
    let mut xs = vec![(20.0f64 / 19.0).to_bits(); 7];
    assert_eq!(sorted_gini(&mut xs, 0, 7.0 * 20.0 / 19.0), 0.0);
    // one of n takes everything: (n - 1)/n
    for n in 2..50usize {
        let mut xs = vec![(n as f64).to_bits()];
        let g = sorted_gini(&mut xs, n - 1, n as f64);
        assert!((g - (n - 1) as f64 / n as f64).abs() < 1e-15, "n = {n}: {g}");
    }
}

//! `lottery`: each dispatch draws a flow (tenant, or class with `over:
//! class`) at random with probability proportional to its weight, among the
//! flows with claimable work, and starts that flow's oldest job.
//!
//! Only statistically fair (the priority-classes article): over n draws a flow of share p gets
//! about n p jobs, give or take sqrt(n p (1 - p)), and short bursts in which
//! one flow gets far more than its share do happen. It is here to show that.
//!
//! Draws come from the policy's own stream `rng::stream(seed, hash(label),
//! Purpose::Policy)`, so the same scenario and seed give the same draws, and
//! adding another policy or tenant's workload does not change them.
//!
//! Sampling does not scan the flows: a Fenwick (binary indexed) tree holds
//! each claimable flow's tickets (its weight in fixed point, 10^-6
//! resolution; 0 when it has no claimable work), so drawing, adding and
//! removing a flow are O(log n). A flow whose tenant the gate parks drops its
//! tickets until it is unparked; in `over: class` mode a class can lose its
//! last unparked tenant while not being drawn, which is noticed when it is
//! drawn: its tickets are dropped and the draw repeated (rejection keeps the
//! draw proportional to the weights of the claimable flows).

use rand::Rng;
use rand_pcg::Pcg64;

use super::flows::{self, FlowId, FlowQueues, Take};
use super::ranking::{keep_best, Ask, Candidate, KeyKind};
use super::PolicyInfo;
use super::{Explain, Hints, Policy};
use crate::core::{Gate, Job, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{PolicySpec, Scenario, TenantId};
use crate::time::Time;
use crate::workload::rng::{self, Purpose};

/// Tickets per unit of weight.
const TICKETS_PER_WEIGHT: f64 = 1e6;

/// Fenwick tree of non-negative integer weights with weighted sampling.
#[derive(Debug, Clone)]
pub struct Fenwick {
    /// 1-based partial sums.
    tree: Vec<u64>,
    /// The weight at each 0-based index.
    value: Vec<u64>,
    total: u64,
    top_bit: usize,
}

impl Fenwick {
    pub fn new(n: usize) -> Self {
        let top_bit = if n == 0 { 0 } else { 1 << (usize::BITS - 1 - n.leading_zeros()) };
        Fenwick { tree: vec![0; n + 1], value: vec![0; n], total: 0, top_bit }
    }

    /// Sets the weight at `i`.
    pub fn set(&mut self, i: usize, w: u64) {
        let old = self.value[i];
        if old == w {
            return;
        }
        self.value[i] = w;
        self.total = self.total - old + w;
        let mut j = i + 1;
        while j < self.tree.len() {
            self.tree[j] = self.tree[j] - old + w;
            j += j & j.wrapping_neg();
        }
    }

    pub fn get(&self, i: usize) -> u64 {
        self.value[i]
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    /// The index whose cumulative range holds `r` (0 <= r < total): the
    /// smallest i with weight[0] + ... + weight[i] > r.
    pub fn find(&self, mut r: u64) -> usize {
        let mut pos = 0;
        let mut bit = self.top_bit;
        while bit > 0 {
            let next = pos + bit;
            if next < self.tree.len() && self.tree[next] <= r {
                pos = next;
                r -= self.tree[next];
            }
            bit >>= 1;
        }
        pos
    }
}

/// A uniform draw in [0, n) from 64-bit outputs (Lemire's multiply-and-reject,
/// unbiased), written out so the draws depend only on the PCG64 stream, not on
/// the `rand` version's range-sampling algorithm.
pub fn below(rng: &mut Pcg64, n: u64) -> u64 {
    debug_assert!(n > 0);
    let threshold = n.wrapping_neg() % n;
    loop {
        let m = rng.next_u64() as u128 * n as u128;
        if (m as u64) >= threshold {
            return (m >> 64) as u64;
        }
    }
}

pub struct Lottery {
    flows: FlowQueues,
    tickets: Vec<u64>,
    pool: Fenwick,
    rng: Pcg64,
    woke: Vec<FlowId>,
}

pub const INFO: PolicyInfo = PolicyInfo {
    name: "lottery",
    summary: "weighted random choice among flows with claimable work (seeded, O(log n) Fenwick draw)",
    params: &[flows::OVER],
    build,
};

pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    let over = flows::parse_over(&spec.params)?;
    let weights = flows::weights(sc, over);
    let tickets: Vec<u64> =
        weights.iter().map(|w| ((w * TICKETS_PER_WEIGHT).round() as u64).max(1)).collect();
    let sum = tickets.iter().try_fold(0u64, |a, &t| a.checked_add(t));
    if sum.is_none_or(|s| s > u64::MAX / 2) {
        return Err("lottery: the weights add up to more than it can draw from; use smaller weights".into());
    }
    let label = if spec.label.is_empty() { spec.kind.as_str() } else { spec.label.as_str() };
    Ok(Box::new(Lottery {
        flows: FlowQueues::new(sc, over),
        pool: Fenwick::new(tickets.len()),
        tickets,
        rng: rng::stream(sc.seed, flows::label_hash(label), Purpose::Policy),
        woke: Vec::new(),
    }))
}

impl Lottery {
    fn refresh(&mut self, f: FlowId) {
        let w = if self.flows.has_claimable(f) { self.tickets[f as usize] } else { 0 };
        self.pool.set(f as usize, w);
    }
}

impl Policy for Lottery {
    fn push(&mut self, job: &Job, slot: Slot, _now: Time) {
        let f = self.flows.push(job, slot);
        if self.pool.get(f as usize) == 0 {
            self.refresh(f);
        }
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, _now: Time) -> Option<Slot> {
        loop {
            let total = self.pool.total();
            if total == 0 {
                return None;
            }
            let f = self.pool.find(below(&mut self.rng, total)) as FlowId;
            match self.flows.take(f, jobs, gate) {
                Take::Started(slot) => {
                    self.refresh(f);
                    return Some(slot);
                }
                Take::Blocked | Take::Empty => self.pool.set(f as usize, 0),
            }
        }
    }

    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, _now: Time) {
        let mut woke = std::mem::take(&mut self.woke);
        self.flows.unpark(tenant, &mut woke);
        for f in woke.drain(..) {
            self.refresh(f);
        }
        self.woke = woke;
    }
}

impl Hints for Lottery {}

impl Explain for Lottery {
    fn key_kind(&self) -> KeyKind {
        KeyKind::Tickets
    }

    /// Every claimable flow's head, most tickets first (the draw picks in
    /// proportion to them, so the chosen one need not be first).
    fn explain(&self, jobs: &JobTable, _now: Time, ask: &Ask, out: &mut Vec<Candidate>) {
        let items = (0..self.tickets.len())
            .filter_map(|f| Some((f, self.flows.head(f as FlowId)?)))
            .filter(|(_, (_, slot))| (ask.claimable)(jobs.get(*slot)))
            .map(|(f, (tenant, slot))| {
                let t = self.tickets[f];
                ((std::cmp::Reverse(t), f), Candidate { tenant, slot, key: Some(t as f64) })
            })
            .collect();
        // all of them: the draw may take any
        keep_best(items, usize::MAX, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenwick_finds_the_range_holding_each_ticket() {
        // weights 3, 0, 2, 1: tickets 0-2 -> 0, 3-4 -> 2, 5 -> 3
        let mut t = Fenwick::new(4);
        for (i, w) in [3, 0, 2, 1].into_iter().enumerate() {
            t.set(i, w);
        }
        assert_eq!(t.total(), 6);
        let found: Vec<usize> = (0..6).map(|r| t.find(r)).collect();
        assert_eq!(found, [0, 0, 0, 2, 2, 3]);
        t.set(0, 0);
        assert_eq!(t.total(), 3);
        assert_eq!((0..3).map(|r| t.find(r)).collect::<Vec<_>>(), [2, 2, 3]);
        // sizes that are not powers of two
        for n in 1..20usize {
            let mut t = Fenwick::new(n);
            for i in 0..n {
                t.set(i, i as u64 + 1);
            }
            let mut r = 0;
            for i in 0..n {
                for _ in 0..=i {
                    assert_eq!(t.find(r), i, "n {n} r {r}");
                    r += 1;
                }
            }
        }
    }

    #[test]
    fn a_capped_tenant_gets_its_tickets_back_when_unparked() {
        // A alone, cap 1, two jobs: every draw is A's. The first starts; the
        // second is refused at A's cap, A drops its tickets and nothing is
        // left to draw. A's job ends: A is unparked and its second job runs.
        let sc = crate::scenario::load_str(
            "workers: 99\ntenants: {A: {cap: 1}}\nworkload:\n  - {tenant: A, count: 2, service: 1s}\npolicies: [lottery]\n",
            std::path::Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = crate::policy::testkit::Kit::new(&sc);
        kit.push_all();
        let first = kit.pick().expect("A's first job");
        assert_eq!(kit.pick_n(9), "");
        assert_eq!(kit.skips, ["A:at_cap"]);
        kit.finish(first);
        assert_eq!(kit.pick_n(9), "A");
    }

    #[test]
    fn below_is_lemires_multiply_and_reject() {
        // Lemire (2019): the 128-bit product x n of a 64-bit output x; its
        // high half is the draw, accepted when its low half is at least
        // 2^64 mod n, so each value has exactly floor(2^64 / n) accepted x.
        // Checked output by output against the same stream. For n = 2^63 + 1,
        // 2^64 mod n = 2^63 - 1: about half the outputs are rejected, so
        // the rejection is exercised.
        for n in [1u64, 3, 1000, (1 << 63) + 1, u64::MAX] {
            let mut rng = rng::stream(5, 6, Purpose::Policy);
            let mut copy = rng.clone();
            let (mut used, limit) = (0, (1u128 << 64) % n as u128);
            for _ in 0..500 {
                let want = loop {
                    used += 1;
                    let m = copy.next_u64() as u128 * n as u128;
                    if m % (1u128 << 64) >= limit {
                        break m / (1u128 << 64);
                    }
                };
                assert_eq!(below(&mut rng, n) as u128, want, "n {n}");
            }
            if n == (1 << 63) + 1 {
                // 500 draws at acceptance 1/2: a mean of 1000 outputs, sd
                // sqrt(500 x 1/2) / (1/2) = 32; [800, 1200) is over 6 sd
                assert!((800..1200).contains(&used), "{used} outputs");
            }
        }
    }

    #[test]
    fn below_is_uniform_enough_and_in_range() {
        // 60 000 draws in [0, 3): each value expected 20 000, sd sqrt(60000 * 1/3 * 2/3) = 115.5;
        // 4 sd = 462.
        let mut rng = rng::stream(1, 2, Purpose::Policy);
        let mut counts = [0u32; 3];
        for _ in 0..60_000 {
            counts[below(&mut rng, 3) as usize] += 1;
        }
        for c in counts {
            assert!((c as i64 - 20_000).abs() < 462, "{counts:?}");
        }
    }
}

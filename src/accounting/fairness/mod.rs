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
//! share, 0 for one starved. J = (sum x)^2 / (n sum x^2) over the window,
//! and, for the tenants' windows, the Gini coefficient
//! G = sum_i sum_j |x_i - x_j| / (2 n sum x) of the same x (O(a log a) more
//! per window: the members' x sorted; the idle claimants all have x = 0).
//! Cost: O(1) per start and finish (amortised), O(a + k log n) per window for
//! a claimants with an event or a running job in it and k idle ones capped
//! by their demand (a few O(a) rounds, at worst an O(a log a) sort); backlogged claimants with nothing happening are kept
//! aggregated (see [`ServiceWindows`]), so nothing scans the population.

mod indices;
#[cfg(test)]
use indices::sorted_gini;
mod reference;

pub use reference::{gini, jain, water_fill};

use crate::prefetch::prefetch_item;
use crate::quad_heap::QuadHeap;
use crate::time::Time;

/// The figures of one closed window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// Jain's index, when at least two claimants were backlogged.
    pub jain: Option<f64>,
    /// The Gini coefficient of the same values, when Jain's index is
    /// given and the windows were asked for it ([`ServiceWindows::with_gini`]).
    pub gini: Option<f64>,
    /// Claimants that had claimable work at some point in the window.
    pub backlogged: usize,
}

/// Fixed-point scale of the idle weight sum: integer adds and removes keep
/// it free of drift however many claimants come and go.
const WEIGHT_SCALE: f64 = (1u64 << 40) as f64;

/// `w` in fixed point, rounded half away from zero like `f64::round` but
/// without its libm call: computed from the claimant's weight where it is
/// used, so no separate array is read (a cache miss per job with 100,000
/// tenants).
fn weight_fixed(w: f64) -> i128 {
    let v = w * WEIGHT_SCALE;
    if (0.0..4.0e18).contains(&v) {
        // the fraction of a float below 2^63 is exact
        let t = v as i64;
        (t + (v - t as f64 >= 0.5) as i64) as i128
    } else {
        v.round() as i128
    }
}

/// Where an idle claimant is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Idle {
    /// Not idle (a member of the current window, or without work).
    #[default]
    No,
    /// In the idle heap, with positive demand and weight.
    Ranked,
    /// Idle with zero demand or weight: backlogged, entitled to nothing.
    Zero,
}

/// The state of one claimant in one cache line: with 100,000 tenants every
/// touch of a claimant is a cache miss, and an event, an idle transition
/// and a window close each touch only this line.
#[derive(Debug, Clone, Default)]
#[repr(C, align(64))]
struct Claimant {
    /// Worker-microseconds received in the current window, minus
    /// `running x end` (modulo 2^64): an attempt start at `t` subtracts `t`,
    /// an end adds `t`, so at the window's `end` the received service is
    /// `credit + running x end` without a per-claimant "since" time. Wrapping
    /// arithmetic is exact because that result fits in 64 bits.
    credit: u64,
    /// Service of the claimable jobs, microseconds. Added and subtracted with
    /// wrapping arithmetic, which is exact whenever the true sum fits in 64
    /// bits (584,000 years of queued work).
    queued_work: u64,
    weight: f64,
    /// `level_sum` when its idle entitlement was last settled.
    settled_at: f64,
    entitled_total: f64,
    received_total: f64,
    queued: u32,
    running: u32,
    /// Most workers the claimant can hold at once (its cap, or the pool
    /// size); [`UNLIMITED`] for no limit.
    limit: u32,
    in_window: bool,
    backlogged: bool,
    idle: Idle,
}

// everything fits in one cache line
const _: () = assert!(std::mem::size_of::<Claimant>() == 64);

/// `Claimant::limit` of a claimant without a limit (no cap and no worker
/// count); counted as 2^62 workers, more than any demand can use.
const UNLIMITED: u32 = u32::MAX;

impl Claimant {
    fn limit(&self) -> f64 {
        if self.limit == UNLIMITED {
            (1u64 << 62) as f64
        } else {
            self.limit as f64
        }
    }

    /// Service received in the current window, as of `end`.
    fn received(&self, end: Time) -> u64 {
        self.credit.wrapping_add((self.running as u64).wrapping_mul(end))
    }
}

/// Running accounting of service received per claimant, closed window by window.
///
/// A backlogged claimant with nothing running and no event in a window is
/// *idle*: it received 0, and its demand (queued work capped at limit x
/// window) and weight are what they were when it became idle. Idle claimants
/// are kept out of the per-window member list, in a min-heap by demand per
/// unit weight (ties by id) with their weight sum, so closing a window costs
/// O(a log a + k log n) for a active claimants and k idle ones whose demand is
/// below the fair level (usually none), not O(backlogged). Their entitlement
/// per window is `lambda x weight` (lambda = the water level); it is settled
/// lazily from the running sum of lambda when they leave the idle set or when
/// the totals are read ([`ServiceWindows::settle`]).
///
/// Leaving the idle set is O(1): the heap entry goes stale (its claimant's
/// `idle_gen` moved on) and is dropped when it reaches the top, or when stale
/// entries outnumber live ones and the heap is rebuilt (amortised O(1)).
#[derive(Debug, Clone, Default)]
pub struct ServiceWindows {
    claimants: Vec<Claimant>,
    /// Version of each claimant's idle-heap entry: bumped when it enters or
    /// leaves the idle set, so an entry with an older version is stale.
    /// Apart from the claimants so that sifting out stale entries reads 4
    /// bytes per entry, not a claimant's cache line.
    idle_gen: Vec<u32>,
    members: Vec<u32>,
    /// Idle claimants with positive demand and weight, as
    /// (demand / weight as its bits, id, idle_gen); positive floats order like
    /// their bits.
    idle_heap: QuadHeap<(u64, u32, u32)>,
    /// Live (not stale) entries of `idle_heap`.
    idle_ranked: usize,
    /// Claimants in [`Idle::Zero`].
    idle_zero: usize,
    /// Sum of the weights of the ranked idle claimants, fixed point (see [`WEIGHT_SCALE`]).
    idle_weight: i128,
    /// Window length the idle levels were computed with.
    idle_len: Time,
    /// Sum over closed windows of the water level (entitlement per unit weight).
    level_sum: f64,
    /// Rounds of [`ServiceWindows::close`] before it falls back to the sorted walk.
    max_rounds: usize,
    /// Scratch space of [`ServiceWindows::close`], kept to avoid allocating
    /// per window; after a close it still holds that window's figures, which
    /// [`ServiceWindows::repeat`] reuses.
    scratch: Scratch,
    /// The last closed window: its water level and figures.
    last_lambda: f64,
    last: Option<Window>,
    /// Whether each window's Gini coefficient is computed (the tenants'
    /// windows; the classes' index is not reported, so they skip the sort).
    gini: bool,
}

/// Per-member figures of the window being closed, indexed like `members`.
#[derive(Debug, Clone, Default)]
struct Scratch {
    received: Vec<f64>,
    demand: Vec<f64>,
    ent: Vec<f64>,
    /// Members with positive demand and weight not yet satisfied, as
    /// (demand / weight, index); the key is a positive float stored as its
    /// bits, which order like it, and is filled in only for the sorted walk.
    open: Vec<(u64, u32)>,
    /// Idle claimants capped at their demand in this window, with it.
    capped_idle: Vec<(usize, f64)>,
    /// The members' x = received / entitled (non-negative, so their bits
    /// order like them), for the Gini coefficient.
    xs: Vec<u64>,
    /// Their idle-heap entries, put back after the walk.
    lifted: Vec<(u64, u32, u32)>,
    keep: Vec<u32>,
}

impl ServiceWindows {
    /// Accounting for claimants with these weights and concurrency limits
    /// (a limit of `u32::MAX` or more means none).
    pub fn new(weights: Vec<f64>, limit: Vec<u64>) -> Self {
        ServiceWindows {
            claimants: weights
                .iter()
                .zip(&limit)
                .map(|(&weight, &limit)| Claimant {
                    weight,
                    limit: limit.min(UNLIMITED as u64) as u32,
                    ..Default::default()
                })
                .collect(),
            idle_gen: vec![0; weights.len()],
            max_rounds: 8,
            ..Default::default()
        }
    }

    /// Computes each window's Gini coefficient besides Jain's index.
    pub fn with_gini(mut self) -> Self {
        self.gini = true;
        self
    }

    /// Service received per claimant over all windows closed so far
    /// (worker-microseconds).
    pub fn received_totals(&self) -> Vec<f64> {
        self.claimants.iter().map(|c| c.received_total).collect()
    }

    /// Service each claimant was entitled to over all windows closed so far;
    /// complete only after [`ServiceWindows::settle`].
    pub fn entitled_totals(&self) -> Vec<f64> {
        self.claimants.iter().map(|c| c.entitled_total).collect()
    }

    /// Prefetches claimant `m`'s record and its idle-heap version, which
    /// its next event updates when it leaves the idle set (see
    /// [`crate::prefetch`]).
    pub fn warm(&self, m: usize) {
        prefetch_item(&self.claimants, m);
        prefetch_item(&self.idle_gen, m);
    }

    /// Demand of an idle claimant (received 0) in a window of `len`; the same
    /// expression as for members in [`ServiceWindows::close`].
    fn idle_demand(c: &Claimant, len: Time) -> f64 {
        let most = c.limit() * len as f64;
        0.0f64.max((0.0 + c.queued_work as f64).min(most))
    }

    fn is_live(&self, m: u32, gen: u32) -> bool {
        self.idle_gen[m as usize] == gen
    }

    fn enter_idle(&mut self, m: usize, len: Time) {
        let level_sum = self.level_sum;
        let c = &mut self.claimants[m];
        c.settled_at = level_sum;
        let d = Self::idle_demand(c, len);
        if d > 0.0 && c.weight > 0.0 {
            let s = d / c.weight;
            c.idle = Idle::Ranked;
            let gen = self.idle_gen[m].wrapping_add(1);
            self.idle_gen[m] = gen;
            self.idle_heap.push((s.to_bits(), m as u32, gen));
            self.idle_ranked += 1;
            self.idle_weight += weight_fixed(c.weight);
        } else {
            c.idle = Idle::Zero;
            self.idle_zero += 1;
        }
    }

    /// Takes `m` out of the idle set, settling its entitlement so far.
    fn leave_idle(&mut self, m: usize) {
        let level_sum = self.level_sum;
        let c = &mut self.claimants[m];
        match std::mem::take(&mut c.idle) {
            Idle::No => {}
            Idle::Zero => self.idle_zero -= 1,
            Idle::Ranked => {
                c.entitled_total += c.weight * (level_sum - c.settled_at);
                self.idle_gen[m] = self.idle_gen[m].wrapping_add(1); // its heap entry is now stale
                self.idle_ranked -= 1;
                self.idle_weight -= weight_fixed(c.weight);
                if self.idle_heap.len() > 64 + 2 * self.idle_ranked {
                    let gens = &self.idle_gen;
                    self.idle_heap.retain(|&(_, m, g)| gens[m as usize] == g);
                }
            }
        }
    }

    /// Drops stale entries from the top of the idle heap.
    fn clean_idle_top(&mut self) {
        while let Some(&(_, m, g)) = self.idle_heap.peek() {
            if self.is_live(m, g) {
                break;
            }
            self.idle_heap.pop();
        }
    }

    /// Brings the entitlement of every idle claimant up to date; call before
    /// reading the entitled totals. O(idle).
    pub fn settle(&mut self) {
        let level_sum = self.level_sum;
        for &(_, m, g) in self.idle_heap.iter() {
            if self.idle_gen[m as usize] == g {
                let c = &mut self.claimants[m as usize];
                c.entitled_total += c.weight * (level_sum - c.settled_at);
                c.settled_at = level_sum;
            }
        }
    }

    /// Recomputes the idle levels for a new window length (demand is capped
    /// at limit x length). O(n), only when the length changes.
    fn relevel(&mut self, len: Time) {
        let all: Vec<usize> =
            (0..self.claimants.len()).filter(|&m| self.claimants[m].idle != Idle::No).collect();
        for &m in &all {
            self.leave_idle(m);
        }
        self.idle_heap.clear();
        self.idle_len = len;
        for &m in &all {
            self.enter_idle(m, len);
        }
    }

    /// Makes `m` a member of the current window. A claimant outside it runs
    /// nothing (members with running attempts stay members), so its credit
    /// starts at 0.
    fn join(&mut self, m: usize) {
        if self.claimants[m].idle != Idle::No {
            self.leave_idle(m);
        }
        let c = &mut self.claimants[m];
        if !c.in_window {
            debug_assert_eq!(c.running, 0, "a claimant outside the window runs nothing");
            c.in_window = true;
            c.credit = 0;
            self.members.push(m as u32);
        }
    }

    /// A job of `m` needing `service` became claimable.
    pub fn on_queued(&mut self, m: usize, service: Time) {
        self.join(m);
        let c = &mut self.claimants[m];
        c.queued += 1;
        c.queued_work = c.queued_work.wrapping_add(service);
        c.backlogged = true;
    }

    /// A claimable job of `m` started an attempt at `now`.
    pub fn on_start(&mut self, m: usize, service: Time, now: Time) {
        self.join(m);
        let c = &mut self.claimants[m];
        c.credit = c.credit.wrapping_sub(now);
        c.running += 1;
        c.queued -= 1;
        c.queued_work = c.queued_work.wrapping_sub(service);
    }

    /// A claimable job of `m` left the queue without starting (expired or
    /// dropped by admission control).
    pub fn on_dropped(&mut self, m: usize, service: Time) {
        self.join(m);
        let c = &mut self.claimants[m];
        c.queued = c.queued.saturating_sub(1);
        c.queued_work = c.queued_work.wrapping_sub(service);
    }

    /// An attempt of `m` ended at `now`.
    pub fn on_end(&mut self, m: usize, now: Time) {
        self.join(m);
        let c = &mut self.claimants[m];
        c.credit = c.credit.wrapping_add(now);
        c.running -= 1;
    }

    /// Satisfies open member `i` (an index into `members`) at its demand when
    /// that fits under the level `at`, taking it out of `left` and `wsum`.
    /// False when it does not fit; the caller takes it out of `sc.open`.
    fn satisfy_member(&self, sc: &mut Scratch, i: usize, at: f64, left: &mut f64, wsum: &mut i128) -> bool {
        let weight = self.claimants[self.members[i] as usize].weight;
        let fits = sc.demand[i] <= at * weight;
        if fits {
            sc.ent[i] = sc.demand[i];
            *left -= sc.demand[i];
            *wsum -= weight_fixed(weight);
        }
        fits
    }

    /// Caps the idle claimant with the least demand per weight at its demand
    /// when that fits under the level `at`, taking it out of `left` and
    /// `wsum`; it is lifted off the heap (put back after the walk) so the next
    /// one can be seen. False when there is none or it does not fit.
    fn cap_idle_top(
        &mut self,
        sc: &mut Scratch,
        at: f64,
        len: Time,
        left: &mut f64,
        wsum: &mut i128,
    ) -> bool {
        self.clean_idle_top();
        let Some(&top @ (_, m, _)) = self.idle_heap.peek() else { return false };
        let c = &self.claimants[m as usize];
        let d = Self::idle_demand(c, len);
        if d > at * c.weight {
            return false;
        }
        sc.capped_idle.push((m as usize, d));
        sc.lifted.push(top);
        self.idle_heap.pop();
        *left -= d;
        *wsum -= weight_fixed(c.weight);
        true
    }

    /// The water-filling walk in ascending demand per weight over the open
    /// members left in `sc.open` merged with the idle heap, from `left` and
    /// `wsum` (fixed point); satisfied members leave `sc.open`. Returns the
    /// water level, or `None` when everyone is satisfied. O(n log n).
    fn sorted_walk(&mut self, sc: &mut Scratch, mut left: f64, mut wsum: i128, len: Time) -> Option<f64> {
        for e in sc.open.iter_mut() {
            let i = e.1 as usize;
            e.0 = (sc.demand[i] / self.claimants[self.members[i] as usize].weight).to_bits();
        }
        sc.open.sort_unstable();
        let mut next_open = 0;
        let mut level = None;
        loop {
            self.clean_idle_top();
            let idle_top = self.idle_heap.peek().copied();
            let member_first = match (sc.open.get(next_open), idle_top) {
                (Some(&(key, _)), Some((s, _, _))) => f64::from_bits(key) <= f64::from_bits(s),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let at = left / (wsum as f64 / WEIGHT_SCALE);
            if member_first {
                let i = sc.open[next_open].1 as usize;
                if !self.satisfy_member(sc, i, at, &mut left, &mut wsum) {
                    level = Some(at);
                    break;
                }
                next_open += 1;
            } else if !self.cap_idle_top(sc, at, len, &mut left, &mut wsum) {
                level = Some(at);
                break;
            }
        }
        sc.open.drain(..next_open);
        level
    }

    /// Closes the window `[end - len, end)` and opens the next one.
    ///
    /// Water-filling over the members plus the idle set, in rounds (see
    /// [`ServiceWindows::water_level`]); idle claimants are visited in
    /// ascending demand per weight and only while they fit below the level,
    /// so those above it are never visited.
    pub fn close(&mut self, end: Time, len: Time) -> Window {
        if len != self.idle_len {
            self.relevel(len);
        }
        let mut sc = std::mem::take(&mut self.scratch);
        let backlogged = self.gather(&mut sc, end, len);
        let level = self.water_level(&mut sc, len);
        self.idle_heap.extend(sc.lifted.drain(..));
        let lambda = level.unwrap_or(0.0);
        let (jain, gini) = self.entitle(&mut sc, lambda, backlogged);
        self.roll_members(&mut sc, end, len);
        self.scratch = sc;
        self.last_lambda = lambda;
        let w = Window { jain, gini, backlogged };
        self.last = Some(w);
        w
    }

    /// Closes `n` more windows, the last ending at `end`, each a copy of the
    /// window closed last: valid when nothing happened since that window
    /// opened (it was itself a window without events, so every member still
    /// runs what it ran and the idle set is unchanged), which makes every
    /// such window the same. O(members) for any `n`, where closing them one
    /// by one would cost `n` closes.
    pub fn repeat(&mut self, n: u64, end: Time) -> Window {
        let sc = &self.scratch;
        debug_assert_eq!(sc.received.len(), self.members.len(), "repeat after a window with events");
        let k = n as f64;
        for (i, &m) in self.members.iter().enumerate() {
            let c = &mut self.claimants[m as usize];
            c.received_total += sc.received[i] * k;
            c.entitled_total += sc.ent[i] * k;
            // running attempts count in the next window from `end` on
            c.credit = 0u64.wrapping_sub((c.running as u64).wrapping_mul(end));
        }
        // ranked idle claimants accrue lambda x weight per window through
        // level_sum; capped ones their demand, settled up to the new level
        self.level_sum += self.last_lambda * k;
        for &(m, d) in &sc.capped_idle {
            let c = &mut self.claimants[m];
            c.entitled_total += d * k;
            c.settled_at = self.level_sum;
        }
        self.last.unwrap_or(Window { jain: None, gini: None, backlogged: 0 })
    }

    /// Fills the scratch with each member's received service and demand in
    /// the window, and lists the members with demand as open; returns the
    /// number of backlogged claimants (members and idle ones).
    fn gather(&self, sc: &mut Scratch, end: Time, len: Time) -> usize {
        sc.received.clear();
        sc.demand.clear();
        sc.open.clear();
        sc.capped_idle.clear();
        sc.lifted.clear();
        let mut backlogged = self.idle_ranked + self.idle_zero;
        for (i, &m) in self.members.iter().enumerate() {
            let c = &self.claimants[m as usize];
            let got = c.received(end) as f64;
            let most = c.limit() * len as f64;
            let d = got.max((got + c.queued_work as f64).min(most));
            sc.received.push(got);
            sc.demand.push(d);
            if d > 0.0 && c.weight > 0.0 {
                sc.open.push((0, i as u32));
            }
            backlogged += c.backlogged as usize;
        }
        sc.ent.clear();
        sc.ent.resize(sc.demand.len(), 0.0);
        backlogged
    }

    /// The water level of the window: the entitlement per unit of weight of
    /// every claimant whose demand is above it (`None` when every claimant's
    /// demand is met). Satisfied members leave `sc.open` with their
    /// entitlement set; capped idle claimants go to `sc.capped_idle`.
    ///
    /// Water-filling as in `water_fill`, with the idle set merged in, by
    /// rounds instead of a sort: at the level `left / wsum` every open
    /// claimant whose demand fits is satisfied for sure (the level only
    /// rises as satisfied claimants leave), so a round takes them all out;
    /// when a round takes none, that level is the water level. Exact sums
    /// make this the sorted walk's result. Rounds are few in practice; after
    /// `max_rounds` the rest is done by the sorted walk.
    fn water_level(&mut self, sc: &mut Scratch, len: Time) -> Option<f64> {
        let capacity: f64 = sc.received.iter().sum();
        // `left` holds whole worker-microseconds (exact in f64 below 2^53) and
        // the weight sum is fixed point, so both are exact in any order.
        let mut left = capacity.max(0.0);
        let mut wsum: i128 = sc
            .open
            .iter()
            .map(|&(_, i)| weight_fixed(self.claimants[self.members[i as usize] as usize].weight))
            .sum::<i128>()
            + self.idle_weight;
        for _ in 0..self.max_rounds {
            if wsum <= 0 {
                return None; // nothing open: everyone satisfied
            }
            let at = left / (wsum as f64 / WEIGHT_SCALE);
            let before = (sc.open.len(), sc.capped_idle.len());
            let mut k = 0;
            while k < sc.open.len() {
                let i = sc.open[k].1 as usize;
                if self.satisfy_member(sc, i, at, &mut left, &mut wsum) {
                    sc.open.swap_remove(k);
                } else {
                    k += 1;
                }
            }
            // idle claimants in ascending demand per weight: the first that
            // does not fit ends the round
            while self.cap_idle_top(sc, at, len, &mut left, &mut wsum) {}
            if (sc.open.len(), sc.capped_idle.len()) == before {
                return Some(at);
            }
        }
        self.sorted_walk(sc, left, wsum, len)
    }

    /// Claimants with work left stay in the next window; those still
    /// claimable are backlogged in it; claimable with nothing running: idle.
    fn roll_members(&mut self, sc: &mut Scratch, end: Time, len: Time) {
        sc.keep.clear();
        let members = std::mem::take(&mut self.members);
        for &m in &members {
            let mu = m as usize;
            let c = &mut self.claimants[mu];
            // running attempts count in the next window from `end` on
            c.credit = 0u64.wrapping_sub((c.running as u64).wrapping_mul(end));
            c.backlogged = c.queued > 0;
            if c.queued > 0 && c.running == 0 {
                c.in_window = false;
                self.enter_idle(mu, len);
            } else if c.queued > 0 || c.running > 0 {
                sc.keep.push(m);
            } else {
                c.in_window = false;
            }
        }
        // the old member list becomes the next window's scratch keep list
        self.members = std::mem::replace(&mut sc.keep, members);
    }
}

#[cfg(test)]
mod tests;

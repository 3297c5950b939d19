//! `share`: the priority-classes article's stateless selection rule — run the flow (tenant, or
//! class with `over: class`) whose recent service is furthest below its
//! target share.
//!
//! Service of flow f, s_f: what its jobs received in the last `window`
//! (default 1m), counted in jobs (`cost: jobs`, default) or seconds of work
//! (`cost: work`), over the attempts that *started* within the window,
//! finished or still running. Both are read off the job records (each row of
//! the completion log carries its start; running jobs are in the job table),
//! which is what makes the rule survive a dispatcher restart: nothing here is
//! state that the log cannot rebuild. Why by start and not by finish:
//! counting completions in the window plus running jobs charges a job for its
//! run time plus a window, which biases the split against long jobs (measured:
//! weights 3:2:1, B's jobs 10x longer, window 1m — job counts came out
//! 0.52 : 0.30 : 0.18 instead of 1/2 : 1/3 : 1/6); counting by start charges
//! every job for exactly one window, and the split comes out exact. Running
//! jobs must count from their start either way, else several workers freed at
//! one instant would all go to the same flow before any of its jobs completes.
//!
//! Target share of a flow with claimable work: w_f / sum of the weights of the
//! flows with claimable work. "Furthest below" is measured as the ratio of
//! actual to target share, (s_f / S) / (w_f / W) with S the total service and
//! W the total weight; S and W are common to every flow, so the flow with the
//! smallest ratio is the one with the smallest s_f / w_f. That key changes
//! only when the flow's own service changes (a start, or an attempt leaving
//! the window), so the flows sit in an ordered set by s_f / w_f and a dispatch
//! is O(log n); each attempt leaves the window once, O(log n) too. Ties go to
//! the flow served least recently.
//!
//! Consequences worth knowing: a flow that was idle for a window comes back
//! with s_f = 0 and is served ahead of everyone until it has caught up with
//! its share of the window (a burst bounded by the window); and with jobs much
//! longer than the window the rule has little to go on.

use std::collections::{BTreeSet, VecDeque};

use super::charge::{self, Charger};
use super::flows::{self, FlowId, FlowQueues, OrdF64, Take};
use super::ranking::{keep_best, Ask, Candidate, KeyKind};
use super::PolicyInfo;
use super::{Explain, Hints, Policy};
use crate::core::{Gate, Job, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{Param, ParamDefault, ParamKind, PolicySpec, Scenario, TenantId};
use crate::time::{Time, SECOND};

/// Default measurement window.
pub const DEFAULT_WINDOW: Time = 60 * SECOND;

pub struct Share {
    flows: FlowQueues,
    charger: Charger,
    window: Time,
    weight: Vec<f64>,
    /// Service in the window, in cost units (below 0 only when `charge:
    /// actual` credits an over-declared attempt).
    served: Vec<i64>,
    /// (time it leaves the window, flow, units) of started attempts, and of
    /// `charge: actual`'s settlements, in time order.
    leaving: VecDeque<(Time, FlowId, i64)>,
    /// Flows believed claimable, by (served / weight, last service stamp, flow).
    ranking: BTreeSet<(OrdF64, u64, FlowId)>,
    /// Each flow's entry in `ranking`, if it has one.
    rank_of: Vec<Option<(OrdF64, u64)>>,
    /// When each flow was last charged (a counter), for ties.
    stamp: Vec<u64>,
    clock: u64,
    woke: Vec<FlowId>,
}

const WINDOW: Param = Param {
    name: "window",
    kind: ParamKind::Duration,
    default: ParamDefault::Duration(DEFAULT_WINDOW),
    doc: "how far back service counts",
};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "share",
    summary: "stateless: the flow whose service in the recent window is furthest below weight / total weight",
    params: &[flows::OVER, flows::COST, WINDOW, charge::CHARGE, charge::QUANTILE],
    build,
};

pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    let over = flows::parse_over(&spec.params)?;
    let charger = Charger::new(&spec.params, sc)?;
    let weight = flows::weights(sc, over);
    let n = weight.len();
    Ok(Box::new(Share {
        flows: FlowQueues::new(sc, over),
        charger,
        window: spec.params.get(&WINDOW)?,
        weight,
        served: vec![0; n],
        leaving: VecDeque::new(),
        ranking: BTreeSet::new(),
        rank_of: vec![None; n],
        stamp: vec![0; n],
        clock: 0,
        woke: Vec::new(),
    }))
}

impl Share {
    fn unrank(&mut self, f: FlowId) {
        if let Some((k, s)) = self.rank_of[f as usize].take() {
            self.ranking.remove(&(k, s, f));
        }
    }

    /// (Re)places a flow in the ranking if it has claimable work.
    fn rank(&mut self, f: FlowId) {
        self.unrank(f);
        if self.flows.has_claimable(f) {
            let i = f as usize;
            let key = (OrdF64(self.served[i] as f64 / self.weight[i]), self.stamp[i]);
            self.rank_of[i] = Some(key);
            self.ranking.insert((key.0, key.1, f));
        }
    }

    /// Drops the attempts that started `window` or longer ago.
    fn expire(&mut self, now: Time) {
        while let Some(&(t, f, units)) = self.leaving.front() {
            if t > now {
                break;
            }
            self.leaving.pop_front();
            self.served[f as usize] -= units;
            if self.rank_of[f as usize].is_some() {
                self.rank(f);
            }
        }
    }
}

impl Policy for Share {
    fn push(&mut self, job: &Job, slot: Slot, _now: Time) {
        let f = self.flows.push(job, slot);
        if self.rank_of[f as usize].is_none() {
            self.rank(f);
        }
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot> {
        self.expire(now);
        loop {
            let &(_, _, f) = self.ranking.first()?;
            match self.flows.take(f, jobs, gate) {
                Take::Started(slot) => {
                    let i = f as usize;
                    let units = self.charger.units(jobs.get(slot)) as i64;
                    self.served[i] += units;
                    self.leaving.push_back((now.saturating_add(self.window), f, units));
                    self.clock += 1;
                    self.stamp[i] = self.clock;
                    self.rank(f);
                    return Some(slot);
                }
                Take::Blocked | Take::Empty => self.unrank(f),
            }
        }
    }

    fn on_finish(&mut self, job: &Job, now: Time) {
        if !self.charger.settles() {
            return;
        }
        // counted from the attempt's end, for a window, like a start
        let owed = self.charger.settle(job);
        if owed != 0 {
            self.expire(now);
            let f = self.flows.flow_of(job);
            self.served[f as usize] += owed;
            self.leaving.push_back((now.saturating_add(self.window), f, owed));
            if self.rank_of[f as usize].is_some() {
                self.rank(f);
            }
        }
    }

    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, _now: Time) {
        let mut woke = std::mem::take(&mut self.woke);
        self.flows.unpark(tenant, &mut woke);
        for f in woke.drain(..) {
            self.rank(f);
        }
        self.woke = woke;
    }
}

impl Hints for Share {}

impl Explain for Share {
    fn key_kind(&self) -> KeyKind {
        KeyKind::RecentShare
    }

    /// Keys as the pick will see them: less what leaves the window by `now`
    /// (the pick expires it first), in jobs or seconds per unit of weight.
    fn explain(&self, jobs: &JobTable, now: Time, ask: &Ask, out: &mut Vec<Candidate>) {
        let mut leaves: std::collections::HashMap<FlowId, i64> = Default::default();
        for &(_, f, units) in self.leaving.iter().take_while(|l| l.0 <= now) {
            *leaves.entry(f).or_default() += units;
        }
        let items = (self.ranking.iter())
            .filter_map(|&(_, stamp, f)| Some((stamp, f, self.flows.head(f)?)))
            .filter(|(_, _, (_, slot))| (ask.claimable)(jobs.get(*slot)))
            .map(|(stamp, f, (tenant, slot))| {
                let i = f as usize;
                let served = self.served[i] - leaves.get(&f).copied().unwrap_or(0);
                let key = served as f64 / flows::UNITS_PER_JOB as f64 / self.weight[i];
                ((key, stamp), Candidate { tenant, slot, key: Some(key) })
            })
            .collect();
        keep_best(items, ask.limit, out);
    }
}

#[cfg(test)]
mod tests {
    use crate::policy::testkit::Kit;
    use crate::scenario::load_str;
    use std::path::Path;

    #[test]
    fn picks_the_flow_furthest_below_its_share() {
        // Weights 3:1, keys s/w, ties to the flow served least recently, then
        // the lower flow id. A 0 = B 0 -> A (1/3); B 0 -> B (1); A 1/3 -> A (2/3);
        // A 2/3 -> A (1); A 1 = B 1, B less recent -> B (2); A 1, 4/3, 5/3 -> A A A (2);
        // A 2 = B 2, B less recent -> B (3); A 2 -> A. Three A per B once running.
        let sc = load_str(
            "workers: 99\ntenants:\n  A: {weight: 3}\n  B: {weight: 1}\nworkload:\n  - {tenant: A, count: 20, service: 1s}\n  - {tenant: B, count: 20, service: 1s}\npolicies: [share]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        assert_eq!(kit.pick_n(10), "ABAABAAABA");
    }

    #[test]
    fn service_leaves_the_window_and_the_flow_is_preferred_again() {
        // Equal weights, window 10s. A starts 2 jobs, B 1, at t=0 (charged until
        // t=10s). At t=5s A (2) > B (1): B is next (charged until 15s).
        let sc = load_str(
            "workers: 99\nworkload:\n  - {tenant: A, count: 5, service: 1s}\n  - {tenant: B, count: 5, service: 1s}\npolicies: [{policy: share, window: 10s}]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        let started: Vec<_> = (0..3).map(|_| kit.pick().expect("starts")).collect();
        // A (tie, lower id), B (0 < 1), A (tie 1 = 1, A less recent)
        for s in started {
            kit.finish(s);
        }
        kit.now = 5_000_000;
        assert_eq!(kit.pick_n(1), "B");
        kit.now = 10_000_000;
        // At t=10s A's two attempts and B's first leave the window; B's second
        // stays: A 0 < B 1 -> A; then A 1 = B 1 and B was served less recently -> B.
        assert_eq!(kit.pick_n(2), "AB");
    }

    #[test]
    fn a_start_leaves_the_window_exactly_one_window_later() {
        // window 10 s: the window at `now` is (now - 10 s, now]. A's jobs
        // arrive at 0, B's at 5 s. t = 0: only A has work: A, A (A 2).
        // t = 5 s: A 2 against B 0 -> B (B 1). t = 10 s: A's two starts at 0
        // leave exactly now: A 0 against B 1 -> A. Keeping a start that is
        // exactly one window old (or never removing any) keeps A at 2 -> B.
        let sc = load_str(
            "workers: 99\nworkload:\n  - {tenant: A, count: 5, service: 1s}\n  - {tenant: B, count: 5, at: 5s, service: 1s}\npolicies: [{policy: share, window: 10s}]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_n(5);
        assert_eq!(kit.pick_n(2), "AA");
        kit.now = 5_000_000;
        kit.push_all();
        assert_eq!(kit.pick_n(1), "B");
        kit.now = 10_000_000;
        assert_eq!(kit.pick_n(1), "A");
    }

    #[test]
    fn a_leaving_start_takes_out_exactly_its_own_count() {
        // window 10 s, A weight 1, B weight 2, all at t = 0. Smallest
        // count / weight first, ties to the least recently served:
        // A (0, tie, A first) -> 1; B 0 -> 1/2; B 1/2 < 1 -> 2/2. At 10 s all
        // three starts leave: A 0 and B 0 tie, A served least recently -> A.
        // Removing a leaving start by dividing the count instead of
        // subtracting (A 1 job -> 1 unit left over, B 2 jobs -> 0) gives B.
        let sc = load_str(
            "workers: 99\ntenants: {A: {weight: 1}, B: {weight: 2}}\nworkload:\n  - {tenant: A, count: 5, service: 1s}\n  - {tenant: B, count: 5, service: 1s}\npolicies: [{policy: share, window: 10s}]\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = Kit::new(&sc);
        kit.push_all();
        assert_eq!(kit.pick_n(3), "ABB");
        kit.now = 10_000_000;
        assert_eq!(kit.pick_n(1), "A");
    }
}

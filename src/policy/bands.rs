//! `bands`: weighted priority bands, "priority with a floor" (articles 000
//! and 004). Strict class priority, except that a class with a `floor` is
//! guaranteed that fraction of the dispatches over a rolling `window`.
//!
//! The rule, at every dispatch at time `now`: count the dispatches made in
//! the window `(now - window, now]` so far, `n` in all and `n_c` of class c.
//! A class with floor `f_c` and queued work is *below its floor* when
//! `n_c < f_c * (n + 1)`, i.e. when giving this dispatch to another class
//! would leave c with less than `f_c` of the window. Classes below their
//! floor are tried first, the most starved first (smallest `n_c / f_c`, ties
//! by priority, then declaration order); then every class in strict priority
//! order (lower number first). Within a class, jobs go in arrival order, or
//! by the `then` policy when one is given (see `compose.rs`).
//!
//! What it guarantees: no class is dispatched ahead of a floor class that is
//! below its floor and has a job that may start, so after every dispatch
//! that went to another class, the floor class holds at least `f_c` of the
//! dispatches in the window ending then. Right after many of its own
//! dispatches leave the window at once it can briefly be below, and it then
//! takes every dispatch until it is back at its floor.
//!
//! Cost: O(classes) per dispatch plus amortised O(1) to slide the window;
//! memory O(dispatches in one window).

use std::collections::VecDeque;

use super::compose::THEN;
use super::compose::{lanes_forward, priority_order, ClassLanes};
use super::PolicyInfo;
use super::{Explain, Policy};
use crate::core::{Gate, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{ClassId, Param, ParamDefault, ParamKind, PolicySpec, Scenario};
use crate::time::{Time, SECOND};

/// Floors are held in parts per million so the comparison is exact integer
/// arithmetic (deterministic, no float drift at the boundary).
const PPM: u64 = 1_000_000;

pub struct Bands {
    window: Time,
    /// Floor per class, in parts per million (0 = no floor).
    floor_ppm: Vec<u64>,
    order: Vec<ClassId>,
    /// Dispatches in the window, oldest first.
    recent: VecDeque<(Time, ClassId)>,
    in_window: Vec<u64>,
    lanes: ClassLanes,
    /// Scratch: classes tried in the current pick.
    tried: Vec<bool>,
    below: Vec<ClassId>,
}

const FLOOR: Param = Param {
    name: "floor",
    kind: ParamKind::ClassFractions,
    default: ParamDefault::Derived("no floors (strict priority)"),
    doc: "minimum fraction of the dispatches per class, e.g. {bulk: 0.1}; at most 1 in all",
};

const WINDOW: Param = Param {
    name: "window",
    kind: ParamKind::Duration,
    default: ParamDefault::Duration(60 * SECOND),
    doc: "rolling window the floors are measured over",
};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "bands",
    summary: "priority with a floor: each class with a floor gets at least that fraction of the dispatches over a rolling window, strict priority for the rest",
    params: &[FLOOR, WINDOW, THEN],
    build,
};

pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    let window: Time = spec.params.get(&WINDOW)?;
    let mut floor_ppm = vec![0u64; sc.classes.len()];
    for &(c, f) in spec.params.opt::<&[(ClassId, f64)]>(&FLOOR).unwrap_or(&[]) {
        floor_ppm[c as usize] = (f * PPM as f64).round() as u64;
    }
    let total: u64 = floor_ppm.iter().sum();
    if total > PPM {
        return Err(ParamError::at(
            &FLOOR,
            format!(
                "the floors add up to {:.3}, more than all the dispatches; make them sum to 1 or less",
                total as f64 / PPM as f64
            ),
        ));
    }
    Ok(Box::new(Bands {
        window,
        floor_ppm,
        order: priority_order(sc),
        recent: VecDeque::new(),
        in_window: vec![0; sc.classes.len()],
        lanes: ClassLanes::new(spec.params.opt(&THEN), sc)?,
        tried: vec![false; sc.classes.len()],
        below: Vec::new(),
    }))
}

impl Bands {
    fn slide(&mut self, now: Time) {
        while let Some(&(t, c)) = self.recent.front() {
            if t.saturating_add(self.window) > now {
                break;
            }
            self.recent.pop_front();
            self.in_window[c as usize] -= 1;
        }
    }

    /// Whether class `c` would fall below its floor if this dispatch went elsewhere.
    fn below_floor(&self, c: ClassId) -> bool {
        let f = self.floor_ppm[c as usize];
        f > 0 && self.in_window[c as usize] * PPM < f * (self.recent.len() as u64 + 1)
    }

    fn try_class(&mut self, c: ClassId, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot> {
        if self.tried[c as usize] {
            return None;
        }
        self.tried[c as usize] = true;
        let slot = self.lanes.pick(c, jobs, gate, now)?;
        self.recent.push_back((now, c));
        self.in_window[c as usize] += 1;
        Some(slot)
    }
}

impl Policy for Bands {
    lanes_forward!(Policy);

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot> {
        self.slide(now);
        self.tried.iter_mut().for_each(|t| *t = false);
        let mut below = std::mem::take(&mut self.below);
        below.clear();
        below.extend(self.order.iter().copied().filter(|&c| self.lanes.has_work(c) && self.below_floor(c)));
        // most starved first: n_a / f_a < n_b / f_b  <=>  n_a * f_b < n_b * f_a
        // (a stable sort keeps priority order among equals)
        let (n, f) = (&self.in_window, &self.floor_ppm);
        below.sort_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            (n[a] as u128 * f[b] as u128).cmp(&(n[b] as u128 * f[a] as u128))
        });
        let mut pick = None;
        for &c in &below {
            pick = self.try_class(c, jobs, gate, now);
            if pick.is_some() {
                break;
            }
        }
        self.below = below;
        for i in 0..self.order.len() {
            if pick.is_some() {
                break;
            }
            pick = self.try_class(self.order[i], jobs, gate, now);
        }
        pick
    }
}

lanes_forward!(Hints for Bands);

impl Explain for Bands {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;

    fn bands(window: &str, floor: &str) -> Bands {
        let text = format!(
            "workers: 1\nclasses: {{hi: {{priority: 1}}, lo: {{priority: 9}}}}\n\
             workload:\n- {{tenant: A, count: 1, service: 1s}}\n\
             policies:\n- {{policy: bands, window: {window}, floor: {{lo: {floor}}}}}\n"
        );
        let sc = load_str(&text, std::path::Path::new("t.yaml")).expect("scenario");
        let spec = &sc.policies[0];
        let lanes = ClassLanes::new(None, &sc).expect("lanes");
        Bands {
            window: spec.params.get(&WINDOW).expect("window"),
            floor_ppm: vec![
                0,
                0,
                (spec.params.opt::<&[(ClassId, f64)]>(&FLOOR).expect("floor")[0].1 * PPM as f64).round()
                    as u64,
            ],
            order: priority_order(&sc),
            recent: VecDeque::new(),
            in_window: vec![0; 3],
            lanes,
            tried: vec![false; 3],
            below: Vec::new(),
        }
    }

    fn record(b: &mut Bands, t: Time, c: ClassId) {
        b.slide(t);
        b.recent.push_back((t, c));
        b.in_window[c as usize] += 1;
    }

    #[test]
    fn floor_rule_counts_the_dispatch_being_made() {
        // floor 0.25: with n dispatches in the window and n_lo of them lo,
        // lo is owed the next one when n_lo < 0.25 * (n + 1)
        let mut b = bands("10s", "0.25");
        let (hi, lo) = (1, 2);
        assert!(b.below_floor(lo), "empty window: 0 < 0.25");
        assert!(!b.below_floor(hi), "no floor, never below it");
        record(&mut b, 0, lo);
        for n in 1..=2 {
            record(&mut b, 0, hi);
            assert!(!b.below_floor(lo), "1 of {} is at least 0.25 * {}", n + 1, n + 2);
        }
        record(&mut b, 0, hi); // 4 dispatches, 1 lo: 1 < 0.25 * 5
        assert!(b.below_floor(lo));
        record(&mut b, 0, lo);
        assert!(!b.below_floor(lo), "2 of 5 >= 0.25 * 6");
    }

    #[test]
    fn window_is_half_open_and_slides() {
        // a dispatch at t leaves the window (now - 10 s, now] at now = t + 10 s
        let mut b = bands("10s", "0.5");
        record(&mut b, 0, 2);
        record(&mut b, SECOND, 1);
        b.slide(10 * SECOND - 1);
        assert_eq!(b.recent.len(), 2);
        b.slide(10 * SECOND);
        assert_eq!((b.recent.len(), b.in_window[2], b.in_window[1]), (1, 0, 1));
        assert!(b.below_floor(2), "0 of 1 < 0.5 * 2");
    }

    #[test]
    fn the_most_starved_class_below_its_floor_goes_first() {
        // Classes hi (priority 1), mid (5, floor 0.5), lo (9, floor 0.25),
        // one tenant each, a 1 h window, all at t = 0. A class is below its
        // floor when n_c < f_c (n + 1); of several below, the smallest n_c /
        // f_c goes first (ties in priority order). Before lo has work:
        // 1: mid 0 < 0.5 -> M. 2: mid 1 < 1? no -> hi. 3: 1 < 1.5 -> M.
        // 4: 2 < 2? no -> H. lo's jobs arrive (n = 4, mid 2, lo 0):
        // 5: mid 2 < 2.5 and lo 0 < 1.25, both below; 0/0.25 < 2/0.5 -> L.
        // 6: mid 2 < 3, lo 1 < 1.5; 1/0.25 = 2/0.5, tie -> M (priority).
        // 7: mid 3 < 3.5, lo 1 < 1.75; 4 < 6 -> L. 8: lo 2 < 2? no -> M.
        // 9: mid 4 < 4.5, lo 2 < 2.25; 8 = 8, tie -> M. 10: mid 5 < 5? no;
        // lo 2 < 2.5 -> L. Priority order among the classes below their
        // floors (the comparison broken) gives M at 5, 7; comparing
        // n_a + f_b or n_a / f_b instead of n_a x f_b changes 5, 6 or 7.
        let sc = crate::scenario::load_str(
            "workers: 99\nclasses: {hi: {priority: 1}, mid: {priority: 5}, lo: {priority: 9}}\nworkload:\n  - {tenant: H, class: hi, count: 20, service: 1s}\n  - {tenant: M, class: mid, count: 20, service: 1s}\n  - {tenant: L, class: lo, count: 20, at: 1s, service: 1s}\npolicies: [{policy: bands, window: 1h, floor: {mid: 0.5, lo: 0.25}}]\n",
            std::path::Path::new("t.yaml"),
        )
        .expect("valid");
        let mut kit = crate::policy::testkit::Kit::new(&sc);
        kit.push_n(40);
        assert_eq!(kit.pick_n(4), "MHMH");
        kit.push_all();
        assert_eq!(kit.pick_n(6), "LMLMML");
    }
}

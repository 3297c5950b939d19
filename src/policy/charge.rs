//! What a `cost: work` policy charges a flow for a job, when tenants may
//! declare a cost other than their true service (cost gaming, the
//! backpressure article's "never trust a tenant's declared cost without
//! bounds ... reconcile reservation versus actual at completion").
//!
//! `charge:`
//! - `oracle` (default): the true service, known before the job runs. No
//!   real scheduler knows it; it is the ideal the others are measured by,
//!   and what fairsim always charged.
//! - `declared`: what the tenant declared (its entry's `declared: {factor}`
//!   times the true service; the true service when it declares nothing).
//! - `actual`: the declared cost up front, then, when the attempt ends, the
//!   difference to the true service as debt (or credit) of the flow.
//! - `bounded`: the declared cost, but never less than the `quantile` of the
//!   true services of the job's class's last [`LEARN_WINDOW`] finished
//!   attempts (nothing learned yet: the declared cost).
//!
//! The declared cost is worked out from the job each time it is needed
//! (factor x service), so the job table stores only the entry's index, and
//! the charge an attempt paid up front can be recomputed exactly at its end.

use std::collections::VecDeque;

use super::flows::Cost;
use crate::core::Job;
use crate::model::policy::ParamError;
use crate::model::{Param, ParamDefault, ParamKind, Params, Scenario};
#[cfg(test)]
use crate::{model::ClassId, time::SECOND};

/// Finished attempts per class that `bounded` learns its quantile from: a
/// bounded memory that still follows a class whose sizes drift.
pub const LEARN_WINDOW: usize = 1000;

/// `charge`: what a `cost: work` policy charges.
pub const CHARGE: Param = Param {
    name: "charge",
    kind: ParamKind::Word(&["oracle", "declared", "actual", "bounded"]),
    default: ParamDefault::Word("oracle"),
    doc: "with cost: work, oracle: the true service (known in advance); declared: what the tenant declares; actual: declared, then the difference settled when the attempt ends; bounded: declared, at least a quantile of the class's true services",
};

/// `quantile`: the lower bound of `charge: bounded`.
pub const QUANTILE: Param = Param {
    name: "quantile",
    kind: ParamKind::Amount,
    default: ParamDefault::Derived("0.5 (the median)"),
    doc: "charge: bounded charges at least this quantile (0 < q <= 1) of the true services of the job's class's last 1000 finished attempts",
};

/// Which charge (see the module comment).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Charge {
    Oracle,
    Declared,
    Actual,
    Bounded { quantile: f64 },
}

/// Charges jobs to flows: the policy's `cost` and `charge` together.
#[derive(Debug)]
pub struct Charger {
    cost: Cost,
    charge: Charge,
    /// `declared: {factor}` per [`Job::declared_entry`] (index 0: 1, honest).
    factors: Vec<f64>,
    /// `bounded`: per class, the true services learned.
    learned: Vec<Learned>,
}

impl Charger {
    /// The charger a policy's `cost`, `charge` and `quantile` describe.
    pub fn new(p: &Params, sc: &Scenario) -> Result<Self, ParamError> {
        let cost = super::flows::parse_cost(p)?;
        let charge = match p.get::<&str>(&CHARGE)? {
            "declared" => Charge::Declared,
            "actual" => Charge::Actual,
            "bounded" => {
                let quantile = p.opt::<f64>(&QUANTILE).unwrap_or(0.5);
                if !(quantile > 0.0 && quantile <= 1.0) {
                    return Err(ParamError::at(
                        &QUANTILE,
                        format!(
                            "`quantile` {quantile} must be above 0 and at most 1, e.g. 0.5 for the median"
                        ),
                    ));
                }
                Charge::Bounded { quantile }
            }
            _ => Charge::Oracle,
        };
        if p.value(CHARGE.name).is_some() && cost == Cost::Jobs {
            return Err(ParamError::at(
                &CHARGE,
                "`charge` says how work is charged, but this policy charges one per job; add `cost: work` or remove `charge`",
            ));
        }
        if p.value(QUANTILE.name).is_some() && !matches!(charge, Charge::Bounded { .. }) {
            return Err(ParamError::at(
                &QUANTILE,
                "`quantile` applies to `charge: bounded` only; set `charge: bounded` or remove `quantile`",
            ));
        }
        let factors =
            std::iter::once(1.0).chain(sc.workload.iter().map(|e| e.declared.map_or(1.0, |d| d.factor)));
        let classes = if matches!(charge, Charge::Bounded { .. }) { sc.classes.len() } else { 0 };
        Ok(Charger {
            cost,
            charge,
            factors: factors.collect(),
            learned: (0..classes).map(|_| Learned::default()).collect(),
        })
    }

    pub fn cost(&self) -> Cost {
        self.cost
    }

    /// What the job's tenant declares for its current attempt, in
    /// microseconds.
    pub fn declared(&self, job: &Job) -> u64 {
        match job.declared_entry {
            0 => job.service,
            e => (job.service as f64 * self.factors[e as usize]).round() as u64,
        }
    }

    /// The units the flow is charged when the job is queued or started.
    pub fn units(&self, job: &Job) -> u64 {
        match (self.cost, self.charge) {
            (Cost::Jobs, _) => super::flows::UNITS_PER_JOB,
            (Cost::Work, Charge::Oracle) => job.service,
            (Cost::Work, Charge::Declared | Charge::Actual) => self.declared(job),
            (Cost::Work, Charge::Bounded { quantile }) => {
                let floor = self.learned[job.class as usize].quantile(quantile).unwrap_or(0);
                self.declared(job).max(floor)
            }
        }
    }

    /// Whether [`Charger::settle`] can ever do anything (so a policy may
    /// skip it).
    pub fn settles(&self) -> bool {
        self.cost == Cost::Work && matches!(self.charge, Charge::Actual | Charge::Bounded { .. })
    }

    /// An attempt of the job ended, having run its true service: learns it
    /// (`bounded`) and returns the units still owed for it: true service
    /// minus what was charged up front (`actual`; negative when the tenant
    /// over-declared), 0 for every other charge.
    pub fn settle(&mut self, job: &Job) -> i64 {
        match (self.cost, self.charge) {
            (Cost::Work, Charge::Actual) => job.service as i64 - self.declared(job) as i64,
            (Cost::Work, Charge::Bounded { .. }) => {
                self.learned[job.class as usize].observe(job.service);
                0
            }
            _ => 0,
        }
    }
}

/// The last [`LEARN_WINDOW`] true services of one class, in arrival order
/// and sorted (a window of 1000 makes the sorted insert and removal a short
/// memmove, and the quantile a lookup).
#[derive(Debug, Default)]
struct Learned {
    recent: VecDeque<u64>,
    sorted: Vec<u64>,
}

impl Learned {
    fn observe(&mut self, service: u64) {
        if self.recent.len() == LEARN_WINDOW {
            let old = self.recent.pop_front().expect("window is full");
            let i = self.sorted.binary_search(&old).expect("every recent value is in sorted");
            self.sorted.remove(i);
        }
        self.recent.push_back(service);
        let i = self.sorted.partition_point(|&x| x <= service);
        self.sorted.insert(i, service);
    }

    /// The nearest-rank quantile: the ceil(q n)-th smallest of the n values.
    fn quantile(&self, q: f64) -> Option<u64> {
        let n = self.sorted.len();
        if n == 0 {
            return None;
        }
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        Some(self.sorted[rank - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Arrival;
    use crate::policy::testkit::Kit;
    use crate::scenario::load_str;
    use std::path::Path;

    /// A (declaring `factor` of its 1 s jobs) and B (honest, 1 s jobs), two
    /// jobs each at 0 s, one more of A's at 10 s; `policy` with `charge`.
    fn gaming(policy: &str, charge: &str) -> Scenario {
        let yaml = format!(
            "workers: 99\nworkload:\n\
             - {{tenant: A, count: 2, service: 1s, declared: {{factor: 0.1}}}}\n\
             - {{tenant: B, count: 2, service: 1s}}\n\
             - {{tenant: A, count: 1, at: 10s, service: 1s, declared: {{factor: 0.1}}}}\n\
             policies: [{{policy: {policy}, cost: work, quantum: 1s, charge: {charge}}}]\n"
        );
        let yaml = if policy == "wfq" { yaml.replace(", quantum: 1s", "") } else { yaml };
        load_str(&yaml, Path::new("t.yaml")).expect("valid scenario")
    }

    /// Picks one job at a time, finishing each before the next pick (one
    /// worker, as the engine settles an attempt before its next dispatch),
    /// after pushing the arrivals `pushes[i]` before pick i.
    fn one_at_a_time(sc: &Scenario, pushes: &[usize]) -> String {
        let mut kit = Kit::new(sc);
        let mut order = String::new();
        for &n in pushes {
            kit.push_n(n);
            let Some(slot) = kit.pick() else { break };
            order.push_str(&sc.tenants.name(kit.jobs.get(slot).tenant));
            kit.finish(slot);
        }
        order
    }

    #[test]
    fn drr_settles_the_debt_of_an_attempt_before_the_next_pick() {
        // drr, quantum 1 s. declared: A's visit adds 1 s, its 0.1 s jobs
        // leave 0.9 then 0.8 > 0, so A runs both in one visit: A A B B.
        // actual: A's first job is charged 0.1 (deficit 0.9), ends, and the
        // 0.9 s of debt leaves A at 0: its visit is over, B runs (1 - 1 = 0),
        // then A again: A B A B, the split of honest declarations.
        let pushes = [4, 0, 0, 0];
        assert_eq!(one_at_a_time(&gaming("drr", "declared"), &pushes), "AABB");
        assert_eq!(one_at_a_time(&gaming("drr", "actual"), &pushes), "ABAB");
        // without settling in between (all four started before any ends),
        // actual charges what was declared: A A B B as under declared
        let sc = gaming("drr", "actual");
        let mut kit = Kit::new(&sc);
        kit.push_n(4);
        assert_eq!(kit.pick_n(4), "AABB");
    }

    #[test]
    fn wfq_settles_into_the_tags_of_jobs_queued_afterwards() {
        // wfq, weights 1, V = 0. A's tags 0.1, 0.2; B's 1, 2. A's first job
        // runs (V = 0.1) and ends. declared: A's third job (pushed now) gets
        // 0.2 + 0.1 = 0.3 and runs before B: A A A B B. actual: the ended
        // job's 0.9 s of debt moves A's last tag to 0.2 + 0.9 = 1.1, so the
        // third job gets 1.2: A2 (0.2), B1 (1), A3 (1.2), B2 (2): A A B A B.
        // A2 kept the tag 0.2 it was given before the debt was known.
        let pushes = [4, 1, 0, 0, 0];
        assert_eq!(one_at_a_time(&gaming("wfq", "declared"), &pushes), "AAABB");
        assert_eq!(one_at_a_time(&gaming("wfq", "actual"), &pushes), "AABAB");
    }

    #[test]
    fn bounded_raises_a_declaration_to_the_learned_quantile_of_its_class() {
        // charge: bounded, quantile 0.5, classes x and y. Before anything
        // ends a job is charged what it declares: 10% of 4 s = 0.4 s.
        // Attempts of 3, 1 and 2 s end in class x: the nearest-rank median
        // of three is the 2nd, 2 s, so the same job is charged max(0.4, 2)
        // = 2 s in x, and still 0.4 s in y (nothing learned there); an
        // honest 5 s job is charged its 5 s, above the bound. settle owes
        // nothing under bounded; under actual it owes 4 - 0.4 = 3.6 s.
        let sc = load_str(
            "workers: 1\nclasses: {x: {}, y: {}}\nworkload:\n\
             - {tenant: A, count: 1, service: 1s, declared: {factor: 0.1}}\n\
             policies: [{policy: drr, cost: work, charge: bounded}, {policy: drr, cost: work, charge: actual}]\n",
            Path::new("t.yaml"),
        )
        .expect("valid scenario");
        let job = |class: ClassId, service: u64, declared_entry: u16| {
            let a = Arrival {
                time: 0,
                tenant: 0,
                class,
                service,
                deadline: None,
                cost: [0; crate::model::MAX_RESOURCES],
                failures: 0,
                max_attempts: 1,
                slicing: 0,
                declared_entry,
            };
            Job::from_arrival(0, &a)
        };
        let class = |n: &str| sc.classes.iter().position(|c| c.name == n).expect("declared") as ClassId;
        let (x, y) = (class("x"), class("y"));
        let mut bounded = Charger::new(&sc.policies[0].params, &sc).expect("builds");
        let gamer = job(x, 4 * SECOND, 1);
        assert_eq!(bounded.units(&gamer), 400_000);
        for s in [3, 1, 2] {
            assert_eq!(bounded.settle(&job(x, s * SECOND, 0)), 0);
        }
        assert_eq!(bounded.units(&gamer), 2 * SECOND);
        assert_eq!(bounded.units(&job(y, 4 * SECOND, 1)), 400_000);
        assert_eq!(bounded.units(&job(x, 5 * SECOND, 0)), 5 * SECOND);
        let mut actual = Charger::new(&sc.policies[1].params, &sc).expect("builds");
        assert_eq!(actual.units(&gamer), 400_000);
        assert_eq!(actual.settle(&gamer), 3_600_000);
    }

    #[test]
    fn the_quantile_is_the_nearest_rank_of_the_window() {
        // values 5 1 4 2 3: sorted 1 2 3 4 5. Nearest rank ceil(q n):
        // q 0.5 -> ceil(2.5) = 3rd = 3; q 0.9 -> ceil(4.5) = 5th = 5;
        // q 0.2 -> ceil(1.0) = 1st = 1; q 0.21 -> ceil(1.05) = 2nd = 2; q 1 -> 5.
        let mut l = Learned::default();
        assert_eq!(l.quantile(0.5), None);
        for v in [5, 1, 4, 2, 3] {
            l.observe(v);
        }
        for (q, want) in [(0.5, 3), (0.9, 5), (0.2, 1), (0.21, 2), (1.0, 5)] {
            assert_eq!(l.quantile(q), Some(want), "q {q}");
        }
    }

    #[test]
    fn the_window_forgets_the_oldest_values() {
        // LEARN_WINDOW values of 1 then LEARN_WINDOW values of 2: the 1s
        // have all left, so every quantile is 2. After one more 1 (n stays
        // 1000: 999 twos and one 1) the median is 2 and the 0.001 quantile
        // (rank ceil(1.0) = 1) is the 1.
        let mut l = Learned::default();
        for v in std::iter::repeat_n(1, LEARN_WINDOW).chain(std::iter::repeat_n(2, LEARN_WINDOW)) {
            l.observe(v);
        }
        assert_eq!((l.quantile(0.001), l.quantile(1.0)), (Some(2), Some(2)));
        l.observe(1);
        assert_eq!((l.quantile(0.001), l.quantile(0.5)), (Some(1), Some(2)));
        assert_eq!(l.recent.len(), LEARN_WINDOW);
    }
}

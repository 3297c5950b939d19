//! `drr`: deficit round robin (Shreedhar and Varghese; the priority-classes article's
//! pseudo-code). Flows (tenants, or classes with `over: class`) with
//! claimable work sit in an active list. A visit to the front flow adds its
//! quantum (`quantum` x weight) to its deficit; the flow then starts jobs,
//! each costing 1 job (`cost: jobs`) or its service time (`cost: work`),
//! while its deficit is positive, and the remainder carries to its next visit.
//!
//! Large jobs (the priority-classes article): a job costing more than the deficit still runs
//! once the deficit is positive; the deficit goes negative and the debt
//! carries, so the flow sits out visits until its quanta have paid it back.
//! Two deliberate readings of the article's code, both to keep the long-run
//! split exact: (1) the article resets a deficit in [0, cost) to 0 before
//! charging, which throws away credit; we charge the full cost against the
//! actual deficit, so no credit is lost or invented; (2) a job needs a
//! *positive* deficit, not zero or more: with "zero or more" every flow's first
//! visit would run one job more than its quantum (1 + quantum), and a flow
//! whose deficit lands exactly on 0 would get an extra job. For jobs no larger
//! than the deficit this is classic DRR.
//!
//! Leaving the active list: a flow that runs out of claimable jobs (queue
//! empty, or its tenant parked by the gate at its cap or for lack of fit)
//! forfeits any positive deficit (classic DRR: credit cannot be banked while
//! idle or capped, else a capped heavy-weight tenant would pile up credit and
//! monopolise the pool when the cap lifts) but keeps a negative one (a tenant
//! cannot erase the debt of a large job by briefly going idle). It rejoins
//! the back of the list when it has claimable work again.
//!
//! `over: class`: jobs inside a class run in arrival order; caps stay per
//! tenant, so a class whose oldest job belongs to a tenant at its cap offers
//! the next tenant's job instead, and leaves the list only when every tenant
//! with jobs in it is parked (see `flows.rs`).
//!
//! Cost per dispatch: O(1) amortised while `quantum` x weight is at least
//! the typical job cost — each visit then starts at least one job. A flow
//! whose debt exceeds its quantum is visited once per round without a start
//! (logged as skip reason `deficit`); once a whole round starts nothing, the
//! rounds up to the first flow out of debt are jumped over arithmetically
//! (`jump_over_debt`), so a dispatch costs at most two rounds of visits,
//! whatever the quantum.

use std::collections::VecDeque;

use super::charge::{self, Charger};
use super::flows::{self, Cost, FlowId, FlowQueues, Take, UNITS_PER_JOB};
use super::ranking::{Ask, Candidate, KeyKind};
use super::PolicyInfo;
use super::{Explain, Hints, Policy};
use crate::core::{Gate, Job, JobTable, Skip, Slot};
use crate::model::policy::ParamError;
use crate::model::{Param, ParamDefault, ParamKind, PolicySpec, Scenario, TenantId};
use crate::prefetch::prefetch_item;
use crate::time::{Time, SECOND};

pub struct Drr {
    flows: FlowQueues,
    charger: Charger,
    /// Credit a visit adds, per flow, in cost units (quantum x weight, >= 1).
    quantum: Vec<i64>,
    deficit: Vec<i64>,
    /// Flows believed claimable, front = the flow being visited.
    active: VecDeque<FlowId>,
    in_active: Vec<bool>,
    /// The front flow has already received its quantum for this visit.
    visiting: bool,
    /// Visits in a row that started nothing because the flow was in debt.
    debt_visits: usize,
    /// Jump over the rounds of debt (always, but for the test that checks
    /// jumping against visiting one by one).
    jumps: bool,
    woke: Vec<FlowId>,
}

/// Default quantum for `cost: work`: the mean service time of the scenario's
/// jobs (each entry's distribution mean, weighted by its expected job count),
/// or 1 s when that is not defined. A quantum of about one typical job keeps
/// visits short (good interleaving) and most visits productive (O(1)).
pub fn default_work_quantum(sc: &Scenario) -> f64 {
    let (mut sum, mut n) = (0.0, 0.0);
    for e in &sc.workload {
        let count = e.arrivals.expected_count();
        let mean = e.service.mean_secs();
        if count > 0.0 && mean.is_finite() {
            sum += count * mean;
            n += count;
        }
    }
    let q = if n > 0.0 { sum / n } else { 1.0 };
    if q.is_finite() && q > 0.0 {
        q
    } else {
        1.0
    }
}

const QUANTUM: Param = Param {
    name: "quantum",
    kind: ParamKind::Amount,
    default: ParamDefault::Derived("1 job; for cost: work the mean service time"),
    doc: "credit per visit per unit of weight: jobs, or seconds for cost: work",
};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "drr",
    summary: "deficit round robin: each visit adds quantum x weight of credit; jobs run while it is positive",
    params: &[flows::OVER, flows::COST, QUANTUM, charge::CHARGE, charge::QUANTILE],
    build,
};

pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    Ok(Box::new(build_drr(spec, sc)?))
}

fn build_drr(spec: &PolicySpec, sc: &Scenario) -> Result<Drr, ParamError> {
    let over = flows::parse_over(&spec.params)?;
    let charger = Charger::new(&spec.params, sc)?;
    let cost = charger.cost();
    // in cost units: one job = UNITS_PER_JOB, one second of work = SECOND
    let quantum = match (spec.params.opt::<f64>(&QUANTUM), cost) {
        (Some(q), Cost::Jobs) => q * UNITS_PER_JOB as f64,
        (None, Cost::Jobs) => UNITS_PER_JOB as f64,
        (Some(q), Cost::Work) => q * SECOND as f64,
        (None, Cost::Work) => default_work_quantum(sc) * SECOND as f64,
    };
    let weights = flows::weights(sc, over);
    let quantum: Vec<i64> = weights.iter().map(|w| ((quantum * w).round() as i64).max(1)).collect();
    let n = quantum.len();
    Ok(Drr {
        flows: FlowQueues::new(sc, over),
        charger,
        quantum,
        deficit: vec![0; n],
        active: VecDeque::new(),
        in_active: vec![false; n],
        visiting: false,
        debt_visits: 0,
        jumps: true,
        woke: Vec::new(),
    })
}

impl Drr {
    fn join(&mut self, f: FlowId) {
        if !self.in_active[f as usize] && self.flows.has_claimable(f) {
            self.in_active[f as usize] = true;
            self.active.push_back(f);
        }
    }

    /// The front flow has no claimable job: it leaves the list and forfeits credit.
    fn leave_front(&mut self) {
        if let Some(f) = self.active.pop_front() {
            let f = f as usize;
            self.in_active[f] = false;
            self.deficit[f] = self.deficit[f].min(0);
        }
        self.visiting = false;
    }

    /// A whole round of visits started nothing: every flow is paying off a
    /// debt larger than its quantum. Instead of visiting round after round
    /// (a 1000 s job against a 1us quantum is a billion visits), jump to
    /// the visit at which the first flow's deficit turns positive, crediting
    /// every flow the quanta of the visits skipped, exactly as visiting one
    /// by one would: O(active flows) for any quantum. The front flow's
    /// current visit is the first of them. `false` (no jump) while a flow
    /// in the list has no claimable job: the visits remove it first.
    fn jump_over_debt(&mut self, gate: &mut Gate) -> bool {
        let n = self.active.len();
        if self.active.iter().any(|&f| !self.flows.has_claimable(f)) {
            return false;
        }
        // undo the front's current credit: the jump counts that visit
        let front = self.active[0] as usize;
        self.deficit[front] -= self.quantum[front];
        // visits flow p needs until its deficit is positive: k = floor(-d / q) + 1,
        // the last of them visit number (k - 1) n + p
        let (mut win, mut win_visit) = (0, u128::MAX);
        for (p, &f) in self.active.iter().enumerate() {
            let (d, q) = (self.deficit[f as usize], self.quantum[f as usize]);
            let k = if d > 0 { 1 } else { (-d / q) as u128 + 1 };
            let v = (k - 1) * n as u128 + p as u128;
            if v < win_visit {
                (win, win_visit) = (p, v);
            }
        }
        for (p, &f) in self.active.iter().enumerate() {
            // visits p, p + n, p + 2n, ... before the winning one, and the winner's own
            let visits = if p as u128 > win_visit { 0 } else { (win_visit - p as u128).div_ceil(n as u128) };
            let visits = visits + u128::from(p == win);
            let credit = (visits as i128 * self.quantum[f as usize] as i128).min(i64::MAX as i128) as i64;
            self.deficit[f as usize] = self.deficit[f as usize].saturating_add(credit);
            if p != win || visits > 1 {
                if let Some(t) = self.flows.next_tenant(f) {
                    gate.note_skip(t, Skip::Deficit);
                }
            }
        }
        self.active.rotate_left(win);
        self.visiting = true;
        self.debt_visits = 0;
        true
    }

    /// The front flow's visit is over: it goes to the back of the list.
    fn rotate(&mut self) {
        if let Some(f) = self.active.pop_front() {
            self.active.push_back(f);
        }
        self.visiting = false;
    }
}

impl Policy for Drr {
    fn push(&mut self, job: &Job, slot: Slot, _now: Time) {
        let f = self.flows.push(job, slot);
        self.join(f);
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, _now: Time) -> Option<Slot> {
        loop {
            let f = *self.active.front()?;
            let i = f as usize;
            if !self.flows.has_claimable(f) {
                self.leave_front();
                continue;
            }
            if !self.visiting {
                self.deficit[i] += self.quantum[i];
                self.visiting = true;
            }
            if self.deficit[i] <= 0 {
                // still paying off a large job: passed over for this round
                self.debt_visits += 1;
                if self.jumps && self.debt_visits > self.active.len() && self.jump_over_debt(gate) {
                    continue;
                }
                if let Some(t) = self.flows.next_tenant(f) {
                    gate.note_skip(t, Skip::Deficit);
                }
                self.rotate();
                continue;
            }
            self.debt_visits = 0;
            match self.flows.take(f, jobs, gate) {
                Take::Started(slot) => {
                    self.deficit[i] -= self.charger.units(jobs.get(slot)) as i64;
                    if !self.flows.has_claimable(f) {
                        self.leave_front();
                    } else if self.deficit[i] <= 0 {
                        self.rotate();
                    }
                    return Some(slot);
                }
                Take::Blocked | Take::Empty => self.leave_front(),
            }
        }
    }

    fn on_finish(&mut self, job: &Job, _now: Time) {
        if !self.charger.settles() {
            return;
        }
        let owed = self.charger.settle(job);
        let f = self.flows.flow_of(job) as usize;
        self.deficit[f] = self.deficit[f].saturating_sub(owed);
        if !self.in_active[f] {
            // as on leaving: credit is not banked while out of the rotation
            self.deficit[f] = self.deficit[f].min(0);
        }
    }

    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, _now: Time) {
        let mut woke = std::mem::take(&mut self.woke);
        self.flows.unpark(tenant, &mut woke);
        for f in woke.drain(..) {
            self.join(f);
        }
        self.woke = woke;
    }
}

impl Hints for Drr {
    fn warm_tenant(&self, tenant: TenantId) {
        self.flows.warm(tenant);
    }

    fn warm_queue_back(&self, tenant: TenantId) {
        self.flows.warm_back(tenant);
    }

    fn next_hint(&self) -> Option<(Slot, TenantId)> {
        let &f = self.active.front()?;
        // the visit adds the flow's quantum to its deficit
        prefetch_item(&self.quantum, f as usize);
        prefetch_item(&self.deficit, f as usize);
        let slot = self.flows.hint(f, self.active.get(1).copied(), self.active.get(2).copied())?;
        Some((slot, f))
    }
}

impl Explain for Drr {
    fn key_kind(&self) -> KeyKind {
        KeyKind::Deficit
    }

    /// The active flows in visit order, each with the credit it has for its
    /// visit (its deficit, plus the quantum a visit not yet started adds),
    /// in jobs or seconds; a flow at or below 0 is passed over (`deficit`).
    fn explain(&self, jobs: &JobTable, _now: Time, ask: &Ask, out: &mut Vec<Candidate>) {
        for (place, &f) in self.active.iter().enumerate() {
            let Some((tenant, slot)) = self.flows.head(f) else { continue };
            if !(ask.claimable)(jobs.get(slot)) {
                continue;
            }
            let i = f as usize;
            let credited = place == 0 && self.visiting;
            let credit = self.deficit[i] + if credited { 0 } else { self.quantum[i] };
            out.push(Candidate { tenant, slot, key: Some(credit as f64 / UNITS_PER_JOB as f64) });
            if out.len() >= ask.limit {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testkit::Kit;
    use crate::scenario::load_str;
    use std::path::Path;

    fn scenario(yaml: &str) -> Scenario {
        load_str(yaml, Path::new("t.yaml")).expect("valid scenario")
    }

    #[test]
    fn jumping_over_rounds_of_debt_picks_exactly_what_visiting_does() {
        // Quanta of 7ms x weight against jobs of 0.5-4 s: hundreds of debt
        // rounds between starts, with flows of different weights and debts
        // crossing zero at different visits. One worker, each job finished
        // before the next pick. The jump must reproduce the one-by-one
        // visits' order exactly, job for job.
        let sc = scenario(concat!(
            "workers: 1\ntenants: {A: {weight: 1}, B: {weight: 3}, C: {weight: 2}, D: {weight: 1.5}}\n",
            "workload:\n",
            "  - {tenant: A, count: 40, service: {uniform: {min: 500ms, max: 4s}}}\n",
            "  - {tenant: B, count: 40, service: {uniform: {min: 500ms, max: 4s}}}\n",
            "  - {tenant: C, count: 40, service: {uniform: {min: 500ms, max: 4s}}}\n",
            "  - {tenant: D, count: 25, service: 3s}\n",
            "policies: [{policy: drr, cost: work, quantum: 7ms}]\n",
        ));
        let order = |jumps: bool| {
            let mut drr = build_drr(&sc.policies[0], &sc).expect("builds");
            drr.jumps = jumps;
            let mut kit = Kit::with_policy(&sc, Box::new(drr));
            kit.push_all();
            let mut seqs = Vec::new();
            while let Some(slot) = kit.pick() {
                // the credit each flow holds after each pick, beside the job
                seqs.push((kit.jobs.get(slot).seq, kit.policy.deficit.clone()));
                kit.finish(slot);
            }
            seqs
        };
        let visited = order(false);
        assert_eq!(visited.len(), 145);
        assert_eq!(order(true), visited);
    }

    #[test]
    fn a_jump_credits_the_visits_it_passes_over_and_notes_each_flow() {
        // cost: work, quantum 10us: quanta A 10, B 20 (weight 2), C 10 units.
        // Picks 1-3 start A, B, C on their first credit, each job costing its
        // service (a, b, c us). Pick 4 visits A, B, C in debt (one note each),
        // then A again: four debt visits for three flows, so it jumps. With
        // A's current credit undone, flow p at deficit d needs k = floor(-d /
        // q) + 1 visits, the last of them visit (k - 1) 3 + p (A's current
        // visit is 0); the smallest wins, every flow is credited its visits
        // up to it and noted, except a winner whose only visit is that one.
        // Case 1, a b c = 45 70 25: after picks 1-3 -35 -50 -15; pick 4's
        // visits -25 -30 -5; A undone -25: k = 3, 2, 1, visits 6, 4, 2: C
        // wins at 2 with one visit: A -15, B -10, C +5 (not noted), then C's
        // 25us job: -20. Notes A B C, then A B.
        // Case 2, 45 90 35: -35 -70 -25; visits -25 -50 -15; A undone -25:
        // k = 3, 3, 2, visits 6, 7, 5: C wins at 5, its second visit: A gets
        // visits 0 and 3 (-5), B 1 and 4 (-10), C 2 and 5 (+5, noted), then
        // its 35us job: -30. Notes A B C, then A B C.
        // Visiting one by one reaches the same deficits but notes every visit:
        // A B C A B C A B in case 2. A jump that takes only one visit, starts
        // at another visit or notes differently changes the notes; one that
        // miscounts credit changes the deficits.
        let cases = [
            ((45, 70, 25), [-35, -50, -15], [-15, -10, -20], "ABCAB"),
            ((45, 90, 35), [-35, -70, -25], [-5, -10, -30], "ABCABC"),
        ];
        for ((a, b, c), first, after, notes) in cases {
            let sc = scenario(&format!(
                "workers: 99\ntenants: {{A: {{}}, B: {{weight: 2}}, C: {{}}}}\n\
                 workload: [{{tenant: A, count: 2, service: {a}us}}, {{tenant: B, count: 2, service: {b}us}},\
                 {{tenant: C, count: 2, service: {c}us}}]\n\
                 policies: [{{policy: drr, cost: work, quantum: 10us}}]\n"
            ));
            let mut kit = Kit::with_policy(&sc, Box::new(build_drr(&sc.policies[0], &sc).expect("builds")));
            kit.push_all();
            assert_eq!(kit.pick_n(3), "ABC");
            assert_eq!(kit.policy.deficit, first);
            assert_eq!(kit.pick_n(1), "C");
            assert_eq!(kit.policy.deficit, after, "case {b} {c}");
            let noted: String =
                kit.skips.iter().map(|s| s.strip_suffix(":deficit").expect("deficit")).collect();
            assert_eq!(noted, notes, "case {b} {c}");
        }
    }

    #[test]
    fn default_work_quantum_is_the_count_weighted_mean_service() {
        // 30 jobs of 1 s and 10 jobs of 5 s: (30 * 1 + 10 * 5) / 40 = 2 s.
        let sc = scenario(
            "workers: 1\nworkload:\n  - {tenant: A, count: 30, service: 1s}\n  - {tenant: B, count: 10, service: 5s}\n",
        );
        assert!((default_work_quantum(&sc) - 2.0).abs() < 1e-12);
        // exponential mean 3 s, one job every 2 s over [0, 10s]: 6 jobs; and 2 uniform(1s, 3s): mean 2 s.
        // (6 * 3 + 2 * 2) / 8 = 2.75 s
        let sc = scenario(
            "workers: 1\nworkload:\n  - {tenant: A, arrivals: {every: 2s, stop: 10s}, service: {exponential: 3s}}\n  - {tenant: B, count: 2, service: {uniform: {min: 1s, max: 3s}}}\n",
        );
        assert!((default_work_quantum(&sc) - 2.75).abs() < 1e-12, "{}", default_work_quantum(&sc));
    }

    #[test]
    fn weights_3_2_1_with_unit_jobs_visit_in_runs_of_3_2_1() {
        // quantum 1 job: each visit adds weight jobs of credit, and a unit
        // job runs while the deficit is positive, so visits run 3, 2, 1 jobs.
        let sc = scenario(
            "workers: 99\ntenants:\n  A: {weight: 3}\n  B: {weight: 2}\n  C: {weight: 1}\nworkload:\n  - {tenant: A, count: 9, service: 1s}\n  - {tenant: B, count: 9, service: 1s}\n  - {tenant: C, count: 9, service: 1s}\npolicies: [drr]\n",
        );
        let mut kit = Kit::new(&sc);
        kit.push_all();
        assert_eq!(kit.pick_n(12), "AAABBCAAABBC");
        assert!(kit.skips.is_empty());
    }

    #[test]
    fn a_large_job_runs_on_positive_deficit_and_its_debt_carries() {
        // cost: work, quantum 1s, equal weights. A's jobs take 3 s, B's 1 s.
        // Visit 1: A +1 -> 1 > 0, runs a 3 s job -> -2. B +1 -> runs -> 0.
        // Visit 2: A +1 -> -1, skipped (deficit). B +1 -> runs -> 0.
        // Visit 3: A +1 -> 0, skipped. B runs. Visit 4: A +1 -> 1, runs -> -2.
        let sc = scenario(
            "workers: 99\nworkload:\n  - {tenant: A, count: 5, service: 3s}\n  - {tenant: B, count: 9, service: 1s}\npolicies: [{policy: drr, cost: work, quantum: 1s}]\n",
        );
        let mut kit = Kit::new(&sc);
        kit.push_all();
        assert_eq!(kit.pick_n(8), "ABBBABBB");
        assert_eq!(kit.skips, ["A:deficit", "A:deficit", "A:deficit", "A:deficit"]);
        // Work split: A 2 x 3 s = 6 s, B 6 x 1 s = 6 s: equal, as the weights say.
    }

    #[test]
    fn a_capped_tenant_forfeits_credit_instead_of_banking_it() {
        // A (weight 3, cap 1) starts one job, then is parked at its cap and
        // forfeits its other 2 jobs of credit; B and C share the rest 1:1.
        // Without forfeiting, A would gain 2 jobs of credit per visit and,
        // once uncapped, run a long burst.
        let sc = scenario(
            "workers: 99\ntenants:\n  A: {weight: 3, cap: 1}\n  B: {}\n  C: {}\nworkload:\n  - {tenant: A, count: 9, service: 1s}\n  - {tenant: B, count: 9, service: 1s}\n  - {tenant: C, count: 9, service: 1s}\npolicies: [drr]\n",
        );
        let mut kit = Kit::new(&sc);
        kit.push_all();
        let first = kit.pick().expect("A starts");
        assert_eq!(kit.pick_n(4), "BCBC");
        assert_eq!(kit.skips, ["A:at_cap"]);
        // A's job ends: A rejoins at the back with a fresh quantum of 3, not 3 + 2.
        kit.finish(first);
        assert_eq!(kit.pick_n(4), "BCAB");
        assert_eq!(kit.skips, ["A:at_cap", "A:at_cap"]);
    }

    #[test]
    fn over_class_serves_classes_by_weight_and_skips_a_capped_tenant_inside_a_class() {
        // Classes hi (weight 2) and lo (weight 1). Inside hi, tenant A (cap 1)
        // arrived first: after A's first job, hi offers B's jobs instead.
        let sc = scenario(
            "workers: 99\ntenants:\n  A: {cap: 1}\n  B: {}\n  C: {}\nclasses:\n  hi: {weight: 2}\n  lo: {weight: 1}\nworkload:\n  - {tenant: A, class: hi, count: 5, service: 1s}\n  - {tenant: B, class: hi, count: 5, service: 1s}\n  - {tenant: C, class: lo, count: 5, service: 1s}\npolicies: [{policy: drr, over: class}]\n",
        );
        let mut kit = Kit::new(&sc);
        kit.push_all();
        // classes in first-arrival order: hi (A's batch is entry 0), then lo.
        assert_eq!(kit.pick_n(6), "ABCBBC");
        assert_eq!(kit.skips, ["A:at_cap"]);
    }

    #[test]
    fn a_tenant_parked_in_one_class_is_not_proposed_by_another() {
        // A (cap 1) has jobs in hi and lo, B in lo; equal class weights.
        // hi: A's job starts. lo: its oldest job is A's: the gate refuses A
        // (at its cap), A is parked in every class, and lo offers B's job.
        // hi now holds only A's parked jobs and leaves the rotation, so B runs
        // on, and A is never asked again until it is unparked: one at_cap skip.
        let sc = scenario(
            "workers: 99\ntenants:\n  A: {cap: 1}\n  B: {}\nclasses:\n  hi: {}\n  lo: {}\nworkload:\n  - {tenant: A, class: hi, count: 3, service: 1s}\n  - {tenant: A, class: lo, count: 3, service: 1s}\n  - {tenant: B, class: lo, count: 3, service: 1s}\npolicies: [{policy: drr, over: class}]\n",
        );
        let mut kit = Kit::new(&sc);
        kit.push_all();
        let a = kit.pick().expect("A's hi job");
        assert_eq!(kit.pick_n(9), "BBB");
        assert_eq!(kit.skips, ["A:at_cap"]);
        // A's job ends: A is unparked, hi and lo rejoin the rotation and offer A's jobs.
        kit.finish(a);
        assert_eq!(kit.pick_n(1), "A");
    }
}

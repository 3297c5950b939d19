//! `aging`: class priority with a bounded boost for waiting (Naeem's
//! "+1 level per N minutes", capped as the backpressure article advises).
//!
//! A job's effective priority is `class priority - min(floor(wait / step),
//! max_boost)`, where `wait = now - ready` (time since it last became
//! claimable); a lower number runs first, ties go to the earlier `ready`, then
//! the lower job id. With `max_boost = 0` this is strict `priority`.
//!
//! Cost: within one class every job has the same base priority, so the job
//! that became claimable first also has the largest boost. Each class keeps
//! its jobs in a [`KeyedQueue`] by ready time, and a pick compares only the
//! head of each class: O(classes + log n) per dispatch, never a scan of the
//! queued jobs. A tenant the gate refuses is parked in every class at once.

use super::ranking::{keep_best, Ask, Candidate, KeyKind};
use super::PolicyInfo;
use super::{Explain, Hints, KeyedQueue, Policy};
use crate::core::{Gate, Job, JobTable, Slot};
use crate::model::policy::ParamError;
use crate::model::{Param, ParamDefault, ParamKind, PolicySpec, Scenario, TenantId};
use crate::time::{Time, SECOND};

/// (effective priority, ready, job id): lower runs first.
type AgedKey = (i64, Time, u64);

pub struct Aging {
    class_priority: Vec<i32>,
    step: Time,
    max_boost: i64,
    /// One queue per class, keyed by ready time.
    lanes: Vec<KeyedQueue<Time>>,
}

const STEP: Param = Param {
    name: "step",
    kind: ParamKind::Duration,
    default: ParamDefault::Duration(60 * SECOND),
    doc: "wait that earns one level of boost",
};

const MAX_BOOST: Param = Param {
    name: "max_boost",
    kind: ParamKind::Count { min: 0 },
    default: ParamDefault::Count(3),
    doc: "most levels a wait can earn (0: strict priority)",
};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "aging",
    summary: "class priority minus one level per `step` waited (at most `max_boost` levels); bounds the wait of low classes",
    params: &[STEP, MAX_BOOST],
    build,
};

pub fn build(spec: &PolicySpec, sc: &Scenario) -> Result<Box<dyn Policy>, ParamError> {
    // the loader has checked step > 0 and max_boost >= 0
    let step: Time = spec.params.get(&STEP)?;
    let max_boost: u32 = spec.params.get(&MAX_BOOST)?;
    Ok(Box::new(Aging {
        class_priority: sc.classes.iter().map(|c| c.priority).collect(),
        step,
        max_boost: i64::from(max_boost),
        lanes: (0..sc.classes.len()).map(|_| KeyedQueue::new(sc.tenants.len())).collect(),
    }))
}

impl Aging {
    fn effective(&self, class: usize, ready: Time, now: Time) -> i64 {
        let boost = ((now.saturating_sub(ready) / self.step) as i64).min(self.max_boost);
        i64::from(self.class_priority[class]) - boost
    }
}

impl Policy for Aging {
    fn push(&mut self, job: &Job, slot: Slot, _now: Time) {
        self.lanes[job.class as usize].push(job.tenant, job.ready, job.seq, slot);
    }

    fn pick(&mut self, jobs: &JobTable, gate: &mut Gate, now: Time) -> Option<Slot> {
        loop {
            let mut best: Option<(AgedKey, usize, TenantId, Slot)> = None;
            for c in 0..self.lanes.len() {
                if let Some((ready, seq, tenant, slot)) = self.lanes[c].peek() {
                    let key = (self.effective(c, ready, now), ready, seq);
                    if best.is_none_or(|(b, ..)| key < b) {
                        best = Some((key, c, tenant, slot));
                    }
                }
            }
            let (_, class, tenant, slot) = best?;
            if gate.admit(jobs.get(slot)) {
                self.lanes[class].pop_tenant(tenant);
                return Some(slot);
            }
            // refused for the tenant, not the job: set it aside in every class
            for lane in &mut self.lanes {
                lane.park(tenant);
            }
        }
    }

    fn unpark(&mut self, tenant: TenantId, _jobs: &JobTable, _now: Time) {
        for lane in &mut self.lanes {
            lane.unpark(tenant);
        }
    }
}

impl Hints for Aging {}

impl Explain for Aging {
    fn key_kind(&self) -> KeyKind {
        KeyKind::EffectivePriority
    }

    /// Each tenant's best job over its classes, by the key `pick` compares.
    fn explain(&self, jobs: &JobTable, now: Time, ask: &Ask, out: &mut Vec<Candidate>) {
        let mut best: std::collections::HashMap<TenantId, (AgedKey, Slot)> = Default::default();
        for (c, lane) in self.lanes.iter().enumerate() {
            for (ready, seq, tenant, slot) in lane.heads() {
                let key = (self.effective(c, ready, now), ready, seq);
                let e = best.entry(tenant).or_insert((key, slot));
                if key < e.0 {
                    *e = (key, slot);
                }
            }
        }
        let items = best
            .into_iter()
            .filter(|(_, (_, slot))| (ask.claimable)(jobs.get(*slot)))
            .map(|(tenant, (k, slot))| (k, Candidate { tenant, slot, key: Some(k.0 as f64) }))
            .collect();
        keep_best(items, ask.limit, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SECOND;

    fn aging(step: Time, max_boost: i64) -> Aging {
        Aging { class_priority: vec![5, 1, 9], step, max_boost, lanes: Vec::new() }
    }

    #[test]
    fn boost_grows_one_level_per_step_up_to_the_cap() {
        // Naeem's article: +1 level per step of waiting; the backpressure article: capped
        let a = aging(10 * SECOND, 3);
        assert_eq!(a.effective(2, 0, 0), 9);
        assert_eq!(a.effective(2, 0, 10 * SECOND - 1), 9);
        assert_eq!(a.effective(2, 0, 10 * SECOND), 8);
        assert_eq!(a.effective(2, 5 * SECOND, 35 * SECOND), 6);
        assert_eq!(a.effective(2, 0, 10_000 * SECOND), 6, "capped at 3 levels");
        assert_eq!(aging(SECOND, 0).effective(1, 0, 99 * SECOND), 1, "max_boost 0 is strict priority");
    }
}

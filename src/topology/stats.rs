//! What a topology run counted, for `queue_totals.csv` and `pools.csv`.

use std::cell::RefCell;
use std::rc::Rc;

use super::planner;
use crate::model::{PoolId, QueueId};
use crate::time::Time;

/// What a topology run counted, for `queue_totals.csv` and `pools.csv`.
#[derive(Debug, Clone, Default)]
pub struct TopologyStats {
    /// Per queue: jobs routed in at arrival.
    pub routed: Vec<u64>,
    /// Per queue: attempts started from it.
    pub started: Vec<u64>,
    /// Per queue: most jobs queued at once.
    pub max_depth: Vec<u64>,
    /// Per queue: sum and maximum of the waits (since claimable) of the
    /// attempts started from it, in microseconds.
    pub wait_sum: Vec<u128>,
    pub wait_max: Vec<Time>,
    /// Per pool: attempts started, and worker-microseconds of attempts ended.
    pub pool_started: Vec<u64>,
    pub pool_busy: Vec<u128>,
    /// Per routing rule: jobs it placed; `unrouted`: jobs no rule placed.
    pub rule_matched: Vec<u64>,
    pub unrouted: u64,
    /// Per pool, under reservation ahead (empty without): jobs it reserved,
    /// most held reserved at once, and microseconds they were held before
    /// they started.
    pub reserved: Vec<u64>,
    pub held_max: Vec<u64>,
    pub held_sum: Vec<u128>,
    /// Under a planner: its wake-ups, plans and promotions.
    pub planner: Option<Rc<RefCell<Vec<planner::PlannerEvent>>>>,
    /// The last start counted: its wait and the queue's largest wait before
    /// it, so a claim refused at the cap can be taken back.
    pub(super) last_note: Option<(Time, Time)>,
}

impl TopologyStats {
    pub(super) fn note_start(&mut self, q: QueueId, p: PoolId, wait: Time) {
        let (q, p) = (q as usize, p as usize);
        self.last_note = Some((wait, self.wait_max[q]));
        self.started[q] += 1;
        self.pool_started[p] += 1;
        self.wait_sum[q] += u128::from(wait);
        self.wait_max[q] = self.wait_max[q].max(wait);
    }

    /// The start just counted was a claim refused at the tenant's cap.
    pub(super) fn unnote_start(&mut self, q: QueueId, p: PoolId) {
        let (q, p) = (q as usize, p as usize);
        let Some((wait, max_before)) = self.last_note.take() else { return };
        self.started[q] -= 1;
        self.pool_started[p] -= 1;
        self.wait_sum[q] -= u128::from(wait);
        self.wait_max[q] = max_before;
    }
}

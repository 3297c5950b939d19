//! `fairsim run --decisions`: before each pick the policy ranks the head
//! jobs of the claimable tenants ([`Policy::explain`]); after the start, the
//! chosen job, its key and place in that ranking, and the best other
//! tenants' heads go to a [`DecisionSink`] (the writer of decisions.csv and
//! candidates.csv lives with the other exporters). Without the flag the
//! engine holds no recorder and asks nothing.

use crate::core::{fits, Job, JobTable, Slot, TenantLoad};
use crate::error::Result;
use crate::model::{Res, TenantId};
use crate::policy::{Ask, Candidate, KeyKind, Policy};
use crate::time::Time;

/// Other tenants' heads listed per dispatch, best first.
pub const OTHERS: usize = 8;

/// One dispatch as the policy explains it.
pub struct Decision<'a> {
    /// 1-based, in dispatch order.
    pub id: u64,
    pub time: Time,
    pub job: &'a Job,
    pub kind: KeyKind,
    /// The chosen job's key and its place (1 = best) among the claimable
    /// heads before the pick; `None` when the policy does not rank it.
    pub key: Option<f64>,
    pub rank: Option<usize>,
    /// The best heads of other tenants, at most [`OTHERS`].
    pub others: &'a [Other],
}

/// Another tenant's head job at a dispatch.
pub struct Other {
    pub tenant: TenantId,
    pub job: u64,
    pub key: Option<f64>,
}

/// Where decisions go.
pub trait DecisionSink {
    fn record(&mut self, d: &Decision) -> Result<()>;
    /// After the last dispatch.
    fn finish(&mut self) -> Result<()>;
}

pub struct Decisions<'s> {
    sink: Box<dyn DecisionSink + 's>,
    kind: KeyKind,
    ranked: Vec<Candidate>,
    others: Vec<Other>,
    next_id: u64,
}

impl<'s> Decisions<'s> {
    pub fn new(sink: Box<dyn DecisionSink + 's>, policy: &dyn Policy) -> Self {
        Decisions { sink, kind: policy.key_kind(), ranked: Vec::new(), others: Vec::new(), next_id: 1 }
    }

    /// Ranks the claimable heads as the gate would judge them now.
    pub fn before_pick(
        &mut self,
        policy: &dyn Policy,
        jobs: &JobTable,
        loads: &[TenantLoad],
        free: &Res,
        borrow: bool,
        now: Time,
    ) {
        self.ranked.clear();
        let claimable = |job: &Job| {
            let l = &loads[job.tenant as usize];
            (borrow || l.running < l.cap) && fits(&job.cost, free)
        };
        // the chosen tenant's head and OTHERS more
        let ask = Ask { limit: OTHERS + 1, claimable: &claimable };
        policy.explain(jobs, now, &ask, &mut self.ranked);
    }

    /// Records the start of the job in `slot`, ranked by [`Self::before_pick`].
    pub fn after_start(&mut self, jobs: &JobTable, slot: Slot, now: Time) -> Result<()> {
        let job = jobs.get(slot);
        // a flow of classes may offer another job of the tenant than its head
        let place = (self.ranked.iter().position(|c| c.slot == slot))
            .or_else(|| self.ranked.iter().position(|c| c.tenant == job.tenant));
        self.others.clear();
        let others = self.ranked.iter().filter(|c| c.tenant != job.tenant).take(OTHERS);
        self.others.extend(others.map(|c| Other { tenant: c.tenant, job: jobs.get(c.slot).seq, key: c.key }));
        let d = Decision {
            id: self.next_id,
            time: now,
            job,
            kind: self.kind,
            key: place.and_then(|i| self.ranked[i].key),
            rank: place.map(|i| i + 1),
            others: &self.others,
        };
        self.next_id += 1;
        self.sink.record(&d)
    }

    pub fn finish(&mut self) -> Result<()> {
        self.sink.finish()
    }
}

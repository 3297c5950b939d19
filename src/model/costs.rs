//! Dispatch costs: worker time that is neither a job's service nor idle
//! A PostgreSQL `SKIP LOCKED` claim, RQ's fork of a work
//! horse, a refused conditional claim, the finishing transaction; and how
//! long a worker that found nothing sleeps before it polls again.

use crate::time::Time;

/// A pool's costs (`costs:` on a pool, or at the top for the default pool
/// and as the default of every pool). All zero: today's dispatch, free and
/// woken at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Costs {
    /// A worker that claims a job is busy this long before the job's
    /// service starts (the claim query, a fork).
    pub claim: Time,
    /// A claim refused at the tenant's cap under `on_cap: {delay}` holds
    /// the worker this long.
    pub refusal: Time,
    /// After an attempt ends, its worker is busy this long before it can
    /// claim again (the finishing transaction).
    pub finish: Time,
    /// A worker that found nothing claimable looks again this much later;
    /// 0: woken at once by the next job (Redis `BRPOP`, `LISTEN/NOTIFY`).
    pub poll_interval: Time,
}

impl Costs {
    /// Whether any cost is set (otherwise the run takes the plain dispatch).
    pub fn any(&self) -> bool {
        *self != Costs::default()
    }

    /// Whether a cost occupies workers (the poll interval only idles them).
    pub fn occupies(&self) -> bool {
        self.claim > 0 || self.refusal > 0 || self.finish > 0
    }
}

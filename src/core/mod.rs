//! The vocabulary every stage shares: arrivals, jobs and their table, how a
//! job's life ends, and the engine's gate with its per-tenant counters and
//! skip reasons.
//!
//! Engine, policies, admission and accounting all import this layer and none
//! of each other's internals, so there is no import circle between them.

mod gate;
mod job;

pub use gate::{fits, Gate, Skip, StartCounter, TenantLoad};
pub use job::{Arrival, Job, JobState, JobTable, Outcome, Slot, DEFERRED};

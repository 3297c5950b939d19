//! Workload: turns scenario entries into one time-ordered stream of arrivals.
//!
//! The stream is regenerated for each policy from the same seeds, so every
//! policy in a run sees exactly the same arrivals, service times and failures
//! (common random numbers) while memory stays independent of the job count.

pub mod generator;
mod merge;
mod profiled;
pub mod rng;
pub mod stream;
pub mod trace;

pub use stream::ArrivalStream;

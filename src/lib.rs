//! fairsim: a deterministic discrete-event simulator of multi-tenant job scheduling.
//!
//! The pipeline: [`scenario`] loads and validates a YAML file; [`workload`]
//! expands it into one time-ordered arrival stream; [`engine`] runs that
//! stream through one [`policy`] at a time; [`metrics`] and [`output`] turn
//! the runs into CSV files; [`cli`] wires it to the command line.

pub mod cli;
pub mod engine;
pub mod error;
pub mod huge_pages;
pub mod metrics;
pub mod output;
pub mod policy;
pub mod prefetch;
pub mod quad_heap;
pub mod run;
pub mod scenario;
#[cfg(test)]
mod test_rng;
pub mod time;
pub mod workload;

//! fairsim: a deterministic discrete-event simulator of multi-tenant job scheduling.
//!
//! The data flow, one module per stage:
//!
//! ```text
//! scenario (YAML -> model) -> workload (arrivals) -> admission -> ordering (policy)
//!   -> placement (the gate in core) -> execution (engine) -> accounting -> results -> output
//! ```
//!
//! - [`model`]: the validated, typed scenario; [`scenario`] loads YAML into it.
//! - [`core`]: jobs, the job table, outcomes, the gate and skip reasons: the
//!   vocabulary every stage shares (so engine, policies and accounting never
//!   import each other's internals).
//! - [`workload`]: generators and trace readers, merged into one arrival stream.
//! - [`admission`]: accept or reject each arrival.
//! - [`policy`]: the ordering policies, one file each, and their registry.
//! - [`engine`]: the event loop (start, finish, fail and retry).
//! - [`accounting`]: statistics and the per-run log files.
//! - [`results`]: one serializable model of a run's figures, per policy.
//! - [`output`]: exporters (CSV tables, terminal table, JSON), charts, report.
//! - [`run`] runs every policy of a scenario; [`sweep`] runs a grid of
//!   points over many seeds; [`tune`] searches one for the best value that
//!   meets requirements; [`cli`] is the command line.
//! - [`pool`]: the threads that `run`, `sweep` and `tune` spread their
//!   simulations over, results in task order.
//! - [`stats`]: Student t intervals over seeds, shared by `run --seeds`,
//!   `sweep` and `tune`.

pub mod accounting;
pub mod admission;
pub mod calibrate;
pub mod check;
pub mod cli;
pub mod core;
pub mod engine;
pub mod error;
pub mod explain;
pub mod huge_pages;
pub mod model;
pub mod output;
pub mod policy;
pub mod pool;
pub mod prefetch;
pub mod quad_heap;
pub mod results;
pub mod run;
pub mod scenario;
pub mod sparse_queues;
pub mod stats;
pub mod sweep;
#[cfg(test)]
mod test_rng;
pub mod time;
pub mod topology;
pub mod tune;
pub mod workload;

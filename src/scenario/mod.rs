//! Scenario files: the serde model of the YAML ([`raw`]) and the loader that
//! validates it into the typed [`crate::model::Scenario`] the rest of fairsim
//! works on.
//!
//! Use [`load`] (a file) or [`load_str`] (text); the key reference is
//! `docs/scenario.md`.

mod load;
pub mod named_map;
#[cfg(test)]
mod objective_tests;
pub mod raw;
pub mod raw_dispatch;
pub mod raw_load;
pub mod raw_sweep;
#[cfg(test)]
mod tests;

pub use load::{
    is_inline, load, load_for_trace, load_for_trace_str, load_str, load_unscanned, load_unscanned_str,
    load_with_inline_policies, select_policies, MAX_SPREAD, RESERVED_LABELS,
};

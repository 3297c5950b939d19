//! Scenario files: the serde model of the YAML, validation, and the typed
//! [`Scenario`] the rest of fairsim works on.
//!
//! Use [`load`] (a file) or [`load_str`] (text); the key reference is
//! `docs/scenario.md`.

mod load;
pub mod model;
pub mod raw;
#[cfg(test)]
mod tests;

pub use load::{load, load_str, load_unscanned, MAX_SPREAD};
pub use model::*;

//! Scenario files: the serde model of the YAML, validation, and the typed
//! [`Scenario`] the rest of fairsim works on.

pub mod model;

pub use model::*;

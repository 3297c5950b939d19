//! fairsim: a deterministic discrete-event simulator of multi-tenant job scheduling.

pub mod error;
pub mod policy;
pub mod scenario;
pub mod time;

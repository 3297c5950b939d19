//! Ordering policies: which claimable job runs next.

use crate::scenario::PolicySpec;

/// Checks that `spec.kind` is a known policy and that it sets only parameters
/// that policy accepts. Returns a message naming the valid choices on error.
pub fn validate_params(spec: &PolicySpec) -> Result<(), String> {
    let _ = spec;
    Ok(())
}

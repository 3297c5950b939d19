//! A fast path for reading scenario files: the common subset of YAML read
//! by a small hand-written reader, the full YAML language by serde-saphyr.
//!
//! serde-saphyr reads about 4 MB/s of scenario text (a 920 KB file of
//! 10,000 workload entries took 0.23 s, more than simulating its million
//! jobs costs beyond the one-entry form). This reader covers what scenario
//! files are written in ([`tree`] lists it) at about 50 times that speed,
//! and gives up, returning `None`, on anything else or on any doubt: then
//! the caller reads the text with serde-saphyr, which also words every
//! error. It never reports an error of its own, so a file it gives up on
//! behaves exactly as before, and one it reads must deserialize to the same
//! value, locations included; tests/yaml_subset.rs checks both on every
//! shipped scenario and on generated and mutated ones.

mod de;
mod tree;

use serde::de::DeserializeOwned;

/// `T` read from `text` by the subset reader, or `None` when the text is
/// outside the subset or `T` refuses it (read it with serde-saphyr then).
pub fn from_str<T: DeserializeOwned>(text: &str) -> Option<T> {
    let root = tree::read(text).ok()?;
    T::deserialize(de::NodeDe(&root)).ok()
}

//! The serde model of a scenario's `sweep:` block: the options of `fairsim
//! sweep` kept with the scenario. `fairsim run` reads it for its shape only
//! (a misspelt key is refused there too) and otherwise ignores it; `fairsim
//! sweep` turns it into its options (`crate::sweep::block`).
//!
//! `set` is a map from a key's path to a list of values rather than a list
//! of `KEY=V1,V2` strings: each value keeps its own line and column for
//! messages, a value may hold a comma, and the map's order is the grid's
//! axis order, as the order of `--set` options is.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::named_map::NamedMap;

/// `set:`: a key's path -> its values.
pub type RawSet = NamedMap<Spanned<Vec<Spanned<SweepValue>>>>;

/// `sweep: {seeds: 30, set: {workers: [8, 16]}, policies: [fifo, wfq], baseline: fifo}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSweep {
    pub seeds: Option<Spanned<u64>>,
    pub set: Option<Spanned<RawSet>>,
    pub policies: Option<Spanned<Vec<Spanned<String>>>>,
    pub baseline: Option<Spanned<String>>,
}

/// One value of a swept key: a YAML scalar kept as the text `--set` would
/// take (`8`, `0.5`, `1/s`, `true`).
#[derive(Debug, Clone, PartialEq)]
pub struct SweepValue(pub String);

struct SweepValueVisitor;

impl Visitor<'_> for SweepValueVisitor {
    type Value = SweepValue;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a single value such as 8, 0.5, 1/s or true")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<SweepValue, E> {
        Ok(SweepValue(v.to_string()))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<SweepValue, E> {
        Ok(SweepValue(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<SweepValue, E> {
        Ok(SweepValue(v.to_string()))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<SweepValue, E> {
        Ok(SweepValue(v.to_string()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<SweepValue, E> {
        Ok(SweepValue(v.to_string()))
    }
}

impl<'de> Deserialize<'de> for SweepValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SweepValueVisitor)
    }
}

/// A scenario read for its `sweep:` block alone (every other key ignored).
#[derive(Debug, Deserialize)]
pub struct SweepOnly {
    pub sweep: Option<Spanned<RawSweep>>,
}

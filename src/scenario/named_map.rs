//! [`NamedMap`], a YAML mapping kept in file order, in a module of its own:
//! both the scenario's model (`raw.rs`) and its `sweep:` block
//! (`raw_sweep.rs`) use it, and neither imports the other for it.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

/// A YAML mapping kept in file order: `name -> V`. Duplicate keys are
/// rejected by serde-saphyr before they get here.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedMap<V>(pub Vec<(String, V)>);

impl<V> Default for NamedMap<V> {
    fn default() -> Self {
        NamedMap(Vec::new())
    }
}

struct NamedMapVisitor<V>(PhantomData<V>);

impl<'de, V: Deserialize<'de>> Visitor<'de> for NamedMapVisitor<V> {
    type Value = NamedMap<V>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of name: value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(NamedMap(Vec::new()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value::<V>()?;
            out.push((key, value));
        }
        Ok(NamedMap(out))
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for NamedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(NamedMapVisitor(PhantomData))
    }
}

//! A serde `Deserializer` over the [`Node`] tree that answers every request
//! the way serde-saphyr answers it for the same text, or fails.
//!
//! Any failure, whether this module's own doubt or an error raised by a
//! `Deserialize` impl (an unknown key, a wrong type), sends the text to
//! serde-saphyr, which words the error. So only the success path has to
//! match serde-saphyr, and every scalar this module is unsure of fails.

use std::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

use super::tree::{Node, Pos};

/// Names serde-saphyr's `Spanned<T>` uses to ask for a node's location: it
/// calls `deserialize_newtype_struct(SPANNED)` and reads a map whose first
/// key is `SPANNED_MARKER`, then `value`, `referenced` and `defined`.
/// Pinned by Cargo.lock; if a new serde-saphyr renamed them, the
/// differential tests in tests/yaml_subset.rs would fail.
const SPANNED: &str = "__yaml_spanned";
const SPANNED_MARKER: &str = "__serde_saphyr_private_spanned";

#[derive(Debug)]
pub struct Fail;

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("outside the YAML subset")
    }
}

impl std::error::Error for Fail {}

impl de::Error for Fail {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Fail
    }
}

/// What a scalar is to serde-saphyr's untyped reading (`deserialize_any`),
/// for the spellings this module is sure of.
#[derive(Debug, PartialEq)]
enum Scalar<'a> {
    Str(&'a str),
    Uint(u64),
    /// A negative integer.
    Int(i64),
    Float(f64),
    Bool(bool),
}

/// Characters that can occur in some YAML number spelling (decimal,
/// `0x`/`0o`/`0b`, underscores, exponents, `.inf`, `.nan`, sexagesimal):
/// a plain scalar with any other character is not a number.
fn numberish(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'.' | b'+' | b'-' | b'_' | b':' | b'a'..=b'f' | b'A'..=b'F' | b'x' | b'X' | b'o' | b'O' | b'i' | b'I' | b'n' | b'N')
}

fn classify(text: &str, plain: bool) -> Option<Scalar<'_>> {
    if !plain {
        return Some(Scalar::Str(text));
    }
    match text {
        "true" => return Some(Scalar::Bool(true)),
        "false" => return Some(Scalar::Bool(false)),
        _ => {}
    }
    // null and the YAML 1.1 booleans serde-saphyr also accepts
    let odd = ["~", "null", "true", "false", "yes", "no", "y", "n", "on", "off"];
    if text.is_empty() || odd.iter().any(|w| text.eq_ignore_ascii_case(w)) {
        return None;
    }
    // integers (any radix) and floats all start with a digit or a dot after
    // an optional sign; `inf` and `nan` without a dot are strings to
    // serde-saphyr
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let may_be_number = unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.');
    if !may_be_number || !text.bytes().all(numberish) {
        return Some(Scalar::Str(text));
    }
    // below: plain decimal integers and fractions only, `-` the only sign
    let (negative, magnitude) = match text.strip_prefix('-') {
        Some(m) => (true, m.as_bytes()),
        None => (false, text.as_bytes()),
    };
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    let no_leading_zero = |s: &[u8]| s.len() == 1 || s[0] != b'0';
    if digits(magnitude) && no_leading_zero(magnitude) {
        return match negative {
            false => text.parse().ok().map(Scalar::Uint),
            true if magnitude != b"0" => text.parse().ok().map(Scalar::Int),
            true => None,
        };
    }
    let dot = magnitude.iter().position(|&c| c == b'.')?;
    let (whole, frac) = (&magnitude[..dot], &magnitude[dot + 1..]);
    if digits(whole) && no_leading_zero(whole) && digits(frac) {
        return text.parse().ok().filter(|v: &f64| v.is_finite()).map(Scalar::Float);
    }
    None
}

pub struct NodeDe<'n, 'a>(pub &'n Node<'a>);

impl NodeDe<'_, '_> {
    fn scalar(&self) -> Result<Scalar<'_>, Fail> {
        match self.0 {
            Node::Scalar { text, plain, .. } => classify(text, *plain).ok_or(Fail),
            _ => Err(Fail),
        }
    }

    fn int(&self) -> Result<i128, Fail> {
        match self.scalar()? {
            Scalar::Uint(v) => Ok(i128::from(v)),
            Scalar::Int(v) => Ok(i128::from(v)),
            _ => Err(Fail),
        }
    }
}

/// Integer targets: serde-saphyr parses the text as the target type and
/// fails when it does not fit.
macro_rules! integer {
    ($($method:ident $visit:ident $ty:ty),*) => {$(
        fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            v.$visit(<$ty>::try_from(self.int()?).map_err(|_| Fail)?)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for NodeDe<'_, '_> {
    type Error = Fail;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
        match self.0 {
            Node::Map { .. } => self.deserialize_map(v),
            Node::Seq { .. } => self.deserialize_seq(v),
            Node::Scalar { .. } => match self.scalar()? {
                Scalar::Str(s) => v.visit_str(s),
                Scalar::Uint(n) => v.visit_u64(n),
                Scalar::Int(n) => v.visit_i64(n),
                Scalar::Float(x) => v.visit_f64(x),
                Scalar::Bool(b) => v.visit_bool(b),
            },
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
        match self.scalar()? {
            Scalar::Bool(b) => v.visit_bool(b),
            _ => Err(Fail),
        }
    }

    integer!(
        deserialize_u8 visit_u8 u8, deserialize_u16 visit_u16 u16, deserialize_u32 visit_u32 u32,
        deserialize_u64 visit_u64 u64, deserialize_i8 visit_i8 i8, deserialize_i16 visit_i16 i16,
        deserialize_i32 visit_i32 i32, deserialize_i64 visit_i64 i64
    );

    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
        // an integer read as a float: serde-saphyr parses the text with
        // Rust's float parser, as here
        match (self.scalar()?, self.0) {
            (Scalar::Float(x), _) => v.visit_f64(x),
            (Scalar::Uint(_) | Scalar::Int(_), Node::Scalar { text, .. }) => {
                v.visit_f64(text.parse().map_err(|_| Fail)?)
            }
            _ => Err(Fail),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
        match self.scalar()? {
            Scalar::Str(s) => v.visit_str(s),
            _ => Err(Fail),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
        self.deserialize_str(v)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
        self.deserialize_str(v)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
        // null never reaches here: the tree has no empty values, and `~` or
        // `null` fail `classify`
        v.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> Result<V::Value, Fail> {
        match name {
            SPANNED => v.visit_newtype_struct(SpannedDe(self.0)),
            _ => Err(Fail),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
        match self.0 {
            Node::Seq { items, .. } => {
                let value = v.visit_seq(Items(items.iter()))?;
                Ok(value)
            }
            _ => Err(Fail),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
        match self.0 {
            Node::Map { pairs, .. } => v.visit_map(Pairs { rest: pairs.iter(), value: None }),
            _ => Err(Fail),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Fail> {
        self.deserialize_map(v)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
        v.visit_unit()
    }

    fn deserialize_f32<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Fail> {
        Err(Fail)
    }
    fn deserialize_char<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Fail> {
        Err(Fail)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Fail> {
        Err(Fail)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Fail> {
        Err(Fail)
    }
    fn deserialize_unit<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Fail> {
        Err(Fail)
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, _: V) -> Result<V::Value, Fail> {
        Err(Fail)
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Fail> {
        Err(Fail)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        _: V,
    ) -> Result<V::Value, Fail> {
        Err(Fail)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Fail> {
        Err(Fail)
    }
}

struct Items<'n, 'a>(std::slice::Iter<'n, Node<'a>>);

impl<'de> SeqAccess<'de> for Items<'_, '_> {
    type Error = Fail;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Fail> {
        self.0.next().map(|n| seed.deserialize(NodeDe(n))).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Pairs<'n, 'a> {
    rest: std::slice::Iter<'n, (Node<'a>, Node<'a>)>,
    value: Option<&'n Node<'a>>,
}

impl<'de> MapAccess<'de> for Pairs<'_, '_> {
    type Error = Fail;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Fail> {
        match self.rest.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(NodeDe(k)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Fail> {
        seed.deserialize(NodeDe(self.value.take().ok_or(Fail)?))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.rest.len())
    }
}

/// Answers `Spanned<T>`'s request: the map marker, value, referenced,
/// defined (the same place: the subset has no aliases).
struct SpannedDe<'n, 'a>(&'n Node<'a>);

impl<'de> de::Deserializer<'de> for SpannedDe<'_, '_> {
    type Error = Fail;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
        v.visit_map(SpannedFields { node: self.0, state: 0 })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct SpannedFields<'n, 'a> {
    node: &'n Node<'a>,
    state: u8,
}

impl<'de> MapAccess<'de> for SpannedFields<'_, '_> {
    type Error = Fail;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Fail> {
        let key = match self.state {
            0 => SPANNED_MARKER,
            1 => "value",
            2 => "referenced",
            3 => "defined",
            _ => return Ok(None),
        };
        self.state += 1;
        seed.deserialize(key.into_deserializer()).map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Fail> {
        match self.state {
            1 => seed.deserialize(true.into_deserializer()),
            2 => seed.deserialize(NodeDe(self.node)),
            3 | 4 => seed.deserialize(LocationDe(self.node.at())),
            _ => Err(Fail),
        }
    }
}

/// A location as serde-saphyr's `Location` reads it: `line` and `column`
/// (its byte span is left unknown: fairsim reports lines and columns only).
struct LocationDe(Pos);

impl<'de> de::Deserializer<'de> for LocationDe {
    type Error = Fail;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
        let fields = [("line", self.0.line), ("column", self.0.column)];
        v.visit_map(de::value::MapDeserializer::new(fields.into_iter()))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_are_read_as_serde_saphyr_reads_them_or_not_at_all() {
        assert_eq!(classify("t0001", true), Some(Scalar::Str("t0001")));
        assert_eq!(classify("0.00576/s", true), Some(Scalar::Str("0.00576/s")));
        assert_eq!(classify("1s", true), Some(Scalar::Str("1s")));
        assert_eq!(classify("100", true), Some(Scalar::Uint(100)));
        assert_eq!(classify("0", true), Some(Scalar::Uint(0)));
        assert_eq!(classify("0.5", true), Some(Scalar::Float(0.5)));
        assert_eq!(classify("-0.5", true), Some(Scalar::Float(-0.5)));
        assert_eq!(classify("-3", true), Some(Scalar::Int(-3)));
        assert_eq!(classify("true", true), Some(Scalar::Bool(true)));
        assert_eq!(classify("fifo", true), Some(Scalar::Str("fifo")));
        assert_eq!(classify("inf", true), Some(Scalar::Str("inf")));
        assert_eq!(classify("-x", true), Some(Scalar::Str("-x")));
        assert_eq!(classify("123", false), Some(Scalar::Str("123")));
        // numbers in other spellings, nulls and YAML 1.1 booleans: unsure
        for odd in [
            "007",
            "1e3",
            "0x1f",
            "1_000",
            ".5",
            "5.",
            "-0",
            "-01",
            "+1",
            ".inf",
            ".nan",
            "1:30",
            "~",
            "null",
            "Yes",
            "off",
            "N",
            "TRUE",
            "99999999999999999999",
        ] {
            assert_eq!(classify(odd, true), None, "{odd}");
        }
    }
}

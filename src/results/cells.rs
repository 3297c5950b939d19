//! Flattens a row of the results model (a struct of plain values) into named
//! cells, through its `Serialize` impl: the field names are the column
//! names, and each value keeps enough type to be written exactly (see
//! [`super::units`]). The CSV exporters and the terminal table read rows
//! this way, so a field added to the model is a column everywhere.

use std::fmt;

use serde::ser::{self, Impossible, Serialize, SerializeStruct, Serializer};

use super::units::{MEAN_SECS, RATIO, SECS};
use crate::time::Time;

/// One value of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// `None`: an empty CSV cell.
    Empty,
    Int(i128),
    Float(f64),
    Text(String),
    Secs(Time),
    MeanSecs(f64),
    Ratio(f64),
}

impl Cell {
    /// The cell as `comparison.csv` and `summary.csv` write it.
    pub fn csv(&self) -> String {
        let mut b = Vec::new();
        self.write_csv(&mut b);
        // every cell's text is UTF-8: numbers are ASCII, text a `String`
        String::from_utf8(b).unwrap_or_default()
    }

    /// Appends the cell's CSV text to `out` (no allocation per cell; the
    /// numbers are written by [`super::fixed`], byte for byte what `std`
    /// and [`crate::time::fmt_secs`] write).
    pub fn write_csv(&self, out: &mut Vec<u8>) {
        use super::fixed::{push_fixed, push_secs, push_uint};
        use std::io::Write;
        match self {
            Cell::Empty => {}
            Cell::Int(v) => match u64::try_from(*v) {
                Ok(u) => push_uint(out, u),
                // writing into a Vec cannot fail
                Err(_) => {
                    let _ = write!(out, "{v}");
                }
            },
            Cell::Float(v) => {
                let _ = write!(out, "{v}");
            }
            Cell::Text(s) => out.extend_from_slice(s.as_bytes()),
            Cell::Secs(t) => push_secs(out, *t),
            // `{:.6}` and `{:.4}`
            Cell::MeanSecs(us) => push_fixed(out, us / 1e6, 6),
            Cell::Ratio(x) => push_fixed(out, *x, 4),
        }
    }
}

/// The named cells of `row`, in field order.
pub fn cells<T: Serialize>(row: &T) -> Vec<(&'static str, Cell)> {
    let mut out = Vec::new();
    // Only a struct of plain values serializes; the model's row types are
    // such structs (a unit test serializes each one), so this cannot fail
    // at run time.
    if let Err(e) = row.serialize(RowSer { out: &mut out }) {
        debug_assert!(false, "a results row did not flatten: {e}");
    }
    out
}

/// The column names of a row type, from one of its values.
pub fn names<T: Serialize>(row: &T) -> Vec<&'static str> {
    cells(row).into_iter().map(|(n, _)| n).collect()
}

#[derive(Debug)]
pub struct CellError(String);

impl fmt::Display for CellError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CellError {}

impl ser::Error for CellError {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        CellError(msg.to_string())
    }
}

fn not_flat<T>(what: &str) -> Result<T, CellError> {
    Err(CellError(format!("a results row holds only plain values, not {what}")))
}

/// Serializes a struct into its fields.
struct RowSer<'a> {
    out: &'a mut Vec<(&'static str, Cell)>,
}

impl<'a> SerializeStruct for RowSer<'a> {
    type Ok = ();
    type Error = CellError;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), CellError> {
        let cell = value.serialize(CellSer)?;
        self.out.push((key, cell));
        Ok(())
    }

    fn end(self) -> Result<(), CellError> {
        Ok(())
    }
}

macro_rules! only_structs {
    ($($method:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ret, CellError> { not_flat(stringify!($method)) })*
    };
}

impl<'a> Serializer for RowSer<'a> {
    type Ok = ();
    type Error = CellError;
    type SerializeSeq = Impossible<(), CellError>;
    type SerializeTuple = Impossible<(), CellError>;
    type SerializeTupleStruct = Impossible<(), CellError>;
    type SerializeTupleVariant = Impossible<(), CellError>;
    type SerializeMap = Impossible<(), CellError>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), CellError>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Self, CellError> {
        // one cell per field (an `Option` adds none): no growth per row
        self.out.reserve(len);
        Ok(self)
    }

    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<(), CellError> {
        v.serialize(self)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        v: &T,
    ) -> Result<(), CellError> {
        v.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), CellError> {
        not_flat("an enum with data")
    }

    only_structs! {
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> ();
        serialize_i16(i16) -> ();
        serialize_i32(i32) -> ();
        serialize_i64(i64) -> ();
        serialize_u8(u8) -> ();
        serialize_u16(u16) -> ();
        serialize_u32(u32) -> ();
        serialize_u64(u64) -> ();
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_char(char) -> ();
        serialize_str(&str) -> ();
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}

/// Serializes one plain value into a [`Cell`].
struct CellSer;

impl Serializer for CellSer {
    type Ok = Cell;
    type Error = CellError;
    type SerializeSeq = Impossible<Cell, CellError>;
    type SerializeTuple = Impossible<Cell, CellError>;
    type SerializeTupleStruct = Impossible<Cell, CellError>;
    type SerializeTupleVariant = Impossible<Cell, CellError>;
    type SerializeMap = Impossible<Cell, CellError>;
    type SerializeStruct = Impossible<Cell, CellError>;
    type SerializeStructVariant = Impossible<Cell, CellError>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, v: bool) -> Result<Cell, CellError> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_i8(self, v: i8) -> Result<Cell, CellError> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Cell, CellError> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Cell, CellError> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Cell, CellError> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u8(self, v: u8) -> Result<Cell, CellError> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Cell, CellError> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Cell, CellError> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Cell, CellError> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_f32(self, v: f32) -> Result<Cell, CellError> {
        Ok(Cell::Float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Cell, CellError> {
        Ok(Cell::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<Cell, CellError> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Cell, CellError> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Cell, CellError> {
        not_flat("bytes")
    }
    fn serialize_none(self) -> Result<Cell, CellError> {
        Ok(Cell::Empty)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<Cell, CellError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Cell, CellError> {
        Ok(Cell::Empty)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Cell, CellError> {
        Ok(Cell::Empty)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Cell, CellError> {
        Ok(Cell::Text(variant.to_string()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<Cell, CellError> {
        let inner = v.serialize(CellSer)?;
        Ok(match (name, inner) {
            (SECS, Cell::Int(t)) => Cell::Secs(t as Time),
            (MEAN_SECS, Cell::Float(x)) => Cell::MeanSecs(x),
            (RATIO, Cell::Float(x)) => Cell::Ratio(x),
            (_, other) => other,
        })
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Cell, CellError> {
        not_flat("an enum with data")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, CellError> {
        not_flat("a list")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, CellError> {
        not_flat("a tuple")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, CellError> {
        not_flat("a tuple")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, CellError> {
        not_flat("an enum with data")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, CellError> {
        not_flat("a map")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, CellError> {
        not_flat("a nested struct")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, CellError> {
        not_flat("an enum with data")
    }
}

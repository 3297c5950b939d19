//! Value types of the results model that know how each exporter writes
//! them: exact seconds in CSV, seconds as numbers in JSON, ratios to four
//! decimals in CSV and at full precision in JSON.
//!
//! Each serializes by itself depending on the serializer: a human-readable
//! one (JSON) gets a plain number; the cell serializer of [`super::cells`]
//! (not human-readable) gets a named newtype it turns into the CSV text.

use serde::{Serialize, Serializer};

use crate::time::Time;

/// A time or duration: exact seconds in CSV (`12.5`), seconds in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Secs(pub Time);

/// A mean of microsecond values: seconds to six decimals in CSV.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct MeanSecs(pub f64);

/// A ratio, share or index: four decimals in CSV, full precision in JSON.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Ratio(pub f64);

pub(super) const SECS: &str = "fairsim::Secs";
pub(super) const MEAN_SECS: &str = "fairsim::MeanSecs";
pub(super) const RATIO: &str = "fairsim::Ratio";

impl Serialize for Secs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.serialize_f64(self.0 as f64 / 1e6)
        } else {
            s.serialize_newtype_struct(SECS, &self.0)
        }
    }
}

impl Serialize for MeanSecs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.serialize_f64(self.0 / 1e6)
        } else {
            s.serialize_newtype_struct(MEAN_SECS, &self.0)
        }
    }
}

impl Serialize for Ratio {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.serialize_f64(self.0)
        } else {
            s.serialize_newtype_struct(RATIO, &self.0)
        }
    }
}

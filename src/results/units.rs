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

/// Seconds as the terminal and every report show them: the largest unit
/// that keeps the figure short. Below a minute as seconds (two decimals
/// under 10 s, one under 60 s; milliseconds under 10 ms), then minutes and
/// seconds (`48m 53s`), hours and minutes (`4h 07m`), and from a day on
/// days to one decimal (`5.8 d`). Each unit is chosen after rounding, so
/// 59.96 s reads `1m 00s`, not `60.0 s`. The CSV files and JSON keep seconds.
pub fn human_duration(secs: f64) -> String {
    if !secs.is_finite() {
        return format!("{secs} s");
    }
    if secs < 0.0 {
        return format!("-{}", human_duration(-secs));
    }
    if secs == 0.0 {
        return "0 s".into();
    }
    if secs < 0.00995 {
        return format!("{:.2} ms", secs * 1000.0);
    }
    if (secs * 100.0).round() < 1000.0 {
        return format!("{secs:.2} s");
    }
    if (secs * 10.0).round() < 600.0 {
        return format!("{secs:.1} s");
    }
    let s = secs.round() as u64;
    if s < 3600 {
        return format!("{}m {:02}s", s / 60, s % 60);
    }
    let m = (secs / 60.0).round() as u64;
    if m < 24 * 60 {
        return format!("{}h {:02}m", m / 60, m % 60);
    }
    format!("{:.1} d", secs / 86_400.0)
}

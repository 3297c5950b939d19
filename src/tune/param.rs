//! `--param KEY=LO..HI` or `--param KEY=V1,V2,...`: the values a tuned key
//! takes, as a sweep axis, and how its values are ordered.

use crate::error::{Error, Result};
use crate::sweep::grid::Axis;
use crate::time::{parse_duration, parse_rate};

/// More values than this in one range is a typo more often than a plan;
/// `--monotone` bisection has no such limit.
pub const MAX_GRID_POINTS: usize = 10_000;

/// One tuned key.
#[derive(Debug, Clone)]
pub struct Param {
    pub key: String,
    pub values: Values,
}

/// A tuned key's values, in order. A range is kept as its ends, so a
/// bisection over a billion values does not spell them all.
#[derive(Debug, Clone)]
pub enum Values {
    List(Vec<String>),
    Range(i64, i64),
}

impl Param {
    /// Parses the option's text.
    pub fn parse(option: &str, monotone: bool) -> Result<Param> {
        let bad = |why: String| {
            Error::Usage(format!(
                "--param {option}: {why}; write --param KEY=LO..HI (whole numbers) or KEY=V1,V2,..., e.g. --param workers=1..16"
            ))
        };
        let Some((key, values)) = option.split_once('=') else {
            return Err(bad("no `=`".into()));
        };
        let Some((lo, hi)) = values.split_once("..") else {
            // a list: the sweep's own rules
            let axis = Axis::parse(option).map_err(|_| bad("the key or a value is empty".into()))?;
            return Ok(Param { key: axis.key, values: Values::List(axis.values) });
        };
        let key = key.trim();
        if key.is_empty() || key.split('.').any(str::is_empty) {
            return Err(bad("the key is empty or has an empty part".into()));
        }
        let int = |s: &str| {
            s.trim().parse::<i64>().map_err(|_| bad(format!("`{}` is not a whole number", s.trim())))
        };
        let (lo, hi) = (int(lo)?, int(hi)?);
        if lo > hi {
            return Err(bad(format!("the range {lo}..{hi} is empty (LO must not exceed HI)")));
        }
        let count = hi as i128 - lo as i128 + 1;
        if !monotone && count > MAX_GRID_POINTS as i128 {
            return Err(bad(format!(
                "{count} values are more than a grid takes ({MAX_GRID_POINTS}); add --monotone to bisect, or list fewer values"
            )));
        }
        if count > i64::MAX as i128 {
            return Err(bad("the range is wider than a count of values can be".into()));
        }
        Ok(Param { key: key.to_string(), values: Values::Range(lo, hi) })
    }

    /// The option as typed back, for messages.
    pub fn option(&self) -> String {
        match &self.values {
            Values::Range(lo, hi) => format!("--param {}={lo}..{hi}", self.key),
            Values::List(v) => format!("--param {}={}", self.key, v.join(",")),
        }
    }

    /// How many values (at least one).
    pub fn count(&self) -> usize {
        match &self.values {
            Values::List(v) => v.len(),
            // bounded by the parse: at most i64::MAX values
            Values::Range(lo, hi) => {
                usize::try_from(hi.abs_diff(*lo)).map_or(usize::MAX, |d| d.saturating_add(1))
            }
        }
    }

    /// Value `i`, as the scenario gets it.
    pub fn value(&self, i: usize) -> String {
        match &self.values {
            Values::List(v) => v[i].clone(),
            Values::Range(lo, _) => (*lo as i128 + i as i128).to_string(),
        }
    }

    /// The sweep axis of the values at `indices`.
    pub fn axis(&self, indices: &[usize]) -> Axis {
        Axis { key: self.key.clone(), values: indices.iter().map(|&i| self.value(i)).collect(), origin: None }
    }

    /// Whether every value reads as a number (a plain number, a duration in
    /// seconds or a rate per second): then "smallest" and a chart's x use
    /// [`Self::number`], else the order the values were listed in.
    pub fn numeric(&self) -> bool {
        match &self.values {
            Values::Range(..) => true,
            Values::List(v) => v.iter().all(|s| read_number(s).is_some()),
        }
    }

    /// Value `i` on the number line (see [`Self::numeric`]); its index otherwise.
    pub fn number(&self, i: usize) -> f64 {
        match &self.values {
            Values::Range(lo, _) => *lo as f64 + i as f64,
            Values::List(v) if self.numeric() => read_number(&v[i]).unwrap_or(i as f64),
            Values::List(_) => i as f64,
        }
    }
}

fn read_number(v: &str) -> Option<f64> {
    v.parse::<f64>()
        .ok()
        .or_else(|| parse_duration(v).ok().map(|t| t as f64 / 1e6))
        .or_else(|| parse_rate(v).ok())
        .filter(|x| x.is_finite())
}

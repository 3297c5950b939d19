//! The observation log's cells read before any rule runs: a cell that is
//! not what fairsim writes (a `time` of `zz`, a `tick` of `1e20`) is a
//! malformed file, an input error naming the file, line and column (exit
//! code 2), not a violation of a rule (exit code 1). The rules then parse
//! cells already known to be well formed.

use super::table::{micros, pairs, Table};
use crate::error::Result;

/// What a cell must be to be read.
#[derive(Clone, Copy)]
enum Kind {
    /// A tick number whose end (number x the tick) is a representable time.
    Tick,
    /// Seconds as fairsim writes them.
    Time,
    /// A whole number >= 0 (job ids).
    Count,
    /// `name:count` pairs.
    Pairs,
}

fn check(t: &Table, cols: &[(&str, Kind)], tick: i64) -> Result<()> {
    let found: Vec<(usize, Kind)> = cols.iter().filter_map(|(n, k)| Some((t.col(n).ok()?, *k))).collect();
    for (i, r) in t.rows.iter().enumerate() {
        for &(c, kind) in &found {
            let cell = r.get(c).unwrap_or("");
            let fault = match kind {
                Kind::Tick => match cell.parse::<i64>() {
                    Ok(n) if n >= 0 && n.checked_mul(tick.max(1)).is_some() => None,
                    _ => Some("is not a tick number (a whole number from 0, within the run)"),
                },
                Kind::Time => {
                    micros(cell).is_none().then_some("is not a time in seconds as fairsim writes it")
                }
                Kind::Count => cell.parse::<u64>().is_err().then_some("is not a whole number >= 0"),
                Kind::Pairs => match pairs(cell) {
                    Some(p) if p.iter().all(|(_, n)| n.parse::<u64>().is_ok()) => None,
                    _ => Some("is not a list of `tenant:count` pairs"),
                },
            };
            if let Some(what) = fault {
                return Err(t.cell_error(i, c, format!("`{cell}` {what}")));
            }
        }
    }
    Ok(())
}

/// The long forms a folder may have beside ticks.csv.
pub struct LongForms<'t> {
    pub dispatches: Option<&'t Table>,
    pub tenants: Option<&'t Table>,
    pub refusals: Option<&'t Table>,
}

/// ticks.csv and the long forms present: every cell a rule parses. With
/// tenants.csv the list cells of ticks.csv are compared to the long forms
/// as text, not parsed (a name may hold the spaces and colons that
/// delimit them). `tick` is the log's tick length (µs).
pub fn observation_log(ticks: &Table, long: &LongForms, tick: i64) -> Result<()> {
    use Kind::*;
    match long.tenants {
        Some(t) => {
            check(ticks, &[("tick", Tick), ("time", Time)], tick)?;
            check(t, &[("time", Time), ("queued", Count), ("completed", Count)], tick)?;
        }
        None => {
            check(ticks, &[("tick", Tick), ("time", Time), ("waiting", Pairs), ("completed", Pairs)], tick)?
        }
    }
    if let Some(r) = long.refusals {
        check(r, &[("tick", Tick), ("time", Time), ("refused", Count), ("deferred", Count)], tick)?;
    }
    if let Some(d) = long.dispatches {
        check(d, &[("tick", Tick), ("time", Time), ("job", Count)], tick)?;
    }
    Ok(())
}

//! How the report shows the numbers of the CSV files: durations in units a
//! reader takes in at a glance (`7m 35s`, `0.53 s`, `2h 05m`), fractions of
//! capacity as percentages. The CSV files keep the exact values.

use crate::results::{self, Unit};

/// Columns that hold a fraction of capacity.
const PERCENTS: [&str; 1] = ["utilization"];

/// A cell of column `column` as the report shows it; cells that are not
/// numbers (names, empty cells) are shown as they are.
pub(super) fn cell(column: &str, raw: &str) -> String {
    let Ok(v) = raw.parse::<f64>() else { return raw.to_string() };
    // the columns of `comparison.csv` and `summary.csv` that hold seconds
    if results::column(column).is_some_and(|c| c.unit == Unit::Time) {
        duration(v)
    } else if PERCENTS.contains(&column) {
        percent(v)
    } else {
        raw.to_string()
    }
}

/// A fraction as a percentage with one decimal (`0.6309` -> `63.1%`).
pub(super) fn percent(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

/// Seconds in the largest unit that keeps the figure short (the one
/// formatter of the terminal and every report: [`results::human_duration`]).
pub fn duration(secs: f64) -> String {
    results::human_duration(secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_switch_unit_at_the_rounded_boundaries() {
        // the examples of docs/outputs.md: 7 x 60 + 35 = 455 s; 2 x 3600 + 5 x 60 = 7500 s
        assert_eq!(duration(455.0), "7m 35s");
        assert_eq!(duration(0.53), "0.53 s");
        assert_eq!(duration(7500.0), "2h 05m");
        // 7754.971327 s = 2 h 9 min 14.97 s: to the minute, 2h 09m
        assert_eq!(duration(7754.971327), "2h 09m");
        assert_eq!(duration(0.0), "0 s");
        // milliseconds below 10 ms, where two decimals of a second say nothing
        assert_eq!(duration(0.0042), "4.20 ms");
        assert_eq!(duration(0.0099), "9.90 ms");
        assert_eq!(duration(0.00995), "0.01 s");
        // 9.994 rounds to 9.99; 9.995 rounds to 10.0 and so takes one decimal
        assert_eq!(duration(9.994), "9.99 s");
        assert_eq!(duration(9.996), "10.0 s");
        assert_eq!(duration(59.94), "59.9 s");
        // 59.96 would read 60.0 s: a minute instead
        assert_eq!(duration(59.96), "1m 00s");
        assert_eq!(duration(60.0), "1m 00s");
        // 3599.4 s rounds to 3599 = 59 min 59 s; 3599.6 to an hour
        assert_eq!(duration(3599.4), "59m 59s");
        assert_eq!(duration(3599.6), "1h 00m");
        // 86,369 s = 1439.48 min -> 23h 59m; 86,371 s = 1439.52 min -> a day
        assert_eq!(duration(86_369.0), "23h 59m");
        assert_eq!(duration(86_371.0), "1.0 d");
        // 3 d 4 h = 273,600 s = 3.1667 d; 499,922.779 s = 5.786 d
        assert_eq!(duration(273_600.0), "3.2 d");
        assert_eq!(duration(499_922.779), "5.8 d");
        // the other examples: 48 min 53 s; 5.09 s
        assert_eq!(duration(2933.0), "48m 53s");
        assert_eq!(duration(5.09), "5.09 s");
    }

    #[test]
    fn cells_are_formatted_by_column() {
        assert_eq!(cell("utilization", "0.6309"), "63.1%");
        assert_eq!(cell("wait_p99", "423.654055"), "7m 04s");
        assert_eq!(cell("wait_p99", ""), "");
        assert_eq!(cell("jain", "0.5973"), "0.5973");
        assert_eq!(cell("policy", "fifo"), "fifo");
    }
}

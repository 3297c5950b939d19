//! Simulated time: an integer count of microseconds.
//!
//! Floats never accumulate time: every duration in a scenario is converted to
//! whole microseconds when it is loaded, and random draws are rounded to the
//! nearest microsecond once, when the job is generated.

/// A point in simulated time or a duration, in microseconds.
pub type Time = u64;

/// Microseconds per second.
pub const SECOND: Time = 1_000_000;

/// The last instant a simulation may reach: 2^53 microseconds, about 285
/// years. Every time up to it is exact as an `f64` too (statistics and
/// charts read times as floats), and sums of a few of them cannot overflow
/// a `u64`. A duration, a time or a draw past it is an error, never a clamp.
pub const HORIZON: Time = 1 << 53;

/// [`HORIZON`] in words, for messages.
pub const HORIZON_TEXT: &str = "fairsim's horizon of 2^53 us (about 285 years)";

/// Formats a time as decimal seconds, exact to the microsecond, with no
/// trailing zeros: `1500000` -> `1.5`, `3` -> `0.000003`, `2000000` -> `2`.
pub fn fmt_secs(t: Time) -> String {
    let whole = t / SECOND;
    let frac = t % SECOND;
    if frac == 0 {
        return whole.to_string();
    }
    let mut s = format!("{whole}.{frac:06}");
    while s.ends_with('0') {
        s.pop();
    }
    s
}

/// Formats a duration in the largest unit that writes it whole, as a scenario
/// would: `60000000` -> `1m`, `1500000` -> `1500ms`, `0` -> `0s`.
pub fn fmt_duration(t: Time) -> String {
    const UNITS: [(Time, &str); 5] =
        [(3600 * SECOND, "h"), (60 * SECOND, "m"), (SECOND, "s"), (1000, "ms"), (1, "us")];
    if t == 0 {
        return "0s".into();
    }
    let (n, unit) = UNITS.iter().find(|(n, _)| t.is_multiple_of(*n)).copied().unwrap_or((1, "us"));
    format!("{}{unit}", t / n)
}

/// Converts seconds (as a float) to microseconds, rounding to nearest.
/// Negative and non-finite inputs map to 0 and `Time::MAX` respectively; the
/// scenario validator rejects them before they get here.
// two calls per generated job, from another codegen unit
#[inline(always)]
pub fn from_secs_f64(s: f64) -> Time {
    if !s.is_finite() {
        return Time::MAX;
    }
    if s <= 0.0 {
        return 0;
    }
    let us = s * SECOND as f64;
    if us < (1u64 << 62) as f64 {
        // `f64::round` (half away from zero) without its libm call, two per
        // generated job: below 2^62 the truncation is exact and so is the
        // fraction left
        let t = us as Time;
        return t + Time::from(us - t as f64 >= 0.5);
    }
    let us = us.round();
    if us >= Time::MAX as f64 {
        Time::MAX
    } else {
        us as Time
    }
}

/// Microseconds as float seconds (for statistics and charts only).
pub fn to_secs_f64(t: Time) -> f64 {
    t as f64 / SECOND as f64
}

/// Parses a duration: `500us`, `200ms`, `2s`, `1.5s`, `10m`, `1h`, `1d`, or a
/// bare number meaning seconds. Returns a message fit for the user on error.
pub fn parse_duration(text: &str) -> Result<Time, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
        .unwrap_or(t.len());
    // `e` is part of a float only when followed by a digit or sign; a unit never starts with e.
    let (num, unit) = t.split_at(split);
    let unit = unit.trim();
    let value: f64 = num.parse().map_err(|_| {
        format!("`{text}` is not a duration; write a number with a unit: 500us, 200ms, 2s, 10m, 1h")
    })?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("duration `{text}` must be zero or positive"));
    }
    let scale: f64 = match unit {
        "" | "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
        "h" | "hr" | "hour" | "hours" => 3600.0,
        "d" | "day" | "days" => 86400.0,
        other => {
            return Err(format!("unknown duration unit `{other}` in `{text}`; use us, ms, s, m, h or d"))
        }
    };
    let us = value * scale * SECOND as f64;
    if us > HORIZON as f64 {
        return Err(format!("duration `{text}` is past {HORIZON_TEXT}; use a shorter one"));
    }
    let rounded = us.round();
    if value > 0.0 && rounded == 0.0 {
        return Err(format!("duration `{text}` is shorter than the 1us time unit"));
    }
    Ok(rounded as Time)
}

/// Parses a rate: `2/s`, `120/m`, `3/h`, `0.5/ms`, or a bare number meaning
/// per second. Returns events per second; must be strictly positive.
pub fn parse_rate(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let (num, unit) = match t.split_once('/') {
        Some((n, u)) => (n.trim(), u.trim()),
        None => (t, "s"),
    };
    let value: f64 = num
        .parse()
        .map_err(|_| format!("`{text}` is not a rate; write a number per unit: 2/s, 120/m, 30/h"))?;
    let per_secs: f64 = match unit {
        "s" | "sec" | "second" => 1.0,
        "ms" => 1e-3,
        "m" | "min" | "minute" => 60.0,
        "h" | "hr" | "hour" => 3600.0,
        "d" | "day" => 86400.0,
        other => return Err(format!("unknown rate unit `/{other}` in `{text}`; use /s, /m, /h or /d")),
    };
    if !value.is_finite() || value <= 0.0 {
        return Err(format!("rate `{text}` must be greater than zero"));
    }
    let rate = value / per_secs;
    if rate * to_secs_f64(HORIZON) < 1.0 {
        return Err(format!(
            "rate `{text}` is so low that the mean gap between arrivals is past {HORIZON_TEXT}; use a higher rate"
        ));
    }
    if !rate.is_finite() || rate > 1e9 {
        return Err(format!(
            "rate `{text}` is above 10^9 per second, finer than the 1us time unit; use a lower rate"
        ));
    }
    Ok(rate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_written_in_their_largest_whole_unit() {
        assert_eq!(fmt_duration(60 * SECOND), "1m");
        assert_eq!(fmt_duration(90 * SECOND), "90s");
        assert_eq!(fmt_duration(7200 * SECOND), "2h");
        assert_eq!(fmt_duration(1_500_000), "1500ms");
        assert_eq!(fmt_duration(3), "3us");
        assert_eq!(fmt_duration(0), "0s");
        for t in [1, 999, 1000, 1_000_001, 60 * SECOND, 3601 * SECOND] {
            assert_eq!(parse_duration(&fmt_duration(t)), Ok(t), "{t} round-trips");
        }
    }

    #[test]
    // 4611686018427.3875 s is 2^62 us: the exact edge of the short path
    #[allow(clippy::excessive_precision)]
    fn seconds_round_to_microseconds_as_f64_round_does() {
        // the reference is std's `round` (half away from zero), which the
        // conversion called before; exact halves come from k + 1/2 us
        let reference = |s: f64| {
            let us = (s * SECOND as f64).round();
            if us >= Time::MAX as f64 {
                Time::MAX
            } else {
                us as Time
            }
        };
        let mut x: u64 = 0x853C_49E6_748F_EA9B;
        for i in 0..1_000_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let s = match i % 4 {
                0 => f64::from_bits(x >> 2) % 1e7,
                1 => (x % 1_000_000_000) as f64 / 1e6 / 3.0,
                2 => ((x % 1_000_000) as f64 + 0.5) / 1e6,
                _ => f64::from_bits((x >> 1) | 1),
            };
            if s.is_finite() && s > 0.0 {
                assert_eq!(from_secs_f64(s), reference(s), "{s:e}");
            }
        }
        for s in [5e-7, 1.5e-6, 4611686018427.3875, 4611686018428.0, 1e13, 1.8e13, 1e300] {
            assert_eq!(from_secs_f64(s), reference(s), "{s:e}");
        }
    }

    #[test]
    fn formats_exact_seconds() {
        assert_eq!(fmt_secs(0), "0");
        assert_eq!(fmt_secs(1_500_000), "1.5");
        assert_eq!(fmt_secs(3), "0.000003");
        assert_eq!(fmt_secs(2_000_000), "2");
        assert_eq!(fmt_secs(61_000_010), "61.00001");
    }

    #[test]
    fn parses_durations_with_units() {
        assert_eq!(parse_duration("500us"), Ok(500));
        assert_eq!(parse_duration("200ms"), Ok(200_000));
        assert_eq!(parse_duration("2s"), Ok(2_000_000));
        assert_eq!(parse_duration("1.5"), Ok(1_500_000));
        assert_eq!(parse_duration("10m"), Ok(600_000_000));
        assert_eq!(parse_duration("1h"), Ok(3_600_000_000));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("fast").is_err());
    }

    #[test]
    fn parses_rates() {
        assert_eq!(parse_rate("2/s"), Ok(2.0));
        assert_eq!(parse_rate("120/m"), Ok(2.0));
        assert_eq!(parse_rate("3600/h"), Ok(1.0));
        assert!(parse_rate("0/s").is_err());
        assert!(parse_rate("-2/s").is_err());
        assert!(parse_rate("2/fortnight").is_err());
    }
}

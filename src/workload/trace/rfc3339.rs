//! Exact timestamp parsing for traces: RFC 3339 (and the PostgreSQL text
//! form of `timestamptz`) and decimal epoch numbers, to whole microseconds
//! since 1970-01-01T00:00:00Z. Integer arithmetic only, so the same text
//! always gives the same microsecond.

/// Microseconds in a second.
const US: i64 = 1_000_000;

/// Days from 1970-01-01 to the civil date (proleptic Gregorian), after
/// Howard Hinnant's `days_from_civil`.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Reads exactly `n` ASCII digits at `*i`.
fn digits(b: &[u8], i: &mut usize, n: usize, what: &str) -> Result<i64, String> {
    let mut v = 0i64;
    for k in 0..n {
        match b.get(*i + k) {
            Some(c) if c.is_ascii_digit() => v = v * 10 + (c - b'0') as i64,
            _ => return Err(format!("expected {n} digits for the {what}")),
        }
    }
    *i += n;
    Ok(v)
}

fn expect(b: &[u8], i: &mut usize, c: u8, what: &str) -> Result<(), String> {
    if b.get(*i) == Some(&c) {
        *i += 1;
        Ok(())
    } else {
        Err(format!("expected `{}` {what}", c as char))
    }
}

/// Parses `YYYY-MM-DD(T| )HH:MM:SS[.fraction][Z | ±HH:MM | ±HHMM | ±HH]`.
///
/// The separator may be `T`, `t` or a space (RFC 3339 §5.6 note; PostgreSQL
/// prints a space). A missing offset means UTC. Fraction digits beyond the
/// sixth (below a microsecond) are dropped. A leap second `:60` counts as
/// the first second of the next minute.
pub fn parse_rfc3339(text: &str) -> Result<i64, String> {
    let hint = "write e.g. 2026-11-28T10:15:30.25Z or 2026-11-28 10:15:30+00";
    let b = text.trim().as_bytes();
    let mut i = 0;
    let mut inner = || -> Result<i64, String> {
        let y = digits(b, &mut i, 4, "year")?;
        expect(b, &mut i, b'-', "after the year")?;
        let mo = digits(b, &mut i, 2, "month")?;
        expect(b, &mut i, b'-', "after the month")?;
        let d = digits(b, &mut i, 2, "day")?;
        if !(1..=12).contains(&mo) {
            return Err(format!("month {mo} is not 1 to 12"));
        }
        if d < 1 || d > days_in_month(y, mo) {
            return Err(format!("day {d} does not exist in {y}-{mo:02}"));
        }
        match b.get(i) {
            Some(b'T' | b't' | b' ') => i += 1,
            _ => return Err("expected `T` or a space between the date and the time".into()),
        }
        let h = digits(b, &mut i, 2, "hour")?;
        expect(b, &mut i, b':', "after the hour")?;
        let mi = digits(b, &mut i, 2, "minute")?;
        expect(b, &mut i, b':', "after the minute")?;
        let s = digits(b, &mut i, 2, "second")?;
        if h > 23 || mi > 59 || s > 60 {
            return Err(format!("time {h:02}:{mi:02}:{s:02} is out of range"));
        }
        let mut frac_us = 0i64;
        if b.get(i) == Some(&b'.') || b.get(i) == Some(&b',') {
            i += 1;
            let start = i;
            let mut scale = 100_000i64;
            while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
                frac_us += (c - b'0') as i64 * scale;
                scale /= 10;
                i += 1;
            }
            if i == start {
                return Err("expected digits after the decimal point".into());
            }
        }
        let offset_s = match b.get(i) {
            None => 0,
            Some(b'Z' | b'z') => {
                i += 1;
                0
            }
            Some(&sign @ (b'+' | b'-')) => {
                i += 1;
                let oh = digits(b, &mut i, 2, "offset hours")?;
                let om = match b.get(i) {
                    Some(b':') => {
                        i += 1;
                        digits(b, &mut i, 2, "offset minutes")?
                    }
                    Some(c) if c.is_ascii_digit() => digits(b, &mut i, 2, "offset minutes")?,
                    _ => 0,
                };
                if oh > 23 || om > 59 {
                    return Err(format!("offset {oh:02}:{om:02} is out of range"));
                }
                let o = oh * 3600 + om * 60;
                if sign == b'-' {
                    -o
                } else {
                    o
                }
            }
            Some(_) => return Err("unexpected text after the time".into()),
        };
        if i != b.len() {
            return Err("unexpected text after the offset".into());
        }
        let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s - offset_s;
        Ok(secs * US + frac_us)
    };
    inner().map_err(|m| format!("`{text}` is not an RFC 3339 timestamp: {m}; {hint}"))
}

/// Parses a decimal number (`1732780800`, `-3`, `1.5`) and multiplies it by
/// `unit` microseconds, exactly; digits below a microsecond are dropped.
pub fn parse_scaled(text: &str, unit: i64) -> Result<i64, String> {
    match plain_scaled(text.as_bytes(), unit) {
        Some(v) => Ok(v),
        None => scaled(text, unit),
    }
}

/// [`parse_scaled`] of any text: signs, white space, overflow, messages.
fn scaled(text: &str, unit: i64) -> Result<i64, String> {
    let t = text.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let ok = !(int.is_empty() && frac.is_empty())
        && int.bytes().all(|c| c.is_ascii_digit())
        && frac.bytes().all(|c| c.is_ascii_digit());
    if !ok {
        return Err(format!("`{text}` is not a number"));
    }
    let too_big = || format!("`{text}` is too large");
    let mut v: i64 = 0;
    for c in int.bytes() {
        v = v.checked_mul(10).and_then(|v| v.checked_add((c - b'0') as i64)).ok_or_else(too_big)?;
    }
    v = v.checked_mul(unit).ok_or_else(too_big)?;
    // fraction: sum of digit * unit / 10^k, exact while the divisor divides
    let mut num: i64 = 0;
    let mut den: i64 = 1;
    for c in frac.bytes().take(12) {
        num = num * 10 + (c - b'0') as i64;
        den *= 10;
    }
    // in 64 bits when the product fits (always for units up to a second)
    let f = match num.checked_mul(unit) {
        Some(p) => p / den,
        None => (num as i128 * unit as i128 / den as i128) as i64,
    };
    v = v.checked_add(f).ok_or_else(too_big)?;
    Ok(if neg { -v } else { v })
}

/// [`parse_scaled`] of the common case, one pass and no division for a
/// second: unsigned `DIGITS[.DIGITS]`, at most 18 whole digits, no white
/// space. `None` for anything else, which the general path then decides
/// (so results and messages do not depend on which path ran).
pub(super) fn plain_scaled(b: &[u8], unit: i64) -> Option<i64> {
    let mut i = 0;
    let mut v: i64 = 0;
    while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
        if i == 18 {
            return None;
        }
        v = v * 10 + (c - b'0') as i64;
        i += 1;
    }
    let whole = i;
    let (mut num, mut digits) = (0i64, 0u32);
    if i < b.len() {
        if b[i] != b'.' {
            return None;
        }
        for &c in &b[i + 1..] {
            if !c.is_ascii_digit() {
                return None;
            }
            if digits < 12 {
                num = num * 10 + (c - b'0') as i64;
                digits += 1;
            }
        }
        if whole == 0 && b.len() == i + 1 {
            return None;
        }
    } else if whole == 0 {
        return None;
    }
    // num * unit / 10^digits, as the general path computes it
    let f = if unit == US && digits <= 6 {
        num * 10i64.pow(6 - digits)
    } else {
        num.checked_mul(unit)? / 10i64.pow(digits)
    };
    v.checked_mul(unit)?.checked_add(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_forms_agree() {
        // 2026-11-28T10:00:00Z: days_from_civil(2026,11,28) = 20785
        // (checked: `date -u -d 2026-11-28 +%s` = 1795824000 = 20785 * 86400).
        let base = 1_795_860_000 * US; // + 10h = 36000 s
        assert_eq!(parse_rfc3339("2026-11-28T10:00:00Z"), Ok(base));
        assert_eq!(parse_rfc3339("2026-11-28 10:00:00"), Ok(base));
        assert_eq!(parse_rfc3339("2026-11-28 11:00:00+01"), Ok(base));
        assert_eq!(parse_rfc3339("2026-11-28T05:30:00-04:30"), Ok(base));
        assert_eq!(parse_rfc3339("2026-11-28T11:30:00+0130"), Ok(base));
        assert_eq!(parse_rfc3339("2026-11-28T10:00:00.25Z"), Ok(base + 250_000));
        assert_eq!(parse_rfc3339("2026-11-28 10:00:00.1234567+00"), Ok(base + 123_456));
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Ok(0));
        assert_eq!(parse_rfc3339("1969-12-31T23:59:59Z"), Ok(-US));
        // leap day exists in 2024, not in 2026
        assert!(parse_rfc3339("2024-02-29T00:00:00Z").is_ok());
        assert!(parse_rfc3339("2026-02-29T00:00:00Z").is_err());
        assert!(parse_rfc3339("2026-11-28T24:00:00Z").is_err());
        assert!(parse_rfc3339("2026-11-28").is_err());
        assert!(parse_rfc3339("2026-11-28T10:00:00Zjunk").is_err());
    }

    #[test]
    fn scaled_decimals_are_exact() {
        assert_eq!(parse_scaled("1.5", US), Ok(1_500_000));
        assert_eq!(parse_scaled("1500", 1000), Ok(1_500_000));
        assert_eq!(parse_scaled("0.0015", 1000), Ok(1));
        assert_eq!(parse_scaled("-2", US), Ok(-2_000_000));
        assert_eq!(parse_scaled("1795860000.000001", US), Ok(1_795_860_000_000_001));
        assert!(parse_scaled("1e3", US).is_err());
        assert!(parse_scaled("", US).is_err());
        assert!(parse_scaled(".", US).is_err());
    }

    #[test]
    fn plain_numbers_take_the_short_path_to_the_same_value() {
        // the general path is the reference; the short one must agree
        // wherever it answers, and leave every odd form to it
        let units = [1, 1000, US, 3_600 * US, 7];
        let texts = [
            "0",
            "5",
            "5.",
            ".5",
            "1.5",
            "0.0015",
            "1795860000.000001",
            "1795860000.1234567",
            "123456789012345678",
            "999999999999999999.999999999999999",
            "12.000000000001",
            "0.333333333333",
            "9223372036854.775807",
        ];
        for &unit in &units {
            for text in texts {
                let short = plain_scaled(text.as_bytes(), unit);
                if let Some(v) = short {
                    assert_eq!(scaled(text, unit), Ok(v), "{text} {unit}");
                }
            }
            // the forms traces use take it (a product past 64 bits may not)
            assert!(plain_scaled(b"1795860000.123456", unit).is_some());
            for odd in ["", ".", "-1", "+1", " 1", "1 ", "1e3", "1.2.3", "1234567890123456789", "１"] {
                assert_eq!(plain_scaled(odd.as_bytes(), unit), None, "{odd}");
            }
        }
    }
}

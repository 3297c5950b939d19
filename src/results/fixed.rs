//! The numbers of the results' CSV cells written straight into the row's
//! text, byte for byte what `std` and [`crate::time::fmt_secs`] write,
//! without `fmt::Write` or an allocation per cell: a summary of 10,000
//! tenants writes 250,000 cells per file, and formatting them was most of
//! the cost of writing it (`{:.6}` and `{:.4}` go through `std`'s exact
//! mode, Grisu with a Dragon fallback).
//!
//! # `{:.N}` of an `f64` (N = 4 or 6)
//!
//! `std` prints the exact binary value rounded to N decimals, ties to even
//! (`{:.0}` of 0.5 is `0`, of 2.5 is `2`). A finite non-negative `f64` is
//! m × 2^e with m < 2^53, so v × 10^N = (m × 5^N) × 2^(e + N): an integer
//! of at most 67 bits shifted, which `u128` holds exactly, and the shift's
//! dropped bits decide the rounding exactly. Negative values (`-0.0`
//! included, which `std` prints with its sign) and values too large for a
//! `u64` of units go through `std`.

use std::io::Write;

/// Appends `v` with `digits` decimals (4 or 6; any other count goes
/// through `std`), exactly as `write!(out, "{v:.digits$}")` would.
pub fn push_fixed(out: &mut Vec<u8>, v: f64, digits: u32) {
    match scaled(v, digits) {
        Some(units) => push_units(out, units, digits),
        None => {
            // writing into a Vec cannot fail
            let _ = write!(out, "{v:.prec$}", prec = digits as usize);
        }
    }
}

/// round(v × 10^digits), ties to even, when `v` is finite, not negative
/// (sign bit clear) and the result fits in a `u64`.
fn scaled(v: f64, digits: u32) -> Option<u64> {
    let five = match digits {
        4 => 625u128,
        6 => 15_625u128,
        _ => return None,
    };
    let bits = v.to_bits();
    if bits >> 63 != 0 {
        return None;
    }
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (m, e) = match biased {
        0x7ff => return None,
        0 => (frac, -1074),
        b => (frac | 1 << 52, b - 1075),
    };
    // v × 10^d = m × 5^d × 2^(e + d)
    let p = u128::from(m) * five;
    let shift = e + digits as i32;
    if shift >= 0 {
        // p < 2^67: whether the shifted value still fits in 64 bits
        let shift = shift as u32;
        return (shift < 64 && p >> (64 - shift) == 0).then(|| (p << shift) as u64);
    }
    let right = (-shift) as u32;
    if right >= 127 {
        // p < 2^67 < 2^(right - 1): under half a unit, rounds to 0
        return Some(0);
    }
    let q = p >> right;
    let rest = p & ((1u128 << right) - 1);
    let half = 1u128 << (right - 1);
    let up = rest > half || (rest == half && q & 1 == 1);
    u64::try_from(q + u128::from(up)).ok()
}

/// Appends `n` in decimal, as `{n}` writes it (the per-job logs' writer).
pub fn push_uint(out: &mut Vec<u8>, n: u64) {
    crate::accounting::logs::csv_rows::push_u64(out, n);
}

/// Appends microseconds as [`crate::time::fmt_secs`] writes them: whole
/// seconds, then the fraction without trailing zeros, if any.
pub fn push_secs(out: &mut Vec<u8>, t: u64) {
    push_uint(out, t / 1_000_000);
    let mut frac = t % 1_000_000;
    if frac == 0 {
        return;
    }
    let mut digits = 6;
    while frac.is_multiple_of(10) {
        frac /= 10;
        digits -= 1;
    }
    let mut buf = [b'.'; 7];
    for k in (1..=digits).rev() {
        buf[k] = b'0' + (frac % 10) as u8;
        frac /= 10;
    }
    out.extend_from_slice(&buf[..=digits]);
}

/// Writes `units` / 10^digits with exactly `digits` decimals.
fn push_units(out: &mut Vec<u8>, mut units: u64, digits: u32) {
    // a u64 has at most 20 digits, and the point
    let mut buf = [0u8; 24];
    let mut i = buf.len();
    let mut k = 0;
    loop {
        if k == digits {
            i -= 1;
            buf[i] = b'.';
        }
        i -= 1;
        buf[i] = b'0' + (units % 10) as u8;
        units /= 10;
        k += 1;
        if k > digits && units == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(v: f64, digits: u32) -> String {
        let mut s = Vec::new();
        push_fixed(&mut s, v, digits);
        String::from_utf8(s).expect("ASCII")
    }

    fn theirs(v: f64, digits: u32) -> String {
        format!("{v:.prec$}", prec = digits as usize)
    }

    #[test]
    fn integers_and_seconds_match_std_and_fmt_secs() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let edges = [0, 1, 9, 10, 99, 100, 999_999, 1_000_000, 1_000_001, 1_500_000, 2_000_010, u64::MAX];
        let randoms = (0..100_000).map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // every magnitude, and every count of trailing zeros
            (x >> (i % 64)) / 10u64.pow(i % 7) * 10u64.pow(i % 7)
        });
        for n in edges.into_iter().chain(randoms) {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            push_uint(&mut a, n);
            push_secs(&mut b, n);
            assert_eq!(a, n.to_string().as_bytes());
            assert_eq!(b, crate::time::fmt_secs(n).as_bytes(), "{n}");
        }
    }

    #[test]
    fn ties_go_to_even_as_std_does() {
        // exact binary ties: 0.5 × 10^-6 is not one, but k + 1/2 over 2^-n
        // is; these were worked by hand from the binary values
        // 2^-7 = 0.0078125: to 4 digits 0.0078|125, under half: 0.0078
        assert_eq!(ours(0.0078125, 4), "0.0078");
        // 2^-5 = 0.03125 to 4 digits: 0.0312|5 exactly half, 2 even: 0.0312
        assert_eq!(ours(0.03125, 4), "0.0312");
        // 3 x 2^-5 = 0.09375: 0.0937|5, 7 odd: up to 0.0938
        assert_eq!(ours(0.09375, 4), "0.0938");
        // 2^-7 to 6 digits: 0.007812|5, 2 even: 0.007812
        assert_eq!(ours(0.0078125, 6), "0.007812");
        // 3 x 2^-7 = 0.0234375: 0.023437|5, 7 odd: 0.023438
        assert_eq!(ours(0.0234375, 6), "0.023438");
        for v in [0.03125, 0.09375, 0.0078125, 0.0234375, 1.5, 2.5] {
            for d in [4, 6] {
                assert_eq!(ours(v, d), theirs(v, d), "{v} to {d}");
            }
        }
    }

    #[test]
    // the literals are the exact binary values at the u64 edge, written in full
    #[allow(clippy::excessive_precision)]
    fn edges_match_std() {
        let edges = [
            0.0,
            -0.0,
            -1e-9,
            -2.5,
            f64::MIN_POSITIVE,
            5e-324,
            4.9999999999e-7,
            5e-7,
            5.000000001e-7,
            0.99999949999,
            0.9999995,
            0.99995,
            1.0,
            123_456.789_012_5,
            9_007_199_254.740_991,
            1.8e13,
            1.8e15,
            1.8446744073709552e13,
            1.8446744073709552e15,
            1e19,
            1e300,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for v in edges {
            for d in [0, 1, 4, 6, 9] {
                assert_eq!(ours(v, d), theirs(v, d), "{v:e} to {d}");
            }
        }
    }

    #[test]
    fn a_million_values_match_std() {
        // random bit patterns over the whole non-negative range, and
        // values shaped like the results' (microsecond means in seconds,
        // ratios near 1)
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for i in 0..1_000_000u32 {
            let r = next();
            let v = match i % 3 {
                0 => f64::from_bits(r >> 1),
                1 => (r % 10_000_000_000_000) as f64 / 1e6 / ((r >> 45) % 1000 + 1) as f64,
                _ => (r % 1_000_000) as f64 / 999_983.0,
            };
            for d in [4, 6] {
                assert_eq!(ours(v, d), theirs(v, d), "{v:e} ({:#x}) to {d}", v.to_bits());
            }
        }
    }
}

//! One value each (a duration, a rate, a count, a name), with its legal
//! values and, by the case's noise level, illegal ones: a clean case must
//! validate so that the engine, not only the loader, sees the extreme values.

use proptest::prelude::*;

use super::vocab::{
    CLASSES, COUNT_EDGE, COUNT_SLOW, DUR_BAD, DUR_SLOW, DUR_VALID_ODD, LONG_LENGTHS, ODD, ODD_VALID,
    RATE_SLOW, TENANTS,
};
use super::yaml::{dq, flow_map, yaml_str};

pub fn pick(items: &'static [&'static str]) -> BoxedStrategy<String> {
    prop::sample::select(items).prop_map(str::to_string).boxed()
}

/// How a case is drawn. `noise`: 0 = every value valid (the case should
/// validate and run, reaching the engine with extreme but legal values),
/// 1 = now and then a bad value or shape, 2 = often. `wild`: also the
/// values known to be slow. `res`: the scenario declares resources (and
/// its entries may cost them).
#[derive(Debug, Clone, Copy)]
pub struct G {
    pub wild: bool,
    pub noise: u8,
    pub res: bool,
}

/// `good`, or now and then (by the noise level) `bad`.
pub fn noisy<T: std::fmt::Debug + Clone + 'static>(
    g: G,
    good: BoxedStrategy<T>,
    bad: BoxedStrategy<T>,
) -> BoxedStrategy<T> {
    match g.noise {
        0 => good,
        1 => prop_oneof![30 => good, 1 => bad].boxed(),
        _ => prop_oneof![5 => good, 1 => bad].boxed(),
    }
}

/// `good`, or in wild cases now and then one of the `slow` values.
pub fn slowly(g: G, good: BoxedStrategy<String>, slow: &'static [&'static str]) -> BoxedStrategy<String> {
    if g.wild {
        prop_oneof![8 => good, 1 => pick(slow)].boxed()
    } else {
        good
    }
}

pub fn long_name() -> BoxedStrategy<String> {
    (prop::sample::select(LONG_LENGTHS), prop::sample::select(&['x', 'é', '😀', '\0'][..]))
        .prop_map(|(n, c)| dq(&c.to_string().repeat(n)))
        .boxed()
}

/// Any text as a name, in any YAML quoting (may break the document).
pub fn odd_name() -> BoxedStrategy<String> {
    prop_oneof![
        6 => (prop::sample::select(ODD), 0u8..4).prop_map(|(s, st)| yaml_str(s, st)),
        1 => long_name(),
    ]
    .boxed()
}

/// A tenant named by an entry: a common one (declared in clean cases), or
/// an odd but legal one (auto-declared).
pub fn entry_tenant(g: G) -> BoxedStrategy<String> {
    let good = prop_oneof![
        14 => pick(TENANTS),
        2 => prop::sample::select(ODD_VALID).prop_map(dq),
        1 => long_name(),
    ]
    .boxed();
    noisy(g, good, odd_name())
}

pub fn class_ref(g: G) -> BoxedStrategy<String> {
    noisy(g, pick(CLASSES), prop_oneof![pick(&["nope", "Hi", "\"\""]), odd_name()].boxed())
}

/// A duration > 0.
pub fn dur_pos(g: G) -> BoxedStrategy<String> {
    let good = prop_oneof![
        10 => (1u32..60, prop::sample::select(&["s", "ms", "", "sec", "seconds"][..])).prop_map(|(n, u)| format!("{n}{u}")),
        2 => (1u32..6, prop::sample::select(&["m", "min"][..])).prop_map(|(n, u)| format!("{n}{u}")),
        2 => (1u32..5000).prop_map(|n| format!("{}.{:03}", n / 1000, n % 1000)),
        1 => pick(DUR_VALID_ODD),
    ]
    .boxed();
    noisy(g, slowly(g, good, DUR_SLOW), prop_oneof![4 => pick(DUR_BAD), 1 => pick(&["0s", "0"])].boxed())
}

/// A duration ≥ 0.
pub fn dur0(g: G) -> BoxedStrategy<String> {
    prop_oneof![8 => dur_pos(g), 1 => pick(&["0s", "0", "0ms"])].boxed()
}

/// A log tick or a fairness window: never tiny in tame cases (a 1us tick
/// over an hour of simulated time is a known hang).
pub fn tick(g: G) -> BoxedStrategy<String> {
    let good = pick(&["1s", "500ms", "10s", "100ms", "1m", "2s", "5s", "250ms", "1h", "3"]);
    noisy(g, slowly(g, good, &["1us", "10us", "1ms", "999999999999s", "1e18us"]), pick(DUR_BAD))
}

/// `every:`: at least 10ms in tame cases.
pub fn every(g: G) -> BoxedStrategy<String> {
    let good = (1u32..60, prop::sample::select(&["s", "m", "00ms", ""][..]))
        .prop_map(|(n, u)| format!("{n}{u}"))
        .boxed();
    // 100000d x 3 puts the arrivals past the horizon
    noisy(g, slowly(g, good, &["1us", "1ms", "100000d"]), pick(DUR_BAD))
}

pub fn rate(g: G) -> BoxedStrategy<String> {
    let good = prop_oneof![
        8 => (1u32..50, prop::sample::select(&["/s", "/m", "/h", "", "/min"][..])).prop_map(|(n, u)| format!("{n}{u}")),
        1 => pick(&["0.5", "1e-3/h", "0.5/ms", "1e-6/s", "5/d"]),
    ]
    .boxed();
    let bad = pick(&[
        "0/s",
        "-2/s",
        "NaN/s",
        ".nan",
        "2/fortnight",
        "/s",
        "2//s",
        "inf/s",
        "\"\"",
        "[2]",
        "abc",
        "-0",
    ]);
    noisy(g, slowly(g, good, RATE_SLOW), bad)
}

pub fn count(g: G) -> BoxedStrategy<String> {
    let good = (1u32..60).prop_map(|n| n.to_string()).boxed();
    noisy(g, slowly(g, good, COUNT_SLOW), pick(COUNT_EDGE))
}

/// A weight: legal ones within main's bounds, 0.001 to 1000, whose ends a
/// clean case must reach; the extremes that once broke the fair-share
/// arithmetic (F5, F7) are now rejected, so they are drawn as bad values, which
/// must stay errors with a place.
pub fn weight(g: G) -> BoxedStrategy<String> {
    let good = prop_oneof![
        6 => pick(&["1", "2", "0.5", "3", "10", "1.0"]),
        2 => pick(&["0.001", "1000", "1e-3", "1e3", "0.0010001", "999.999"]),
    ]
    .boxed();
    let bad = prop_oneof![
        3 => pick(&["0", "-1", ".nan", ".inf", "heavy", "\"\"", "[1]", "1e400", "-0"]),
        2 => pick(&["1e-100", "1e300", "1e-320", "1.7976931348623157e308", "5e-324", "1e-9", "1e9", "2e26", "0.000999", "1000.001"]),
    ]
    .boxed();
    noisy(g, good, bad)
}

pub fn int_in(range: std::ops::Range<i64>) -> BoxedStrategy<String> {
    range.prop_map(|n| n.to_string()).boxed()
}

pub fn float_in(g: G, tame: std::ops::Range<i32>, slow: &'static [&'static str]) -> BoxedStrategy<String> {
    let good = tame.prop_map(|n| format!("{}", f64::from(n) / 10.0)).boxed();
    noisy(g, slowly(g, good, slow), pick(&[".nan", ".inf", "-.inf", "x", "1e400", "\"1\""]))
}

pub fn opt<T: std::fmt::Debug + Clone + 'static>(
    p: f64,
    s: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<Option<T>> {
    if p <= 0.0 {
        Just(None).boxed()
    } else if p >= 1.0 {
        s.prop_map(Some).boxed()
    } else {
        prop::option::weighted(p, s).boxed()
    }
}

/// Keeps the fields that are present.
pub fn fields(parts: Vec<(&'static str, Option<String>)>) -> Vec<(String, String)> {
    parts.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))).collect()
}

/// An unknown key now and then (by the noise level).
pub fn stray(g: G, keys: &'static [&'static str]) -> BoxedStrategy<Option<(String, String)>> {
    let p = match g.noise {
        0 => 0.0,
        1 => 0.01,
        _ => 0.05,
    };
    opt(p, pick(keys).prop_map(|k| (k, "1".to_string())))
}

pub fn with_stray(mut f: Vec<(String, String)>, s: Option<(String, String)>) -> String {
    f.extend(s);
    flow_map(&f)
}

pub fn pick_static(items: &'static [&'static str]) -> BoxedStrategy<&'static str> {
    prop::sample::select(items).boxed()
}

//! `costs:`: dispatch costs at the top and per pool;
//! `limiter:`: a pool's limit on starts; `prefetch:`: a pool that
//! reserves ahead (a worker node).
//! Clean cases keep docs/scenario.md's rules (no `capacity` beside them, no
//! poll interval reaching a planner's pool); noise breaks keys and values.

use proptest::prelude::*;

use super::scalars::{noisy, opt, pick, G};
use super::yaml::flow_map;

/// Costs short beside the generated services (ms), zero now and then.
fn cost() -> BoxedStrategy<String> {
    prop_oneof![
        3 => (1u32..500).prop_map(|n| format!("{n}ms")),
        1 => pick(&["0s", "1us", "24ms", "1s"]),
    ]
    .boxed()
}

/// A `costs` map; `poll`: whether `poll_interval` may appear.
pub fn costs(g: G, poll: bool) -> BoxedStrategy<String> {
    let good =
        (opt(0.5, cost()), opt(0.3, cost()), opt(0.5, cost()), opt(if poll { 0.4 } else { 0.0 }, cost()))
            .prop_map(|(c, r, f, p)| {
                let mut m = Vec::new();
                for (k, v) in [("claim", c), ("refusal", r), ("finish", f), ("poll_interval", p)] {
                    m.extend(v.map(|v| (k.to_string(), v)));
                }
                flow_map(&m)
            })
            .boxed();
    let bad = pick(&[
        "{clam: 1ms}",
        "{claim: -1ms}",
        "{finish: soon}",
        "{poll: 10ms}",
        "{refusal: [1ms]}",
        "{claim: 300000y}",
        "1ms",
    ]);
    noisy(g, good, bad)
}

/// A pool's `limiter`: BullMQ's window, a token bucket or a sliding window.
pub fn limiter(g: G) -> BoxedStrategy<String> {
    let good = prop_oneof![
        (1u32..30, 1u32..3000).prop_map(|(m, d)| format!("{{max: {m}, duration: {d}ms}}")),
        (1u32..50, opt(0.5, 1u32..10)).prop_map(|(r, b)| match b {
            Some(b) => format!("{{rate: {r}/s, burst: {b}}}"),
            None => format!("{{rate: {r}/s}}"),
        }),
        (1u32..30, 1u32..3000).prop_map(|(l, w)| format!("{{limit: {l}, window: {w}ms}}")),
    ]
    .boxed();
    let bad = pick(&[
        "{max: 0, duration: 1s}",
        "{max: 2}",
        "{max: 2, duration: 0s}",
        "{rate: 0/s}",
        "{rate: 1/s, burst: 0.5}",
        "{limit: 100001, window: 1s}",
        "{max: 2, duration: 1s, rate: 1/s}",
        "{maxx: 2, duration: 1s}",
        "{}",
    ]);
    noisy(g, good, bad)
}

/// A pool's `prefetch`: Celery's multiplier (0: no limit), hand-off,
/// `acks_late` and `refetch`.
pub fn prefetch(g: G) -> BoxedStrategy<String> {
    let good = (
        prop_oneof![4 => 1u32..9, 1 => Just(0u32), 1 => 9u32..100_000],
        opt(0.5, pick(&["fair", "fcfs"])),
        opt(0.4, pick(&["true", "false"])),
        opt(0.3, prop_oneof![(1u32..2000).prop_map(|n| format!("{n}ms")), pick(&["0s", "10s", "60s"])]),
    )
        .prop_map(|(m, h, a, r)| {
            let mut kv = vec![("multiplier".to_string(), m.to_string())];
            kv.extend(h.map(|h| ("handoff".to_string(), h)));
            kv.extend(a.map(|a| ("acks_late".to_string(), a)));
            kv.extend(r.map(|r| ("refetch".to_string(), r)));
            flow_map(&kv)
        })
        .boxed();
    let bad = pick(&[
        "{multiplier: -1}",
        "{handoff: fair}",
        "{multiplier: 4, handoff: lifo}",
        "{multiplier: 4, acks_late: maybe}",
        "{multiplier: 4, refetch: 61s}",
        "{multiplier: 4000000000}",
        "{multiplier: 4, prefech: 1}",
        "4",
    ]);
    noisy(g, good, bad)
}

/// A pool's extra keys, as the value of `batch` and what follows it:
/// `batch`, `costs`, `limiter` and `prefetch` (a limiter is refused beside
/// a batch of more than one, so it comes with `batch: 1`; a prefetch is
/// refused beside a batch, a limiter or a poll interval, so it comes
/// alone with `batch: 1` and costs without a poll interval).
pub fn pool_keys(g: G, batch: BoxedStrategy<Option<String>>) -> BoxedStrategy<Option<String>> {
    let extra = (opt(0.2, costs(g, true)), opt(0.15, limiter(g)));
    let node = (opt(0.15, prefetch(g)), costs(g, false));
    (batch, extra, node)
        .prop_map(|(b, (c, l), (f, quiet))| {
            let (b, c, l) = match f {
                Some(_) => (Some("1".to_string()), c.map(|_| quiet), None),
                None => (if l.is_some() { Some("1".to_string()) } else { b }, c, l),
            };
            let mut v: Vec<String> = b.into_iter().collect();
            if v.is_empty() && (c.is_some() || l.is_some()) {
                v.push("1".into());
            }
            v.extend(c.map(|c| format!("costs: {c}")));
            v.extend(l.map(|l| format!("limiter: {l}")));
            v.extend(f.map(|f| format!("prefetch: {f}")));
            (!v.is_empty()).then(|| v.join(", "))
        })
        .boxed()
}

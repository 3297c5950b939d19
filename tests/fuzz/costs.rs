//! `costs:` (issue 30 item 1): dispatch costs at the top and per pool.
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
    let good = (opt(0.5, cost()), opt(0.3, cost()), opt(0.5, cost()), opt(if poll { 0.4 } else { 0.0 }, cost()))
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

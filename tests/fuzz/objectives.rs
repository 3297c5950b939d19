//! `objectives:` at the top of a scenario and `tenants:` on a policy entry.
//! Clean cases name declared classes and tenants, keep run-wide measures
//! unscoped and names unique, and leave out `sla_misses` (whether a class
//! has an `sla:` is drawn elsewhere); noise draws every refusal the loader
//! knows.

use proptest::prelude::*;

use super::scalars::{dur_pos, int_in, noisy, opt, pick, weight, G};
use super::vocab::{
    CLASSES, ENTRY_TENANTS_BAD, OBJECTIVE_BAD, OBJECTIVE_RATIO, OBJECTIVE_TIMED, RATIOS, TENANTS, WRONG,
};
use super::yaml::{flow_map, Top};

fn kv(k: &str, v: impl Into<String>) -> (String, String) {
    (k.to_string(), v.into())
}

/// The scope keys of an objective measuring per class and tenant.
fn scope() -> BoxedStrategy<Vec<(String, String)>> {
    let tenants = prop_oneof![
        2 => pick(TENANTS).prop_map(|t| vec![kv("tenant", t)]),
        2 => prop::sample::subsequence(TENANTS, 1..3).prop_map(|v| vec![kv("tenants", format!("[{}]", v.join(", ")))]),
        3 => prop::sample::subsequence(TENANTS, 1..3)
            .prop_map(|v| vec![kv("tenants", format!("{{all_but: [{}]}}", v.join(", ")))]),
        1 => Just(vec![kv("tenants", "each")]),
    ];
    (opt(0.4, pick(CLASSES)), opt(0.5, tenants))
        .prop_map(|(c, t)| {
            let mut m: Vec<(String, String)> = c.map(|c| vec![kv("class", c)]).unwrap_or_default();
            m.extend(t.unwrap_or_default());
            m
        })
        .boxed()
}

/// One legal objective: its keys, the measure last.
fn good_objective(g: G) -> BoxedStrategy<Vec<(String, String)>> {
    let timed = (scope(), pick(OBJECTIVE_TIMED), dur_pos(g)).prop_map(|(mut s, k, d)| {
        s.push(kv(&k, d));
        s
    });
    let counted = (scope(), pick(&["rejected", "deferred"]), int_in(0..100)).prop_map(|(mut s, k, n)| {
        s.push(kv(&k, n));
        s
    });
    // share is per tenant: a tenant scope but no class
    let share = (opt(0.5, scope()), pick(RATIOS)).prop_map(|(s, r)| {
        let mut m: Vec<(String, String)> =
            s.unwrap_or_default().into_iter().filter(|(k, _)| k != "class").collect();
        m.push(kv("share", r));
        m
    });
    let run_wide =
        (pick(OBJECTIVE_RATIO), pick(RATIOS), opt(0.3, dur_pos(g))).prop_map(|(k, r, d)| match k.as_str() {
            "share" => vec![kv("share", r)],
            _ => match d {
                Some(d) => vec![kv("makespan", d)],
                None => vec![kv(&k, r)],
            },
        });
    prop_oneof![5 => timed, 1 => counted, 1 => share, 2 => run_wide].boxed()
}

/// The `objectives:` list; clean items get unique names, explicit or made.
pub fn objectives(g: G) -> BoxedStrategy<Top> {
    let item = (good_objective(g), opt(0.3, Just(())), opt(0.2, pick(&["true", "false"])));
    let good = prop::collection::vec(item, 1..6)
        .prop_map(|items| {
            let mut seen: Vec<String> = Vec::new();
            let mut out = Vec::new();
            for (i, (mut m, named, cost)) in items.into_iter().enumerate() {
                let made = made_name(&m);
                if named.is_some() {
                    m.push(kv("name", format!("o{i}")));
                } else if seen.contains(&made) {
                    continue;
                } else {
                    seen.push(made);
                }
                m.extend(cost.map(|c| kv("cost", c)));
                out.push(flow_map(&m));
            }
            Top::List(out)
        })
        .boxed();
    let bad = prop_oneof![
        3 => prop::collection::vec(prop_oneof![3 => good_objective(g).prop_map(|m| flow_map(&m)), 1 => pick(OBJECTIVE_BAD)], 1..4)
            .prop_map(Top::List),
        1 => Just(Top::List(Vec::new())),
        1 => pick(WRONG).prop_map(Top::Scalar),
    ]
    .boxed();
    noisy(g, good, bad)
}

/// Roughly the name the loader makes for an unnamed objective from its
/// scope and measure: `tenant: A` and `tenants: [A]` make the same.
fn made_name(m: &[(String, String)]) -> String {
    let part = |(k, v): &(String, String)| match k.as_str() {
        "tenant" | "tenants" => match v.strip_prefix("{all_but: [") {
            Some(rest) => format!("all but {}", rest.trim_end_matches(['}', ']'])),
            None => v.trim_matches(['[', ']']).to_string(),
        },
        "class" => v.clone(),
        _ => k.clone(),
    };
    m.iter().map(part).collect::<Vec<_>>().join(" ")
}

/// A policy entry's `tenants:`; `caps` is false for an entry on a topology
/// (whose pools may claim in batches, which caps exclude).
pub fn entry_tenants(g: G, caps: bool) -> BoxedStrategy<String> {
    let one = (
        pick(TENANTS),
        opt(0.6, weight(g)),
        opt(
            if caps { 0.6 } else { 0.0 },
            prop_oneof![8 => int_in(1..5), 1 => Just("4294967295".to_string())],
        ),
    );
    let good = prop::collection::vec(one, 1..4)
        .prop_map(|v| {
            let mut m: Vec<(String, String)> = Vec::new();
            for (t, w, c) in v {
                if m.iter().any(|(n, _)| *n == t) {
                    continue;
                }
                let mut props = Vec::new();
                props.extend(w.map(|w| kv("weight", w)));
                props.extend(c.map(|c| kv("cap", c)));
                m.push((t, flow_map(&props)));
            }
            flow_map(&m)
        })
        .boxed();
    noisy(g, good, prop_oneof![3 => pick(ENTRY_TENANTS_BAD), 1 => pick(WRONG)].boxed())
}

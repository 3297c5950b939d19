//! A whole scenario document. Clean cases declare every tenant and class the
//! entries name, so references resolve and the case reaches the engine.

use std::fmt::Write as _;

use proptest::prelude::*;

use super::entries::{generator_entry, trace_entry};
use super::objectives::{entry_tenants, objectives};
use super::policy::policy;
use super::scalars::{
    dur_pos, fields, int_in, long_name, noisy, odd_name, opt, pick, pick_static, stray, tick, weight,
    with_stray, G,
};
use super::vocab::{CLASSES, ODD_VALID, RESOURCE_NAMES, TENANTS, WRONG};
use super::wave::{extend_map, wave, Wave};
use super::yaml::{dq, flow_map, Top};

/// Gives the generator entries of `workload` the wave's entry keys (a trace
/// entry takes none: it cannot slice or declare).
fn add_to_entries(workload: Option<Top>, wave: &Wave) -> Option<Top> {
    match workload {
        Some(Top::List(items)) => Some(Top::List(
            items
                .into_iter()
                .zip(wave.entries.iter().cycle())
                .map(|(e, x)| if e.starts_with("{trace:") { e } else { extend_map(&e, &without_dups(&e, x)) })
                .collect(),
        )),
        other => other,
    }
}

/// Gives the policy entries the wave's policy keys: the cost parameters
/// only to the policies that take them, preemption only to `reserve`.
fn add_to_policies(policies: Option<Top>, wave: &Wave) -> Option<Top> {
    match policies {
        Some(Top::List(items)) => Some(Top::List(
            items
                .into_iter()
                .zip(wave.policies.iter().cycle())
                .map(|(p, x)| {
                    // a policy that already says `cost:` keeps its own
                    let charged = ["drr", "wfq", "share"]
                        .iter()
                        .any(|k| p.starts_with(&format!("{{policy: {k}")) || p == *k)
                        && !p.contains("cost:");
                    let reserve = p.contains("policy: reserve");
                    let x: Vec<(String, String)> = x
                        .iter()
                        .filter(|(k, _)| match k.as_str() {
                            "cost" | "charge" | "quantile" => charged,
                            "preempt" | "checkpoint" => reserve,
                            _ => true,
                        })
                        .cloned()
                        .collect();
                    extend_map(&p, &without_dups(&p, &x))
                })
                .collect(),
        )),
        other => other,
    }
}

/// Gives some policy entries a `tenants:` of their own: caps only off a
/// topology (whose pools may claim in batches, which caps exclude).
fn add_entry_tenants(g: G, policies: Option<Top>) -> BoxedStrategy<Option<Top>> {
    let Some(Top::List(items)) = policies else { return Just(policies).boxed() };
    let each: Vec<BoxedStrategy<String>> = items
        .into_iter()
        .map(|p| {
            let caps = !p.contains("topology:");
            opt(0.2, entry_tenants(g, caps))
                .prop_map(move |t| match t {
                    Some(t) => extend_map(&p, &without_dups(&p, &[("tenants".to_string(), t)])),
                    None => p.clone(),
                })
                .boxed()
        })
        .collect();
    each.prop_map(|v| Some(Top::List(v))).boxed()
}

/// `extra` less the keys `map` already has (a key twice is a YAML error,
/// which the noise draws elsewhere).
fn without_dups(map: &str, extra: &[(String, String)]) -> Vec<(String, String)> {
    extra
        .iter()
        .filter(|(k, _)| !map.contains(&format!("{{{k}: ")) && !map.contains(&format!(", {k}: ")))
        .cloned()
        .collect()
}

fn tenant_props(g: G) -> BoxedStrategy<String> {
    let good = prop_oneof![
        2 => Just(String::new()),
        2 => Just("{}".to_string()),
        8 => (opt(0.6, weight(g)), opt(0.4, prop_oneof![8 => int_in(1..5), 1 => pick(&["4294967295", "1000000"])]), stray(g, &["wieght", "caps"]))
            .prop_map(|(w, c, s)| with_stray(fields(vec![("weight", w), ("cap", c)]), s)),
    ]
    .boxed();
    noisy(
        g,
        good,
        prop_oneof![pick(WRONG), pick(&["{cap: 0}", "{cap: -1}", "{cap: 4294967296}", "{cap: 1.5}"])].boxed(),
    )
}

fn class_props(g: G) -> BoxedStrategy<String> {
    let good = prop_oneof![
        1 => Just(String::new()),
        6 => (
            opt(0.7, prop_oneof![8 => int_in(-3..10), 1 => pick(&["-2147483648", "2147483647"])]),
            opt(0.4, weight(g)),
            opt(0.3, dur_pos(g)),
            stray(g, &["prio", "deadline"]),
        )
            .prop_map(|(p, w, s, x)| with_stray(fields(vec![("priority", p), ("weight", w), ("sla", s)]), x)),
    ]
    .boxed();
    noisy(
        g,
        good,
        prop_oneof![pick(WRONG), pick(&["{priority: 2147483648}", "{priority: 1.5}", "{priority: high}"])]
            .boxed(),
    )
}

/// `tenants:`: in clean cases every common tenant, plus a few odd names.
fn tenants_map(g: G) -> BoxedStrategy<Top> {
    let good = (
        prop::collection::vec(tenant_props(g), TENANTS.len()),
        prop::collection::vec(
            (
                prop_oneof![4 => prop::sample::select(ODD_VALID).prop_map(dq), 1 => long_name()],
                tenant_props(g),
            ),
            0..3,
        ),
    )
        .prop_map(|(props, extra)| {
            let mut m: Vec<(String, String)> = TENANTS.iter().map(|t| t.to_string()).zip(props).collect();
            for (k, v) in extra {
                if !m.iter().any(|(n, _)| *n == k) {
                    m.push((k, v));
                }
            }
            Top::Map(m)
        })
        .boxed();
    let bad = prop_oneof![
        3 => prop::collection::vec((prop_oneof![pick(TENANTS), odd_name()], tenant_props(g)), 0..6).prop_map(Top::Map),
        1 => pick(WRONG).prop_map(Top::Scalar),
    ]
    .boxed();
    noisy(g, good, bad)
}

/// `classes:`: in clean cases every common class.
fn classes_map(g: G) -> BoxedStrategy<Top> {
    let good = prop::collection::vec(class_props(g), CLASSES.len())
        .prop_map(|props| Top::Map(CLASSES.iter().map(|c| c.to_string()).zip(props).collect()))
        .boxed();
    let bad = prop_oneof![
        3 => prop::collection::vec((prop_oneof![pick(CLASSES), odd_name()], class_props(g)), 0..6).prop_map(Top::Map),
        1 => pick(WRONG).prop_map(Top::Scalar),
    ]
    .boxed();
    noisy(g, good, bad)
}

/// `resources:` (only when the case has them, or as noise).
fn resources(g: G) -> BoxedStrategy<Option<Top>> {
    let good: BoxedStrategy<Option<Top>> = if g.res {
        (
            int_in(4..17),
            int_in(4..33),
            opt(0.3, prop_oneof![int_in(8..65), Just("18446744073709551615".to_string())]),
        )
            .prop_map(|(c, m, p)| {
                Some(Top::Scalar(flow_map(&fields(vec![("cpu", Some(c)), ("mem", Some(m)), ("procs", p)]))))
            })
            .boxed()
    } else {
        Just(None).boxed()
    };
    let bad = prop_oneof![
        3 => prop::collection::vec(
            (pick(RESOURCE_NAMES), pick(&["0", "-1", "18446744073709551616", "x", "1.5", "4", "1"])),
            0..6,
        )
        .prop_map(|v| Some(Top::Scalar(flow_map(&v)))),
        1 => pick(WRONG).prop_map(|w| Some(Top::Scalar(w))),
    ]
    .boxed();
    noisy(g, good, bad)
}

fn log(g: G) -> BoxedStrategy<Top> {
    let good = (opt(0.8, tick(g)), opt(0.4, tick(g)), stray(g, &["tik", "windows"]))
        .prop_map(|(t, w, x)| Top::Scalar(with_stray(fields(vec![("tick", t), ("window", w)]), x)))
        .boxed();
    noisy(g, good, pick(WRONG).prop_map(Top::Scalar).boxed())
}

fn workload(g: G) -> BoxedStrategy<Top> {
    let good = prop::collection::vec(prop_oneof![4 => generator_entry(g), 1 => trace_entry(g)], 1..5)
        .prop_map(Top::List)
        .boxed();
    let bad = prop_oneof![
        Just(Top::List(Vec::new())),
        pick(WRONG).prop_map(Top::Scalar),
        prop::collection::vec(prop_oneof![3 => generator_entry(g), 1 => pick(WRONG)], 1..4)
            .prop_map(Top::List),
    ]
    .boxed();
    noisy(g, good, bad)
}

fn policies(g: G) -> BoxedStrategy<Top> {
    let good = prop::collection::vec(policy(g, 2), 1..4).prop_map(Top::List).boxed();
    let bad = prop_oneof![
        Just(Top::List(Vec::new())),
        pick(&["fifo", "{policy: drr}", "~", "[[fifo]]"]).prop_map(Top::Scalar),
    ]
    .boxed();
    noisy(g, good, bad)
}

/// Document framing: flow style or block, an optional prefix and suffix.
#[derive(Debug, Clone)]
struct Frame {
    flow: bool,
    prefix: &'static str,
    suffix: &'static str,
}

fn frame(g: G) -> BoxedStrategy<Frame> {
    let prefix = noisy(
        g,
        prop_oneof![12 => Just(""), 1 => pick_static(&["---\n", "%YAML 1.2\n---\n", "# comment\n", "\u{feff}"])].boxed(),
        pick_static(&["%TAG ! tag:x,2000:\n---\n", "--- !!map\n", "\t", "%YAML 9.9\n---\n"]),
    );
    let suffix = noisy(
        g,
        prop_oneof![12 => Just(""), 1 => pick_static(&["...\n", "# end", "\n\n\n"])].boxed(),
        pick_static(&["---\nworkers: 1\n", "---\n", "\0", "workers: 3\n"]),
    );
    (prop::bool::weighted(0.1), prefix, suffix)
        .prop_map(|(flow, prefix, suffix)| Frame { flow, prefix, suffix })
        .boxed()
}

fn extras() -> BoxedStrategy<Vec<(String, Top)>> {
    prop::collection::vec(
        prop_oneof![
            pick(&["sevice", "Workers", "x-note", "tenant", "policy", "\"\"", "trace"])
                .prop_map(|k| (k, Top::Scalar("1".to_string()))),
            pick(&["workers", "seed", "name"]).prop_map(|k| (k, Top::Scalar("2".to_string()))),
            Just(("<<".to_string(), Top::Scalar("{workers: 1}".to_string()))),
        ],
        1..3,
    )
    .boxed()
}

/// A whole scenario document.
pub fn scenario_doc(g: G) -> BoxedStrategy<String> {
    let name = noisy(
        g,
        pick(&["fuzz", "\"my scenario\"", "シナリオ", "a-b_c", "\"x\\0y\""]),
        prop_oneof![pick(&["\".\"", "\"..\"", "\"a/b\"", "\"\"", "\" \""]), odd_name()].boxed(),
    );
    let seed = noisy(
        g,
        prop_oneof![6 => any::<u64>().prop_map(|n| n.to_string()), 1 => Just("0".to_string())].boxed(),
        pick(&["-1", "1.5", "x", "18446744073709551616", "~"]),
    );
    let workers = noisy(
        g,
        prop_oneof![10 => int_in(1..7), 1 => pick(&["4294967295", "1000000"])].boxed(),
        pick(&["0", "4294967296", "-1", "1.5", "many", "~", "\"2\""]),
    );
    let workers =
        if g.res { opt(0.5, workers) } else { noisy(g, workers.prop_map(Some).boxed(), Just(None).boxed()) };
    let extras = match g.noise {
        0 => Just(None).boxed(),
        1 => opt(0.02, extras()),
        _ => opt(0.1, extras()),
    };
    (
        (
            opt(0.3, name.prop_map(Top::Scalar)),
            opt(0.3, seed.prop_map(Top::Scalar)),
            workers.prop_map(|w| w.map(Top::Scalar)),
            resources(g),
            opt(0.4, log(g)),
            tenants_map(g).prop_map(Some),
            classes_map(g).prop_map(Some),
            noisy(g, workload(g).prop_map(Some).boxed(), Just(None).boxed()),
            opt(0.7, policies(g)),
            extras,
            frame(g),
        ),
        wave(g),
        opt(0.3, objectives(g)),
    )
        .prop_flat_map(move |(parts, wave, objectives)| {
            let policies = add_to_policies(parts.8.clone(), &wave);
            (Just(parts), Just(wave), Just(objectives), add_entry_tenants(g, policies))
        })
        .prop_map(
            |(
                (name, seed, workers, res, log, tenants, classes, workload, _, extras, frame),
                wave,
                objectives,
                policies,
            )| {
                let workload = add_to_entries(workload, &wave);
                let mut keys: Vec<(String, Top)> = Vec::new();
                for (k, v) in [
                    ("name", name),
                    ("seed", seed),
                    ("workers", workers),
                    ("resources", res),
                    ("log", log),
                    ("tenants", tenants),
                    ("classes", classes),
                    ("workload", workload),
                    ("policies", policies),
                    ("objectives", objectives),
                ] {
                    if let Some(v) = v {
                        keys.push((k.to_string(), v));
                    }
                }
                keys.extend(wave.top);
                keys.extend(extras.unwrap_or_default());
                let mut s = String::from(frame.prefix);
                if frame.flow {
                    let inner: Vec<String> = keys.iter().map(|(k, v)| format!("{k}: {}", v.flow())).collect();
                    let _ = writeln!(s, "{{{}}}", inner.join(", "));
                } else {
                    for (k, v) in &keys {
                        v.block(k, &mut s);
                    }
                }
                s.push_str(frame.suffix);
                s
            },
        )
        .boxed()
}

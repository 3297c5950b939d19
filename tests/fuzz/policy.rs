//! Policy entries: each kind with its own parameters, legal or not. Nested
//! `then` stops at a fixed depth so that generation ends.

use std::fmt::Write as _;

use proptest::prelude::*;

use super::scalars::{dur_pos, fields, int_in, noisy, odd_name, opt, pick, pick_static, slowly, G};
use super::vocab::{ALL_PARAMS, BAD_KINDS, CLASSES, KINDS, TENANTS, WRONG};
use super::yaml::{dq, flow_map};

/// Deeply nested lists and alias bombs, as policy parameter values (whose
/// shape the loader reads as a generic tree).
fn pathological_value() -> BoxedStrategy<String> {
    prop_oneof![
        (prop::sample::select(&[100usize, 1_000, 10_000, 100_000][..])).prop_map(|n| format!(
            "{}1{}",
            "[".repeat(n),
            "]".repeat(n)
        )),
        (prop::sample::select(&[100usize, 1_000, 10_000][..])).prop_map(|n| format!(
            "{}{}",
            "{a: ".repeat(n),
            "}".repeat(n)
        )),
        (3usize..10).prop_map(|levels| {
            let mut s = String::from("[&a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]");
            for l in 1..levels {
                let refs = vec![format!("*a{}", l - 1); 10].join(", ");
                let _ = write!(s, ", &a{l} [{refs}]");
            }
            s.push(']');
            s
        }),
    ]
    .boxed()
}

/// A legal value of parameter `name` of policy `kind`.
fn good_param(kind: &'static str, name: &'static str, g: G, depth: u32) -> BoxedStrategy<String> {
    match (kind, name) {
        (_, "then") if depth > 0 => policy(g, depth - 1),
        (_, "then") => pick(&["round_robin", "drr", "fifo", "wfq", "edf", "lottery", "share", "drf"]),
        ("edf", "order") => pick(&["deadline", "slack"]),
        (_, "order") => prop::sample::subsequence(TENANTS, 0..=TENANTS.len())
            .prop_shuffle()
            .prop_map(|v| format!("[{}]", v.join(", ")))
            .boxed(),
        (_, "step" | "window") => dur_pos(g),
        (_, "max_boost") => prop_oneof![8 => int_in(0..5), 1 => Just("4294967295".to_string())].boxed(),
        (_, "floor") => prop::collection::vec((pick(CLASSES), 0u32..31), 0..3)
            .prop_map(|v| {
                let mut seen = Vec::new();
                let m: Vec<(String, String)> = v
                    .into_iter()
                    .filter(|(c, _)| {
                        let new = !seen.contains(c);
                        seen.push(c.clone());
                        new
                    })
                    .map(|(c, f)| (c, format!("{}", f64::from(f) / 100.0)))
                    .collect();
                flow_map(&m)
            })
            .boxed(),
        (_, "class") => pick(CLASSES),
        // above the pool of a topology, validate must refuse it as run does
        (_, "workers") => prop_oneof![4 => Just("1".to_string()), 1 => int_in(2..5)].boxed(),
        ("hierarchical", "over") => Just("classes".to_string()).boxed(),
        (_, "over") => pick(&["tenant", "tenants", "class", "classes"]),
        (_, "cost") => pick(&["jobs", "work"]),
        (_, "quantum") => slowly(
            g,
            prop_oneof![8 => pick(&["1", "2", "0.5", "500ms", "2s", "3", "10"]), 1 => pick(&["1e300", "100"])].boxed(),
            &["1us", "1e-9", "0.000001"],
        ),
        (_, "late") => pick(&["run", "drop"]),
        _ => pick(&["1"]),
    }
}

fn bad_param(name: &'static str, g: G) -> BoxedStrategy<String> {
    let specific: &'static [&'static str] = match name {
        "order" => &["sideways", "\"\"", "[deadline]", "A", "[A, A]", "[nobody]", "[[A]]"],
        "step" | "window" => &["0s", "-1s", "x", "[1s]"],
        "max_boost" => &["4294967296", "-1", "1.5", "x"],
        "floor" => {
            &["{hi: 1.5}", "{hi: -0.1}", "{hi: .nan}", "{nope: 0.1}", "{hi: 0.6, lo: 0.6}", "{hi: [0.1]}"]
        }
        "class" => &["nope", "\"\"", "[hi]"],
        "workers" => &["0", "4294967295", "4294967296", "-1", "100", "x"],
        "over" => &["jobs", "\"\"", "[tenant]", "tenant"],
        "cost" => &["money", "1", "\"\"", "[jobs]"],
        "quantum" => &["0", "-1", ".nan", ".inf", "abc", "1e-320", "\"\"", "[1]", "0s", "1e400"],
        "late" => &["never", "\"\"", "true"],
        "then" => &["nope", "\"\"", "[fifo]", "{policy: then}", "{label: x}", "{policy: fifo, then: fifo}"],
        _ => &["1", "x", "~"],
    };
    if g.wild {
        prop_oneof![6 => pick(specific), 2 => pick(WRONG), 1 => pathological_value()].boxed()
    } else {
        prop_oneof![6 => pick(specific), 2 => pick(WRONG)].boxed()
    }
}

/// One policy entry: a bare kind, or a map with its kind's parameters.
pub fn policy(g: G, depth: u32) -> BoxedStrategy<String> {
    let map = (0..KINDS.len()).prop_flat_map(move |k| {
        let (kind, own) = KINDS[k];
        let own_key: BoxedStrategy<&'static str> = if own.is_empty() {
            noisy(g, Just("label").boxed(), pick_static(ALL_PARAMS))
        } else {
            noisy(g, pick_static(own), pick_static(ALL_PARAMS))
        };
        let required = if kind == "reserve" {
            noisy(g, Just(true).boxed(), Just(false).boxed())
        } else {
            Just(false).boxed()
        };
        let params = prop::collection::vec(
            own_key.prop_flat_map(move |p| {
                let v = match p {
                    "label" => label(g),
                    "spare" => spare(g),
                    "policy" => pick(&["fifo", "drr"]),
                    _ => noisy(g, good_param(kind, p, g, depth), bad_param(p, g)),
                };
                v.prop_map(move |v| (p.to_string(), v))
            }),
            0..4,
        );
        let no_kind = match g.noise {
            0 => Just(false).boxed(),
            _ => prop::bool::weighted(0.03).boxed(),
        };
        let class = good_param(kind, "class", g, depth);
        (params, opt(0.1, label(g)), opt(0.25, spare(g)), no_kind, required, class).prop_map(
            move |(params, l, s, no_kind, required, class)| {
                let mut f = Vec::new();
                if !no_kind {
                    f.push(("policy".to_string(), kind.to_string()));
                }
                if required {
                    f.push(("class".to_string(), class));
                }
                f.extend(fields(vec![("label", l), ("spare", s)]));
                // a key twice is a YAML error: keep the first of each
                for (k, v) in params {
                    if !f.iter().any(|(fk, _)| *fk == k) {
                        f.push((k, v));
                    }
                }
                flow_map(&f)
            },
        )
    });
    let bare: BoxedStrategy<String> = noisy(
        g,
        prop::sample::select(KINDS)
            .prop_filter_map("reserve needs a class", |(k, _)| (k != "reserve").then(|| k.to_string()))
            .boxed(),
        Just("reserve".to_string()).boxed(),
    );
    let good = prop_oneof![
        4 => bare,
        10 => map,
    ]
    .boxed();
    noisy(g, good, pick(BAD_KINDS))
}

fn label(g: G) -> BoxedStrategy<String> {
    let good = prop_oneof![
        4 => (0u32..1000).prop_map(|n| format!("p{n}")),
        1 => pick(&["ラベル", "\"a b\"", "L😀", "drr-work"]),
        1 => Just(dq(&"x".repeat(200))),
    ]
    .boxed();
    let bad = prop_oneof![
        pick(&[
            "charts",
            "report.html",
            "comparison.csv",
            "scenario.yaml",
            "Charts",
            "fairsim-results.json",
            "summary.csv"
        ]),
        pick(&["\".hidden\"", "\"a/b\"", "\"a\\0b\"", "\"a\\nb\"", "\" a\"", "\"\"", "[x]"]),
        Just(dq(&"x".repeat(201))),
        odd_name(),
    ]
    .boxed();
    noisy(g, good, bad)
}

fn spare(g: G) -> BoxedStrategy<String> {
    noisy(g, pick(&["lend", "hold"]), pick(&["lent", "\"\"", "~", "[hold]"]))
}

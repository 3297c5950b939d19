//! The keys added in the wave after the first fuzzer (the acceptance
//! run's): `topologies` (queues, routes, pools with `batch`, planners),
//! `admission` and `admission_sets`, `capacity`, `slowdowns` and `retry` at
//! the top; `slice`, `resume_overhead` and `declared` per workload entry;
//! `topology`, `on_cap`, `slice` and `admission` per policy entry, and the
//! `charge`, `quantile`, `preempt` and `checkpoint` parameters.
//!
//! Clean cases keep the cross-key rules that docs/scenario.md states (every
//! queue polled, a shard's count within the queues, `capacity` only when no
//! policy runs on a topology, capacity changes in order of time) so that
//! they reach the engine; noise breaks them. Wild cases draw the shapes
//! known to be slow (20,000 queues, 1us slices).

use proptest::prelude::*;

use super::scalars::{dur0, dur_pos, int_in, noisy, opt, pick, slowly, G};
use super::vocab::{CLASSES, TENANTS, WRONG};
use super::yaml::{flow_map, Top};

/// The names generated topologies and admission sets take; policy entries
/// refer to them.
const TOPOLOGY_NAMES: [&str; 2] = ["t0", "t1"];
const SET_NAMES: [&str; 2] = ["s0", "s1"];

fn kv(k: &str, v: impl Into<String>) -> (String, String) {
    (k.to_string(), v.into())
}

/// Adds `extra` to the flow map `map` (`{a: 1}` becomes `{a: 1, k: v}`); a
/// bare policy name becomes `{policy: NAME, k: v}`; anything else is left.
pub fn extend_map(map: &str, extra: &[(String, String)]) -> String {
    if extra.is_empty() {
        return map.to_string();
    }
    let add: Vec<String> = extra.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let add = add.join(", ");
    let t = map.trim();
    if t == "{}" {
        format!("{{{add}}}")
    } else if let Some(inner) = t.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        format!("{{{inner}, {add}}}")
    } else if !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        format!("{{policy: {t}, {add}}}")
    } else {
        map.to_string()
    }
}

fn small_dur(g: G) -> BoxedStrategy<String> {
    // whole or fractional seconds up to a minute: short enough that the
    // feature acts within a run of a few dozen jobs
    let good = prop_oneof![
        4 => (1u32..30).prop_map(|n| format!("{n}s")),
        2 => (1u32..2000).prop_map(|n| format!("{n}ms")),
    ]
    .boxed();
    noisy(g, good, dur_pos(g))
}

fn throttle(g: G) -> BoxedStrategy<String> {
    let rate = prop_oneof![
        3 => (1u32..20, prop::sample::select(&["/s", "/m", "/h"][..])).prop_map(|(n, u)| format!("{n}{u}")),
        1 => pick(&["0.5/s", "1e-3/s"]),
    ];
    let good = prop_oneof![
        3 => (rate, opt(0.6, prop_oneof![pick(&["1", "2", "5", "20", "1.5"]), pick(&["1000000000"])]))
            .prop_map(|(r, b)| {
                let mut m = vec![kv("rate", r)];
                m.extend(b.map(|b| kv("burst", b)));
                flow_map(&m)
            }),
        2 => (1u32..6, small_dur(g)).prop_map(|(n, w)| flow_map(&[kv("limit", n.to_string()), kv("window", w)])),
        2 => (1u32..6, small_dur(g)).prop_map(|(n, p)| flow_map(&[kv("limit", n.to_string()), kv("per", p)])),
    ]
    .boxed();
    let bad = pick(&[
        "{rate: 0/s}",
        "{rate: 1/s, limit: 2, window: 1s}",
        "{limit: 0, window: 1s}",
        "{limit: 2}",
        "{limit: 100001, window: 1s}",
        "{rate: 1/s, burst: 0}",
        "{rate: 1/s, burst: -1}",
        "{rate: 1/s, burst: .nan}",
        "{limit: 2, per: 0s}",
        "{}",
    ]);
    noisy(g, good, bad)
}

/// A list of `n` queue names, or `{prefix: q, count: n}`: the names are
/// always `q0` ... `q{n-1}`.
#[derive(Debug, Clone)]
struct Queues {
    n: u32,
    text: String,
}

fn queues(g: G) -> BoxedStrategy<Queues> {
    let listed = (1u32..5).prop_map(|n| Queues {
        n,
        text: format!("[{}]", (0..n).map(|i| format!("q{i}")).collect::<Vec<_>>().join(", ")),
    });
    let counted = prop_oneof![
        8 => (1u32..9).boxed(),
        // work once grew with queues x tenants
        1 => if g.wild { prop::sample::select(&[20_000u32, 65_535][..]).boxed() } else { (1u32..9).boxed() },
    ]
    .prop_map(|n| Queues { n, text: format!("[{{prefix: q, count: {n}}}]") });
    prop_oneof![2 => listed, 1 => counted].boxed()
}

fn matcher(g: G) -> BoxedStrategy<Vec<(String, String)>> {
    let names = |all: &'static [&'static str]| {
        prop_oneof![
            3 => pick(all),
            1 => prop::sample::subsequence(all, 1..3).prop_map(|v| format!("[{}]", v.join(", "))),
        ]
        .boxed()
    };
    (opt(0.3, names(TENANTS)), opt(0.25, names(CLASSES)), opt(0.02 * f64::from(g.noise), pick(WRONG)))
        .prop_map(|(t, c, w)| {
            let mut m = Vec::new();
            m.extend(t.map(|t| kv("tenant", t)));
            m.extend(c.map(|c| kv("class", c)));
            m.extend(w.map(|w| kv("tenant", w)));
            m
        })
        .boxed()
}

fn route_rule(g: G, n: u32) -> BoxedStrategy<String> {
    let q = (0..n).prop_map(|i| format!("q{i}"));
    let action = prop_oneof![
        3 => q.clone().prop_map(|q| vec![kv("to", q)]),
        2 => (1..=n).prop_map(|c| vec![kv("shard", format!("{{count: {c}, prefix: q}}"))]),
        1 => (1..=n).prop_flat_map(|c| (Just(c), 1..=c))
            .prop_map(|(c, k)| vec![kv("shuffle_shard", format!("{{count: {c}, per_tenant: {k}, prefix: q}}"))]),
        3 => (throttle(g), q).prop_map(|(t, q)| vec![kv("throttle", t), kv("to", q)]),
        1 => Just(vec![kv("to", "\"{class}\"")]),
    ];
    let bad = pick(&[
        "{to: nowhere}",
        "{shard: {count: 0, prefix: q}}",
        "{shard: {count: 99, prefix: q}}",
        "{shuffle_shard: {count: 2, per_tenant: 3, prefix: q}}",
        "{shuffle_shard: {count: 100, per_tenant: 65, prefix: q}}",
        "{throttle: {rate: 1/s}}",
        "{to: q0, shard: {count: 1, prefix: q}}",
        "{}",
    ]);
    noisy(
        g,
        (matcher(g), action)
            .prop_map(|(mut m, a)| {
                m.extend(a);
                flow_map(&m)
            })
            .boxed(),
        bad,
    )
}

fn poll(g: G, queues: usize) -> BoxedStrategy<Vec<(String, String)>> {
    let weights = prop::collection::vec(
        prop_oneof![4 => pick(&["1", "2", "3", "6", "0.5"]), 1 => pick(&["0.001", "1000"])],
        queues,
    )
    .prop_map(|w| vec![kv("poll", "weighted"), kv("weights", format!("[{}]", w.join(", ")))]);
    let good = prop_oneof![
        2 => Just(Vec::new()),
        1 => Just(vec![kv("poll", "strict")]),
        1 => Just(vec![kv("poll", "random")]),
        1 => Just(vec![kv("poll", "merged")]),
        3 => weights,
    ]
    .boxed();
    let bad = prop_oneof![
        Just(vec![kv("poll", "weighted")]),
        Just(vec![kv("poll", "weighted"), kv("weights", "[1]")]),
        Just(vec![kv("poll", "strict"), kv("weights", "[1, 1]")]),
        pick(&["[0, 1]", "[-1, 1]", "[.nan, 1]", "[1e9, 1]"])
            .prop_map(|w| vec![kv("poll", "weighted"), kv("weights", w)]),
        pick(&["fair", "\"\"", "[strict]"]).prop_map(|p| vec![kv("poll", p)]),
    ]
    .boxed();
    noisy(g, good, bad)
}

/// A pool's `batch` and the keys after it (see [`super::costs::pool_keys`]).
fn batch(g: G) -> BoxedStrategy<Option<String>> {
    super::costs::pool_keys(g, batch_only(g))
}

fn batch_only(g: G) -> BoxedStrategy<Option<String>> {
    // claim batching is refused with resources (and with caps)
    noisy(
        g,
        opt(if g.res { 0.0 } else { 0.25 }, prop_oneof![4 => int_in(1..6), 1 => pick(&["100000"])]),
        pick(&["0", "100001", "-1", "1.5"]).prop_map(Some).boxed(),
    )
}

/// Pools over `q0` ... `q{n-1}`: the first polls every queue (so each queue
/// is polled), in a shuffled order; the others poll a subsequence.
fn pools(g: G, n: u32) -> BoxedStrategy<String> {
    let names: Vec<String> = (0..n.min(8)).map(|i| format!("q{i}")).collect();
    if n > 8 {
        // a counted set: one pool per queue, as docs/scenario.md's shards
        return (1u32..3, prop_oneof![Just("[\"q{i}\"]"), Just("[\"q{i}\", \"q{i+1}\"]")], batch(g))
            .prop_map(move |(w, qs, b)| {
                let mut m = vec![
                    kv("name", "p"),
                    kv("count", n.to_string()),
                    kv("workers", w.to_string()),
                    kv("queues", qs),
                ];
                m.extend(b.map(|b| kv("batch", b)));
                format!("[{}]", flow_map(&m))
            })
            .boxed();
    }
    let first = (Just(names.clone()).prop_shuffle(), 1u32..5)
        .prop_flat_map(move |(order, w)| {
            let k = order.len();
            (Just(order), Just(w), poll(g, k), batch(g))
        })
        .prop_map(|(order, w, p, b)| {
            let mut m = vec![
                kv("name", "p0"),
                kv("workers", w.to_string()),
                kv("queues", format!("[{}]", order.join(", "))),
            ];
            m.extend(p);
            m.extend(b.map(|b| kv("batch", b)));
            flow_map(&m)
        });
    let other = (prop::sample::subsequence(names.clone(), 1..=names.len()), 1u32..3)
        .prop_flat_map(move |(qs, w)| {
            let k = qs.len();
            (Just(qs), Just(w), poll(g, k), batch(g))
        })
        .prop_map(|(qs, w, p, b)| (qs, w, p, b));
    (first, prop::collection::vec(other, 0..2), opt(0.05 * f64::from(g.noise), pick(WRONG)))
        .prop_map(|(first, others, wrong)| {
            let mut v = vec![first];
            for (i, (qs, w, p, b)) in others.into_iter().enumerate() {
                let mut m = vec![
                    kv("name", format!("p{}", i + 1)),
                    kv("workers", w.to_string()),
                    kv("queues", format!("[{}]", qs.join(", "))),
                ];
                m.extend(p);
                m.extend(b.map(|b| kv("batch", b)));
                v.push(flow_map(&m));
            }
            v.extend(wrong);
            format!("[{}]", v.join(", "))
        })
        .boxed()
}

fn planner(g: G) -> BoxedStrategy<String> {
    (
        small_dur(g),
        prop_oneof![4 => int_in(1..6), 1 => pick(&["1000"])],
        opt(0.3, small_dur(g)),
        opt(0.3, int_in(1..6)),
        opt(0.6, pick(&["round_robin", "drr", "wfq", "lottery", "share", "fifo"])),
        opt(0.4, (pick(&["0s", "10ms", "1s"]), pick(&["0s", "1ms", "100ms"]))),
        opt(0.4, (1u32..4).prop_map(|w| format!("[{{name: w, workers: {w}, queues: [main]}}]"))),
    )
        .prop_map(|(interval, batch, lat, depth, policy, cost, pools)| {
            let mut p = vec![kv("interval", interval), kv("batch", batch)];
            p.extend(lat.map(|l| kv("latency_below", l)));
            p.extend(depth.map(|d| kv("depth_below", d)));
            p.extend(policy.map(|x| kv("policy", x)));
            p.extend(cost.map(|(b, t)| kv("cost", format!("{{base: {b}, per_active_tenant: {t}}}"))));
            let mut m = vec![kv("planner", flow_map(&p))];
            m.extend(pools.map(|x| kv("pools", x)));
            flow_map(&m)
        })
        .boxed()
}

fn topology(g: G) -> BoxedStrategy<String> {
    let queued = queues(g).prop_flat_map(move |q| {
        let n = q.n;
        (Just(q), opt(0.7, prop::collection::vec(route_rule(g, n.min(8)), 1..4)), pools(g, n))
    });
    let queued = queued.prop_map(|(q, route, pools)| {
        let mut m = vec![kv("queues", q.text)];
        m.extend(route.map(|r| kv("route", format!("[{}]", r.join(", ")))));
        m.push(kv("pools", pools));
        flow_map(&m)
    });
    let bad = pick(&[
        "{queues: [a, a], pools: [{name: p, workers: 1, queues: [a]}]}",
        "{queues: [a, b], pools: [{name: p, workers: 1, queues: [a]}]}",
        "{queues: [a]}",
        "{pools: [{name: p, workers: 0, queues: [default]}]}",
        "{queues: [{prefix: q, count: 65536}], pools: [{name: p, workers: 1, queues: [q0]}]}",
        "{planner: {interval: 1s, batch: 1}, queues: [a], pools: [{name: p, workers: 1, queues: [a]}]}",
        "{planner: {interval: 1s, batch: 1, policy: edf}}",
        "{planner: {interval: 0s, batch: 1}}",
        "{queues: [a], pools: [{name: p, workers: 1, queues: [a], batch: 2}, {name: p, workers: 1, queues: [a]}]}",
        "{}",
    ]);
    noisy(g, prop_oneof![4 => queued, 1 => planner(g), 2 => super::presets::preset(g)].boxed(), bad)
}

fn admission_rule(g: G) -> BoxedStrategy<String> {
    let scope = (
        opt(0.6, prop_oneof![2 => Just("\"*\"".to_string()), 1 => pick(TENANTS)]),
        opt(0.3, prop_oneof![1 => Just("\"*\"".to_string()), 2 => pick(CLASSES)]),
    );
    let limit = prop_oneof![
        3 => int_in(1..6).prop_map(|n| vec![kv("max_queued", n)]),
        2 => small_dur(g).prop_map(|d| vec![kv("max_queued_work", d)]),
        3 => throttle(g).prop_map(|t| vec![kv("throttle", t)]),
        2 => (pick(&["backlog", "oldest"]), prop_oneof![3 => small_dur(g), 1 => pick(&["sla", "deadline"])])
            .prop_map(|(p, w)| vec![kv("predict", p), kv("max_wait", w)]),
    ];
    let action = prop_oneof![
        3 => Just(Vec::new()),
        1 => Just(vec![kv("action", "reject")]),
        2 => (small_dur(g), opt(0.6, prop_oneof![int_in(1..5), pick(&["100"])]))
            .prop_map(|(a, r)| {
                let mut m = vec![kv("action", "retry"), kv("after", a)];
                m.extend(r.map(|r| kv("retries", r)));
                m
            }),
        2 => small_dur(g).prop_map(|b| vec![kv("action", "defer"), kv("by", b)]),
    ];
    let good = (scope, limit, action)
        .prop_map(|((t, c), l, a)| {
            let mut m = Vec::new();
            m.extend(t.map(|t| kv("tenant", t)));
            m.extend(c.map(|c| kv("class", c)));
            m.extend(l);
            m.extend(a);
            flow_map(&m)
        })
        .boxed();
    let bad = pick(&[
        "{max_queued: 0}",
        "{max_queued: 1, max_queued_work: 1s}",
        "{predict: backlog}",
        "{max_wait: 1s}",
        "{max_queued: 1, action: retry}",
        "{max_queued: 1, action: retry, after: 1s, retries: 101}",
        "{max_queued: 1, action: defer}",
        "{max_queued: 1, action: defer, by: 9007199254s}",
        "{max_queued: 1, action: wait}",
        "{tenant: *, max_queued: 1}",
        "{tenant: nobody, max_queued: 1}",
        "{class: hi, predict: backlog, max_wait: sla}",
        "{}",
    ]);
    noisy(g, good, bad)
}

fn rules(g: G) -> BoxedStrategy<String> {
    prop::collection::vec(admission_rule(g), 1..3).prop_map(|r| format!("[{}]", r.join(", "))).boxed()
}

fn capacity(g: G) -> BoxedStrategy<String> {
    let good = prop::collection::btree_map(1u32..120, (0u32..5, opt(0.6, pick(&["drain", "kill"]))), 1..4)
        .prop_map(|m| {
            let n = m.len();
            let items: Vec<String> = m
                .into_iter()
                .enumerate()
                .map(|(i, (at, (w, loss)))| {
                    // the last change must leave at least one worker
                    let w = if i + 1 == n { w.max(1) } else { w };
                    let mut f = vec![kv("at", format!("{at}s")), kv("workers", w.to_string())];
                    f.extend(loss.map(|l| kv("loss", l)));
                    flow_map(&f)
                })
                .collect();
            format!("[{}]", items.join(", "))
        })
        .boxed();
    let bad = pick(&[
        "[{at: 5s, workers: 0}]",
        "[{at: 5s, workers: 1}, {at: 2s, workers: 2}]",
        "[{at: 5s, workers: 1}, {at: 5s, workers: 2}]",
        "[{at: 5s, workers: 1, loss: vanish}]",
        "[{at: 5s}]",
        "[{at: -1s, workers: 1}]",
        "[{at: 9007199255s, workers: 1}]",
        "[]",
    ]);
    noisy(g, good, bad)
}

fn slowdowns(g: G) -> BoxedStrategy<String> {
    let factor = slowly(g, pick(&["1", "1.5", "2", "3", "10"]), &["1000000", "999999"]);
    let one = (0u32..60, 1u32..60, factor, opt(0.3, pick(TENANTS)), opt(0.2, pick(CLASSES))).prop_map(
        |(from, len, f, t, c)| {
            let mut m =
                vec![kv("from", format!("{from}s")), kv("to", format!("{}s", from + len)), kv("factor", f)];
            m.extend(t.map(|t| kv("tenant", t)));
            m.extend(c.map(|c| kv("class", c)));
            flow_map(&m)
        },
    );
    let good = prop::collection::vec(one, 1..3).prop_map(|v| format!("[{}]", v.join(", "))).boxed();
    let bad = pick(&[
        "[{from: 5s, to: 5s, factor: 2}]",
        "[{from: 5s, to: 1s, factor: 2}]",
        "[{from: 0s, to: 1s, factor: 0.5}]",
        "[{from: 0s, to: 1s, factor: 1000001}]",
        "[{from: 0s, to: 1s, factor: .nan}]",
        "[{from: 0s, to: 1s}]",
        "[{from: 0s, to: 1s, factor: 2, tenant: nobody}]",
    ]);
    noisy(g, good, bad)
}

fn retry(g: G) -> BoxedStrategy<String> {
    let backoff = prop_oneof![
        small_dur(g).prop_map(|d| format!("{{fixed: {d}}}")),
        // max at least the first wait
        (1u32..10, 0u32..60).prop_map(|(d, m)| format!("{{exponential: {d}s, max: {}s}}", d + m)),
    ];
    let good = (
        opt(0.6, backoff),
        opt(0.4, pick(&["0", "0.5", "1", "0.25"])),
        // a hang once needed a budget with failing sliced jobs
        opt(0.6, (1u32..5, small_dur(g)).prop_map(|(l, w)| format!("{{limit: {l}, window: {w}}}"))),
    )
        .prop_map(|(b, j, bud)| {
            let mut m = Vec::new();
            // jitter shortens a backoff: only with one
            let j = j.filter(|_| b.is_some());
            m.extend(b.map(|b| kv("backoff", b)));
            m.extend(j.map(|j| kv("jitter", j)));
            m.extend(bud.map(|b| kv("budget", b)));
            flow_map(&m)
        })
        .boxed();
    let bad = pick(&[
        "{jitter: 1.5}",
        "{jitter: -0.1}",
        "{backoff: {fixed: 1s, exponential: 1s}}",
        "{backoff: {}}",
        "{backoff: {fixed: 0s}}",
        "{budget: {limit: 0, window: 1s}}",
        "{budget: {limit: 1}}",
        "{budget: {limit: 1, window: 0s}}",
        "{retries: 3}",
        "{jitter: 0.5}",
        "{backoff: {exponential: 1s}}",
    ]);
    noisy(g, good, bad)
}

/// The keys a generated scenario's top level gains, and which topology and
/// set names exist (the policy entries then refer to them).
#[derive(Debug, Clone, Default)]
pub struct Wave {
    pub top: Vec<(String, Top)>,
    pub topologies: bool,
    pub sets: bool,
    pub capacity: bool,
    /// extra keys for each workload entry, by position
    pub entries: Vec<Vec<(String, String)>>,
    /// extra keys for each policy entry, by position
    pub policies: Vec<Vec<(String, String)>>,
}

fn entry_extra(g: G) -> BoxedStrategy<Vec<(String, String)>> {
    // a 1us slice of a long job is a million slices
    let slice = slowly(g, small_dur(g), &["1us", "10us", "1ms"]);
    let declared = noisy(g, pick(&["0.1", "0.5", "2", "100", "1"]), pick(&["0", "-1", "100.5", ".nan", "x"]));
    (opt(0.2, slice), opt(0.1, dur0(g)), opt(0.12, declared))
        .prop_map(|(s, r, d)| {
            let mut m = Vec::new();
            // resume_overhead goes with slice
            let r = r.filter(|_| s.is_some());
            m.extend(s.map(|s| kv("slice", s)));
            m.extend(r.map(|r| kv("resume_overhead", r)));
            m.extend(d.map(|d| kv("declared", format!("{{factor: {d}}}"))));
            m
        })
        .boxed()
}

fn policy_extra(g: G, topologies: bool, sets: bool, capacity: bool) -> BoxedStrategy<Vec<(String, String)>> {
    let topo = if topologies && !capacity {
        noisy(g, pick(&TOPOLOGY_NAMES), pick(&["nowhere", "\"\"", "[t0]"]))
    } else {
        noisy(g, Just(String::new()).boxed(), pick(&["t0", "nowhere"]))
    };
    let on_cap = noisy(
        g,
        prop_oneof![
            1 => Just("hold".to_string()),
            3 => small_dur(g).prop_map(|d| format!("{{delay: {d}}}")),
            // a microsecond's delay under `each` refuses a capped job every
            // microsecond it waits: validate must count that work
            2 => (prop_oneof![4 => small_dur(g), 1 => Just("1us".to_string()).boxed()], pick(&["each", "first"]))
                .prop_map(|(d, r)| format!("{{delay: {d}, refuse: {r}}}")),
        ]
        .boxed(),
        pick(&["{delay: 0s}", "delay", "{delay: -1s}", "{wait: 1s}", "\"\"", "{refuse: each}", "{delay: 1s, refuse: all}"]),
    );
    let admission = if sets {
        noisy(g, pick(&["none", "s0", "s1"]), pick(&["nope", "\"\""]))
    } else {
        noisy(g, pick(&["none"]), pick(&["s0", "nope"]))
    };
    let charge = noisy(
        g,
        (pick(&["oracle", "declared", "actual", "bounded"]), opt(0.3, pick(&["0.5", "0.9", "1"])))
            .prop_map(|(c, q)| {
                let mut m = vec![kv("cost", "work"), kv("charge", c.clone())];
                if c == "bounded" {
                    m.extend(q.map(|q| kv("quantile", q)));
                }
                m
            })
            .boxed(),
        Just(vec![kv("charge", "declared")]).boxed(),
    );
    let preempt = prop_oneof![
        Just(vec![kv("preempt", "restart")]),
        small_dur(g).prop_map(|d| vec![kv("preempt", "checkpoint"), kv("checkpoint", d)]),
    ];
    (
        opt(0.6, topo),
        opt(0.3, on_cap),
        opt(0.12, slowly(g, small_dur(g), &["1us"])),
        opt(0.25, admission),
        opt(0.15, charge),
        opt(0.15, preempt),
    )
        .prop_map(|(t, c, s, a, ch, pre)| {
            let mut m = Vec::new();
            m.extend(t.filter(|t| !t.is_empty()).map(|t| kv("topology", t)));
            m.extend(c.map(|c| kv("on_cap", c)));
            m.extend(s.map(|s| kv("slice", s)));
            m.extend(a.map(|a| kv("admission", a)));
            m.extend(ch.unwrap_or_default());
            m.extend(pre.unwrap_or_default());
            m
        })
        .boxed()
}

pub fn wave(g: G) -> BoxedStrategy<Wave> {
    let top = (
        opt(0.35, prop::collection::vec(topology(g), 1..=TOPOLOGY_NAMES.len())),
        opt(0.3, rules(g)),
        opt(0.12, prop::collection::vec(rules(g), 1..=SET_NAMES.len())),
        opt(0.25, capacity(g)),
        opt(0.2, slowdowns(g)),
        (
            opt(0.3, retry(g)),
            opt(0.2, super::costs::costs(g, false)),
            opt(0.3, super::costs::costs(g, true)),
            opt(0.12, super::costs::limiter(g)),
            opt(0.15, super::costs::start_limits(g)),
        ),
    );
    (top, prop::collection::vec(entry_extra(g), 5))
        .prop_flat_map(
            move |((topo, adm, sets, cap, slow, (retry, costs, polled, limiter, groups)), entries)| {
                let mut w = Wave { entries, ..Wave::default() };
                // costs beside capacity changes are refused; a poll interval would reach a planner's pool
                let costs =
                    if topo.is_some() { costs } else { polled }.filter(|_| cap.is_none() || g.noise > 0);
                if let Some(ts) = topo {
                    w.topologies = true;
                    w.top.push((
                        "topologies".into(),
                        Top::Map(TOPOLOGY_NAMES.iter().map(|n| n.to_string()).zip(ts).collect()),
                    ));
                }
                if let Some(a) = adm {
                    w.top.push(("admission".into(), Top::Scalar(a)));
                }
                if let Some(s) = sets {
                    w.sets = true;
                    w.top.push((
                        "admission_sets".into(),
                        Top::Map(SET_NAMES.iter().map(|n| n.to_string()).zip(s).collect()),
                    ));
                }
                if let Some(c) = cap {
                    w.capacity = true;
                    w.top.push(("capacity".into(), Top::Scalar(c)));
                }
                for (k, v) in [
                    ("slowdowns", slow),
                    ("retry", retry),
                    ("costs", costs),
                    ("limiter", limiter),
                    ("start_limits", groups),
                ] {
                    if let Some(v) = v {
                        w.top.push((k.into(), Top::Scalar(v)));
                    }
                }
                let (t, s, c) = (w.topologies, w.sets, w.capacity);
                (Just(w), prop::collection::vec(policy_extra(g, t, s, c), 4))
            },
        )
        .prop_map(|(mut w, p)| {
            w.policies = p;
            w
        })
        .boxed()
}

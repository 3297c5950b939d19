//! Workload entries: generator entries and trace entries. Clean entries
//! keep the cross-key rules (a stop after its start, one of `tenant` and
//! `tenants`) so that they pass validation; noise breaks them on purpose.

use proptest::prelude::*;

use super::scalars::{
    class_ref, count, dur0, dur_pos, entry_tenant, every, fields, float_in, int_in, noisy, odd_name, opt,
    pick, rate, slowly, stray, with_stray, G,
};
use super::vocab::{CSV_COLUMNS, RESOURCE_NAMES, WRONG};
use super::yaml::flow_map;

fn spread(g: G) -> BoxedStrategy<String> {
    let count = noisy(
        g,
        slowly(g, int_in(1..30), &["10000000", "9999999", "1000000"]),
        pick(&["0", "-1", "10000001", "4294967296", "1.5", "x"]),
    );
    let prefix = noisy(
        g,
        pick(&["s", "u", "x-", "ス", "\"\\0\""]),
        prop_oneof![pick(&["t", "A", "\"\""]), odd_name()].boxed(),
    );
    (count, prefix, stray(g, &["extra", "suffix"]))
        .prop_map(|(c, p, x)| with_stray(fields(vec![("count", Some(c)), ("prefix", Some(p))]), x))
        .boxed()
}

/// `tenant:` or `tenants:` (noise: both, or neither) of an entry.
fn who(g: G) -> BoxedStrategy<Vec<(String, String)>> {
    let good = prop_oneof![
        8 => entry_tenant(g).prop_map(|t| vec![("tenant".to_string(), t)]),
        1 => spread(g).prop_map(|s| vec![("tenants".to_string(), s)]),
    ]
    .boxed();
    let bad = prop_oneof![
        (entry_tenant(g), spread(g))
            .prop_map(|(t, s)| vec![("tenant".to_string(), t), ("tenants".to_string(), s)]),
        Just(Vec::new()),
    ]
    .boxed();
    noisy(g, good, bad)
}

/// `start`/`stop`/`count` of a poisson or every process: at least one of
/// stop and count, stop after start.
fn process_bounds(g: G) -> BoxedStrategy<Vec<(String, String)>> {
    let stop_after = (0u32..30, 1u32..600).prop_map(|(a, b)| {
        vec![("start".to_string(), format!("{a}s")), ("stop".to_string(), format!("{}s", a + b))]
    });
    let good = prop_oneof![
        3 => count(g).prop_map(|c| vec![("count".to_string(), c)]),
        2 => dur_pos(g).prop_map(|s| vec![("stop".to_string(), s)]),
        2 => stop_after,
        2 => (dur_pos(g), count(g)).prop_map(|(s, c)| vec![("stop".to_string(), s), ("count".to_string(), c)]),
        1 => (dur0(g), count(g)).prop_map(|(s, c)| vec![("start".to_string(), s), ("count".to_string(), c)]),
    ]
    .boxed();
    let bad = prop_oneof![
        Just(Vec::new()),
        (dur0(g), dur0(g)).prop_map(|(a, b)| vec![("start".to_string(), a), ("stop".to_string(), b)]),
        dur0(g).prop_map(|a| vec![("at".to_string(), a), ("count".to_string(), "1".to_string())]),
    ]
    .boxed();
    noisy(g, good, bad)
}

fn arrivals(g: G) -> BoxedStrategy<Vec<(String, String)>> {
    let kv = |k: &str, v: String| (k.to_string(), v);
    let good = prop_oneof![
        8 => (count(g), opt(0.4, dur0(g))).prop_map(|(c, at)| fields(vec![("count", Some(c)), ("at", at)])),
        4 => (rate(g), process_bounds(g), opt(0.3, profile(g))).prop_map(move |(r, b, p)| {
            let mut m = vec![kv("poisson", r)];
            m.extend(b);
            m.extend(p.map(|p| kv("profile", p)));
            vec![kv("arrivals", flow_map(&m))]
        }),
        3 => (every(g), process_bounds(g)).prop_map(move |(e, b)| {
            let mut m = vec![kv("every", e)];
            m.extend(b);
            vec![kv("arrivals", flow_map(&m))]
        }),
        2 => (count(g), opt(0.4, dur0(g))).prop_map(move |(b, at)| {
            let m = fields(vec![("batch", Some(b)), ("at", at)]);
            vec![kv("arrivals", flow_map(&m))]
        }),
    ]
    .boxed();
    let bad = prop_oneof![
        // any combination of the arrival keys, and stray batch keys beside `arrivals`
        4 => (
            opt(0.4, rate(g)), opt(0.4, every(g)), opt(0.4, count(g)), opt(0.3, dur0(g)),
            opt(0.3, dur0(g)), opt(0.3, count(g)), opt(0.3, dur0(g)), opt(0.2, count(g)), opt(0.2, dur0(g)),
        )
            .prop_map(|(p, e, b, start, stop, c, at, outer_count, outer_at)| {
                let m = flow_map(&fields(vec![
                    ("poisson", p), ("every", e), ("batch", b), ("start", start), ("stop", stop), ("count", c), ("at", at),
                ]));
                let mut v = vec![("arrivals".to_string(), m)];
                v.extend(fields(vec![("count", outer_count), ("at", outer_at)]));
                v
            }),
        // a profile beside `every` or `batch`, where it does not apply
        1 => (every(g), count(g), profile(g)).prop_map(|(e, c, p)| {
            vec![("arrivals".to_string(), flow_map(&fields(vec![("every", Some(e)), ("count", Some(c)), ("profile", Some(p))])))]
        }),
        1 => Just(Vec::new()),
        1 => dur0(g).prop_map(|at| vec![("at".to_string(), at)]),
        1 => pick(WRONG).prop_map(|w| vec![("arrivals".to_string(), w)]),
    ]
    .boxed();
    noisy(g, good, bad)
}

/// `profile:` of poisson arrivals: steps, daily and weekly shapes, bursts;
/// noise: shapes of the wrong length, negative or unordered values, all
/// zeros, bursts flipping too often, an empty map.
fn profile(g: G) -> BoxedStrategy<String> {
    let factors = |n: usize| {
        prop::collection::vec(0u32..30, n).prop_map(|v| {
            let f: Vec<String> = v.iter().map(|x| format!("{}", f64::from(*x) / 10.0)).collect();
            format!("[{}]", f.join(", "))
        })
    };
    let steps = prop::collection::vec((1u32..600, 0u32..50), 1..4).prop_map(|v| {
        let mut at = 0;
        let items: Vec<String> = v
            .iter()
            .map(|(d, f)| {
                at += d;
                format!("{{at: {at}s, factor: {}}}", f64::from(*f) / 10.0)
            })
            .collect();
        format!("[{}]", items.join(", "))
    });
    let bursts = (dur_pos(g), dur_pos(g), 1u32..100, opt(0.5, 0u32..20)).prop_map(|(on, off, h, l)| {
        let low = l.map(|l| format!(", low: {}", f64::from(l) / 10.0)).unwrap_or_default();
        format!("{{on: {on}, off: {off}, high: {}{low}}}", f64::from(h) / 10.0)
    });
    let good = (opt(0.5, steps), opt(0.4, factors(24)), opt(0.2, factors(7)), opt(0.3, bursts))
        .prop_map(|(s, d, w, b)| {
            let m = fields(vec![("steps", s), ("daily", d), ("weekly", w), ("bursts", b)]);
            if m.is_empty() {
                "{daily: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]}"
                    .to_string()
            } else {
                flow_map(&m)
            }
        })
        .boxed();
    let bad = prop_oneof![
        (0usize..30).prop_map(move |n| format!("{{daily: [{}]}}", vec!["1"; n].join(", "))),
        (0usize..10).prop_map(move |n| format!("{{weekly: [{}]}}", vec!["0.5"; n].join(", "))),
        float_in(g, -20..20, &["1e308", "1e9"]).prop_map(|f| format!("{{steps: [{{at: 1s, factor: {f}}}]}}")),
        (dur0(g), dur0(g))
            .prop_map(|(a, b)| format!("{{steps: [{{at: {a}, factor: 1}}, {{at: {b}, factor: 2}}]}}")),
        (dur0(g), dur0(g), float_in(g, -10..100, &["1e308"]), opt(0.5, float_in(g, -10..100, &["1e308"])))
            .prop_map(|(on, off, h, l)| {
                let low = l.map(|l| format!(", low: {l}")).unwrap_or_default();
                format!("{{bursts: {{on: {on}, off: {off}, high: {h}{low}}}}}")
            }),
        pick(&[
            "{}",
            "{daily: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}",
            "{steps: [{at: 0s, factor: 0}]}",
            "{steps: []}",
            "{bursts: {on: 1us, off: 1us, high: 2}}",
            "{bursts: {on: 1s, off: 1s, high: 0, low: 0}}",
            "{hourly: [1]}",
        ]),
        pick(WRONG),
    ]
    .boxed();
    noisy(g, good, bad)
}

fn service(g: G) -> BoxedStrategy<String> {
    let good = prop_oneof![
        8 => dur0(g),
        1 => dur0(g).prop_map(|d| format!("{{constant: {d}}}")),
        3 => dur_pos(g).prop_map(|d| format!("{{exponential: {d}}}")),
        2 => (0u32..5000, 0u32..5000).prop_map(|(a, b)| format!("{{uniform: {{min: {}ms, max: {}ms}}}}", a.min(b), a.max(b))),
        2 => (1u32..2000, 1u32..20000).prop_map(|(a, b)| format!("{{lognormal: {{median: {a}ms, p99: {}ms}}}}", a + b)),
        2 => (float_in(g, -30..20, &["100", "700", "1e308", "50"]), float_in(g, 0..20, &["50", "1e308", "700"]))
            .prop_map(|(m, s)| format!("{{lognormal: {{mu: {m}, sigma: {s}}}}}")),
        // heavy tails: an unbounded Pareto needs alpha > 1 and a small enough
        // min; a bounded one takes any alpha
        2 => (11u32..50, 1u32..2000).prop_map(|(a, m)| format!("{{pareto: {{alpha: {}, min: {m}ms}}}}", a as f64 / 10.0)),
        1 => (1u32..50, 1u32..2000, 1u32..100000)
            .prop_map(|(a, m, x)| format!("{{pareto: {{alpha: {}, min: {m}ms, max: {}ms}}}}", a as f64 / 10.0, m + x)),
        1 => (0u32..1000, 1u32..5000, 0u32..100, 0u32..100).prop_map(|(a, b, c, d)| {
            format!("{{histogram: {{edges: [{a}ms, {}ms, {}s], counts: [{c}, {}]}}}}", a + b, (a + b) / 1000 + 2, d + 1)
        }),
    ]
    .boxed();
    let bad = prop_oneof![
        (dur0(g), dur0(g)).prop_map(|(a, b)| format!("{{uniform: {{min: {a}, max: {b}}}}}")),
        (dur0(g), dur0(g)).prop_map(|(a, b)| format!("{{lognormal: {{median: {a}, p99: {b}}}}}")),
        (dur0(g), dur0(g)).prop_map(|(a, b)| format!("{{lognormal: {{median: {a}, p99: {b}, mu: 1}}}}")),
        (dur0(g), dur0(g)).prop_map(|(a, b)| format!("{{constant: {a}, exponential: {b}}}")),
        pick(&["{lognormal: {mu: 1, sigma: -1}}", "{exponential: 0s}", "{}", "{gamma: 1s}"]),
        pick(WRONG),
        (float_in(g, -5..5, &["1e308", ".nan", "0"]), dur0(g), opt(0.5, dur0(g))).prop_map(|(a, m, x)| {
            let max = x.map(|x| format!(", max: {x}")).unwrap_or_default();
            format!("{{pareto: {{alpha: {a}, min: {m}{max}}}}}")
        }),
        pick(&[
            "{pareto: {alpha: 1, min: 1s}}",
            "{pareto: {alpha: 1.1, min: 1h}}",
            "{histogram: {edges: [0s, 1s, 2s], counts: [1]}}",
            "{histogram: {edges: [2s, 1s], counts: [1]}}",
            "{histogram: {edges: [0s, 1s], counts: [0]}}",
            "{histogram: {edges: [], counts: []}}",
            // the generated CSV trace: its header may lack run times
            "{empirical: {path: @@P@@t0.csv}}",
            "{empirical: {path: @@P@@t0.csv, on_error: skip, columns: {started: started_at, finished: finished_at}}}",
            "{empirical: {path: @@P@@t1.swf}}",
            "{empirical: {path: missing.csv}}",
            "{empirical: {path: \"/dev/zero\", format: csv}}",
        ]),
    ]
    .boxed();
    noisy(g, good, bad)
}

fn cost(g: G) -> BoxedStrategy<Option<String>> {
    let good: BoxedStrategy<Option<String>> = if g.res {
        opt(
            0.4,
            (opt(0.8, int_in(0..5)), opt(0.5, int_in(0..5)))
                .prop_map(|(c, m)| flow_map(&fields(vec![("cpu", c), ("mem", m)]))),
        )
    } else {
        Just(None).boxed()
    };
    let bad = prop::collection::vec(
        (pick(RESOURCE_NAMES), pick(&["99", "-1", "18446744073709551615", "x", "1.5", "1", "0"])),
        0..4,
    )
    .prop_map(|v| Some(flow_map(&v)))
    .boxed();
    noisy(g, good, bad)
}

fn failure(g: G) -> BoxedStrategy<String> {
    let p = noisy(
        g,
        slowly(g, pick(&["0", "0.1", "0.5", "0.9", "0.25", "1e-300"]), &["0.999999999999", "0.9999"]),
        pick(&["1", "-0.1", "1.5", ".nan", ".inf", "x", "0.99999999999999999"]),
    );
    let m = noisy(
        g,
        slowly(g, int_in(1..6), &["100", "101", "4294967295", "1000000"]),
        pick(&["0", "-1", "4294967296", "x", "1.5"]),
    );
    let p = noisy(g, p.prop_map(Some).boxed(), Just(None).boxed());
    (p, opt(0.6, m), stray(g, &["retries"]))
        .prop_map(|(p, m, x)| with_stray(fields(vec![("probability", p), ("max_attempts", m)]), x))
        .boxed()
}

pub fn generator_entry(g: G) -> BoxedStrategy<String> {
    let svc = noisy(g, service(g).prop_map(Some).boxed(), Just(None).boxed());
    (
        who(g),
        opt(0.3, class_ref(g)),
        arrivals(g),
        svc,
        opt(0.15, dur_pos(g)),
        cost(g),
        // raised from 0.12 with retry budgets and slices
        opt(0.25, failure(g)),
        stray(g, &["sevice", "Tenant", "weight"]),
    )
        .prop_map(|(who, class, arr, svc, deadline, cost, failure, x)| {
            let mut f = who;
            f.extend(fields(vec![("class", class)]));
            f.extend(arr);
            f.extend(fields(vec![
                ("service", svc),
                ("deadline", deadline),
                ("cost", cost),
                ("failure", failure),
            ]));
            with_stray(f, x)
        })
        .boxed()
}

/// A `- trace: {...}` entry. `@@P@@` before a file name is replaced by the
/// folder's naming prefix when the case is written (t0.csv and t1.swf are
/// generated with every scenario).
pub fn trace_entry(g: G) -> BoxedStrategy<String> {
    let bad_path = pick(&[
        "\"/dev/null\"",
        "\".\"",
        "missing.csv",
        "\"\"",
        "@@P@@t0.csv.bak",
        "\"@@P@@t0.csv\\0\"",
        "@@P@@T0.CSV",
        "@@P@@t0",
        "\"/proc/self/status\"",
    ]);
    let devices = pick(&["\"/dev/zero\"", "\"/dev/urandom\"", "\"/dev/zero\""]);
    let csv_path = noisy(
        g,
        if g.wild {
            prop_oneof![3 => Just("@@P@@t0.csv".to_string()), 1 => devices.clone()].boxed()
        } else {
            Just("@@P@@t0.csv".to_string()).boxed()
        },
        bad_path.clone(),
    );
    let swf_path = noisy(
        g,
        if g.wild {
            prop_oneof![3 => Just("@@P@@t1.swf".to_string()), 1 => devices].boxed()
        } else {
            Just("@@P@@t1.swf".to_string()).boxed()
        },
        bad_path,
    );
    let columns = noisy(
        g,
        pick(&["{arrival: created_at, tenant: tenant}", "{tenant: tenant}"]),
        prop_oneof![
            1 => pick(&["{service: service}", "{started: started_at, finished: finished_at}", "{class: queue, priority: priority}"]),
            3 => prop::collection::vec(
            (
                pick(&["arrival", "tenant", "class", "service", "started", "finished", "priority", "deadline", "bogus"]),
                prop_oneof![6 => pick(CSV_COLUMNS), 2 => pick(&["created_at", "tenant"]), 1 => odd_name()],
            ),
            0..4,
        )
        .prop_map(|v| flow_map(&v)),
        ]
        .boxed(),
    );
    let time_format = noisy(
        g,
        pick(&["auto"]),
        pick(&["rfc3339", "epoch_s", "epoch_ms", "epoch_us", "iso", "\"\"", "[auto]", "EPOCH_S"]),
    );
    let unit = noisy(g, pick(&["us", "ms", "s"]), pick(&["h", "\"\"", "1"]));
    let keep_time = || {
        noisy(
            g,
            slowly(g, Just("false".to_string()).boxed(), &["true"]),
            pick(&["yes", "1", "~", "\"true\""]),
        )
    };
    let on_error = || noisy(g, pick(&["error", "skip", "skip"]), pick(&["ignore", "~", "true"]));
    let wrong_format = || noisy(g, Just(None).boxed(), opt(0.5, pick(&["swf", "csv", "json", "\"\""])));
    let csv = (
        csv_path,
        opt(0.2, Just("csv".to_string())),
        wrong_format(),
        opt(0.3, columns),
        opt(0.3, time_format),
        opt(0.2, unit),
        opt(0.15, keep_time()),
        opt(0.5, on_error()),
        noisy(g, Just(None).boxed(), opt(0.5, pick(&["procs", "none"]))),
    )
        .prop_map(|(path, format, wrong, columns, tf, unit, keep, on_error, slots)| {
            // a device has no extension to tell the format by
            let format = format.or_else(|| path.starts_with("\"/dev/").then(|| "csv".to_string()));
            fields(vec![
                ("path", Some(path)),
                ("format", wrong.or(format)),
                ("columns", columns),
                ("time_format", tf),
                ("service_unit", unit),
                ("keep_time", keep),
                ("on_error", on_error),
                ("slots", slots),
            ])
        });
    let swf = (
        swf_path,
        opt(0.2, Just("swf".to_string())),
        wrong_format(),
        opt(0.15, keep_time()),
        opt(0.5, on_error()),
        opt(0.2, noisy(g, pick(&["none"]), pick(&["procs", "cpu", "slots", "x", "\"\""]))),
        noisy(g, Just(None).boxed(), opt(0.5, pick(&["{columns: {tenant: x}}", "{time_format: auto}"]))),
    )
        .prop_map(|(path, format, wrong, keep, on_error, slots, extra)| {
            let format = format.or_else(|| path.starts_with("\"/dev/").then(|| "swf".to_string()));
            let mut f = fields(vec![
                ("path", Some(path)),
                ("format", wrong.or(format)),
                ("keep_time", keep),
                ("on_error", on_error),
                ("slots", slots),
            ]);
            if let Some(e) = extra {
                let e = e.trim_matches(|c| c == '{' || c == '}');
                if let Some((k, v)) = e.split_once(": ") {
                    f.push((k.to_string(), v.to_string()));
                }
            }
            f
        });
    // a processor's job table: the CSV ones over the generated CSV (whose
    // header may lack their columns), the event logs over t2.jsonl
    let table = (
        prop_oneof![
            1 => pick(&["good_jobs", "bullmq", "postgres"]).prop_map(|f| ("@@P@@t0.csv".to_string(), f)),
            2 => pick(&["celery_events", "sidekiq_log"]).prop_map(|f| ("@@P@@t2.jsonl".to_string(), f)),
        ],
        opt(
            0.3,
            noisy(g, pick(&["{tenant: tenant}", "{class: queue}"]), pick(&["{started: t}", "{tenant: [x]}"])),
        ),
        opt(0.3, on_error()),
    )
        .prop_map(|((path, format), columns, on_error)| {
            fields(vec![
                ("path", Some(path)),
                ("format", Some(format)),
                ("columns", columns),
                ("on_error", on_error),
            ])
        });
    (prop_oneof![3 => csv, 2 => swf, 2 => table], stray(g, &["tenant", "service", "count"]))
        .prop_map(|(t, beside)| with_stray(vec![("trace".to_string(), flow_map(&t))], beside))
        .boxed()
}

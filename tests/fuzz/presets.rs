//! Processor presets (`topologies: {NAME: {sidekiq: ...}}` and the other
//! four), the config files two of them read (`sidekiq.yml`, Solid Queue's
//! `queue.yml`, written beside the scenario as `@@P@@sidekiq.yml` and
//! `@@P@@queue.yml`), and the event logs two job-table formats read
//! (`@@P@@t2.jsonl`). Clean cases use the scenario's class names as queues
//! (every class polled by a `*` or a list of them all); noise breaks keys,
//! values, wildcards, ERB and the files themselves.

use proptest::prelude::*;

use super::scalars::{int_in, noisy, opt, pick, G};
use super::vocab::{CLASSES, TENANTS};
use super::yaml::flow_map;

fn kv(k: &str, v: impl Into<String>) -> (String, String) {
    (k.to_string(), v.into())
}

/// Every class's queue, in a list: a clean worker polls them all, so no
/// class is left without a worker.
fn all_queues() -> BoxedStrategy<String> {
    Just(CLASSES.to_vec()).prop_shuffle().prop_map(|q| format!("[{}]", q.join(", "))).boxed()
}

fn costs(g: G) -> BoxedStrategy<Option<String>> {
    opt(0.2, super::costs::costs(g, false))
}

fn sidekiq(g: G) -> BoxedStrategy<String> {
    let weighted = Just(CLASSES.to_vec())
        .prop_shuffle()
        .prop_flat_map(|q| {
            let n = q.len();
            (Just(q), prop::collection::vec(0u32..7, n))
        })
        .prop_map(|(q, w)| {
            let items: Vec<String> = q.iter().zip(w).map(|(n, w)| format!("\"{n},{w}\"")).collect();
            format!("[{}]", items.join(", "))
        });
    let queues = noisy(
        g,
        prop_oneof![2 => all_queues(), 2 => weighted.boxed()].boxed(),
        pick(&["[]", "[\"a,x\"]", "[[a, 1, 2]]", "[\"\"]", "[\"a,1001\"]", "{a: 1}", "[hi, \"lo,-1\"]"]),
    );
    let inline = (
        opt(0.8, int_in(1..12)),
        opt(0.9, queues),
        opt(
            0.2,
            (int_in(1..4), all_queues())
                .prop_map(|(c, q)| format!("{{spare: {{concurrency: {c}, queues: {q}}}}}")),
        ),
        opt(0.2, int_in(1..4)),
        costs(g),
    )
        .prop_map(|(c, q, caps, p, costs)| {
            let mut m = Vec::new();
            m.extend(c.map(|c| kv("concurrency", c)));
            m.extend(q.map(|q| kv("queues", q)));
            m.extend(caps.map(|c| kv("capsules", c)));
            m.extend(p.map(|p| kv("processes", p)));
            m.extend(costs.map(|c| kv("costs", c)));
            flow_map(&m)
        });
    let file = (opt(0.7, pick(&["production"])), opt(0.3, int_in(1..9))).prop_map(|(e, threads)| {
        let mut m = vec![kv("config", "@@P@@sidekiq.yml")];
        m.extend(e.map(|e| kv("environment", e)));
        m.extend(threads.map(|t| kv("env", format!("{{RAILS_MAX_THREADS: {t}}}"))));
        flow_map(&m)
    });
    let bad = pick(&[
        "{concurency: 2}",
        "{config: missing.yml}",
        "{config: \"\"}",
        "{environment: production}",
        "{config: @@P@@sidekiq.yml, environment: staging}",
        "{capsules: {default: {concurrency: 1, queues: [hi]}}}",
        "{capsules: {x: {queues: [hi]}}}",
        "{processes: 0}",
        "{queues: [nowhere]}",
        "{costs: {poll_interval: 1s}}",
    ]);
    noisy(g, prop_oneof![3 => inline, 2 => file].boxed(), bad)
        .prop_map(|s| format!("{{sidekiq: {s}}}"))
        .boxed()
}

fn solid_queue(g: G) -> BoxedStrategy<String> {
    let worker = (
        noisy(
            g,
            prop_oneof![2 => Just("\"*\"".to_string()), 1 => all_queues(), 1 => Just("[\"h*\", \"l*\", default, bulk, mid]".to_string())].boxed(),
            pick(&["\"*_x\"", "[\"\"]", "[nowhere*]", "{a: 1}"]),
        ),
        opt(0.7, int_in(1..6)),
        opt(0.3, int_in(1..3)),
        opt(0.6, noisy(g, pick(&["0.1", "1", "50ms", "2"]), pick(&["0", "-1", "soon"]))),
    )
        .prop_map(|(q, t, p, poll)| {
            let mut m = vec![kv("queues", q)];
            m.extend(t.map(|t| kv("threads", t)));
            m.extend(p.map(|p| kv("processes", p)));
            m.extend(poll.map(|p| kv("polling_interval", p)));
            flow_map(&m)
        });
    let inline = (prop::collection::vec(worker, 1..3), costs(g)).prop_map(|(w, c)| {
        let mut m = vec![kv("workers", format!("[{}]", w.join(", ")))];
        m.extend(c.map(|c| kv("costs", c)));
        flow_map(&m)
    });
    let file = (pick(&["production", "development"]), opt(0.3, int_in(1..4))).prop_map(|(e, n)| {
        let mut m = vec![kv("config", "@@P@@queue.yml"), kv("environment", e)];
        m.extend(n.map(|n| kv("env", format!("{{JOB_CONCURRENCY: {n}}}"))));
        flow_map(&m)
    });
    let bad = pick(&[
        "{workers: [{queues: \"*\", thread: 2}]}",
        "{workers: [{batch_size: 5}]}",
        "{workers: {queues: \"*\"}}",
        "{config: @@P@@queue.yml}",
        "{config: @@P@@queue.yml, workers: []}",
        "{config: @@P@@queue.yml, environment: staging}",
    ]);
    noisy(g, prop_oneof![3 => inline, 2 => file, 1 => Just("{}".to_string())].boxed(), bad)
        .prop_map(|s| format!("{{solid_queue: {s}}}"))
        .boxed()
}

fn good_job(g: G) -> BoxedStrategy<String> {
    let segment = prop_oneof![
        Just("*".to_string()),
        Just("+hi,lo,default,bulk,mid".to_string()),
        Just("hi,lo".to_string()),
        Just("-hi,lo".to_string()),
        Just("hi".to_string()),
    ];
    let string = (prop::collection::vec((segment, opt(0.5, int_in(1..5))), 1..4)).prop_map(|segs| {
        // the last segment takes every queue, so every class is polled
        let mut v: Vec<String> =
            segs.into_iter().map(|(s, t)| t.map_or(s.clone(), |t| format!("{s}:{t}"))).collect();
        v.push("*".into());
        format!("\"{}\"", v.join(";"))
    });
    let good = (
        opt(0.9, string),
        opt(0.3, int_in(1..8)),
        opt(0.3, pick(&["true", "false"])),
        opt(0.3, pick(&["1", "10", "0.5"])),
        opt(0.2, int_in(1..3)),
        costs(g),
    )
        .prop_map(|(q, t, n, p, pr, c)| {
            let mut m = Vec::new();
            m.extend(q.map(|q| kv("queues", q)));
            m.extend(t.map(|t| kv("max_threads", t)));
            m.extend(n.map(|n| kv("enable_listen_notify", n)));
            m.extend(p.map(|p| kv("poll_interval", p)));
            m.extend(pr.map(|p| kv("processes", p)));
            m.extend(c.map(|c| kv("costs", c)));
            flow_map(&m)
        });
    let bad = pick(&[
        "{queues: \"a:x\"}",
        "{queues: \"a,,b\"}",
        "{queues: \"a*\"}",
        "{max_thread: 2}",
        "{enable_listen_notify: false, poll_interval: 0}",
        "{queues: [a]}",
    ]);
    noisy(g, good.boxed(), bad).prop_map(|s| format!("{{good_job: {s}}}")).boxed()
}

fn bullmq(g: G) -> BoxedStrategy<String> {
    let limiter = (int_in(1..30), pick(&["1000", "250", "1s", "2500"]))
        .prop_map(|(m, d)| format!("{{max: {m}, duration: {d}}}"));
    let worker = (Just(()), opt(0.7, int_in(1..9)), opt(0.3, limiter)).prop_map(|(_, c, l)| (c, l));
    let good = (prop::collection::vec(worker, 1..3), costs(g)).prop_map(|(ws, c)| {
        // one queue per class, each with a worker; the first of `hi` may
        // carry the queue's limiter
        let mut items = Vec::new();
        for q in CLASSES {
            items.push(format!("{{queue: {q}}}"));
        }
        for (i, (conc, lim)) in ws.into_iter().enumerate() {
            let mut m = vec![kv("queue", "hi")];
            m.extend(conc.map(|c| kv("concurrency", c)));
            m.extend(lim.filter(|_| i == 0).map(|l| kv("limiter", l)));
            items.push(flow_map(&m));
        }
        let mut m = vec![kv("workers", format!("[{}]", items.join(", ")))];
        m.extend(c.map(|c| kv("costs", c)));
        flow_map(&m)
    });
    let bad = pick(&[
        "{workers: [{queue: hi, concurency: 2}]}",
        "{workers: [{queue: hi, limiter: {max: 2}}]}",
        "{workers: [{queue: hi, limiter: {max: 0, duration: 100}}]}",
        "{workers: [{queue: hi, limiter: {max: 1, duration: 1}}, {queue: hi, limiter: {max: 2, duration: 1}}]}",
        "{workers: []}",
        "{}",
    ]);
    noisy(g, good.boxed(), bad).prop_map(|s| format!("{{bullmq: {s}}}")).boxed()
}

fn rq(g: G) -> BoxedStrategy<String> {
    let worker = (opt(0.7, int_in(1..5)), all_queues(), opt(0.3, pick(&["default", "random"]))).prop_map(
        |(c, q, d)| {
            let mut m = Vec::new();
            m.extend(c.map(|c| kv("count", c)));
            m.push(kv("queues", q));
            m.extend(d.map(|d| kv("dequeue_strategy", d)));
            flow_map(&m)
        },
    );
    let good = (prop::collection::vec(worker, 1..3), opt(0.5, pick(&["24ms", "1ms", "0s", "300ms"])))
        .prop_map(|(w, f)| {
            let mut m = vec![kv("workers", format!("[{}]", w.join(", ")))];
            m.extend(f.map(|f| kv("fork", f)));
            flow_map(&m)
        });
    let bad = pick(&[
        "{workers: [{queues: [hi], dequeue_strategy: round_robin}]}",
        "{workers: [{count: 0}]}",
        "{workers: [{count: 1}], fork: 24ms, costs: {claim: 1ms}}",
        "{workers: [{count: 1}], forks: 1ms}",
    ]);
    noisy(g, good.boxed(), bad).prop_map(|s| format!("{{rq: {s}}}")).boxed()
}

/// A topology written as a processor preset.
pub fn preset(g: G) -> BoxedStrategy<String> {
    let bad =
        pick(&["{sidekik: {}}", "{sidekiq: {}, rq: {workers: [{}]}}", "{rq: {workers: [{}]}, pools: []}"]);
    noisy(g, prop_oneof![sidekiq(g), solid_queue(g), good_job(g), bullmq(g), rq(g)].boxed(), bad)
}

/// A `sidekiq.yml`: symbol keys, ERB, a production section.
pub fn sidekiq_yml(g: G) -> BoxedStrategy<Vec<u8>> {
    let good = (all_queues(), opt(0.5, int_in(1..9)), any::<bool>()).prop_map(|(q, c, erb)| {
        let conc = if erb { "<%= ENV.fetch(\"RAILS_MAX_THREADS\") { 3 } %>".to_string() } else { "4".into() };
        let mut s = format!(":concurrency: {conc}\n:timeout: 25\n:queues: {q}\n");
        if let Some(c) = c {
            s.push_str(&format!("production:\n  :concurrency: {c}\n"));
        }
        s
    });
    let bad = pick(&[
        ":concurency: 3\n",
        ":queues: [a\n",
        ":concurrency: <% 3 %>\n",
        ":concurrency: <%= ENV[\"X\"] %>\n",
        "- a\n",
        "production: 3\n",
        "\u{0}\n",
        ":queues: [\"hi,x\"]\n",
    ]);
    noisy(g, good.boxed(), bad).prop_map(String::into_bytes).boxed()
}

/// A Solid Queue `queue.yml` with an anchor, merges and sections.
pub fn queue_yml(g: G) -> BoxedStrategy<Vec<u8>> {
    let good = (any::<bool>(), int_in(1..5)).prop_map(|(list, t)| {
        let first = if list { "[hi, lo]" } else { "\"*\"" };
        format!(
            "default: &default\n  dispatchers:\n    - polling_interval: 1\n      batch_size: 500\n  workers:\n    - queues: {first}\n      threads: {t}\n      polling_interval: 0.1\n    - queues: \"*\"\n      threads: 2\n      processes: <%= ENV.fetch(\"JOB_CONCURRENCY\", 1) %>\n\ndevelopment:\n  <<: *default\n\nproduction:\n  <<: *default\n"
        )
    });
    let bad = pick(&[
        "workers:\n  - queues: \"*\"\n    thread: 2\n",
        "workers: [\n",
        "production:\n  workers:\n    - batch_size: 3\n",
        "production:\n  <<: *nothing\n",
        "production:\n  dispatchers: [{polling_interval: 1}]\n",
    ]);
    noisy(g, good.boxed(), bad).prop_map(String::into_bytes).boxed()
}

/// Celery task events and Sidekiq JSON log lines, mixed (a format reads
/// its own and passes over the other's).
pub fn event_log(g: G) -> BoxedStrategy<Vec<u8>> {
    let job = (
        0u32..50,
        0u32..3000,
        1u32..2000,
        prop::sample::select(TENANTS),
        prop::sample::select(CLASSES),
        any::<bool>(),
    );
    let good = prop::collection::vec(job, 0..12).prop_map(|jobs| {
        let mut out = String::new();
        for (i, (at, wait, run, tenant, class, sidekiq)) in jobs.into_iter().enumerate() {
            let t0 = 1_795_860_000.0 + f64::from(at) / 10.0;
            let start = t0 + f64::from(wait) / 1000.0;
            let run = f64::from(run) / 1000.0;
            if sidekiq {
                let ts = |t: f64| {
                    let ms = ((t - 1_795_860_000.0) * 1000.0).round() as u64;
                    format!("2026-11-28T10:{:02}:{:02}.{:03}Z", ms / 60_000, ms / 1000 % 60, ms % 1000)
                };
                out.push_str(&format!("{{\"ts\":\"{}\",\"msg\":\"start\",\"ctx\":{{\"jid\":\"j{i}\",\"queue\":\"{class}\",\"enqueued_at\":{},\"tenant\":\"{tenant}\"}}}}\n", ts(start), (t0 * 1000.0).round()));
                out.push_str(&format!("{{\"ts\":\"{}\",\"msg\":\"done\",\"ctx\":{{\"jid\":\"j{i}\",\"elapsed\":{run}}}}}\n", ts(start + run)));
            } else {
                out.push_str(&format!("{{\"type\":\"task-sent\",\"uuid\":\"u{i}\",\"queue\":\"{class}\",\"kwargs\":\"{{'tenant': '{tenant}'}}\",\"timestamp\":{t0}}}\n"));
                out.push_str(&format!("{{\"type\":\"task-started\",\"uuid\":\"u{i}\",\"timestamp\":{start}}}\n"));
                out.push_str(&format!("{{\"type\":\"task-succeeded\",\"uuid\":\"u{i}\",\"runtime\":{run},\"timestamp\":{}}}\n", start + run));
            }
        }
        out
    });
    let bad = pick(&[
        "{\"type\":\"task-sent\",\"uuid\":\"u\"}\n",
        "{\"ts\":\"x\",\"msg\":\"start\",\"ctx\":{\"jid\":\"j\"}}\n",
        "not json\n",
        "[1, 2]\n",
        "{\"type\":\"task-started\",\"uuid\":\"u\",\"timestamp\":1e300}\n",
        "{\"type\":\"task-sent\",\"uuid\":\"u\",\"timestamp\":-5,\"tenant\":\"A\"}\n{\"type\":\"task-started\",\"uuid\":\"u\",\"timestamp\":1}\n{\"type\":\"task-failed\",\"uuid\":\"u\",\"timestamp\":0}\n",
    ]);
    (good.boxed(), opt(0.1 * f64::from(g.noise), bad))
        .prop_map(|(mut s, b)| {
            if let Some(b) = b {
                s.push_str(&b);
            }
            s.into_bytes()
        })
        .boxed()
}

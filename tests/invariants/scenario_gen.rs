//! Random small scenarios for the invariant tests: tenants with weights and
//! caps, classes, several workload entries (batch, poisson or every
//! arrivals; constant, exponential or uniform service; failures with
//! retries; slices; deadlines), admission rules (`max_queued` and
//! `throttle` with `reject`, `retry` or `defer`), a resource, a topology
//! and one policy entry of [`POLICIES`].
//!
//! Scenario-wide choices keep every job's life readable from jobs.csv: all
//! `retry` rules share one `after` (so the n-th re-send of a job is at
//! arrival + n x after), and all sliced entries share one `slice` and
//! `resume_overhead` (so a sliced job's first slice is [start, start +
//! slice)).

use proptest::prelude::*;

/// Every registered policy, with the parameters it needs (label, entry).
pub const POLICIES: &[(&str, &str)] = &[
    ("fifo", "policy: fifo"),
    ("priority", "policy: priority"),
    ("round_robin", "policy: round_robin"),
    ("drr", "policy: drr"),
    ("drr-work", "policy: drr, cost: work"),
    ("drr-class", "policy: drr, over: class"),
    ("wfq", "policy: wfq, cost: work"),
    ("lottery", "policy: lottery"),
    ("share", "policy: share, window: 5s"),
    ("drf", "policy: drf"),
    ("aging", "policy: aging, step: 1s, max_boost: 2"),
    ("aging-long", "policy: aging, step: 300ms, max_boost: 1000"),
    ("bands", "policy: bands, floor: {c2: 0.2}, window: 5s"),
    ("reserve", "policy: reserve, class: c0, workers: 1"),
    ("edf", "policy: edf"),
    ("edf-drop", "policy: edf, order: slack, late: drop"),
    ("priority-rr", "policy: priority, then: round_robin"),
    ("hierarchical", "policy: hierarchical, then: drr"),
];

/// The topologies a case may run on (from docs/scenario.md, "Topologies"):
/// none, a throttle to a slow queue polled 4:1, and three overlapping
/// shards with one worker each.
pub const TOPOLOGIES: &[&str] = &["", "throttled", "shards"];

#[derive(Debug, Clone)]
pub enum Arrivals {
    Batch { count: u32, at_ms: u32 },
    Poisson { per_s: u32, count: u32 },
    Every { ms: u32, count: u32 },
}

#[derive(Debug, Clone)]
pub enum Service {
    Constant(u32),
    Exponential(u32),
    Uniform(u32, u32),
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub tenant: usize,
    pub class: usize,
    pub arrivals: Arrivals,
    pub service: Service,
    /// (probability in %, max_attempts)
    pub failure: Option<(u32, u32)>,
    pub sliced: bool,
    pub deadline_ms: Option<u32>,
    pub cpu: u32,
}

#[derive(Debug, Clone)]
pub enum Scope {
    All,
    Each,
    One(usize),
}

#[derive(Debug, Clone)]
pub enum Limit {
    Queued(u32),
    Bucket { per_s: u32, burst: u32 },
    Window { limit: u32, window_ms: u32 },
}

#[derive(Debug, Clone)]
pub enum Action {
    Reject,
    Retry { retries: u32 },
    Defer { by_ms: u32 },
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub tenant: Scope,
    pub class: Scope,
    pub limit: Limit,
    pub action: Action,
}

#[derive(Debug, Clone)]
pub struct Gen {
    pub seed: u64,
    pub workers: u32,
    /// (weight, cap) per tenant `T0`, `T1`, ...
    pub tenants: Vec<(f64, Option<u32>)>,
    /// Priorities of the classes `c0`, `c1`, `c2`.
    pub priorities: [i32; 3],
    pub entries: Vec<Entry>,
    pub rules: Vec<Rule>,
    /// The `after` of every `retry` rule.
    pub after_ms: u32,
    /// The `slice` and `resume_overhead` of every sliced entry.
    pub slice_ms: (u32, u32),
    pub policy: usize,
    pub hold: bool,
    pub topology: usize,
    /// A `cpu: 4` resource (entries then cost `cpu`).
    pub cpu: bool,
}

fn arrivals() -> impl Strategy<Value = Arrivals> {
    prop_oneof![
        (1u32..16, 0u32..3000).prop_map(|(count, at_ms)| Arrivals::Batch { count, at_ms }),
        (1u32..6, 1u32..16).prop_map(|(per_s, count)| Arrivals::Poisson { per_s, count }),
        (50u32..2000, 1u32..12).prop_map(|(ms, count)| Arrivals::Every { ms, count }),
    ]
}

fn service() -> impl Strategy<Value = Service> {
    prop_oneof![
        (1u32..2500).prop_map(Service::Constant),
        (1u32..2500).prop_map(Service::Exponential),
        (1u32..2000, 0u32..2000).prop_map(|(a, d)| Service::Uniform(a, a + d)),
    ]
}

fn entry() -> impl Strategy<Value = Entry> {
    (
        0usize..4,
        0usize..3,
        arrivals(),
        service(),
        prop::option::weighted(0.4, (1u32..60, 1u32..5)),
        prop::bool::weighted(0.2),
        prop::option::weighted(0.3, 200u32..6000),
        0u32..5,
    )
        .prop_map(|(tenant, class, arrivals, service, failure, sliced, deadline_ms, cpu)| Entry {
            tenant,
            class,
            arrivals,
            service,
            failure,
            sliced,
            deadline_ms,
            cpu,
        })
}

fn scope(n: usize) -> impl Strategy<Value = Scope> {
    prop_oneof![Just(Scope::All), Just(Scope::Each), (0..n).prop_map(Scope::One)]
}

fn rule() -> impl Strategy<Value = Rule> {
    let limit = prop_oneof![
        3 => (1u32..6).prop_map(Limit::Queued),
        1 => (1u32..5, 1u32..4).prop_map(|(per_s, burst)| Limit::Bucket { per_s, burst }),
        1 => (1u32..5, 100u32..3000).prop_map(|(limit, window_ms)| Limit::Window { limit, window_ms }),
    ];
    let action = prop_oneof![
        Just(Action::Reject),
        (1u32..4).prop_map(|retries| Action::Retry { retries }),
        (100u32..3000).prop_map(|by_ms| Action::Defer { by_ms }),
    ];
    (scope(4), scope(3), limit, action).prop_map(|(tenant, class, limit, action)| Rule {
        tenant,
        class,
        limit,
        action,
    })
}

pub fn gen() -> impl Strategy<Value = Gen> {
    (
        any::<u64>(),
        1u32..5,
        prop::collection::vec(
            (prop::sample::select(vec![0.5, 1.0, 2.0, 3.0]), prop::option::of(1u32..3)),
            1..5,
        ),
        [1i32..6, 1i32..6, 1i32..6],
        prop::collection::vec(entry(), 1..6),
        prop::collection::vec(rule(), 0..3),
        (100u32..2000, (50u32..1000, 0u32..100)),
        (
            0..POLICIES.len(),
            any::<bool>(),
            prop::sample::select(vec![0usize, 0, 0, 1, 2]),
            prop::bool::weighted(0.2),
        ),
        prop::bool::weighted(0.35),
    )
        .prop_map(
            |(
                seed,
                workers,
                tenants,
                priorities,
                entries,
                rules,
                (after_ms, slice_ms),
                (policy, hold, topology, cpu),
                plain,
            )| {
                let mut g = Gen {
                    seed,
                    workers,
                    tenants,
                    priorities,
                    entries,
                    rules,
                    after_ms,
                    slice_ms,
                    policy,
                    hold,
                    topology,
                    cpu,
                };
                if plain {
                    g.make_plain();
                }
                g
            },
        )
}

fn scope_yaml(key: &str, s: &Scope, prefix: &str, n: usize) -> String {
    match s {
        Scope::All => String::new(),
        Scope::Each => format!("{key}: \"*\", "),
        Scope::One(i) => format!("{key}: {prefix}{}, ", i % n),
    }
}

fn ms(v: u32) -> String {
    format!("{v}ms")
}

impl Gen {
    /// Drops what makes a job's life unreadable from jobs.csv or lets the
    /// engine hold a job back: caps, resources, topologies, slices, third
    /// attempts and deadlines (so that work conservation and aging's order
    /// are checked in about a third of the cases).
    fn make_plain(&mut self) {
        self.tenants.iter_mut().for_each(|t| t.1 = None);
        (self.cpu, self.topology) = (false, 0);
        for e in &mut self.entries {
            (e.sliced, e.deadline_ms) = (false, None);
            if let Some(f) = e.failure.as_mut() {
                f.1 = f.1.min(2);
            }
        }
    }

    pub fn yaml(&self) -> String {
        let n = self.tenants.len();
        let mut s =
            format!("name: prop\nseed: {}\nworkers: {}\nlog: {{tick: 500ms}}\n", self.seed, self.workers);
        if self.cpu {
            s.push_str("resources: {cpu: 4}\n");
        }
        s.push_str("tenants:\n");
        for (i, (w, cap)) in self.tenants.iter().enumerate() {
            let cap = cap.map(|c| format!(", cap: {c}")).unwrap_or_default();
            s.push_str(&format!("  T{i}: {{weight: {w}{cap}}}\n"));
        }
        s.push_str("classes:\n");
        for (i, p) in self.priorities.iter().enumerate() {
            s.push_str(&format!("  c{i}: {{priority: {p}}}\n"));
        }
        s.push_str("workload:\n");
        for e in &self.entries {
            let arrivals = match e.arrivals {
                Arrivals::Batch { count, at_ms } => {
                    format!("arrivals: {{batch: {count}, at: {}}}", ms(at_ms))
                }
                Arrivals::Poisson { per_s, count } => {
                    format!("arrivals: {{poisson: {per_s}/s, count: {count}}}")
                }
                Arrivals::Every { ms: m, count } => format!("arrivals: {{every: {}, count: {count}}}", ms(m)),
            };
            let service = match e.service {
                Service::Constant(m) => format!("{{constant: {}}}", ms(m)),
                Service::Exponential(m) => format!("{{exponential: {}}}", ms(m)),
                Service::Uniform(a, b) => format!("{{uniform: {{min: {}, max: {}}}}}", ms(a), ms(b)),
            };
            let mut extra = String::new();
            if let Some((p, max)) = e.failure {
                extra.push_str(&format!(", failure: {{probability: 0.{p:02}, max_attempts: {max}}}"));
            }
            if e.sliced {
                let (slice, overhead) = self.slice_ms;
                extra.push_str(&format!(", slice: {}", ms(slice)));
                if overhead > 0 {
                    extra.push_str(&format!(", resume_overhead: {}", ms(overhead)));
                }
            }
            if let Some(d) = e.deadline_ms {
                extra.push_str(&format!(", deadline: {}", ms(d)));
            }
            if self.cpu {
                extra.push_str(&format!(", cost: {{cpu: {}}}", e.cpu));
            }
            s.push_str(&format!(
                "  - {{tenant: T{}, class: c{}, {arrivals}, service: {service}{extra}}}\n",
                e.tenant % n,
                e.class
            ));
        }
        if !self.rules.is_empty() {
            s.push_str("admission:\n");
        }
        for r in &self.rules {
            let limit = match r.limit {
                Limit::Queued(q) => format!("max_queued: {q}"),
                Limit::Bucket { per_s, burst } => format!("throttle: {{rate: {per_s}/s, burst: {burst}}}"),
                Limit::Window { limit, window_ms } => {
                    format!("throttle: {{limit: {limit}, window: {}}}", ms(window_ms))
                }
            };
            let action = match r.action {
                Action::Reject => "action: reject".to_string(),
                Action::Retry { retries } => {
                    format!("action: retry, after: {}, retries: {retries}", ms(self.after_ms))
                }
                Action::Defer { by_ms } => format!("action: defer, by: {}", ms(by_ms)),
            };
            s.push_str(&format!(
                "  - {{{}{}{limit}, {action}}}\n",
                scope_yaml("tenant", &r.tenant, "T", n),
                scope_yaml("class", &r.class, "c", 3)
            ));
        }
        let topology = TOPOLOGIES[self.topology];
        match topology {
            "throttled" => s.push_str(&format!(
                "topologies:\n  throttled:\n    queues: [main, slow]\n    \
                 route: [{{throttle: {{rate: 2/s, burst: 3}}, to: slow}}, {{to: main}}]\n    \
                 pools: [{{name: all, workers: {}, queues: [main, slow], poll: weighted, weights: [4, 1]}}]\n",
                self.workers
            )),
            "shards" => s.push_str(
                "topologies:\n  shards:\n    queues: [{prefix: s, count: 3}]\n    \
                 route: [{shard: {count: 3, prefix: s}}]\n    \
                 pools: [{name: p, count: 3, workers: 1, queues: [\"s{i}\", \"s{i+1}\"], poll: random}]\n",
            ),
            _ => {}
        }
        let (label, entry) = POLICIES[self.policy];
        let spare = if self.hold { "hold" } else { "lend" };
        let topology = if topology.is_empty() { String::new() } else { format!(", topology: {topology}") };
        s.push_str(&format!("policies:\n  - {{label: {label}, spare: {spare}{topology}, {entry}}}\n"));
        s
    }
}

//! "The contenders": each entry of the comparison in words, from its
//! scenario entry: the policy and its parameters, the topology (queues,
//! routing, pools and polling), admission, slices and the entry's own
//! tenant overrides, so a reviewer knows what each label stands for.

use super::words::{and_list, count, plural, some_of};
use super::{esc, Run};
use crate::model::{
    AdmissionChoice, PolicySpec, Poll, RouteAction, Scenario, Spare, Throttle, TopologySpec, Value,
};
use crate::results::human_duration;
use crate::time::to_secs_f64;

/// Queues or pools named before the rest are counted instead.
const NAMED: usize = 4;

fn secs(t: u64) -> String {
    human_duration(to_secs_f64(t))
}

/// A parameter value in words.
fn value(v: &Value, sc: &Scenario) -> String {
    let tenant = |t: &u32| sc.tenants.name(*t).into_owned();
    let class = |c: &u16| sc.classes.get(usize::from(*c)).map_or(c.to_string(), |k| k.name.clone());
    match v {
        Value::Duration(t) => secs(*t),
        Value::Number(x) => format!("{x}"),
        Value::Count(n) => n.to_string(),
        Value::Word(w) => w.to_string(),
        Value::Tenants(ts) => some_of(&ts.iter().map(tenant).collect::<Vec<_>>(), NAMED),
        Value::Class(c) => class(c),
        Value::ClassFractions(f) => {
            f.iter().map(|(c, x)| format!("{} {x}", class(c))).collect::<Vec<_>>().join(", ")
        }
        Value::Policy(p) => policy_words(p, sc),
    }
}

/// `drr (cost work, quantum 1s)`.
fn policy_words(p: &PolicySpec, sc: &Scenario) -> String {
    let params: Vec<String> =
        p.params.names().filter_map(|n| Some(format!("{n} {}", value(p.params.value(n)?, sc)))).collect();
    match params.is_empty() {
        true => p.kind.clone(),
        false => format!("{} ({})", p.kind, params.join(", ")),
    }
}

fn queue_names(t: &TopologySpec, qs: &[u16]) -> String {
    let names: Vec<String> = qs.iter().filter_map(|q| t.queues.get(usize::from(*q)).cloned()).collect();
    some_of(&names, NAMED)
}

/// A topology in words: its queues, where jobs go, and who polls what.
fn topology(t: &TopologySpec, sc: &Scenario) -> String {
    let all: Vec<u16> = (0..t.queues.len() as u16).collect();
    let mut parts = vec![format!(
        "topology <code>{}</code>: {} queue{} ({})",
        esc(&t.name),
        count(t.queues.len() as u64),
        plural(t.queues.len() as u64),
        esc(&queue_names(t, &all))
    )];
    let rules: Vec<String> = t
        .route
        .iter()
        .map(|r| {
            let mut who = Vec::new();
            if !r.classes.is_empty() {
                let c: Vec<String> = r.classes.iter().filter_map(|c| sc.classes.get(usize::from(*c))).map(|c| c.name.clone()).collect();
                who.push(format!("{} jobs", and_list(&c)));
            }
            if !r.tenants.is_empty() {
                let n: Vec<String> = r.tenants.iter().map(|t| sc.tenants.name(*t).into_owned()).collect();
                who.push(format!("jobs of {}", some_of(&n, NAMED)));
            }
            let who = if who.is_empty() { "every other job".to_string() } else { who.join(", ") };
            let to = |q: &u16| t.queues.get(usize::from(*q)).cloned().unwrap_or_default();
            match &r.action {
                RouteAction::To(q) => format!("{who} to {}", to(q)),
                RouteAction::ClassQueue => format!("{who} to the queue named as its class"),
                RouteAction::Shard { queues } => {
                    format!("{who} sharded by tenant over {} queues", queues.len())
                }
                RouteAction::ShuffleShard { queues, per_tenant } => format!(
                    "{who} shuffle-sharded: each tenant owns {per_tenant} of {} queues and each job goes to one of them at random",
                    queues.len()
                ),
                RouteAction::Throttle { limit, to: q } => {
                    let l = match limit {
                        Throttle::Bucket { rate, burst } => format!("{rate}/s (burst {burst})"),
                        Throttle::Window { limit, window } => format!("{limit} per sliding {}", secs(*window)),
                        Throttle::Fixed { limit, per } => format!("{limit} per {}", secs(*per)),
                    };
                    format!("{who} to {} beyond {l} per tenant", to(q))
                }
            }
        })
        .collect();
    if !rules.is_empty() {
        parts.push(format!("routing {}", esc(&rules.join("; "))));
    }
    if let Some(p) = &t.planner {
        parts.push(format!(
            "a planner that every {} promotes {} jobs chosen by {} from per-tenant virtual queues",
            secs(p.interval),
            p.batch,
            esc(&p.policy)
        ));
    }
    let pool = |p: &crate::model::PoolSpec| {
        let poll = match &p.poll {
            Poll::Strict if p.queues.len() > 1 => " in strict order".to_string(),
            Poll::Strict => String::new(),
            Poll::Weighted(w) => {
                let w: Vec<String> = w.iter().map(|x| format!("{x}")).collect();
                format!(" weighted {}", w.join(":"))
            }
            Poll::Merged => {
                " as one queue (the first job in the policy's order, whichever queue holds it)".to_string()
            }
        };
        let batch =
            if p.batch > 1 { format!(", claiming {} jobs per fetch", p.batch) } else { String::new() };
        format!(
            "pool {} of {} worker{} polling {}{poll}{batch}",
            p.name,
            p.workers,
            plural(u64::from(p.workers)),
            queue_names(t, &p.queues)
        )
    };
    let n = t.pools.len();
    let one_each =
        n > NAMED && t.pools.iter().all(|p| p.queues.len() == 1 && p.workers == t.pools[0].workers);
    if one_each {
        let w = t.pools[0].workers;
        parts.push(format!(
            "{n} pools of {w} worker{} each, every pool polling one queue of its own ({} workers in all)",
            plural(u64::from(w)),
            t.workers()
        ));
    } else {
        let shown: Vec<String> = t.pools.iter().take(NAMED).map(pool).collect();
        let more = if n > NAMED { format!(" and {} more pools", n - NAMED) } else { String::new() };
        parts.push(format!("{}{more}", esc(&shown.join("; "))));
    }
    parts.join("; ")
}

/// One entry in words (HTML).
fn entry(p: &PolicySpec, sc: &Scenario) -> String {
    let info = crate::policy::find(&p.kind);
    let ordering = esc(&policy_words(p, sc));
    let mut parts = Vec::new();
    match p.topology.and_then(|i| sc.topologies.get(i)) {
        Some(t) => {
            parts.push(format!("policy {ordering} orders the jobs inside each queue"));
            parts.push(topology(t, sc));
        }
        None => {
            let what = info.map_or(String::new(), |i| format!(": {}", esc(i.summary)));
            let w = sc.workers;
            let pool = if w == u32::MAX {
                "the pool".into()
            } else {
                format!("all {} workers", count(u64::from(w)))
            };
            parts.push(format!("policy {ordering}{what}; one queue served by {pool}"));
        }
    }
    match p.admission {
        AdmissionChoice::Shared if !sc.admission.is_empty() => parts.push(format!(
            "the scenario's admission rules ({})",
            esc(&and_list(&sc.admission.iter().map(|r| r.name.clone()).collect::<Vec<_>>()))
        )),
        AdmissionChoice::Shared => {}
        AdmissionChoice::Off => parts.push("no admission rules (every job taken)".into()),
        AdmissionChoice::Set(i) => {
            if let Some(s) = sc.admission_sets.get(i) {
                parts.push(format!("admission set <code>{}</code> ({} rules)", esc(&s.name), s.rules.len()));
            }
        }
    }
    if let Some(s) = p.slice {
        parts.push(format!(
            "jobs yield every {} of service ({} to resume)",
            secs(s.slice),
            secs(s.resume_overhead)
        ));
    }
    if let Some(d) = p.cap_delay {
        parts.push(format!("a job refused at its tenant's cap is claimable again only {} later", secs(d)));
    }
    if p.spare == Spare::Hold {
        parts.push("caps held strictly, even with workers idle (spare: hold)".into());
    }
    let changes: Vec<String> = p
        .tenants
        .iter()
        .map(|c| {
            let name = sc.tenants.name(c.id).into_owned();
            let mut what = Vec::new();
            if let Some(cap) = c.cap {
                what.push(format!("capped at {cap} running job{}", plural(u64::from(cap))));
            }
            if let Some(w) = c.weight {
                what.push(format!("weight {w}"));
            }
            format!("{name} {}", and_list(&what))
        })
        .collect();
    if !changes.is_empty() {
        parts.push(format!("this entry's own tenants: {}", esc(&some_of(&changes, NAMED))));
    }
    parts.join("; ")
}

/// Writes the section.
pub(super) fn section(run: &Run, out: &mut String) {
    out.push_str("<h2 id=\"contenders\">The contenders</h2>\n");
    out.push_str(&format!(
        "<p class=\"note\">{} entries, each run on the same arrivals.</p>\n<ul class=\"contenders\">\n",
        run.labels.len()
    ));
    let kind = |label: &str| {
        let cmp = run.comparison;
        cmp.rows
            .iter()
            .find(|r| super::verdict::cell(cmp, r, "policy") == label)
            .map(|r| super::verdict::cell(cmp, r, "kind").to_string())
            .unwrap_or_default()
    };
    for label in run.labels {
        let spec = run.sc.and_then(|sc| Some((sc.policies.iter().find(|p| &p.label == label)?, sc)));
        let words = match spec {
            Some((p, sc)) => entry(p, sc),
            None => format!("policy {} given on the command line", esc(&kind(label))),
        };
        out.push_str(&format!("<li><strong>{}</strong>: {words}.</li>\n", esc(label)));
    }
    out.push_str("</ul>\n");
}

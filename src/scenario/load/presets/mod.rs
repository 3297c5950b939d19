//! Processor presets: a topology described in a processor's own terms
//! (`topologies: {prod: {sidekiq: {concurrency: 8, queues: [...]}}}`, or
//! `{solid_queue: {config: config/queue.yml}}`), expanded here into what
//! every topology is made of: queues, a routing rule, pools with their poll
//! order and dispatch costs. Nothing downstream sees a processor's name;
//! `fairsim validate` prints the expansion as YAML a user could paste.
//!
//! Each processor's file reads its settings into worker groups ([`Group`]):
//! how many workers, which queues in which order, the poll interval; this
//! file turns the groups into pools. A job goes to the queue named as its
//! class (`route: [{to: "{class}"}]`, the class's `/p<N>` priority suffix
//! aside), as a processor's job names its queue. The queues are the names
//! the preset writes, then those of the scenario's classes, which
//! wildcards (`*`, `prefix*`, GoodJob's `-a,b`) range over. Why presets are
//! topologies: a topology is what several policy entries compare, so one
//! scenario can run Sidekiq's strict and weighted lists side by side, or the
//! same deployment under another order inside its queues.

mod bullmq;
mod config;
mod good_job;
mod rq;
mod sidekiq;
mod solid_queue;
mod value;

use serde_saphyr::Spanned;

use super::Builder;
use crate::error::Result;
use crate::model::*;
use crate::scenario::raw::{RawTopology, RawValue};
use crate::time::Time;

use value::Src;

/// A set of identical workers, as the processor describes them.
pub(super) struct Group {
    /// The pool's name.
    pub name: String,
    pub workers: u64,
    pub select: Select,
    /// How long a worker that found nothing waits before it looks again.
    pub poll_interval: Time,
    /// The processor's own cost of starting each job (RQ's fork).
    pub claim: Option<Time>,
    pub limiter: Option<StartLimit>,
    /// Where the group is written, for errors about it: (line, column) in `file`.
    pub file: std::path::PathBuf,
    pub via: String,
    pub at: (usize, usize),
}

/// Which queues a group's workers take jobs from, and how they choose.
pub(super) enum Select {
    /// In list order; a prefix matches the known queues in their order.
    Strict(Vec<Pat>),
    /// A weighted random order per fetch (Sidekiq's `-q a,6 -q b,3`).
    Weighted(Vec<(String, f64)>),
    /// The queues as one, in the policy's order.
    Merged(Vec<Pat>),
    /// Every known queue but these, as one (GoodJob's `-a,b`).
    MergedExcept(Vec<String>),
}

/// A queue name in a list, or a wildcard.
pub(super) enum Pat {
    Name(String),
    /// `prefix*`: the known queues whose name starts with the prefix.
    Prefix(String),
    /// `*`: every known queue.
    All,
}

/// What a processor's reader found.
pub(super) struct Described {
    pub processor: &'static str,
    /// The policy that orders a queue as the processor does.
    pub order: &'static str,
    pub groups: Vec<Group>,
    /// Where the settings came from, for `validate`.
    pub source: String,
    pub notes: Vec<String>,
    /// The preset's own `costs:` (claim, refusal, finish), on every pool.
    pub costs: PresetCosts,
    /// The config file it read: as written, and where.
    pub files: Vec<(String, std::path::PathBuf)>,
}

/// The dispatch costs a preset's `costs:` sets; `None`: inherited.
#[derive(Default)]
pub(super) struct PresetCosts {
    pub claim: Option<(Time, (usize, usize))>,
    pub refusal: Option<Time>,
    pub finish: Option<Time>,
}

/// The keys of a topology a preset writes by itself.
const HAND_KEYS: [&str; 4] = ["queues", "route", "pools", "planner"];

impl Builder<'_> {
    /// The topology a processor preset describes, if `t` is one.
    pub(super) fn preset_topology(
        &self,
        name: &str,
        t: &Spanned<RawTopology>,
    ) -> Result<Option<(TopologySpec, PresetNote)>> {
        let r = &t.value;
        let presets = [
            ("sidekiq", &r.sidekiq),
            ("solid_queue", &r.solid_queue),
            ("good_job", &r.good_job),
            ("bullmq", &r.bullmq),
            ("rq", &r.rq),
        ];
        let mut given = presets.iter().filter_map(|(k, v)| v.as_ref().map(|v| (*k, v)));
        let Some((key, v)) = given.next() else { return Ok(None) };
        if let Some((other, w)) = given.next() {
            return Err(self.err_at(
                w,
                format!("topology `{name}` already is a `{key}` deployment; a topology takes one processor preset (declare `{other}` as another topology)"),
            ));
        }
        let hand = [r.queues.is_some(), r.route.is_some(), r.pools.is_some(), r.planner.is_some()];
        if let Some(i) = hand.iter().position(|h| *h) {
            return Err(self.err_at(
                v,
                format!("topology `{name}`: a `{key}` preset writes the whole topology, so it takes no `{}`; remove it, or write the topology by hand (`fairsim validate` prints what the preset expands to)", HAND_KEYS[i]),
            ));
        }
        let src = Src::scenario(self.error_path());
        let d = match key {
            "sidekiq" => sidekiq::read(self, &src, v)?,
            "solid_queue" => solid_queue::read(self, &src, v)?,
            "good_job" => good_job::read(self, &src, v)?,
            "bullmq" => bullmq::read(self, &src, v)?,
            _ => rq::read(self, &src, v)?,
        };
        let spec = self.expand(name, v, &d)?;
        let note = PresetNote {
            topology: 0,
            processor: d.processor,
            order: d.order,
            source: d.source,
            notes: d.notes,
            files: d.files,
        };
        Ok(Some((spec, note)))
    }

    /// The preset's `costs: {claim, refusal, finish}`: fairsim's dispatch
    /// costs, measured on the deployment. The poll interval is the
    /// processor's own setting, so it is refused here.
    fn preset_costs(&self, src: &Src, v: &Spanned<RawValue>) -> Result<PresetCosts> {
        let mut c = PresetCosts::default();
        for e in src.entries(v, "`costs`", &["claim", "refusal", "finish", "poll_interval"])? {
            let d = src.seconds(e.value, &format!("costs.{}", e.key))?;
            match e.key.as_str() {
                "claim" => c.claim = Some((d, super::pos(e.value))),
                "refusal" => c.refusal = Some(d),
                "finish" => c.finish = Some(d),
                _ => {
                    return Err(src.err(
                        e.at,
                        "a preset's poll interval is the processor's own setting (Solid Queue's `polling_interval`, GoodJob's `poll_interval`); remove `costs.poll_interval`",
                    ))
                }
            }
        }
        Ok(c)
    }

    /// The names a preset's wildcards range over, besides those it writes:
    /// the queues of the scenario's classes (`default` when a generator
    /// entry has no class).
    fn class_queues(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let from = usize::from(!self.classless);
        for c in &self.classes[from..] {
            let q = queue_of_class(&c.name);
            if !out.iter().any(|o| o == q) {
                out.push(q.to_string());
            }
        }
        out
    }

    /// Turns the groups into the topology: queues, routing by class, pools.
    fn expand(&self, name: &str, at: &Spanned<RawValue>, d: &Described) -> Result<TopologySpec> {
        let mut known: Vec<String> = Vec::new();
        let add = |n: &str, known: &mut Vec<String>| {
            if !known.iter().any(|k| k == n) {
                known.push(n.to_string());
            }
        };
        for g in &d.groups {
            match &g.select {
                Select::Strict(p) | Select::Merged(p) => {
                    for pat in p {
                        if let Pat::Name(n) = pat {
                            add(n, &mut known);
                        }
                    }
                }
                Select::Weighted(w) => w.iter().for_each(|(n, _)| add(n, &mut known)),
                Select::MergedExcept(_) => {}
            }
        }
        let classes = self.class_queues();
        for c in &classes {
            add(c, &mut known);
        }
        let mut polled = vec![false; known.len()];
        let mut pools: Vec<(Vec<usize>, Poll, &Group)> = Vec::new();
        for g in &d.groups {
            let (queues, poll) = resolve(&g.select, &known);
            if queues.is_empty() {
                return Err(crate::error::Error::input(
                    &g.file,
                    g.at.0,
                    g.at.1,
                    format!("{}: its queues match no queue of the scenario (the preset's names and its classes' queues: {}); declare the class whose jobs it serves, or fix the pattern{}", g.name, known.join(", "), g.via),
                ));
            }
            for &q in &queues {
                polled[q] = true;
            }
            pools.push((queues, poll, g));
        }
        if let Some(q) = polled.iter().position(|p| !p) {
            return Err(self.err_at(
                at,
                format!("topology `{name}`: class `{}` sends its jobs to queue `{}`, which no worker of this {} deployment polls, so they would never run; add the queue to a worker's list", classes.iter().find(|c| **c == known[q]).map_or(known[q].as_str(), |c| c.as_str()), known[q], d.processor),
            ));
        }
        // queues in the order written, those no pool polls left out above
        let mut out = Vec::with_capacity(pools.len());
        for (queues, poll, g) in pools {
            out.push(self.preset_pool(g, queues, poll, &d.costs)?);
        }
        let mut seen = std::collections::HashSet::new();
        for p in &out {
            if !seen.insert(p.name.clone()) {
                return Err(self.err_at(
                    at,
                    format!(
                        "topology `{name}`: two worker groups are both named `{}`; name them apart",
                        p.name
                    ),
                ));
            }
        }
        let total: u64 = out.iter().map(|p| u64::from(p.workers)).sum();
        if total > u64::from(u32::MAX - 1) {
            return Err(self.err_at(
                at,
                format!("topology `{name}` has {total} workers in all; fairsim allows 4,294,967,294"),
            ));
        }
        if known.len() > MAX_QUEUES {
            return Err(self.err_at(
                at,
                format!(
                    "topology `{name}` has {} queues; a topology holds at most {MAX_QUEUES}",
                    known.len()
                ),
            ));
        }
        Ok(TopologySpec {
            name: name.to_string(),
            queues: known,
            route: vec![RouteRule {
                classes: Vec::new(),
                tenants: Vec::new(),
                action: RouteAction::ClassQueue,
            }],
            pools: out,
            planner: None,
        })
    }

    /// One group's pool, with the dispatch costs: the top-level ones, then
    /// the preset's `costs:`, then the processor's own poll interval and
    /// start cost.
    fn preset_pool(&self, g: &Group, queues: Vec<usize>, poll: Poll, c: &PresetCosts) -> Result<PoolSpec> {
        let mut costs = self.costs;
        if let Some((claim, _)) = c.claim {
            costs.claim = claim;
        }
        costs.refusal = c.refusal.unwrap_or(costs.refusal);
        costs.finish = c.finish.unwrap_or(costs.finish);
        costs.poll_interval = g.poll_interval;
        if let Some(start) = g.claim {
            if let Some((_, (l, col))) = c.claim {
                return Err(self.err_line(
                    l,
                    col,
                    format!(
                        "{} already costs {} s per start (the processor's own setting); remove `costs.claim`",
                        g.name,
                        crate::time::fmt_secs(start)
                    ),
                ));
            }
            costs.claim = start;
        }
        let workers = u32::try_from(g.workers).ok().filter(|w| *w < u32::MAX).ok_or_else(|| {
            crate::error::Error::input(
                &g.file,
                g.at.0,
                g.at.1,
                format!("{} has {} workers; fairsim allows 4,294,967,294{}", g.name, g.workers, g.via),
            )
        })?;
        Ok(PoolSpec {
            name: g.name.clone(),
            workers,
            queues: queues.into_iter().map(|q| q as QueueId).collect(),
            poll,
            batch: 1,
            costs,
            limiter: g.limiter,
            prefetch: None,
        })
    }
}

/// A group's queues (indices into `known`) and poll order.
fn resolve(select: &Select, known: &[String]) -> (Vec<usize>, Poll) {
    let index = |n: &str| known.iter().position(|k| k == n);
    let mut out: Vec<usize> = Vec::new();
    let mut take = |q: usize, out: &mut Vec<usize>| {
        if !out.contains(&q) {
            out.push(q);
        }
    };
    let pats = |pats: &[Pat], out: &mut Vec<usize>, take: &mut dyn FnMut(usize, &mut Vec<usize>)| {
        for p in pats {
            match p {
                Pat::Name(n) => take(index(n).expect("every written name is known"), out),
                Pat::Prefix(pre) => (0..known.len())
                    .filter(|&q| known[q].starts_with(pre.as_str()))
                    .for_each(|q| take(q, out)),
                Pat::All => (0..known.len()).for_each(|q| take(q, out)),
            }
        }
    };
    let poll = match select {
        Select::Strict(p) => {
            pats(p, &mut out, &mut take);
            Poll::Strict
        }
        Select::Merged(p) => {
            pats(p, &mut out, &mut take);
            Poll::Merged
        }
        Select::MergedExcept(ex) => {
            (0..known.len()).filter(|&q| !ex.contains(&known[q])).for_each(|q| take(q, &mut out));
            Poll::Merged
        }
        Select::Weighted(w) => {
            let mut weights: Vec<f64> = Vec::new();
            for (n, x) in w {
                let q = index(n).expect("every written name is known");
                match out.iter().position(|&o| o == q) {
                    Some(i) => weights[i] += x,
                    None => {
                        out.push(q);
                        weights.push(*x);
                    }
                }
            }
            Poll::Weighted(weights)
        }
    };
    // one queue polled merged is polled strictly: the same, and open to
    // every policy
    let poll = if out.len() == 1 && poll == Poll::Merged { Poll::Strict } else { poll };
    (out, poll)
}

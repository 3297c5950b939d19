//! `topologies:`: queues, routing rules and pools, validated into
//! [`TopologySpec`]s. Every name is resolved here, so the runtime never looks
//! a queue up by name.

use std::collections::HashMap;

use serde_saphyr::Spanned;

use super::Builder;
use crate::error::Result;
use crate::model::*;
use crate::scenario::raw::*;
use crate::time::parse_rate;

/// Most tenants a shuffle shard may give each tenant (the subset is drawn
/// anew for every job, in time proportional to it).
const MAX_PER_TENANT: u32 = 64;
/// Most jobs a sliding-window throttle counts per tenant (it keeps their times).
const MAX_WINDOW_LIMIT: u32 = 100_000;
/// Most jobs a worker claims in one fetch.
const MAX_BATCH: u32 = 100_000;
/// Policies that can order a planner's ledger: those that choose among
/// tenants without caps, resources or deadlines (the ledger has none).
const LEDGER_POLICIES: [&str; 6] = ["round_robin", "drr", "wfq", "lottery", "share", "fifo"];

impl Builder<'_> {
    pub(super) fn build_topologies(
        &self,
        raw: Option<&Spanned<NamedMap<Spanned<RawTopology>>>>,
        workers: u32,
    ) -> Result<Vec<TopologySpec>> {
        let Some(map) = raw else { return Ok(Vec::new()) };
        let mut out = Vec::new();
        for (name, t) in &map.value.0 {
            if name.is_empty() {
                return Err(self.err_at(t, "a topology name is empty; name it, e.g. `throttled:`"));
            }
            out.push(match &t.value.planner {
                Some(p) => self.planner_topology(name, t, p, workers)?,
                None => self.topology(name, t)?,
            });
        }
        Ok(out)
    }

    fn topology(&self, name: &str, t: &Spanned<RawTopology>) -> Result<TopologySpec> {
        let queues = match &t.value.queues {
            Some(q) => self.queue_names(q)?,
            None => vec!["default".to_string()],
        };
        let index: HashMap<&str, QueueId> =
            queues.iter().enumerate().map(|(i, q)| (q.as_str(), i as QueueId)).collect();
        let mut route = Vec::new();
        if let Some(r) = &t.value.route {
            for rule in &r.value {
                route.push(self.route_rule(rule, &index)?);
            }
        }
        let pools = match &t.value.pools {
            Some(p) => self.pools(p, &index)?,
            None => {
                return Err(self.err_at(
                    t,
                    format!("topology `{name}` has no `pools:`; add e.g. `pools: [{{name: all, workers: 4, queues: [{}]}}]`", queues[0]),
                ))
            }
        };
        // a queue no pool polls would hold its jobs for ever
        let mut polled = vec![false; queues.len()];
        for p in &pools {
            for &q in &p.queues {
                polled[q as usize] = true;
            }
        }
        if let Some(q) = polled.iter().position(|p| !p) {
            return Err(self.err_at(
                t,
                format!("topology `{name}`: no pool polls queue `{}`, so its jobs would never run; add it to a pool's `queues` or remove it", queues[q]),
            ));
        }
        Ok(TopologySpec { name: name.to_string(), queues, route, pools, planner: None })
    }

    /// A planner in front of one queue, `main`, polled by one pool of the
    /// scenario's `workers` unless `pools` says otherwise.
    fn planner_topology(
        &self,
        name: &str,
        t: &Spanned<RawTopology>,
        p: &Spanned<RawPlanner>,
        workers: u32,
    ) -> Result<TopologySpec> {
        if let Some(q) = &t.value.queues {
            return Err(
                self.err_at(q, "a planner topology has one queue, `main`; remove `queues` (and `route`)")
            );
        }
        if let Some(r) = &t.value.route {
            return Err(self.err_at(
                r,
                "a planner topology has no routing: jobs enter the planner's ledger; remove `route`",
            ));
        }
        let index: HashMap<&str, QueueId> = [("main", 0)].into_iter().collect();
        let pools = match &t.value.pools {
            Some(pl) => {
                if let Some(b) = pl.value.iter().find_map(|p| p.value.batch.as_ref().filter(|b| b.value > 1))
                {
                    return Err(self.err_at(
                        b,
                        "claim batching is not modelled behind a planner (its main queue is claimed one job at a time); remove `batch`",
                    ));
                }
                if let Some(f) = pl.value.iter().find_map(|p| p.value.prefetch.as_ref()) {
                    return Err(self.err_at(
                        f,
                        "reservation ahead is not modelled behind a planner (the planner promotes jobs for its pool's free workers); remove `prefetch`",
                    ));
                }
                self.pools(pl, &index)?
            }
            None => vec![PoolSpec {
                name: "workers".into(),
                workers,
                queues: vec![0],
                poll: Poll::Strict,
                batch: 1,
                costs: self.costs,
                limiter: None,
                prefetch: None,
            }],
        };
        if pools.iter().any(|p| p.limiter.is_some()) {
            return Err(self.err_at(
                t,
                format!("topology `{name}`: a start limiter is not modelled behind a planner (the planner's pool claims promoted jobs); remove `limiter`"),
            ));
        }
        if pools.iter().any(|p| p.costs.poll_interval > 0) {
            return Err(self.err_at(
                t,
                format!("topology `{name}`: a planner's pool cannot sleep between polls (the planner hands promoted jobs to its workers at once); set `poll_interval: 0s` in its pool's or the top-level `costs`"),
            ));
        }
        let r = &p.value;
        let interval = self.pos_dur(&r.interval, "interval")?;
        if r.batch.value == 0 {
            return Err(
                self.err_at(&r.batch, "`batch` must be at least 1 (jobs promoted per planning round)")
            );
        }
        let busy = match (&r.latency_below, &r.depth_below) {
            (Some(l), None) => Busy::Latency(self.pos_dur(l, "latency_below")?),
            (None, Some(d)) if d.value > 0 => Busy::Depth(d.value),
            (None, Some(d)) => return Err(self.err_at(d, "`depth_below` must be at least 1")),
            (None, None) => Busy::Depth(u64::from(r.batch.value)),
            (Some(l), Some(_)) => {
                return Err(self.err_at(l, "give `latency_below` or `depth_below`, not both"))
            }
        };
        let policy = match &r.policy {
            None => "round_robin".to_string(),
            Some(n) if LEDGER_POLICIES.contains(&n.value.as_str()) => n.value.clone(),
            Some(n) => {
                return Err(self.err_at(
                    n,
                    format!(
                        "`policy: {}` cannot order a planner's ledger; use one of {}",
                        n.value,
                        LEDGER_POLICIES.join(", ")
                    ),
                ))
            }
        };
        let cost = |d: Option<&Spanned<Dur>>, key: &str| d.map_or(Ok(0), |d| self.dur(d, key));
        let c = r.cost.as_ref().map(|c| &c.value);
        Ok(TopologySpec {
            name: name.to_string(),
            queues: vec!["main".into()],
            route: Vec::new(),
            pools,
            planner: Some(PlannerSpec {
                interval,
                batch: r.batch.value,
                busy,
                policy,
                cost_base: cost(c.and_then(|c| c.base.as_ref()), "cost.base")?,
                cost_per_tenant: cost(
                    c.and_then(|c| c.per_active_tenant.as_ref()),
                    "cost.per_active_tenant",
                )?,
            }),
        })
    }

    /// `queues: [main, slow, {prefix: s, count: 10}]`.
    fn queue_names(&self, q: &Spanned<Vec<Spanned<RawValue>>>) -> Result<Vec<String>> {
        let mut out: Vec<String> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for item in &q.value {
            let names = match &item.value {
                RawValue::Scalar(t) if !t.text.trim().is_empty() => vec![t.text.trim().to_string()],
                RawValue::Map(m) => self.queue_range(item, m)?,
                _ => {
                    return Err(self.err_at(
                        item,
                        "a queue is a name such as `main`, or `{prefix: s, count: 10}` for s0..s9",
                    ))
                }
            };
            for n in names {
                if !seen.insert(n.clone()) {
                    return Err(
                        self.err_at(item, format!("queue `{n}` is declared twice; declare each queue once"))
                    );
                }
                out.push(n);
            }
        }
        if out.is_empty() {
            return Err(self.err_at(q, "`queues` is empty; list at least one queue, e.g. `[main]`"));
        }
        if out.len() > MAX_QUEUES {
            return Err(
                self.err_at(q, format!("{} queues; a topology holds at most {MAX_QUEUES}", out.len()))
            );
        }
        Ok(out)
    }

    fn queue_range(
        &self,
        item: &Spanned<RawValue>,
        m: &[(Spanned<String>, Spanned<RawValue>)],
    ) -> Result<Vec<String>> {
        let (mut prefix, mut count) = (None, None);
        for (k, v) in m {
            match (k.value.as_str(), &v.value) {
                ("prefix", RawValue::Scalar(t)) => prefix = Some(t.text.clone()),
                ("count", RawValue::Scalar(t)) => match t.text.parse::<usize>() {
                    Ok(n) if (1..=MAX_QUEUES).contains(&n) => count = Some(n),
                    _ => {
                        return Err(self.err_at(
                            v,
                            format!("`count: {}` must be a whole number from 1 to {MAX_QUEUES}", t.text),
                        ))
                    }
                },
                _ => {
                    return Err(self.err_at(
                        k,
                        format!(
                            "unknown key `{}` in a queue range; write `{{prefix: s, count: 10}}`",
                            k.value
                        ),
                    ))
                }
            }
        }
        match (prefix, count) {
            (Some(p), Some(n)) => Ok((0..n).map(|i| format!("{p}{i}")).collect()),
            _ => Err(self.err_at(
                item,
                "a queue range needs both `prefix` and `count`, e.g. `{prefix: s, count: 10}`",
            )),
        }
    }

    fn queue_ref(&self, at: &Spanned<String>, index: &HashMap<&str, QueueId>) -> Result<QueueId> {
        index.get(at.value.as_str()).copied().ok_or_else(|| {
            let mut names: Vec<&str> = index.keys().copied().collect();
            names.sort_unstable();
            names.truncate(12);
            self.err_at(
                at,
                format!(
                    "queue `{}` is not declared in this topology's `queues` (declared: {}); declare it or fix the name",
                    at.value,
                    names.join(", ")
                ),
            )
        })
    }

    /// Shard queues `prefix0..prefix{count-1}`, each declared.
    fn shard_queues(
        &self,
        count: &Spanned<u32>,
        prefix: Option<&Spanned<String>>,
        index: &HashMap<&str, QueueId>,
    ) -> Result<Vec<QueueId>> {
        if count.value == 0 || count.value as usize > MAX_QUEUES {
            return Err(self.err_at(count, format!("`count` must be from 1 to {MAX_QUEUES} shard queues")));
        }
        let p = prefix.map_or("s", |p| p.value.as_str());
        (0..count.value)
            .map(|i| {
                let name = format!("{p}{i}");
                index.get(name.as_str()).copied().ok_or_else(|| {
                    self.err_at(
                        count,
                        format!(
                            "shard queue `{name}` is not declared; add `{{prefix: {p}, count: {}}}` to the topology's `queues`",
                            count.value
                        ),
                    )
                })
            })
            .collect()
    }

    fn route_rule(&self, rule: &Spanned<RawRoute>, index: &HashMap<&str, QueueId>) -> Result<RouteRule> {
        let r = &rule.value;
        let classes = match &r.class {
            Some(v) => self.names_of(v, "class")?.iter().map(|n| self.class_ref(n)).collect::<Result<_>>()?,
            None => Vec::new(),
        };
        let tenants = match &r.tenant {
            Some(v) => {
                self.names_of(v, "tenant")?.iter().map(|n| self.tenant_ref(n)).collect::<Result<_>>()?
            }
            None => Vec::new(),
        };
        let actions = [r.shard.is_some(), r.shuffle_shard.is_some(), r.throttle.is_some()];
        let action = match (&r.shard, &r.shuffle_shard, &r.throttle, &r.to) {
            _ if actions.iter().filter(|a| **a).count() > 1 => {
                return Err(self.err_at(rule, "a rule takes one of `shard`, `shuffle_shard`, `throttle`; split it into several rules"))
            }
            (Some(s), _, _, None) => {
                RouteAction::Shard { queues: self.shard_queues(&s.value.count, s.value.prefix.as_ref(), index)? }
            }
            (_, Some(s), _, None) => {
                let queues = self.shard_queues(&s.value.count, s.value.prefix.as_ref(), index)?;
                let k = &s.value.per_tenant;
                if k.value == 0 || k.value > s.value.count.value || k.value > MAX_PER_TENANT {
                    return Err(self.err_at(
                        k,
                        format!("`per_tenant: {}` must be from 1 to the shard count ({}) and at most {MAX_PER_TENANT}", k.value, s.value.count.value),
                    ));
                }
                RouteAction::ShuffleShard { queues, per_tenant: k.value }
            }
            (_, _, Some(t), Some(to)) => {
                RouteAction::Throttle { limit: self.throttle(t)?, to: self.queue_ref(to, index)? }
            }
            (_, _, Some(t), None) => {
                return Err(self.err_at(t, "a `throttle` rule needs `to:`, the queue its overflow goes to, e.g. `to: slow`"))
            }
            (None, None, None, Some(to)) => RouteAction::To(self.queue_ref(to, index)?),
            (None, None, None, None) => {
                return Err(self.err_at(
                    rule,
                    "a rule needs an action: `to: QUEUE`, `shard: {count}`, `shuffle_shard: {count, per_tenant}` or `throttle: {...}` with `to:`",
                ))
            }
            (_, _, _, Some(to)) => {
                return Err(self.err_at(to, "`to` goes with `throttle` or alone; a shard rule chooses its own queue, remove `to`"))
            }
        };
        Ok(RouteRule { classes, tenants, action })
    }

    pub(super) fn throttle(&self, t: &Spanned<RawThrottle>) -> Result<Throttle> {
        let r = &t.value;
        match (&r.rate, &r.burst, &r.limit, &r.window, &r.per) {
            (Some(rate), burst, None, None, None) => {
                let per_sec = parse_rate(&rate.value.0.text).map_err(|m| self.err_at(rate, format!("`rate`: {m}")))?;
                let burst = match burst {
                    Some(b) if b.value.is_finite() && (1.0..=1e9).contains(&b.value) => b.value,
                    Some(b) => return Err(self.err_at(b, format!("`burst: {}` must be from 1 to 10^9 jobs", b.value))),
                    None => 1.0,
                };
                Ok(Throttle::Bucket { rate: per_sec, burst })
            }
            (None, None, Some(limit), Some(window), None) => {
                if limit.value == 0 || limit.value > MAX_WINDOW_LIMIT {
                    return Err(self.err_at(limit, format!("`limit` must be from 1 to {MAX_WINDOW_LIMIT} jobs per window")));
                }
                Ok(Throttle::Window { limit: limit.value, window: self.pos_dur(window, "window")? })
            }
            // a fixed window keeps one count, not the jobs' times: no cap on `limit` beyond u32
            (None, None, Some(limit), None, Some(per)) => {
                if limit.value == 0 {
                    return Err(self.err_at(limit, "`limit` must be at least 1 job per window"));
                }
                Ok(Throttle::Fixed { limit: limit.value, per: self.pos_dur(per, "per")? })
            }
            _ => Err(self.err_at(
                t,
                "a throttle is one of a leaky bucket `{rate: 10/m, burst: 20}`, a sliding window `{limit: 100, window: 1h}` or a fixed window `{limit: 100, per: 1h}`",
            )),
        }
    }

    /// A name or a list of names.
    fn names_of(&self, v: &Spanned<RawValue>, what: &str) -> Result<Vec<Spanned<String>>> {
        let one = |item: &Spanned<RawValue>| match &item.value {
            RawValue::Scalar(t) => {
                Ok(Spanned { value: t.text.clone(), referenced: item.referenced, defined: item.defined })
            }
            _ => Err(self.err_at(item, format!("`{what}` is a name or a list of names"))),
        };
        match &v.value {
            RawValue::List(items) => items.iter().map(one).collect(),
            _ => Ok(vec![one(v)?]),
        }
    }

    pub(super) fn tenant_ref(&self, name: &Spanned<String>) -> Result<TenantId> {
        self.tenants.id_of(&name.value).ok_or_else(|| {
            self.err_at(
                name,
                format!(
                    "tenant `{}` is not declared; declare it under `tenants:` or give it a workload entry",
                    name.value
                ),
            )
        })
    }

    fn pools(
        &self,
        p: &Spanned<Vec<Spanned<RawPool>>>,
        index: &HashMap<&str, QueueId>,
    ) -> Result<Vec<PoolSpec>> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for pool in &p.value {
            for spec in self.pool(pool, index)? {
                if !seen.insert(spec.name.clone()) {
                    return Err(self.err_at(
                        &pool.value.name,
                        format!("pool `{}` is declared twice; name each pool once", spec.name),
                    ));
                }
                out.push(spec);
            }
        }
        if out.is_empty() {
            return Err(self.err_at(p, "`pools` is empty; add at least one pool"));
        }
        if out.len() > MAX_QUEUES {
            return Err(self.err_at(p, format!("{} pools; a topology holds at most {MAX_QUEUES}", out.len())));
        }
        let total: u64 = out.iter().map(|p| u64::from(p.workers)).sum();
        if total > u64::from(u32::MAX - 1) {
            return Err(self.err_at(p, "the pools hold more than 4,294,967,294 workers in all; use fewer"));
        }
        Ok(out)
    }

    /// One pool entry: one pool, or `count` of them.
    fn pool(&self, pool: &Spanned<RawPool>, index: &HashMap<&str, QueueId>) -> Result<Vec<PoolSpec>> {
        let r = &pool.value;
        if r.workers.value == 0 {
            return Err(self.err_at(&r.workers, "`workers` must be at least 1"));
        }
        if r.queues.value.is_empty() {
            return Err(
                self.err_at(&r.queues, "`queues` is empty; list the queues this pool polls, in order")
            );
        }
        let n = match &r.count {
            Some(c) if c.value == 0 || c.value as usize > MAX_QUEUES => {
                return Err(self.err_at(c, format!("`count` must be from 1 to {MAX_QUEUES} pools")))
            }
            Some(c) => Some(c.value),
            None => None,
        };
        let poll = self.poll(r)?;
        let batch = self.claim_batch(r)?;
        let costs = self.build_costs(r.costs.as_ref(), self.costs)?;
        let limiter = self.build_limiter(r.limiter.as_ref(), batch)?;
        let prefetch = self.build_prefetch(r, batch, &costs)?;
        let mut out = Vec::new();
        for i in 0..n.unwrap_or(1) {
            let mut queues = Vec::new();
            for q in &r.queues.value {
                let name = match n {
                    Some(n) => self.expand_index(q, i, n)?,
                    None => q.value.clone(),
                };
                let id = self.queue_ref(
                    &Spanned { value: name, referenced: q.referenced, defined: q.defined },
                    index,
                )?;
                if queues.contains(&id) {
                    return Err(
                        self.err_at(q, format!("pool `{}` lists queue `{}` twice", r.name.value, q.value))
                    );
                }
                queues.push(id);
            }
            let name = match n {
                Some(_) => format!("{}{i}", r.name.value),
                None => r.name.value.clone(),
            };
            out.push(PoolSpec {
                name,
                workers: r.workers.value,
                queues,
                poll: poll.clone(),
                batch,
                costs,
                limiter,
                prefetch,
            });
        }
        Ok(out)
    }

    /// `batch: N`: jobs claimed per fetch. A claimed job waits in its
    /// worker's batch without holding a cap slot or resources, so batching
    /// is refused where either would be checked at claim time.
    fn claim_batch(&self, r: &RawPool) -> Result<u32> {
        let Some(b) = &r.batch else { return Ok(1) };
        if b.value == 0 || b.value > MAX_BATCH {
            return Err(self.err_at(b, format!("`batch` must be from 1 to {MAX_BATCH} jobs per fetch")));
        }
        if b.value > 1 && !self.resources.is_empty() {
            return Err(self.err_at(
                b,
                "claim batching with `resources:` is not modelled (a claimed job would hold no resources until it starts); remove `batch` or `resources`",
            ));
        }
        if b.value > 1 && self.tenants.any_cap() {
            return Err(self.err_at(
                b,
                "claim batching with tenant caps is not modelled (a cap is checked when a job starts, after the batch was claimed); remove `batch` or the caps",
            ));
        }
        Ok(b.value)
    }

    /// `s{i}` and `s{i+1}` for pool `i` of `n` (indices modulo n).
    fn expand_index(&self, q: &Spanned<String>, i: u32, n: u32) -> Result<String> {
        let Some(open) = q.value.find('{') else { return Ok(q.value.clone()) };
        let close = q.value[open..]
            .find('}')
            .map(|c| open + c)
            .ok_or_else(|| self.err_at(q, "unclosed `{` in a queue name; write `s{i}` or `s{i+1}`"))?;
        let inner = q.value[open + 1..close].replace(' ', "");
        let k: u32 = match inner.as_str() {
            "i" => 0,
            s => match s.strip_prefix("i+").and_then(|k| k.parse().ok()) {
                Some(k) => k,
                None => {
                    return Err(
                        self.err_at(q, format!("`{{{inner}}}` in a queue name: write `{{i}}` or `{{i+K}}`"))
                    )
                }
            },
        };
        let idx = (u64::from(i) + u64::from(k)) % u64::from(n);
        Ok(format!("{}{idx}{}", &q.value[..open], &q.value[close + 1..]))
    }

    fn poll(&self, r: &RawPool) -> Result<Poll> {
        let mode = r.poll.as_ref().map_or("strict", |p| p.value.as_str());
        let n = r.queues.value.len();
        match (mode, &r.weights) {
            ("strict", None) => Ok(Poll::Strict),
            ("random", None) => Ok(Poll::Weighted(vec![1.0; n])),
            ("weighted", Some(w)) => {
                if w.value.len() != n {
                    return Err(self.err_at(w, format!("{} weights for {n} queues; give one weight per queue, in order", w.value.len())));
                }
                for x in &w.value {
                    if !(x.value.is_finite() && (0.001..=1000.0).contains(&x.value)) {
                        return Err(self.err_at(x, format!("weight {} must be between 0.001 and 1000", x.value)));
                    }
                }
                Ok(Poll::Weighted(w.value.iter().map(|x| x.value).collect()))
            }
            ("weighted", None) => Err(self.err_at(r.poll.as_ref().expect("mode came from it"), "`poll: weighted` needs `weights: [...]`, one per queue")),
            ("strict" | "random", Some(w)) => Err(self.err_at(w, format!("`weights` go with `poll: weighted`; remove them or write `poll: weighted` (this pool polls `{mode}`)"))),
            (other, _) => Err(self.err_at(
                r.poll.as_ref().expect("mode came from it"),
                format!("`poll: {other}` is not a poll mode; use strict (list order), weighted (with `weights`) or random"),
            )),
        }
    }
}

//! The raw shapes of a pool's (and the top level's) dispatch keys,
//! `costs:` and `limiter:`, and of a topology's planner and shard rules,
//! beside [`super::raw`].

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::raw::{Dur, Rate};

/// `costs: {claim: 0.8ms, refusal: 0.5ms, finish: 1ms, poll_interval: 10ms}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCosts {
    pub claim: Option<Spanned<Dur>>,
    pub refusal: Option<Spanned<Dur>>,
    pub finish: Option<Spanned<Dur>>,
    pub poll_interval: Option<Spanned<Dur>>,
}

/// `limiter: {max: 20, duration: 1s}` (BullMQ's), `{rate: 20/s, burst: 5}`
/// or `{limit: 20, window: 1s}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLimiter {
    pub max: Option<Spanned<u32>>,
    pub duration: Option<Spanned<Dur>>,
    pub rate: Option<Spanned<Rate>>,
    pub burst: Option<Spanned<f64>>,
    pub limit: Option<Spanned<u32>>,
    pub window: Option<Spanned<Dur>>,
}

/// `start_limits: [{tenants: [A, B], limiter: {max: 20, duration: 1s}}]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStartGroup {
    pub tenants: Spanned<Vec<Spanned<String>>>,
    pub limiter: Spanned<RawLimiter>,
}

/// `planner: {interval: 1m, batch: 50, latency_below: 30s, policy:
/// round_robin, cost: {base: 50ms, per_active_tenant: 2ms}}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPlanner {
    pub interval: Spanned<Dur>,
    pub batch: Spanned<u32>,
    pub latency_below: Option<Spanned<Dur>>,
    pub depth_below: Option<Spanned<u64>>,
    pub policy: Option<Spanned<String>>,
    pub cost: Option<Spanned<RawPlannerCost>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPlannerCost {
    pub base: Option<Spanned<Dur>>,
    pub per_active_tenant: Option<Spanned<Dur>>,
}

/// `shard: {count: 10, prefix: s}`: queues s0..s9.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawShard {
    pub count: Spanned<u32>,
    pub prefix: Option<Spanned<String>>,
}

/// `shuffle_shard: {count: 10, per_tenant: 2, prefix: s}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawShuffleShard {
    pub count: Spanned<u32>,
    pub per_tenant: Spanned<u32>,
    pub prefix: Option<Spanned<String>>,
}

/// `prefetch: {multiplier: 4, handoff: fair, acks_late: false}`: Celery's
/// `worker_prefetch_multiplier`, its pool's write strategy and `acks_late`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPrefetch {
    pub multiplier: Spanned<u32>,
    pub handoff: Option<Spanned<String>>,
    pub acks_late: Option<Spanned<bool>>,
    pub refetch: Option<Spanned<Dur>>,
}

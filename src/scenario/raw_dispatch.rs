//! The raw shapes of a pool's (and the top level's) dispatch keys,
//! `costs:` and `limiter:`, beside [`super::raw`].

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

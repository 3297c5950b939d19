//! The serde model of a scenario file, exactly as written in YAML.
//!
//! Nothing here is validated beyond its YAML shape: numbers, durations and
//! rates are kept as text with their location ([`Spanned`]) so that the loader
//! (`load.rs`) can report semantic errors at the right line and column.
//!
//! Every struct denies unknown fields, so a misspelled key is an error that
//! lists the valid keys. "String or map" values (`service`, policy entries,
//! `order`) use small hand-written visitors instead of `#[serde(untagged)]`,
//! because untagged enums would lose the locations of the values inside them.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_saphyr::Spanned;

pub use super::named_map::NamedMap;
pub use super::raw_dispatch::{
    RawCosts, RawLimiter, RawPlanner, RawPlannerCost, RawPrefetch, RawShard, RawShuffleShard,
};
pub use super::raw_load::{
    RawBursts, RawEmpirical, RawHistogram, RawLognormal, RawPareto, RawProfile, RawService, RawServiceMap,
    RawStep, RawUniform,
};

/// A scalar written as a YAML string or number, kept as text.
///
/// Used for durations (`2s`, `200ms`, or a bare number of seconds) and rates
/// (`2/s`, `120/m`, or a bare number per second); `load.rs` parses the text
/// with [`crate::time::parse_duration`] / [`crate::time::parse_rate`].
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    /// The text as written (numbers formatted back to text).
    pub text: String,
    /// Whether the YAML value was a bare number rather than a string.
    pub numeric: bool,
}

pub(super) struct TextVisitor(pub(super) &'static str);

impl Visitor<'_> for TextVisitor {
    type Value = Text;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
        Ok(Text { text: v.to_string(), numeric: false })
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Text, E> {
        Ok(Text { text: v, numeric: false })
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Text, E> {
        Ok(Text { text: v.to_string(), numeric: true })
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Text, E> {
        Ok(Text { text: v.to_string(), numeric: true })
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Text, E> {
        Ok(Text { text: v.to_string(), numeric: true })
    }
}

/// A duration: `500us`, `200ms`, `2s`, `10m`, `1h`, or a bare number of seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Dur(pub Text);

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TextVisitor("a duration such as 500us, 200ms, 2s, 10m, 1h or a number of seconds"))
            .map(Dur)
    }
}

/// A rate: `2/s`, `120/m`, `30/h`, or a bare number per second.
#[derive(Debug, Clone, PartialEq)]
pub struct Rate(pub Text);

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TextVisitor("a rate such as 2/s, 120/m, 30/h or a number per second")).map(Rate)
    }
}

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    pub name: Option<Spanned<String>>,
    pub seed: Option<Spanned<u64>>,
    pub workers: Option<Spanned<u32>>,
    pub resources: Option<Spanned<NamedMap<Spanned<u64>>>>,
    pub log: Option<Spanned<RawLog>>,
    pub tenants: Option<Spanned<NamedMap<Spanned<Option<RawTenant>>>>>,
    pub classes: Option<Spanned<NamedMap<Spanned<Option<RawClass>>>>>,
    // boxed: an entry is about 1.5 KB, and building a list of 10,000 moved
    // each several times on its way into the list
    pub workload: Option<Spanned<Vec<Spanned<Box<RawEntry>>>>>,
    pub policies: Option<Spanned<Vec<Spanned<RawPolicy>>>>,
    pub topologies: Option<Spanned<NamedMap<Spanned<RawTopology>>>>,
    pub admission: Option<Spanned<RawRules>>,
    pub admission_sets: Option<Spanned<NamedMap<Spanned<RawRules>>>>,
    pub capacity: Option<Spanned<Vec<Spanned<RawCapacityChange>>>>,
    pub slowdowns: Option<Spanned<Vec<Spanned<RawSlowdown>>>>,
    pub retry: Option<Spanned<RawRetry>>,
    pub costs: Option<Spanned<RawCosts>>,
    pub limiter: Option<Spanned<super::raw_dispatch::RawLimiter>>,
    pub start_limits: Option<Spanned<Vec<Spanned<super::raw_dispatch::RawStartGroup>>>>,
    /// Each a map with one measure key; the loader reads the keys.
    pub objectives: Option<Spanned<Vec<Spanned<RawValue>>>>,
    /// `fairsim sweep`'s options; `run` ignores them.
    pub sweep: Option<Spanned<super::raw_sweep::RawSweep>>,
}

/// `retry: {backoff: {exponential: 1s, max: 5m}, jitter: 0.5, budget:
/// {limit: 100, window: 1m}}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRetry {
    pub backoff: Option<Spanned<RawBackoff>>,
    pub jitter: Option<Spanned<f64>>,
    pub budget: Option<Spanned<RawRetryBudget>>,
}

/// `{fixed: 10s}` or `{exponential: 1s, max: 5m}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBackoff {
    pub fixed: Option<Spanned<Dur>>,
    pub exponential: Option<Spanned<Dur>>,
    pub max: Option<Spanned<Dur>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRetryBudget {
    pub limit: Spanned<u32>,
    pub window: Spanned<Dur>,
}

/// `{at: 10m, workers: 4, loss: kill}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCapacityChange {
    pub at: Spanned<Dur>,
    pub workers: Spanned<u32>,
    pub loss: Option<Spanned<String>>,
}

/// `{from: 5m, to: 15m, class: api, factor: 3}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSlowdown {
    pub from: Spanned<Dur>,
    pub to: Spanned<Dur>,
    pub factor: Spanned<f64>,
    pub tenant: Option<Spanned<String>>,
    pub class: Option<Spanned<String>>,
}

/// A list of admission rules.
pub type RawRules = Vec<Spanned<RawAdmission>>;

/// An admission rule: `{tenant: "*", max_queued: 100, action: reject}`,
/// `{class: bulk, throttle: {rate: 10/s, burst: 20}, action: retry, after:
/// 5s, retries: 3}`, `{tenant: A, max_queued: 50, action: defer, by: 1m}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAdmission {
    pub tenant: Option<Spanned<String>>,
    pub class: Option<Spanned<String>>,
    pub max_queued: Option<Spanned<u64>>,
    pub max_queued_work: Option<Spanned<Dur>>,
    pub predict: Option<Spanned<String>>,
    /// A duration, `sla` or `deadline`.
    pub max_wait: Option<Spanned<Dur>>,
    pub throttle: Option<Spanned<RawThrottle>>,
    pub action: Option<Spanned<String>>,
    pub after: Option<Spanned<Dur>>,
    pub retries: Option<Spanned<u32>>,
    pub by: Option<Spanned<Dur>>,
}

impl RawScenario {
    /// True when the document sets no key at all (e.g. only comments).
    pub fn is_empty(&self) -> bool {
        self.name.is_none()
            && self.seed.is_none()
            && self.workers.is_none()
            && self.resources.is_none()
            && self.log.is_none()
            && self.tenants.is_none()
            && self.classes.is_none()
            && self.workload.is_none()
            && self.policies.is_none()
            && self.topologies.is_none()
            && self.admission.is_none()
            && self.capacity.is_none()
            && self.slowdowns.is_none()
            && self.retry.is_none()
            && self.admission_sets.is_none()
            && self.objectives.is_none()
    }
}

/// One named topology: queues, routing rules, pools.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTopology {
    /// Names, or `{prefix: s, count: 10}` for s0..s9.
    pub queues: Option<Spanned<Vec<Spanned<RawValue>>>>,
    pub route: Option<Spanned<Vec<Spanned<RawRoute>>>>,
    pub pools: Option<Spanned<Vec<Spanned<RawPool>>>>,
    pub planner: Option<Spanned<RawPlanner>>,
    /// Processor presets (`load/presets/`): the whole topology described in
    /// a processor's own terms, read by the loader (no other key beside).
    pub sidekiq: Option<Spanned<RawValue>>,
    pub solid_queue: Option<Spanned<RawValue>>,
    pub good_job: Option<Spanned<RawValue>>,
    pub bullmq: Option<Spanned<RawValue>>,
    pub rq: Option<Spanned<RawValue>>,
}

/// A routing rule: an optional match (`class`, `tenant`: a name or a list)
/// and one action (`to`, `shard`, `shuffle_shard`, or `throttle` with `to`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRoute {
    pub class: Option<Spanned<RawValue>>,
    pub tenant: Option<Spanned<RawValue>>,
    pub to: Option<Spanned<String>>,
    pub shard: Option<Spanned<RawShard>>,
    pub shuffle_shard: Option<Spanned<RawShuffleShard>>,
    pub throttle: Option<Spanned<RawThrottle>>,
}

/// `throttle: {rate: 10/m, burst: 20}` or `throttle: {limit: 100, window: 1h}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawThrottle {
    pub rate: Option<Spanned<Rate>>,
    pub burst: Option<Spanned<f64>>,
    pub limit: Option<Spanned<u32>>,
    pub window: Option<Spanned<Dur>>,
    pub per: Option<Spanned<Dur>>,
}

/// A pool: `{name: all, workers: 10, queues: [main, slow], poll: weighted,
/// weights: [4, 1]}`; with `count: N`, N pools named `name0..`, where `{i}`
/// (or `{i+K}`, modulo N) in a queue name stands for the pool's index.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPool {
    pub name: Spanned<String>,
    pub workers: Spanned<u32>,
    pub queues: Spanned<Vec<Spanned<String>>>,
    pub poll: Option<Spanned<String>>,
    pub weights: Option<Spanned<Vec<Spanned<f64>>>>,
    pub count: Option<Spanned<u32>>,
    pub batch: Option<Spanned<u32>>,
    pub costs: Option<Spanned<RawCosts>>,
    pub limiter: Option<Spanned<RawLimiter>>,
    pub prefetch: Option<Spanned<RawPrefetch>>,
}

/// `log: {tick: 1s, window: 10s}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLog {
    pub tick: Option<Spanned<Dur>>,
    pub window: Option<Spanned<Dur>>,
}

/// A tenant's properties.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTenant {
    pub weight: Option<Spanned<f64>>,
    pub cap: Option<Spanned<i64>>,
}

/// A class's properties.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawClass {
    pub priority: Option<Spanned<i32>>,
    pub weight: Option<Spanned<f64>>,
    pub sla: Option<Spanned<Dur>>,
}

/// One workload entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEntry {
    pub tenant: Option<Spanned<String>>,
    pub tenants: Option<Spanned<RawSpread>>,
    pub class: Option<Spanned<String>>,
    /// Batch shorthand: `count` jobs at `at`.
    pub count: Option<Spanned<u64>>,
    pub at: Option<Spanned<Dur>>,
    // boxed, as `trace`: an entry is moved and copied as the list of
    // entries grows, and 10,000 entries of a few KB each made loading slow
    pub arrivals: Option<Spanned<Box<RawArrivals>>>,
    pub service: Option<Spanned<RawService>>,
    pub deadline: Option<Spanned<Dur>>,
    pub cost: Option<Spanned<NamedMap<Spanned<u64>>>>,
    pub failure: Option<Spanned<RawFailure>>,
    /// Interruptible iteration: at most this much work per claim.
    pub slice: Option<Spanned<Dur>>,
    /// Extra time each resumed slice costs (reloading the cursor).
    pub resume_overhead: Option<Spanned<Dur>>,
    /// Cost gaming: what the tenant declares, `{factor: 0.1}`.
    pub declared: Option<Spanned<RawDeclared>>,
    /// Trace replay: `- trace: {path, format, columns, ...}` (alone in its entry).
    pub trace: Option<Spanned<Box<RawTrace>>>,
}

/// `trace:` map of a workload entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTrace {
    pub path: Spanned<String>,
    /// `csv` or `swf`; default from the file extension.
    pub format: Option<Spanned<String>>,
    pub columns: Option<Spanned<RawColumns>>,
    /// `auto`, `rfc3339`, `epoch_s`, `epoch_ms`, `epoch_us`.
    pub time_format: Option<Spanned<String>>,
    /// `us`, `ms`, `s`: unit of the `service` column.
    pub service_unit: Option<Spanned<String>>,
    pub keep_time: Option<Spanned<bool>>,
    /// `error` (default) or `skip`.
    pub on_error: Option<Spanned<String>>,
    /// SWF: resource receiving the processor count, or `none`.
    pub slots: Option<Spanned<String>>,
}

/// `columns:` of a CSV trace: header names.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawColumns {
    pub arrival: Option<Spanned<String>>,
    pub tenant: Option<Spanned<String>>,
    pub class: Option<Spanned<String>>,
    pub service: Option<Spanned<String>>,
    pub started: Option<Spanned<String>>,
    pub finished: Option<Spanned<String>>,
    pub priority: Option<Spanned<String>>,
    pub deadline: Option<Spanned<String>>,
    pub cost: Option<Spanned<NamedMap<Spanned<String>>>>,
    pub id: Option<Spanned<String>>,
}

/// `tenants: {count: N, prefix: t, weight: 2, cap: 4}`: weight and cap
/// are every generated tenant's, unless `tenants:` at the top declares one
/// of the names with its own.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpread {
    pub count: Spanned<u32>,
    pub prefix: Spanned<String>,
    pub weight: Option<Spanned<f64>>,
    pub cap: Option<Spanned<i64>>,
}

/// `arrivals:` map.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawArrivals {
    pub poisson: Option<Spanned<Rate>>,
    pub every: Option<Spanned<Dur>>,
    pub batch: Option<Spanned<u64>>,
    pub start: Option<Spanned<Dur>>,
    pub stop: Option<Spanned<Dur>>,
    pub count: Option<Spanned<u64>>,
    pub at: Option<Spanned<Dur>>,
    /// A Poisson rate that varies over time.
    pub profile: Option<Spanned<RawProfile>>,
}

/// `declared:` map of a workload entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDeclared {
    pub factor: Spanned<f64>,
}

/// `failure:` map.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFailure {
    pub probability: Spanned<f64>,
    pub max_attempts: Option<Spanned<u32>>,
}

/// A policy entry: a bare kind (`fifo`) or a map whose keys are checked
/// against the policy's parameter schema by the loader.
#[derive(Debug)]
pub enum RawPolicy {
    Kind(String),
    Map(Vec<(Spanned<String>, Spanned<RawValue>)>),
}

/// A value whose shape the loader checks later (policy parameters, whose
/// schema depends on the policy named in the same map): kept with the
/// location of every part.
#[derive(Debug)]
pub enum RawValue {
    Null,
    Scalar(Text),
    List(Vec<Spanned<RawValue>>),
    Map(Vec<(Spanned<String>, Spanned<RawValue>)>),
}

struct RawValueVisitor;

impl<'de> Visitor<'de> for RawValueVisitor {
    type Value = RawValue;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value, a list or a map")
    }

    fn visit_unit<E: de::Error>(self) -> Result<RawValue, E> {
        Ok(RawValue::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<RawValue, E> {
        Ok(RawValue::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<RawValue, E> {
        Ok(RawValue::Scalar(Text { text: v.to_string(), numeric: false }))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<RawValue, E> {
        TextVisitor("").visit_str(v).map(RawValue::Scalar)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<RawValue, E> {
        TextVisitor("").visit_string(v).map(RawValue::Scalar)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawValue, E> {
        TextVisitor("").visit_u64(v).map(RawValue::Scalar)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawValue, E> {
        TextVisitor("").visit_i64(v).map(RawValue::Scalar)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawValue, E> {
        TextVisitor("").visit_f64(v).map(RawValue::Scalar)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawValue, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element::<Spanned<RawValue>>()? {
            out.push(v);
        }
        Ok(RawValue::List(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawValue, A::Error> {
        let mut out = Vec::new();
        while let Some(k) = map.next_key::<Spanned<String>>()? {
            out.push((k, map.next_value::<Spanned<RawValue>>()?));
        }
        Ok(RawValue::Map(out))
    }
}

impl<'de> Deserialize<'de> for RawValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RawValueVisitor)
    }
}

struct PolicyVisitor;

impl<'de> Visitor<'de> for PolicyVisitor {
    type Value = RawPolicy;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a policy name such as fifo, or a map such as {policy: drr, cost: work}")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<RawPolicy, E> {
        Ok(RawPolicy::Kind(v.to_string()))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawPolicy, A::Error> {
        match RawValueVisitor.visit_map(map)? {
            RawValue::Map(m) => Ok(RawPolicy::Map(m)),
            _ => Err(de::Error::custom("expected a map")),
        }
    }
}

impl<'de> Deserialize<'de> for RawPolicy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(PolicyVisitor)
    }
}

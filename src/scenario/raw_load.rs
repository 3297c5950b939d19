//! The raw shapes of the keys that shape load and capacity over time,
//! beside [`super::raw`]: the service laws (a duration or a map naming
//! one, read by a small visitor so that the values keep their places) and
//! a Poisson entry's rate profile.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::raw::{Dur, RawTrace, TextVisitor};

/// `pareto: {alpha: 2.5, min: 1s}`, bounded with `max: 1h`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPareto {
    pub alpha: Spanned<f64>,
    pub min: Spanned<Dur>,
    pub max: Option<Spanned<Dur>>,
}

/// `histogram: {edges: [0s, 100ms, 1s], counts: [90, 10]}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHistogram {
    pub edges: Spanned<Vec<Spanned<Dur>>>,
    pub counts: Spanned<Vec<Spanned<f64>>>,
}

/// `profile:` of Poisson arrivals: factors on the rate, multiplied.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawProfile {
    pub steps: Option<Spanned<Vec<Spanned<RawStep>>>>,
    pub daily: Option<Spanned<Vec<Spanned<f64>>>>,
    pub weekly: Option<Spanned<Vec<Spanned<f64>>>>,
    pub bursts: Option<Spanned<RawBursts>>,
}

/// `{at: 10m, factor: 4}`: the factor from `at` on.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStep {
    pub at: Spanned<Dur>,
    pub factor: Spanned<f64>,
}

/// `bursts: {on: 30s, off: 5m, high: 10, low: 0}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBursts {
    pub on: Spanned<Dur>,
    pub off: Spanned<Dur>,
    pub high: Spanned<f64>,
    pub low: Option<Spanned<f64>>,
}

/// `empirical: {path: traces/jobs.csv, ...}`: a trace's recorded run
/// times, read with the keys of a trace entry.
pub type RawEmpirical = RawTrace;

/// `service:` a duration (constant) or a map naming a distribution.
#[derive(Debug)]
pub enum RawService {
    Constant(Dur),
    Map(Box<RawServiceMap>),
}

/// `service:` map form.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawServiceMap {
    pub constant: Option<Spanned<Dur>>,
    pub exponential: Option<Spanned<Dur>>,
    pub uniform: Option<Spanned<RawUniform>>,
    pub lognormal: Option<Spanned<RawLognormal>>,
    pub pareto: Option<Spanned<RawPareto>>,
    pub histogram: Option<Spanned<RawHistogram>>,
    pub empirical: Option<Spanned<Box<RawEmpirical>>>,
}

/// `uniform: {min, max}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawUniform {
    pub min: Spanned<Dur>,
    pub max: Spanned<Dur>,
}

/// `lognormal: {median, p99}` or `lognormal: {mu, sigma}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLognormal {
    pub median: Option<Spanned<Dur>>,
    pub p99: Option<Spanned<Dur>>,
    pub mu: Option<Spanned<f64>>,
    pub sigma: Option<Spanned<f64>>,
}

struct ServiceVisitor;

impl<'de> Visitor<'de> for ServiceVisitor {
    type Value = RawService;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(
            "a duration such as 2s, or a map with one of constant, exponential, uniform, lognormal, pareto, histogram, empirical",
        )
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<RawService, E> {
        TextVisitor("").visit_str(v).map(|t| RawService::Constant(Dur(t)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawService, E> {
        TextVisitor("").visit_u64(v).map(|t| RawService::Constant(Dur(t)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawService, E> {
        TextVisitor("").visit_i64(v).map(|t| RawService::Constant(Dur(t)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawService, E> {
        TextVisitor("").visit_f64(v).map(|t| RawService::Constant(Dur(t)))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawService, A::Error> {
        RawServiceMap::deserialize(de::value::MapAccessDeserializer::new(map))
            .map(|m| RawService::Map(Box::new(m)))
    }
}

impl<'de> Deserialize<'de> for RawService {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ServiceVisitor)
    }
}

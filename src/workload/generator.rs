//! One workload entry as an iterator of arrivals in time order.

use std::sync::Arc;

use rand::RngExt;
use rand_distr::{Distribution, Exp, LogNormal, OpenClosed01, Pareto};
use rand_pcg::Pcg64;

use crate::core::Arrival;
use crate::model::{ArrivalSpec, EntrySpec, Histogram, ServiceSpec};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::time::{from_secs_f64, Time, HORIZON, HORIZON_TEXT, SECOND};

use super::profiled::Profiled;
use super::rng::{stream, Purpose};

/// Service-time sampler (pre-validated parameters).
#[derive(Debug, Clone)]
enum Service {
    Constant(Time),
    Exponential(Exp<f64>),
    Uniform(Time, Time),
    LogNormal(LogNormal<f64>),
    Pareto(Pareto<f64>),
    /// From `min` (seconds), shape `alpha`, truncated at `max`: inverted
    /// by its CDF with `tail` = 1 - (min / max)^alpha.
    BoundedPareto {
        min: f64,
        alpha: f64,
        tail: f64,
        max: Time,
    },
    Empirical(Arc<[Time]>),
    Histogram(Arc<Histogram>),
}

impl Service {
    fn new(spec: &ServiceSpec) -> Self {
        match *spec {
            ServiceSpec::Constant(t) => Service::Constant(t),
            ServiceSpec::Exponential { mean } if mean > 0 => {
                // Exp::new only fails for a negative or NaN rate, excluded by the guard.
                Service::Exponential(Exp::new(SECOND as f64 / mean as f64).expect("positive rate"))
            }
            ServiceSpec::Exponential { .. } => Service::Constant(0),
            ServiceSpec::Uniform { min, max } => Service::Uniform(min, max.max(min)),
            ServiceSpec::LogNormal { mu, sigma } => {
                Service::LogNormal(LogNormal::new(mu, sigma.max(0.0)).expect("validated sigma"))
            }
            ServiceSpec::Pareto { alpha, min, max: None } => {
                // the loader keeps alpha > 1 and min > 0
                Service::Pareto(Pareto::new(min as f64 / SECOND as f64, alpha).expect("validated Pareto"))
            }
            ServiceSpec::Pareto { alpha, min, max: Some(max) } => {
                let lo = min as f64 / SECOND as f64;
                let tail = 1.0 - (min as f64 / max as f64).powf(alpha);
                Service::BoundedPareto { min: lo, alpha, tail, max }
            }
            ServiceSpec::Empirical(ref v) => Service::Empirical(Arc::clone(v)),
            ServiceSpec::Histogram(ref h) => Service::Histogram(Arc::clone(h)),
        }
    }

    /// One draw, in microseconds; past [`HORIZON`] for a draw beyond it.
    fn sample(&self, rng: &mut Pcg64) -> Time {
        match self {
            Service::Constant(t) => *t,
            Service::Exponential(d) => from_secs_f64(d.sample(rng)),
            Service::Uniform(lo, hi) if lo == hi => *lo,
            Service::Uniform(lo, hi) => rng.random_range(*lo..=*hi),
            Service::LogNormal(d) => from_secs_f64(d.sample(rng)),
            _ => self.sample_other(rng),
        }
    }

    /// The laws added after the first four, out of line so that the
    /// common draws stay inlined in the generator's loop.
    #[inline(never)]
    fn sample_other(&self, rng: &mut Pcg64) -> Time {
        match self {
            Service::Pareto(d) => from_secs_f64(d.sample(rng)),
            Service::BoundedPareto { min, alpha, tail, max } => {
                // F(x) = (1 - (min/x)^a) / tail, so x = min (1 - u tail)^(-1/a);
                // u in (0, 1] reaches max at u = 1, never below min
                let u: f64 = OpenClosed01.sample(rng);
                from_secs_f64(min * (1.0 - u * tail).powf(-1.0 / alpha)).min(*max)
            }
            Service::Empirical(v) => v[rng.random_range(0..v.len())],
            Service::Histogram(h) => {
                let u: f64 = rng.random();
                let bin = h.cumulative.partition_point(|&c| c <= u).min(h.cumulative.len() - 1);
                let (lo, hi) = (h.edges[bin], h.edges[bin + 1]);
                rng.random_range(lo..hi)
            }
            Service::Constant(_) | Service::Exponential(_) | Service::Uniform(..) | Service::LogNormal(_) => {
                unreachable!("drawn inline by `sample`")
            }
        }
    }
}

/// How an entry's next arrival time is drawn after each arrival (matched
/// alone, without the arrival spec, so a plain entry pays one branch).
#[derive(Debug, Clone)]
enum Gap {
    /// A batch: every job at the same time.
    None,
    /// `every`.
    Every(Time),
    /// Poisson at a constant rate.
    Exp(Exp<f64>),
    /// Poisson at a rate that follows a profile, until a stop.
    Profiled(Box<Profiled>, Time),
}

/// Iterator over the arrivals of one entry.
#[derive(Debug, Clone)]
pub struct EntryGenerator {
    spec: EntrySpec,
    rng: Pcg64,
    service: Service,
    gap: Gap,
    next_time: Time,
    emitted: u64,
    done: bool,
    /// Why the entry stopped early: a draw past the horizon.
    error: Option<String>,
    /// The scenario file, for that error.
    source: PathBuf,
    /// [`crate::core::Arrival::slicing`] of this entry's jobs.
    slicing: u16,
    /// [`crate::core::Arrival::declared_entry`] of this entry's jobs.
    declared_entry: u16,
}

impl EntryGenerator {
    /// The generator of entry number `index` under `seed`.
    pub fn new(spec: &EntrySpec, seed: u64, index: usize, source: &Path) -> Self {
        let mut rng = stream(seed, index as u64, Purpose::Workload);
        let service = Service::new(&spec.service);
        let (gap, next_time) = match spec.arrivals {
            ArrivalSpec::Batch { at, .. } => (Gap::None, at),
            ArrivalSpec::Every { every, start, .. } => (Gap::Every(every), start),
            ArrivalSpec::Poisson { rate, start, profile: None, .. } => {
                let d = Exp::new(rate).expect("validated positive rate");
                let first = start.saturating_add(from_secs_f64(d.sample(&mut rng)));
                (Gap::Exp(d), first)
            }
            ArrivalSpec::Poisson { rate, start, stop, profile: Some(ref p), .. } => {
                let mut p = Profiled::new(rate, Arc::clone(p), start, &mut rng);
                let first = p.next(start, stop.unwrap_or(Time::MAX), &mut rng);
                (Gap::Profiled(Box::new(p), stop.unwrap_or(Time::MAX)), first)
            }
        };
        EntryGenerator {
            spec: spec.clone(),
            rng,
            service,
            gap,
            next_time,
            emitted: 0,
            done: false,
            error: None,
            source: source.to_path_buf(),
            // the loader refuses `slice` past entry 65,534
            slicing: if spec.slice.is_some() { (index + 1) as u16 } else { 0 },
            // likewise `declared`
            declared_entry: if spec.declared.is_some() { (index + 1) as u16 } else { 0 },
        }
    }

    fn limit_reached(&self) -> bool {
        let (count, stop) = match self.spec.arrivals {
            ArrivalSpec::Batch { count, .. } => (Some(count), None),
            ArrivalSpec::Poisson { count, stop, .. } | ArrivalSpec::Every { count, stop, .. } => {
                (count, stop)
            }
        };
        count.is_some_and(|c| self.emitted >= c) || stop.is_some_and(|s| self.next_time >= s)
    }

    /// Stops the entry with an error naming what went past the horizon.
    fn past_horizon(&mut self, what: &str, t: Time) -> Option<Arrival> {
        self.done = true;
        self.error = Some(format!(
            "this workload entry drew {what} of {} s, past {HORIZON_TEXT}; lower its rate gaps or service times",
            crate::time::fmt_secs(t)
        ));
        None
    }

    /// The error that stopped the entry early, if any.
    pub fn take_error(&mut self) -> Option<Error> {
        self.error.take().map(|m| Error::input(&self.source, self.spec.line, 0, m))
    }
}

impl Iterator for EntryGenerator {
    type Item = Arrival;

    fn next(&mut self) -> Option<Arrival> {
        if self.done || self.limit_reached() {
            self.done = true;
            return None;
        }
        let time = self.next_time;
        if time > HORIZON {
            return self.past_horizon("an arrival time", time);
        }
        // Draw order within an entry is fixed: tenant, service, failures, next gap.
        let tenant = if self.spec.spread > 1 {
            self.spec.tenant + self.rng.random_range(0..self.spec.spread)
        } else {
            self.spec.tenant
        };
        let service = self.service.sample(&mut self.rng);
        if service > HORIZON {
            return self.past_horizon("a service time", service);
        }
        let (failures, max_attempts) = match self.spec.failure {
            Some(f) => {
                let mut n = 0;
                while n < f.max_attempts && self.rng.random::<f64>() < f.probability {
                    n += 1;
                }
                (n, f.max_attempts)
            }
            None => (0, 1),
        };
        self.next_time = match &mut self.gap {
            Gap::Exp(d) => time.saturating_add(from_secs_f64(d.sample(&mut self.rng))),
            Gap::Every(every) => time.saturating_add(*every),
            Gap::None => time,
            Gap::Profiled(p, stop) => p.next(time, *stop, &mut self.rng),
        };
        self.emitted += 1;
        Some(Arrival {
            time,
            tenant,
            class: self.spec.class,
            service,
            deadline: self.spec.deadline.map(|d| time.saturating_add(d)),
            cost: self.spec.cost,
            failures,
            max_attempts,
            slicing: self.slicing,
            declared_entry: self.declared_entry,
        })
    }
}

#[cfg(test)]
#[path = "service_tests.rs"]
mod service_tests;

#[cfg(test)]
#[path = "profile_tests.rs"]
mod profile_tests;

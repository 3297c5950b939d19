//! Workload generator entries: who sends jobs, when, and how long they run.

use super::{ClassId, Res, TenantId};
use crate::time::Time;

/// One workload generator entry.
#[derive(Debug, Clone, PartialEq)]
pub struct EntrySpec {
    /// 1-based line of the entry in the scenario file (for messages).
    pub line: usize,
    /// The tenant of every job, or the first of `spread` consecutive tenants.
    pub tenant: TenantId,
    /// Number of consecutive tenants (from `tenant`) the arrivals are spread
    /// over, uniformly at random; 1 for an ordinary entry.
    pub spread: u32,
    pub class: ClassId,
    pub arrivals: ArrivalSpec,
    pub service: ServiceSpec,
    /// Relative deadline: a job arriving at `a` is due at `a + deadline`.
    pub deadline: Option<Time>,
    /// Resource vector each job of this entry holds while running.
    pub cost: Res,
    /// Failure injection: each attempt fails with this probability; a job is
    /// tried at most `max_attempts` times in all.
    pub failure: Option<FailureSpec>,
    /// Interruptible iteration (job-iteration's max job runtime): a job runs
    /// at most one slice per claim, then goes back to its queue with the
    /// rest; `None` runs each job whole.
    pub slice: Option<Slicing>,
    /// The cost the tenant tells the scheduler, when it is not the true
    /// service (cost gaming, the backpressure article): what policies with
    /// `charge: declared`, `actual` or `bounded` see at enqueue.
    pub declared: Option<Declared>,
}

/// `declared:` of an entry: the tenant states `factor` x the true service
/// of each attempt (0.1: it claims a tenth of what it runs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Declared {
    pub factor: f64,
}

/// `slice` and `resume_overhead` of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slicing {
    pub slice: Time,
    /// Added to every slice after the first.
    pub resume_overhead: Time,
}

/// Failure injection for one entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FailureSpec {
    pub probability: f64,
    pub max_attempts: u32,
}

/// When the jobs of an entry arrive.
#[derive(Debug, Clone, PartialEq)]
pub enum ArrivalSpec {
    /// `count` jobs all at time `at`.
    Batch { count: u64, at: Time },
    /// Poisson process of `rate` per second from `start`, until `stop` and/or
    /// `count` jobs; with a `profile`, the rate times its factor at each time.
    Poisson {
        rate: f64,
        start: Time,
        stop: Option<Time>,
        count: Option<u64>,
        profile: Option<std::sync::Arc<super::RateProfile>>,
    },
    /// One job every `every`, starting at `start`, until `stop` and/or `count` jobs.
    Every { every: Time, start: Time, stop: Option<Time>, count: Option<u64> },
}

impl ArrivalSpec {
    /// Arrivals per second in the long run: a Poisson entry's rate times
    /// its profile's long-run mean factor; `None` for batch and every.
    pub fn mean_rate(&self) -> Option<f64> {
        match self {
            ArrivalSpec::Poisson { rate, profile, .. } => {
                Some(rate * profile.as_ref().map_or(1.0, |p| p.long_run()))
            }
            _ => None,
        }
    }

    /// Jobs expected: the count, or rate x duration, whichever is smaller.
    pub fn expected_count(&self) -> f64 {
        let secs = |t: Time| t as f64 / 1e6;
        match *self {
            ArrivalSpec::Batch { count, .. } => count as f64,
            ArrivalSpec::Poisson { rate, start, stop, count, ref profile } => {
                let by_time = stop.map(|s| match profile {
                    None => rate * secs(s.saturating_sub(start)),
                    Some(p) => match p.integral(start, s) {
                        Some(f) => rate * f / 1e6,
                        None => rate * p.long_run() * secs(s.saturating_sub(start)),
                    },
                });
                by_time.into_iter().chain(count.map(|c| c as f64)).fold(f64::INFINITY, f64::min)
            }
            ArrivalSpec::Every { every, start, stop, count } => {
                let by_time = stop.map(|s| (s.saturating_sub(start) / every.max(1)) as f64 + 1.0);
                by_time.into_iter().chain(count.map(|c| c as f64)).fold(f64::INFINITY, f64::min)
            }
        }
    }
}

impl EntrySpec {
    /// Expected starts on a worker per job: one per slice when the job runs
    /// in slices (its entry's `slice`, else the run's), one otherwise.
    /// Failed attempts aside: every start is an event and a dispatch row, so
    /// this is what the run's time and log size follow.
    pub fn starts_per_job(&self, run: Option<Slicing>) -> f64 {
        match self.slice.or(run) {
            Some(s) => (self.service.mean_secs() / (s.slice.max(1) as f64 / 1e6)).ceil().max(1.0),
            None => 1.0,
        }
    }

    /// Expected starts of the whole entry (see [`EntrySpec::starts_per_job`]).
    pub fn expected_starts(&self, run: Option<Slicing>) -> f64 {
        self.arrivals.expected_count() * self.starts_per_job(run)
    }
}

impl ServiceSpec {
    /// The distribution's mean, in seconds.
    pub fn mean_secs(&self) -> f64 {
        let secs = |t: Time| t as f64 / 1e6;
        match self {
            ServiceSpec::Constant(t) => secs(*t),
            ServiceSpec::Exponential { mean } => secs(*mean),
            ServiceSpec::Uniform { min, max } => (secs(*min) + secs(*max)) / 2.0,
            ServiceSpec::LogNormal { mu, sigma } => (mu + sigma * sigma / 2.0).exp(),
            ServiceSpec::Pareto { alpha, min, max } => pareto_mean(*alpha, secs(*min), max.map(secs)),
            ServiceSpec::Empirical(v) => {
                v.iter().map(|&t| t as f64).sum::<f64>() / v.len().max(1) as f64 / 1e6
            }
            ServiceSpec::Histogram(h) => h.mean_secs(),
        }
    }
}

/// The mean of a Pareto law of shape `alpha` from `min` (infinite for
/// alpha <= 1), or of the one truncated to [min, max] (bounded Pareto):
/// E = L^a / (1 - (L/H)^a) x a / (a - 1) x (L^(1-a) - H^(1-a)), and for
/// a = 1, H L / (H - L) x ln(H / L).
pub fn pareto_mean(alpha: f64, min: f64, max: Option<f64>) -> f64 {
    match max {
        None if alpha <= 1.0 => f64::INFINITY,
        None => alpha * min / (alpha - 1.0),
        Some(h) if h <= min => min,
        Some(h) => {
            let tail = 1.0 - (min / h).powf(alpha);
            if (alpha - 1.0).abs() < 1e-12 {
                h * min / (h - min) * (h / min).ln()
            } else {
                // written with ratios to min so that large H neither
                // overflows nor cancels
                min * alpha / (alpha - 1.0) * (1.0 - (min / h).powf(alpha - 1.0)) / tail
            }
        }
    }
}

/// `service: {histogram: {edges, counts}}`: bin i is [edges[i],
/// edges[i + 1]), drawn with probability counts[i] / sum, then uniformly
/// inside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// Strictly increasing bin edges, one more than the bins.
    pub edges: Vec<Time>,
    /// Cumulative weights, normalised: the last is 1.
    pub cumulative: Vec<f64>,
}

impl Histogram {
    /// The mean: each bin's midpoint by its probability, in seconds.
    pub fn mean_secs(&self) -> f64 {
        let mut prev = 0.0;
        let mut mean = 0.0;
        for (i, &c) in self.cumulative.iter().enumerate() {
            let mid = (self.edges[i] as f64 + self.edges[i + 1] as f64) / 2.0;
            mean += (c - prev) * mid;
            prev = c;
        }
        mean / 1e6
    }
}

/// How long each job runs.
#[derive(Debug, Clone, PartialEq)]
pub enum ServiceSpec {
    Constant(Time),
    /// Exponential with this mean.
    Exponential {
        mean: Time,
    },
    /// Uniform on [min, max].
    Uniform {
        min: Time,
        max: Time,
    },
    /// Lognormal with ln(service in seconds) ~ Normal(mu, sigma).
    LogNormal {
        mu: f64,
        sigma: f64,
    },
    /// Pareto of shape `alpha` from `min`: P(S > x) = (min / x)^alpha; with
    /// `max`, the bounded Pareto (the same law truncated to [min, max]).
    Pareto {
        alpha: f64,
        min: Time,
        max: Option<Time>,
    },
    /// Each draw one of these recorded service times, uniformly (a trace's
    /// run times): the empirical distribution.
    Empirical(std::sync::Arc<[Time]>),
    /// Piecewise uniform over the bins of a histogram.
    Histogram(std::sync::Arc<Histogram>),
}

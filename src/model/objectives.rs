//! Objectives (`objectives:`): what must hold for a strategy to pass a
//! design review. The loader resolves every name and checks every bound;
//! the scorecard ([`crate::results`]) evaluates each objective on each
//! entry's figures, so both read this one typed form.

use super::{ClassId, TenantId};
use crate::time::Time;

/// What an objective measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Measure {
    /// The nearest-rank `percentile` of the waits (0 < p <= 100; 100 is the
    /// maximum), waits counted from arrival as everywhere else.
    Wait { percentile: f64 },
    /// The mean wait.
    WaitMean,
    /// The fraction of jobs that waited longer than their class's `sla`.
    /// With a class, that class has an `sla` (the loader checks); without,
    /// the jobs of the classes that have one count.
    SlaMisses,
    /// Service received over the max-min fair entitlement, summed over the
    /// fairness windows (per tenant; 1 is a fair share). Never pooled: the
    /// loader gives an unscoped share [`TenantScope::AllBut`] of nobody.
    Share,
    /// Mean Jain's index over the fairness windows (whole run only).
    Jain,
    /// Mean Gini coefficient over the same windows (whole run only; at most).
    Gini,
    /// Busy worker time over workers x makespan (whole run only).
    Utilization,
    /// Time of the last event (whole run only).
    Makespan,
    /// Jobs admission rejected.
    Rejected,
    /// Jobs admission deferred.
    Deferred,
}

/// Which way a bound goes: waits and misses must stay at most their bound,
/// shares, Jain's index and utilization at least theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    AtMost,
    AtLeast,
}

impl Measure {
    pub fn direction(&self) -> Direction {
        match self {
            Measure::Share | Measure::Jain | Measure::Utilization => Direction::AtLeast,
            _ => Direction::AtMost,
        }
    }

    /// Whether the measure is a cost of the strategy (what it spends to
    /// protect the others) rather than a protection.
    pub fn is_cost(&self) -> bool {
        matches!(self, Measure::Utilization | Measure::Makespan | Measure::Rejected | Measure::Deferred)
    }
}

/// The bound in the measure's own unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Limit {
    /// Waits and makespan, in microseconds.
    Time(Time),
    /// SLA-miss fraction, share, Jain's index, utilization.
    Ratio(f64),
    /// Rejected and deferred jobs.
    Count(u64),
}

/// The tenants whose jobs an objective looks at.
#[derive(Debug, Clone, PartialEq)]
pub enum TenantScope {
    /// All jobs pooled (or the whole run, for run-wide measures).
    All,
    /// Each of these tenants on its own; the objective holds when it holds
    /// for every one of them, and the worst one is its figure.
    Each(Vec<TenantId>),
    /// Each tenant except these (the everybody-else of the noisy-neighbour
    /// question), each on its own as in [`TenantScope::Each`]; of nobody,
    /// every tenant on its own (`tenants: each`).
    AllBut(Vec<TenantId>),
}

/// One objective.
#[derive(Debug, Clone, PartialEq)]
pub struct Objective {
    /// Its name in every output (the column `objective` of the scorecard):
    /// the scenario's `name:`, or one made from the scope and measure.
    pub name: String,
    pub measure: Measure,
    /// Only jobs of this class; `None` for every class.
    pub class: Option<ClassId>,
    pub tenants: TenantScope,
    pub limit: Limit,
    /// A cost limit rather than a protection: [`Measure::is_cost`], or a
    /// protection measure the scenario marks `cost: true` (the flooder's own
    /// p99). The verdict orders the passing entries by their costs.
    pub cost: bool,
    /// Where it was declared (1-based line), for messages.
    pub line: usize,
}

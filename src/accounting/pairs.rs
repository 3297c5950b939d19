//! The tenant x class groups: what each tenant's jobs of each class got,
//! kept only when the scenario declares two or more classes (with one, a
//! tenant's pair is the tenant). Counted at each job's end in a table of
//! every pair while tenants x classes is small (an index, no hashing: the
//! map cost a tenth of a summary run's instructions), else in a map of the
//! pairs that occur, so the memory follows the pairs with jobs, not
//! tenants x classes; their waits come from the sample log at the end
//! ([`super::groups::SampleLog::finish`]).

use std::collections::HashMap;

use crate::core::Outcome;
use crate::model::{ClassId, TenantId};

use super::groups::GroupStats;

/// What one pair counts while the run goes (a run has at most 10^9 jobs).
#[derive(Debug, Clone, Copy, Default)]
pub struct Counters {
    completed: u32,
    failed: u32,
    rejected: u32,
    expired: u32,
    unfinished: u32,
    sla_misses: u32,
    deadline_misses: u32,
    deferred: u32,
}

/// Above this many tenant x class cells (32 MiB of counters) the pairs are
/// kept in a map of those with jobs.
const DENSE_CELLS: usize = 1 << 20;

/// The live counters of every pair with jobs.
#[derive(Debug)]
pub enum Pairs {
    /// Cell `tenant x classes + class`, for every pair.
    Dense {
        classes: usize,
        counts: Vec<Counters>,
    },
    Sparse(HashMap<(TenantId, ClassId), Counters>),
}

impl Counters {
    fn jobs(&self) -> u32 {
        self.completed + self.failed + self.rejected + self.expired + self.unfinished
    }
}

/// The pairs with jobs at the end, ordered by tenant then class.
#[derive(Debug, Default)]
pub struct PairsDone {
    pub keys: Vec<(TenantId, ClassId)>,
    pub classes: Vec<ClassId>,
    pub groups: Vec<GroupStats>,
    /// Per tenant place (among the tenants with jobs), where its pairs start;
    /// one more entry at the end.
    pub starts: Vec<u32>,
}

impl Pairs {
    /// The counters of `tenants` x `classes` pairs, none with a job yet.
    pub fn new(tenants: usize, classes: usize) -> Pairs {
        match tenants.checked_mul(classes) {
            Some(cells) if cells <= DENSE_CELLS => {
                Pairs::Dense { classes, counts: vec![Counters::default(); cells] }
            }
            _ => Pairs::Sparse(HashMap::new()),
        }
    }

    /// A job of `tenant` and `class` ended with `outcome`.
    pub fn on_end(
        &mut self,
        tenant: TenantId,
        class: ClassId,
        outcome: Outcome,
        sla_miss: bool,
        deadline_miss: bool,
        deferred: bool,
    ) {
        let c = match self {
            Pairs::Dense { classes, counts } => &mut counts[tenant as usize * *classes + class as usize],
            Pairs::Sparse(map) => map.entry((tenant, class)).or_default(),
        };
        match outcome {
            Outcome::Completed => c.completed += 1,
            Outcome::Failed => c.failed += 1,
            Outcome::Rejected => c.rejected += 1,
            Outcome::Expired => c.expired += 1,
            Outcome::Unfinished => c.unfinished += 1,
        }
        c.sla_misses += sla_miss as u32;
        c.deadline_misses += deadline_miss as u32;
        c.deferred += deferred as u32;
    }

    /// The pairs' groups before their samples are summarised; `index` maps
    /// a tenant id to its place among the `tenants` with jobs.
    pub fn finish(self, index: &[u32], tenants: usize) -> PairsDone {
        let keys: Vec<((TenantId, ClassId), Counters)> = match self {
            Pairs::Dense { classes, counts } => counts
                .into_iter()
                .enumerate()
                .filter(|(_, n)| n.jobs() > 0)
                .map(|(i, n)| (((i / classes) as TenantId, (i % classes) as ClassId), n))
                .collect(),
            Pairs::Sparse(map) => {
                let mut keys: Vec<_> = map.into_iter().collect();
                keys.sort_unstable_by_key(|(k, _)| *k);
                keys
            }
        };
        let mut done = PairsDone { starts: vec![0; tenants + 1], ..Default::default() };
        for ((t, c), n) in keys {
            let g = GroupStats {
                jobs: n.jobs().into(),
                completed: n.completed.into(),
                failed: n.failed.into(),
                rejected: n.rejected.into(),
                expired: n.expired.into(),
                unfinished: n.unfinished.into(),
                sla_misses: n.sla_misses.into(),
                deadline_misses: n.deadline_misses.into(),
                deferred: n.deferred.into(),
                ..Default::default()
            };
            done.starts[index[t as usize] as usize + 1] += 1;
            done.keys.push((t, c));
            done.classes.push(c);
            done.groups.push(g);
        }
        for i in 1..done.starts.len() {
            done.starts[i] += done.starts[i - 1];
        }
        done
    }
}

//! Merges the entries' generators into one stream ordered by
//! (arrival time, entry index, order within the entry).

use crate::error::Error;
use crate::model::Scenario;

use super::generator::EntryGenerator;
use super::merge::{Merge, Pull};
use super::trace::{TraceIds, TraceSource};
use crate::core::Arrival;

/// Source of arrivals for one simulation run.
pub trait Source {
    /// The next arrival in time order, or `None` when the workload is exhausted.
    fn next_arrival(&mut self) -> Option<Arrival>;
}

/// The k-way merge of every entry's generator and every trace (traces
/// after the generators at equal times); see [`super::merge`].
pub struct ArrivalStream {
    sources: Sources,
    merge: Merge,
    error: Option<Error>,
    /// Where the trace rows' own ids go, when `jobs.csv` shows them.
    ids: Option<TraceIds>,
    /// Arrivals handed out so far: the id the engine gives the next one.
    handed: u64,
}

/// The generators, then the traces, as numbered sources.
struct Sources {
    gens: Vec<EntryGenerator>,
    traces: Vec<TraceSource>,
}

impl Pull for Sources {
    fn pull(&mut self, i: usize) -> Option<Arrival> {
        match self.gens.get_mut(i) {
            Some(g) => g.next(),
            None => self.traces[i - self.gens.len()].next_arrival(),
        }
    }

    fn warm(&self, i: usize) {
        crate::prefetch::prefetch_item(&self.gens, i);
    }

    fn id(&self, i: usize) -> Option<&str> {
        let id = self.traces.get(i.checked_sub(self.gens.len())?)?.id();
        (!id.is_empty()).then_some(id)
    }
}

impl ArrivalStream {
    /// A fresh stream for `scenario` (identical each time it is called).
    /// A trace that cannot be re-opened stops the stream; see [`Self::take_error`].
    pub fn new(scenario: &Scenario) -> Self {
        let gens: Vec<EntryGenerator> = scenario
            .workload
            .iter()
            .enumerate()
            .map(|(i, e)| EntryGenerator::new(e, scenario.seed, i, &scenario.source))
            .collect();
        let mut error = None;
        let mut traces = Vec::new();
        for t in &scenario.traces {
            match TraceSource::open(t, scenario) {
                Ok(s) => traces.push(s),
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
        }
        let mut sources = Sources { gens, traces };
        let n = sources.gens.len() + sources.traces.len();
        let merge = Merge::new(&mut sources, n);
        ArrivalStream { sources, merge, error, ids: None, handed: 0 }
    }

    /// Hands the trace rows' own ids, by job id, to `ids` (for `jobs.csv`).
    pub fn with_trace_ids(mut self, ids: Option<TraceIds>) -> Self {
        self.ids = ids;
        self
    }

    /// The error that cut an entry short (a draw past the horizon) or a
    /// trace (it could not be re-opened or read again); the run that used
    /// this stream must be discarded.
    pub fn take_error(&mut self) -> Option<Error> {
        self.error
            .take()
            .or_else(|| self.sources.gens.iter_mut().find_map(|g| g.take_error()))
            .or_else(|| self.sources.traces.iter_mut().find_map(|t| t.take_error()))
    }
}

impl Source for ArrivalStream {
    // inlined into the engine's read-ahead (which is generic over the
    // source): the arrival is then built in place, not copied out through
    // two returns
    #[inline]
    fn next_arrival(&mut self) -> Option<Arrival> {
        let a = match &self.ids {
            None => self.merge.next(&mut self.sources, None)?,
            Some(ids) => {
                let mut id = None;
                let a = self.merge.next(&mut self.sources, Some(&mut id))?;
                if let Some(id) = id {
                    ids.insert(self.handed, &id);
                }
                a
            }
        };
        self.handed += 1;
        Some(a)
    }
}

impl Iterator for ArrivalStream {
    type Item = Arrival;
    fn next(&mut self) -> Option<Arrival> {
        self.next_arrival()
    }
}

//! Merges the entries' generators into one stream ordered by
//! (arrival time, entry index, order within the entry).

use crate::error::Error;
use crate::model::Scenario;
use crate::quad_heap::QuadHeap;

use super::generator::EntryGenerator;
use super::trace::TraceSource;
use crate::core::Arrival;

/// Source of arrivals for one simulation run.
pub trait Source {
    /// The next arrival in time order, or `None` when the workload is exhausted.
    fn next_arrival(&mut self) -> Option<Arrival>;
}

/// The k-way merge of every entry's generator and every trace (traces
/// after the generators at equal times). Memory: one pending arrival per entry.
pub struct ArrivalStream {
    gens: Vec<EntryGenerator>,
    traces: Vec<TraceSource>,
    pending: Vec<Option<Arrival>>,
    heap: QuadHeap<(u64, usize)>,
    error: Option<Error>,
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
        let n = gens.len() + traces.len();
        let mut s = ArrivalStream {
            gens,
            traces,
            pending: Vec::with_capacity(n),
            heap: QuadHeap::with_capacity(n),
            error,
        };
        for i in 0..n {
            let a = s.pull(i);
            if let Some(a) = &a {
                s.heap.push((a.time, i));
            }
            s.pending.push(a);
        }
        s
    }

    fn pull(&mut self, i: usize) -> Option<Arrival> {
        match self.gens.get_mut(i) {
            Some(g) => g.next(),
            None => self.traces[i - self.gens.len()].next_arrival(),
        }
    }

    /// The error that cut an entry short (a draw past the horizon) or a
    /// trace (it could not be re-opened or read again); the run that used
    /// this stream must be discarded.
    pub fn take_error(&mut self) -> Option<Error> {
        self.error
            .take()
            .or_else(|| self.gens.iter_mut().find_map(|g| g.take_error()))
            .or_else(|| self.traces.iter_mut().find_map(|t| t.take_error()))
    }
}

impl Source for ArrivalStream {
    fn next_arrival(&mut self) -> Option<Arrival> {
        let (_, i) = self.heap.pop()?;
        let out = self.pending[i].take();
        let next = self.pull(i);
        if let Some(a) = &next {
            self.heap.push((a.time, i));
        }
        self.pending[i] = next;
        out
    }
}

impl Iterator for ArrivalStream {
    type Item = Arrival;
    fn next(&mut self) -> Option<Arrival> {
        self.next_arrival()
    }
}

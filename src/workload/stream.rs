//! Merges the entries' generators into one stream ordered by
//! (arrival time, entry index, order within the entry).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::scenario::Scenario;

use super::generator::{Arrival, EntryGenerator};

/// Source of arrivals for one simulation run.
pub trait Source {
    /// The next arrival in time order, or `None` when the workload is exhausted.
    fn next_arrival(&mut self) -> Option<Arrival>;
}

/// The k-way merge of every entry's generator. Memory: one pending arrival per entry.
pub struct ArrivalStream {
    gens: Vec<EntryGenerator>,
    pending: Vec<Option<Arrival>>,
    heap: BinaryHeap<Reverse<(u64, usize)>>,
}

impl ArrivalStream {
    /// A fresh stream for `scenario` (identical each time it is called).
    pub fn new(scenario: &Scenario) -> Self {
        let mut gens: Vec<EntryGenerator> = scenario
            .workload
            .iter()
            .enumerate()
            .map(|(i, e)| EntryGenerator::new(e, scenario.seed, i))
            .collect();
        let mut pending = Vec::with_capacity(gens.len());
        let mut heap = BinaryHeap::with_capacity(gens.len());
        for (i, g) in gens.iter_mut().enumerate() {
            let a = g.next();
            if let Some(a) = &a {
                heap.push(Reverse((a.time, i)));
            }
            pending.push(a);
        }
        ArrivalStream { gens, pending, heap }
    }
}

impl Source for ArrivalStream {
    fn next_arrival(&mut self) -> Option<Arrival> {
        let Reverse((_, i)) = self.heap.pop()?;
        let out = self.pending[i].take();
        let next = self.gens[i].next();
        if let Some(a) = &next {
            self.heap.push(Reverse((a.time, i)));
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

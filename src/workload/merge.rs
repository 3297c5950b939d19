//! The k-way merge of arrival sources into one stream ordered by
//! (arrival time, source index, order within the source).
//!
//! A few sources are merged through a heap of their next arrivals. Many
//! sources (one workload entry per tenant: 10,000 entries) make that heap
//! the stream's main cost: each arrival is a pop and a push ten levels
//! deep, and each touches a generator far from the last one in memory. So
//! from [`WINDOW_FROM`] sources on, the merge works in windows of time
//! instead: each round pulls, source after source in order, the arrivals
//! before the window's end (at most a few per source), sorts their keys,
//! and hands out those that no source's next arrival can precede. The
//! order is the heap's exactly (the keys are the same and distinct); only
//! the work changes: generators are visited in memory order, and a sort of
//! 16-byte keys replaces the heap.

use crate::core::Arrival;
use crate::prefetch::prefetch_item;
use crate::quad_heap::QuadHeap;
use crate::time::Time;

/// Numbered arrival sources.
pub trait Pull {
    /// The next arrival of source `i`.
    fn pull(&mut self, i: usize) -> Option<Arrival>;
    /// The trace's own id of the arrival `i` last returned, if it has one.
    fn id(&self, i: usize) -> Option<&str>;
    /// Starts loading source `i` into the cache (it is pulled soon).
    fn warm(&self, _i: usize) {}
}

/// Sources from which the windowed merge is used.
pub const WINDOW_FROM: usize = 64;

/// Arrivals a round aims to pull at least (its width adapts to this; with
/// many sources, twice their number, so the passes over the sources cost
/// a few steps per arrival).
const TARGET: usize = 4096;

/// Most arrivals a round pulls in all, as a multiple of its target: bounds
/// its memory when sources have thousands at one instant (batches). A round
/// that reaches it leaves the remaining sources for the next.
///
/// There is no smaller limit per source: a source stopped short holds back
/// every arrival after its next one, which then waits in the buffer, is
/// moved and sorted again each round. One dense source among many sparse
/// ones (a flood at 50/s beside 100 tenants at 2/s) stopped at a few dozen
/// a round made each round hand out those few dozen while re-sorting
/// thousands: 7x the time of the same arrivals from 4 entries.
const MOST_PER_TARGET: usize = 4;

pub enum Merge {
    /// One source (a single workload entry, or a trace alone): its own
    /// order, handed on as pulled, without a heap or a look-ahead copy.
    One,
    Heap(HeapMerge),
    Window(WindowMerge),
}

impl Merge {
    /// A merge of sources `0..n` of `src`, their first arrivals pulled.
    pub fn new(src: &mut impl Pull, n: usize) -> Self {
        if n == 1 {
            return Merge::One;
        }
        let pending: Vec<Option<Arrival>> = (0..n).map(|i| src.pull(i)).collect();
        if n < WINDOW_FROM {
            let mut heap = QuadHeap::with_capacity(n);
            for (i, a) in pending.iter().enumerate() {
                if let Some(a) = a {
                    heap.push((a.time, i));
                }
            }
            Merge::Heap(HeapMerge { pending, heap })
        } else {
            let live = (0..n as u32).filter(|&i| pending[i as usize].is_some()).collect();
            let times = pending.iter().map(|a| a.as_ref().map_or(Time::MAX, |a| a.time)).collect();
            Merge::Window(WindowMerge {
                pending,
                times,
                live,
                keys: Vec::new(),
                store: Vec::new(),
                spare: Vec::new(),
                due: Vec::new(),
                ids: Vec::new(),
                next: 0,
                ready: 0,
                width: 1,
            })
        }
    }

    /// The next arrival; its trace id goes into `id` when one is given.
    /// (An out-parameter rather than a pair: without ids the arrival is
    /// returned alone and the id code compiles away.)
    // always: inlined into the engine's read-ahead, the arrival is built in
    // place (as `#[inline]` it stopped being inlined once `One` was added)
    #[inline(always)]
    pub fn next(&mut self, src: &mut impl Pull, id: Option<&mut Option<Box<str>>>) -> Option<Arrival> {
        match self {
            Merge::One => {
                let a = src.pull(0)?;
                if let Some(id) = id {
                    *id = src.id(0).map(Box::from);
                }
                Some(a)
            }
            Merge::Heap(h) => h.next(src, id),
            Merge::Window(w) => w.next(src, id),
        }
    }
}

pub struct HeapMerge {
    /// The next arrival of each source.
    pending: Vec<Option<Arrival>>,
    heap: QuadHeap<(u64, usize)>,
}

impl HeapMerge {
    #[inline(always)]
    fn next(&mut self, src: &mut impl Pull, id: Option<&mut Option<Box<str>>>) -> Option<Arrival> {
        let &(_, i) = self.heap.peek()?;
        let out = self.pending[i].take()?;
        // the source's last arrival is `out` until it is pulled again
        if let Some(id) = id {
            *id = src.id(i).map(Box::from);
        }
        let next = src.pull(i);
        // the source's next key takes its last one's place: one walk down
        // the heap instead of a pop and a push
        match &next {
            Some(a) => self.heap.replace_top((a.time, i)),
            None => self.heap.pop(),
        };
        self.pending[i] = next;
        Some(out)
    }
}

pub struct WindowMerge {
    /// The next arrival of each source not yet pulled into the round.
    pending: Vec<Option<Arrival>>,
    /// Its time (`Time::MAX` for none): the passes over the sources read these.
    times: Vec<Time>,
    /// Sources with a pending arrival, in index order.
    live: Vec<u32>,
    /// Pulled arrivals, sorted from the last round on: time << 64 |
    /// source << 32 | place in `store`. A source's arrivals enter `store`
    /// in its order, so the place breaks ties within a source.
    keys: Vec<u128>,
    store: Vec<Arrival>,
    /// The previous round's `store`, kept for its capacity.
    spare: Vec<Arrival>,
    /// The sources a round pulls from.
    due: Vec<u32>,
    /// Trace ids beside `store` (empty unless asked for).
    ids: Vec<Option<Box<str>>>,
    /// `keys[next..ready]` may be handed out.
    next: usize,
    ready: usize,
    /// Width of a round's window (microseconds).
    width: Time,
}

fn key(time: Time, source: u32, place: u32) -> u128 {
    (time as u128) << 64 | (source as u128) << 32 | place as u128
}

impl WindowMerge {
    fn next(&mut self, src: &mut impl Pull, id: Option<&mut Option<Box<str>>>) -> Option<Arrival> {
        while self.next == self.ready {
            if !self.round(src, id.is_some()) {
                return None;
            }
        }
        let place = (self.keys[self.next] as u32) as usize;
        // the store is in source order, the keys in time order: a miss each
        // unless asked for ahead
        if let Some(&k) = self.keys.get(self.next + 8) {
            prefetch_item(&self.store, (k as u32) as usize);
        }
        self.next += 1;
        if let Some(id) = id {
            *id = self.ids.get_mut(place).and_then(Option::take);
        }
        Some(self.store[place].clone())
    }

    /// Pulls one window; false when every source is exhausted and nothing is left.
    fn round(&mut self, src: &mut impl Pull, want_ids: bool) -> bool {
        self.compact();
        if self.live.is_empty() {
            self.ready = self.keys.len();
            return self.ready > self.next;
        }
        let target = TARGET.max(2 * self.live.len());
        let most = MOST_PER_TARGET * target;
        let lo = self.live.iter().map(|&s| self.times[s as usize]).min().unwrap_or(Time::MAX);
        let end = lo.saturating_add(self.width);
        let before = self.live.len();
        let mut due = std::mem::take(&mut self.due);
        due.clear();
        due.extend(self.live.iter().copied().filter(|&s| self.times[s as usize] < end));
        let mut pulled = 0;
        for (k, &s) in due.iter().enumerate() {
            if pulled >= most {
                break;
            }
            // sources are far apart in memory: load the one a few ahead
            if let Some(&ahead) = due.get(k + 4) {
                prefetch_item(&self.pending, ahead as usize);
                src.warm(ahead as usize);
            }
            let i = s as usize;
            let mut n = 0;
            while self.times[i] < end && pulled + n < most {
                let Some(a) = self.pending[i].take() else { break };
                let place = self.store.len() as u32;
                self.keys.push(key(a.time, s, place));
                self.store.push(a);
                if want_ids {
                    self.ids.push(src.id(i).map(Box::from));
                }
                self.pending[i] = src.pull(i);
                self.times[i] = self.pending[i].as_ref().map_or(Time::MAX, |a| a.time);
                n += 1;
            }
            pulled += n;
        }
        self.due = due;
        // an arrival goes out when no pending one precedes it: at the same
        // (time, source) the pulled one is the earlier of the source
        let (mut bound, mut capped, mut kept) = (u128::MAX, 0, 0);
        for j in 0..self.live.len() {
            let s = self.live[j];
            let i = s as usize;
            if self.times[i] == Time::MAX && self.pending[i].is_none() {
                continue;
            }
            capped += usize::from(self.times[i] < end);
            bound = bound.min(key(self.times[i], s, u32::MAX));
            self.live[kept] = s;
            kept += 1;
        }
        self.live.truncate(kept);
        if capped * 4 > before {
            self.width = (self.width / 2).max(1);
        } else if pulled < target / 2 {
            self.width = self.width.saturating_mul(2);
        }
        self.keys.sort_unstable();
        self.ready = self.keys.partition_point(|&k| k <= bound);
        true
    }

    /// Drops what was handed out, keeping the rest in order.
    fn compact(&mut self) {
        if self.next == 0 {
            return;
        }
        self.keys.drain(..self.next);
        let mut store = std::mem::take(&mut self.spare);
        store.clear();
        let mut ids = Vec::new();
        for k in self.keys.iter_mut() {
            let place = (*k as u32) as usize;
            *k = (*k >> 32) << 32 | store.len() as u128;
            store.push(self.store[place].clone());
            if !self.ids.is_empty() {
                ids.push(self.ids[place].take());
            }
        }
        self.spare = std::mem::replace(&mut self.store, store);
        self.ids = ids;
        self.next = 0;
        self.ready = 0;
    }
}

//! First-in first-out lists of job slots, threaded through one array indexed
//! by slot: the per-tenant queues of drr, lottery, share (flows of tenants)
//! and round_robin.
//!
//! Why not a `VecDeque` per tenant: with 100,000 tenants each deque is a
//! header plus a separate small buffer, so taking a tenant's next job read
//! two cold places, and pushes reallocated 100,000 buffers as they grew
//! (malloc, copy, free: about 10% of a 100,000-tenant drr run). Here a list
//! is two slots (8 bytes) and the links live in one array that follows the
//! job table. Taking the front job reads the link of the job being taken,
//! which the policy's hint has already asked the cache for (`warm`), and a
//! push writes the link of the old back job, a store the CPU does not wait
//! for.
//!
//! Every method is `#[inline]`: the policies live in other codegen units,
//! where an out-of-line push costs a call per job.
//!
//! A slot is in at most one list of a [`SlotLinks`] at a time: a job is
//! queued once, and leaves its list before its slot can be reused.

use crate::core::Slot;
use crate::prefetch::prefetch_item;

/// Marks "no slot" in a list's ends.
const NONE: Slot = Slot::MAX;

/// One list's ends; the links are in the [`SlotLinks`] it is used with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotList {
    first: Slot,
    last: Slot,
}

impl Default for SlotList {
    fn default() -> Self {
        SlotList { first: NONE, last: NONE }
    }
}

impl SlotList {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.first == NONE
    }

    #[inline]
    pub fn front(&self) -> Option<Slot> {
        (self.first != NONE).then_some(self.first)
    }
}

/// The successor of every listed slot.
#[derive(Debug, Default)]
pub struct SlotLinks {
    next: Vec<Slot>,
}

impl SlotLinks {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `slot` to the back of `list`.
    #[inline]
    pub fn push_back(&mut self, list: &mut SlotList, slot: Slot) {
        let s = slot as usize;
        if self.next.len() <= s {
            // amortised O(1): `resize` grows the capacity geometrically
            self.next.resize(s + 1, NONE);
        }
        self.next[s] = NONE;
        if list.last == NONE {
            list.first = slot;
        } else {
            self.next[list.last as usize] = slot;
        }
        list.last = slot;
    }

    /// Removes and returns the front of `list`.
    #[inline]
    pub fn pop_front(&mut self, list: &mut SlotList) -> Option<Slot> {
        let slot = list.front()?;
        if slot == list.last {
            *list = SlotList::default();
        } else {
            list.first = self.next[slot as usize];
        }
        Some(slot)
    }

    /// Prefetches the link `pop_front` reads when `slot` is taken.
    #[inline]
    pub fn warm(&self, slot: Slot) {
        prefetch_item(&self.next, slot as usize);
    }

    /// Prefetches the link `push_back` writes behind `list`'s back.
    #[inline]
    pub fn warm_back(&self, list: &SlotList) {
        if list.last != NONE {
            prefetch_item(&self.next, list.last as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn lists_sharing_links_keep_their_own_arrival_order() {
        // three lists over one link array, slots reused after they leave,
        // against a VecDeque per list
        let mut next = crate::test_rng::xorshift(11);
        let mut links = SlotLinks::new();
        let mut lists = [SlotList::default(); 3];
        let mut want: [VecDeque<Slot>; 3] = Default::default();
        let mut free: Vec<Slot> = Vec::new();
        let mut fresh = 0;
        for _ in 0..20_000 {
            let l = next(3) as usize;
            if next(2) == 0 {
                let slot = free.pop().unwrap_or_else(|| {
                    fresh += 1;
                    fresh - 1
                });
                links.push_back(&mut lists[l], slot);
                want[l].push_back(slot);
            } else {
                let got = links.pop_front(&mut lists[l]);
                assert_eq!(got, want[l].pop_front());
                free.extend(got);
            }
            assert_eq!(lists[l].front(), want[l].front().copied());
            assert_eq!(lists[l].is_empty(), want[l].is_empty());
        }
        // slots were reused, so fewer were ever made than pushed
        assert!(fresh < 10_000, "{fresh}");
    }
}

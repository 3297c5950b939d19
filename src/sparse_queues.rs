//! One FIFO queue per index, allocated only for the indices that ever hold
//! something: 8 bytes per index otherwise. For per-tenant queues that most
//! tenants never use (jobs set aside while a tenant is parked, the oldest
//! claimable jobs of the log), where a `VecDeque` each would cost 32 bytes
//! for every one of 10,000,000 declared tenants. The pointers themselves
//! grow only up to the highest index used: a topology builds one policy per
//! queue it uses, and 8 bytes per declared tenant in each of them made a
//! run grow with queues x tenants.

use std::collections::VecDeque;

#[derive(Debug)]
pub struct SparseQueues<T> {
    /// A thin pointer per index up to the highest used (8 bytes), to a
    /// queue only where one was used.
    queues: Vec<Option<Box<Queue<T>>>>,
}

/// The boxed queue (a `VecDeque` inline would be 32 bytes per index).
#[derive(Debug, Default)]
struct Queue<T>(VecDeque<T>);

impl<T> SparseQueues<T> {
    /// `n` empty queues (indices `0..n`; nothing is allocated yet).
    pub fn new(_n: usize) -> Self {
        SparseQueues { queues: Vec::new() }
    }

    /// Queue `i`, if it was ever used.
    pub fn get(&self, i: usize) -> Option<&VecDeque<T>> {
        self.queues.get(i)?.as_deref().map(|q| &q.0)
    }

    /// Queue `i`, allocated on first use.
    pub fn get_mut(&mut self, i: usize) -> &mut VecDeque<T> {
        if i >= self.queues.len() {
            self.queues.resize_with(i + 1, || None);
        }
        &mut self.queues[i].get_or_insert_with(|| Box::new(Queue(VecDeque::new()))).0
    }

    /// The front of queue `i`.
    pub fn front(&self, i: usize) -> Option<&T> {
        self.get(i).and_then(VecDeque::front)
    }

    pub fn push_back(&mut self, i: usize, item: T) {
        self.get_mut(i).push_back(item);
    }

    /// Whether queue `i` is empty (or was never used).
    pub fn is_empty(&self, i: usize) -> bool {
        self.get(i).is_none_or(VecDeque::is_empty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queues_keep_their_own_order_and_only_used_ones_allocate() {
        let mut q: SparseQueues<u32> = SparseQueues::new(1000);
        q.push_back(7, 1);
        q.push_back(7, 2);
        q.push_back(3, 9);
        assert_eq!(q.front(7), Some(&1));
        q.get_mut(7).pop_front();
        assert_eq!(q.front(7), Some(&2));
        assert_eq!(q.front(3), Some(&9));
        assert!(q.is_empty(5) && q.get(5).is_none());
        assert_eq!(q.queues.iter().filter(|x| x.is_some()).count(), 2);
        // the pointers reach only the highest index used, not the 1000 declared
        assert_eq!(q.queues.len(), 8);
        assert!(q.is_empty(999) && q.front(999).is_none());
    }
}

//! A 4-ary min-heap: the priority queue behind the engine's running set, the
//! policies' backlog indexes and the fairness idle set.
//!
//! Why not `std::collections::BinaryHeap`: with 100,000 backlogged tenants a
//! binary heap is 17 levels deep and each level of a pop is a cache miss; a
//! 4-ary heap is half as deep and the four children of a node sit next to
//! each other in memory. `pop` moves the hole down along the smallest
//! children to a leaf and then sifts the last element up from there
//! (Floyd's bottom-up method): the displaced element almost always belongs
//! near the bottom, so this saves one comparison per level.
//!
//! Elements must be totally ordered and, for a deterministic pop order,
//! distinct (every caller breaks ties with an id); then the pop order is the
//! sorted order, whatever the heap's internal layout.

/// A min-heap with four children per node.
#[derive(Debug, Clone)]
pub struct QuadHeap<T> {
    v: Vec<T>,
}

impl<T> Default for QuadHeap<T> {
    fn default() -> Self {
        QuadHeap { v: Vec::new() }
    }
}

impl<T: Ord + Copy> QuadHeap<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_capacity(n: usize) -> Self {
        QuadHeap { v: Vec::with_capacity(n) }
    }

    pub fn len(&self) -> usize {
        self.v.len()
    }

    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }

    /// The smallest element.
    pub fn peek(&self) -> Option<&T> {
        self.v.first()
    }

    // always inlined: out of line, the engine's pop and push of its running
    // set cost ~30% more instructions (the element moves through memory
    // twice), and with two copies of the event loop LLVM stops inlining a
    // plain `#[inline]` pop
    #[inline(always)]
    pub fn push(&mut self, x: T) {
        self.v.push(x);
        self.sift_up(self.v.len() - 1, x);
    }

    /// Removes and returns the smallest element.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<T> {
        let last = self.v.pop()?;
        let Some(&top) = self.v.first() else {
            return Some(last);
        };
        let mut hole = 0;
        while let Some(m) = self.min_child(hole) {
            self.v[hole] = self.v[m];
            hole = m;
        }
        self.sift_up(hole, last);
        Some(top)
    }

    /// Replaces the smallest element by `x` (a pop and a push in one walk
    /// down, for a merge whose source yields its next key as the last is
    /// taken); returns the element replaced, `None` (and `x` pushed) when
    /// the heap was empty.
    #[inline(always)]
    pub fn replace_top(&mut self, x: T) -> Option<T> {
        let Some(&top) = self.v.first() else {
            self.v.push(x);
            return None;
        };
        let mut hole = 0;
        while let Some(m) = self.min_child(hole) {
            self.v[hole] = self.v[m];
            hole = m;
        }
        self.sift_up(hole, x);
        Some(top)
    }

    /// Keeps only the elements for which `keep` is true (O(n)).
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.v.retain(keep);
        self.rebuild();
    }

    pub fn clear(&mut self) {
        self.v.clear();
    }

    /// The elements in no particular order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.v.iter()
    }

    /// The smallest of node `i`'s children, if it has any.
    #[inline(always)]
    fn min_child(&self, i: usize) -> Option<usize> {
        let first = 4 * i + 1;
        // all four children: one bounds check and two independent compares
        // before the last, instead of a chain of three; ties still go to
        // the first child, as in the loop below
        if let Some(c) = self.v.get(first..first + 4) {
            let a = usize::from(c[1] < c[0]);
            let b = 2 + usize::from(c[3] < c[2]);
            return Some(first + if c[b] < c[a] { b } else { a });
        }
        let end = (first + 4).min(self.v.len());
        (first..end).reduce(|m, c| if self.v[c] < self.v[m] { c } else { m })
    }

    /// Places `x` at `i` or above, moving larger parents down.
    #[inline(always)]
    fn sift_up(&mut self, mut i: usize, x: T) {
        while i > 0 {
            let p = (i - 1) / 4;
            if x < self.v[p] {
                self.v[i] = self.v[p];
                i = p;
            } else {
                break;
            }
        }
        self.v[i] = x;
    }

    /// Restores the heap order of the whole vector (Floyd's heapify, O(n)).
    fn rebuild(&mut self) {
        let n = self.v.len();
        if n < 2 {
            return;
        }
        for i in (0..=(n - 2) / 4).rev() {
            let x = self.v[i];
            let mut hole = i;
            while let Some(m) = self.min_child(hole).filter(|&m| self.v[m] < x) {
                self.v[hole] = self.v[m];
                hole = m;
            }
            self.v[hole] = x;
        }
    }
}

impl<T: Ord + Copy> Extend<T> for QuadHeap<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        for x in items {
            self.push(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(n: usize, seed: u64, modulo: u64) -> Vec<u64> {
        let mut next = crate::test_rng::xorshift(seed);
        (0..n).map(|_| next(modulo)).collect()
    }

    #[test]
    fn pops_in_sorted_order_with_duplicates_and_interleaved_pushes() {
        for (n, modulo) in [(0, 10), (1, 10), (5, 3), (100, 7), (1000, 1_000_000), (4097, 50)] {
            let xs = values(n, 0x2545_f491_4f6c_dd1d ^ n as u64, modulo);
            // reference: a sorted copy (independent of any heap)
            let mut sorted = xs.clone();
            sorted.sort_unstable();
            let mut h = QuadHeap::new();
            // push the first half, pop a quarter, push the rest: the popped
            // prefix must be the smallest of what was in the heap each time
            let half = n / 2;
            h.extend(xs[..half].iter().copied());
            let mut first_half = xs[..half].to_vec();
            first_half.sort_unstable();
            for want in first_half.iter().take(half / 2) {
                assert_eq!(h.pop(), Some(*want));
            }
            h.extend(xs[half..].iter().copied());
            let mut rest: Vec<u64> = first_half[half / 2..].to_vec();
            rest.extend_from_slice(&xs[half..]);
            rest.sort_unstable();
            let mut got = Vec::new();
            while let Some(x) = h.pop() {
                got.push(x);
            }
            assert_eq!(got, rest, "n {n}");
            assert!(h.is_empty());
        }
    }

    #[test]
    fn replacing_the_top_is_a_pop_then_a_push() {
        // a k-way merge of sorted runs, as the arrival merge uses it: the
        // result must be the sorted concatenation of the runs
        for (runs, len) in [(1, 50), (3, 200), (10, 1000), (64, 40)] {
            let mut all = Vec::new();
            let mut sources: Vec<Vec<u64>> = (0..runs)
                .map(|r| {
                    let mut run = values(len, 7 + r as u64, 1000);
                    run.sort_unstable();
                    // distinct keys, as every caller's are: (value, run) packed
                    run.iter_mut().for_each(|x| *x = *x * 100 + r as u64);
                    all.extend_from_slice(&run);
                    run.reverse();
                    run
                })
                .collect();
            all.sort_unstable();
            let mut h = QuadHeap::new();
            for s in sources.iter_mut() {
                h.push(s.pop().expect("a first value"));
            }
            let mut got = Vec::new();
            while let Some(&top) = h.peek() {
                got.push(top);
                match sources[(top % 100) as usize].pop() {
                    Some(next) => assert_eq!(h.replace_top(next), Some(top)),
                    None => assert_eq!(h.pop(), Some(top)),
                }
            }
            assert_eq!(got, all, "{runs} runs");
        }
        let mut h = QuadHeap::new();
        assert_eq!(h.replace_top(5u64), None);
        assert_eq!(h.pop(), Some(5));
    }

    #[test]
    fn retain_rebuilds_a_valid_heap() {
        let xs = values(3000, 99, 10_000);
        let mut h = QuadHeap::new();
        h.extend(xs.iter().copied());
        h.retain(|&x| x % 3 != 0);
        let mut want: Vec<u64> = xs.into_iter().filter(|x| x % 3 != 0).collect();
        want.sort_unstable();
        assert_eq!(h.len(), want.len());
        assert_eq!(h.peek(), want.first());
        let got: Vec<u64> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(got, want);
    }
}

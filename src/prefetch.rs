//! Cache prefetch hints.
//!
//! With 100,000 tenants, the job a policy proposes next, its tenant's load
//! and its fairness record are each somewhere cold in tens of megabytes;
//! reading them costs a cache miss apiece, on the dispatch path. Where the
//! next one is known one step ahead (the policy's next job, the next
//! arrival), asking the CPU to start loading it lets that latency overlap
//! the rest of the current step. A hint never changes what runs: it only
//! moves data into the cache, and is a no-op on targets without one.

/// Size of a cache line on the machines fairsim targets.
const LINE: usize = 64;

/// Starts loading every cache line of `*x` (at most 4) into the cache.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    let p = (x as *const T).cast::<u8>();
    let lines = std::mem::size_of::<T>().div_ceil(LINE).clamp(1, 4);
    for i in 0..lines {
        line(p.wrapping_add(i * LINE));
    }
}

/// [`prefetch`]es `v[i]`; nothing when `i` is out of range (hints may be
/// stale and must never panic).
#[inline(always)]
pub fn prefetch_item<T>(v: &[T], i: usize) {
    if let Some(x) = v.get(i) {
        prefetch(x);
    }
}

#[inline(always)]
fn line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it never faults, dereferences nothing
    // and changes no memory, whatever the address (this one lies within or
    // just past a live object). SSE, which provides it, is part of x86_64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    // A prefetch cannot write memory, so "it changes nothing" is not a test
    // that can fail. What can fail is the promise of `prefetch_item`: a hint
    // may name a slot that no longer exists (a stale guess), and the hint
    // must then do nothing rather than panic (indexing instead of `get`
    // would panic here).
    #[test]
    fn a_stale_index_past_the_end_is_ignored() {
        let v: Vec<[u64; 40]> = vec![[7; 40]; 3];
        for i in [0, 2, 3, 4, usize::MAX] {
            prefetch_item(&v, i);
        }
        let empty: Vec<u64> = Vec::new();
        prefetch_item(&empty, 0);
    }
}

//! Transparent huge pages for the large arrays.
//!
//! With 100,000 tenants and a million live jobs, the job table and the
//! per-tenant arrays span well over 100 MB, and a dispatch reaches them at
//! random places. With 4 KiB pages each such access also misses the TLB,
//! whose 1,500 to 2,000 entries cover only a few megabytes; the page walk
//! then adds its own memory reads. One 2 MiB page covers 512 times more.
//!
//! Linux hands out huge pages to anonymous memory on request only (this
//! machine's `transparent_hugepage/enabled` is `madvise`, the common
//! default), so [`HugePageAlloc`], installed as the global allocator of both
//! binaries, asks for them with `madvise(MADV_HUGEPAGE)` on every allocation
//! of at least 4 MiB (which holds at least one aligned 2 MiB page). Small
//! allocations are untouched, and memory contents never change: it is a hint
//! to the kernel, like glibc's `glibc.malloc.hugetlb=1` tunable, which does
//! the same thing when a user sets it by hand.
//!
//! Measured before this allocator existed, with that tunable on and off
//! (`fairsim-bench scaling`, runs alternating, best of 8): per-job cost at
//! 100,000 tenants fell by 12% to 29% (round_robin, drr, wfq; fifo did not
//! move), and at 100 tenants by 16% to 23%. See `docs/performance.md`.

use std::alloc::{GlobalAlloc, Layout, System};

/// Size of a huge page on x86_64 and most aarch64 Linux systems.
const HUGE_PAGE: usize = 2 << 20;

/// Allocations at least this large get the hint.
const THRESHOLD: usize = 2 * HUGE_PAGE;

/// The system allocator, plus the huge-page hint for large blocks.
pub struct HugePageAlloc;

// SAFETY: every method forwards to `System` with the same arguments and
// returns its result unchanged; `advise` only passes the kernel a hint about
// whole pages inside the block just returned, which changes no byte of it.
unsafe impl GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        // a grown block may have moved, or gained pages the first hint did not cover
        advise(p, new_size);
        p
    }
}

/// Asks for huge pages on the whole 2 MiB pages inside `[p, p + len)`.
fn advise(p: *mut u8, len: usize) {
    if p.is_null() || len < THRESHOLD {
        return;
    }
    let addr = p as usize;
    let start = addr.next_multiple_of(HUGE_PAGE);
    let end = (addr + len) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        madvise_huge(start, end - start);
    }
}

#[cfg(target_os = "linux")]
fn madvise_huge(start: usize, len: usize) {
    // SAFETY: [start, start + len) lies inside a block the allocator just
    // returned, so it is mapped and ours; MADV_HUGEPAGE does not change its
    // contents. A failure (a kernel without THP) leaves ordinary pages.
    unsafe {
        libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn madvise_huge(_start: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_behave_like_the_system_allocators() {
        // a large block through alloc_zeroed, realloc (grow, then shrink
        // below the threshold) and dealloc keeps its contents
        let a = HugePageAlloc;
        unsafe {
            let layout = Layout::from_size_align(THRESHOLD + 4096, 64).expect("layout");
            let p = a.alloc_zeroed(layout);
            assert!(!p.is_null());
            assert!(std::slice::from_raw_parts(p, layout.size()).iter().all(|&b| b == 0));
            for i in (0..layout.size()).step_by(4096) {
                *p.add(i) = (i / 4096) as u8;
            }
            let q = a.realloc(p, layout, 3 * THRESHOLD);
            assert!(!q.is_null());
            for i in (0..layout.size()).step_by(4096) {
                assert_eq!(*q.add(i), (i / 4096) as u8);
            }
            let big = Layout::from_size_align(3 * THRESHOLD, 64).expect("layout");
            let r = a.realloc(q, big, 8192);
            assert_eq!(*r.add(4096), 1);
            a.dealloc(r, Layout::from_size_align(8192, 64).expect("layout"));
        }
    }
}

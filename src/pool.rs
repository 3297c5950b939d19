//! A pool of scoped threads over numbered tasks, shared by `run` (its
//! entries), `run --seeds` and `sweep` (their runs) and `tune`.
//!
//! A thread takes the next number from a shared counter, and the results
//! are put back in number order, so what the caller writes does not depend
//! on which thread ran what, nor on which finished first.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::error::Result;

/// Runs `task(0)` to `task(count - 1)` on `threads` threads (at least 1,
/// at most `count`); `done` is called after each task with the number
/// finished so far. On a failure no further task starts and the failure
/// of the lowest number is returned: every lower number had already been
/// taken, so this is the failure the tasks run one by one would meet first.
pub fn map<T: Send>(
    count: usize,
    threads: usize,
    task: &(dyn Fn(usize) -> Result<T> + Sync),
    done: &(dyn Fn(usize) + Sync),
) -> Result<Vec<T>> {
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let mut out: Vec<(usize, Result<T>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.clamp(1, count.max(1)))
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    while !failed.load(Ordering::Relaxed) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= count {
                            break;
                        }
                        let r = task(i);
                        if r.is_err() {
                            failed.store(true, Ordering::Relaxed);
                        }
                        mine.push((i, r));
                        done(finished.fetch_add(1, Ordering::Relaxed) + 1);
                    }
                    mine
                })
            })
            .collect();
        // a panicking task is a bug: let it end the command as it would on one thread
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn results_come_back_in_task_order_whatever_finishes_first() {
        // the early tasks sleep longest, so on 3 threads they finish last
        let task = |i: usize| -> Result<usize> {
            std::thread::sleep(std::time::Duration::from_millis(((6 - i) * 5) as u64));
            Ok(i * i)
        };
        assert_eq!(map(6, 3, &task, &|_| {}).unwrap(), vec![0, 1, 4, 9, 16, 25]);
    }

    #[test]
    fn the_lowest_failure_is_the_one_reported() {
        let task = |i: usize| -> Result<usize> {
            if i == 2 || i == 4 {
                // the higher failure comes first in time
                std::thread::sleep(std::time::Duration::from_millis(if i == 2 { 30 } else { 0 }));
                return Err(Error::Other(format!("task {i}")));
            }
            Ok(i)
        };
        let e = map(6, 3, &task, &|_| {}).unwrap_err();
        assert_eq!(e.to_string(), "task 2");
    }

    #[test]
    fn done_counts_every_finished_task() {
        let seen = std::sync::Mutex::new(Vec::new());
        map(4, 2, &|i| Ok(i), &|n| seen.lock().unwrap().push(n)).unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen, vec![1, 2, 3, 4]);
    }
}

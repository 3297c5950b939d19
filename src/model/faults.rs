//! Capacity and execution faults: the worker count changing over time
//! (`capacity:`) and dependency slowdowns (`slowdowns:`).

use super::{ClassId, TenantId};
use crate::time::Time;

/// What happens to the running jobs of workers a capacity change removes
/// (idle workers go first; these are the busy ones still to remove).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loss {
    /// Each finishes its attempt, then its worker leaves.
    Drain,
    /// Stopped now, newest attempt first; the work done so far is lost and
    /// charged to its tenant, and the job goes back to its queue.
    Kill,
}

/// From `at` on, the pool has `workers` workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapacityChange {
    pub at: Time,
    pub workers: u32,
    pub loss: Loss,
}

/// Attempts that start in `[from, to)` and match run `factor` times longer
/// (a slow dependency); overlapping windows multiply.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slowdown {
    pub from: Time,
    pub to: Time,
    pub factor: f64,
    pub tenant: Option<TenantId>,
    pub class: Option<ClassId>,
}

impl Slowdown {
    /// Whether an attempt of a `tenant`/`class` job starting at `now` is slowed.
    pub fn applies(&self, now: Time, tenant: TenantId, class: ClassId) -> bool {
        (self.from..self.to).contains(&now)
            && self.tenant.is_none_or(|t| t == tenant)
            && self.class.is_none_or(|c| c == class)
    }
}

/// The service an attempt takes when it starts at `now`: `service` times the
/// factors of the slowdowns that apply, rounded to the microsecond.
pub fn slowed(slowdowns: &[Slowdown], now: Time, tenant: TenantId, class: ClassId, service: Time) -> Time {
    let f: f64 = slowdowns.iter().filter(|s| s.applies(now, tenant, class)).map(|s| s.factor).product();
    if f == 1.0 {
        service
    } else {
        // past the horizon the engine refuses the attempt; cap before the
        // cast so the sum with the clock cannot overflow
        (service as f64 * f).round().min(crate::time::HORIZON as f64 + 1.0) as Time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_windows_multiply_and_the_window_is_half_open() {
        let s = |from, to, factor, class| Slowdown { from, to, factor, tenant: None, class };
        let list = [s(10, 20, 3.0, Some(1)), s(15, 30, 2.0, None)];
        assert_eq!(slowed(&list, 9, 0, 1, 100), 100);
        assert_eq!(slowed(&list, 10, 0, 1, 100), 300);
        assert_eq!(slowed(&list, 15, 0, 1, 100), 600); // 3 x 2
        assert_eq!(slowed(&list, 15, 0, 0, 100), 200); // class 0: only the second
        assert_eq!(slowed(&list, 20, 0, 1, 100), 200); // the first ended at 20
        assert_eq!(slowed(&list, 30, 0, 1, 100), 100);
    }
}

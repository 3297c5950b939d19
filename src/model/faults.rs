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

/// How long a failed job waits before its retry becomes claimable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Backoff {
    /// Always the same wait.
    Fixed(Time),
    /// `base` x 2^(k-1) before the k-th retry, at most `max` (Sidekiq's and
    /// most client libraries' shape).
    Exponential { base: Time, max: Time },
}

/// `retry:`: what happens between a failed attempt and the next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetrySpec {
    pub backoff: Option<Backoff>,
    /// The wait is multiplied by (1 - jitter x u), u uniform in [0, 1)
    /// drawn from the job and attempt (the same under every policy); 1 is
    /// AWS's "full jitter".
    pub jitter: f64,
    /// At most `limit` retries per tenant in any `window`; a failed job past
    /// its tenant's budget fails for good.
    pub budget: Option<(u32, Time)>,
}

impl RetrySpec {
    /// The wait before retry number `k` (1 for the first) of job `seq`.
    pub fn wait(&self, seed: u64, seq: u64, k: u32) -> Time {
        let full = match self.backoff {
            None => return 0,
            Some(Backoff::Fixed(d)) => d,
            Some(Backoff::Exponential { base, max }) => {
                base.saturating_mul(1u64 << (k.saturating_sub(1)).min(62)).min(max)
            }
        };
        if self.jitter == 0.0 {
            return full;
        }
        let u = (mix(seed ^ seq.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ u64::from(k)) >> 11) as f64
            / (1u64 << 53) as f64;
        (full as f64 * (1.0 - self.jitter * u)).round() as Time
    }
}

/// SplitMix64's finalizer: a well-mixed word from any input, so a jitter
/// draw depends on the job and attempt only, not on the order of events.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
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
    fn exponential_backoff_doubles_to_its_cap_and_jitter_only_shortens() {
        let exp =
            RetrySpec { backoff: Some(Backoff::Exponential { base: 1, max: 10 }), jitter: 0.0, budget: None };
        let waits: Vec<Time> = (1..=6).map(|k| exp.wait(1, 7, k)).collect();
        assert_eq!(waits, [1, 2, 4, 8, 10, 10]);
        assert_eq!(exp.wait(1, 7, 200), 10);
        let fixed = RetrySpec { backoff: Some(Backoff::Fixed(1_000_000)), jitter: 0.5, budget: None };
        let draws: Vec<Time> = (0..10_000).map(|seq| fixed.wait(3, seq, 1)).collect();
        assert!(draws.iter().all(|&w| (500_000..=1_000_000).contains(&w)));
        // u uniform: the mean wait is 1 - 0.5 x 0.5 = 0.75 s; sd of the mean
        // 0.5 x 0.289 / 100 = 0.0014 s, bound 4 sd
        let mean = draws.iter().sum::<Time>() as f64 / 1e4 / 1e6;
        assert!((mean - 0.75).abs() < 0.006, "{mean}");
        assert_eq!(fixed.wait(3, 42, 1), fixed.wait(3, 42, 1));
    }

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

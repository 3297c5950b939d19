//! Per-group statistics (all jobs, each tenant, each class): counters, and
//! the exact wait and slowdown percentiles.
//!
//! Percentiles are exact and nearest-rank: the p-th percentile of n sorted
//! values is the value at 1-based rank ceil(p/100 * n) (the smallest value
//! with at least p% of the values at or below it). Only the reported ranks
//! ([`PERCENTILES`] and the maximum) are put in place, by selection (O(n)),
//! not by sorting.
//!
//! During a run the recorder appends every sample once, in order, to one
//! [`SampleLog`]: the first-attempt wait of each started job with its tenant
//! and class (16 bytes) and the slowdown of each completed job (12 bytes),
//! i.e. 28 bytes per job, written sequentially. [`SampleLog::finish`] then
//! groups the samples (all, each tenant, each class) by a counting sort into
//! one scratch buffer and keeps per group only the figures reported
//! ([`Summary`]); its peak is 32 bytes per job (both logs plus a 4-byte
//! scratch value for the slowdowns, whose log is freed before the waits'
//! 8-byte scratch is allocated).

use std::cmp::Ordering;

use crate::core::Outcome;
use crate::model::{ClassId, TenantId};
use crate::time::Time;

/// The percentiles fairsim reports (besides the maximum); [`SampleLog::finish`]
/// computes exactly these ranks.
pub const PERCENTILES: [f64; 3] = [50.0, 95.0, 99.0];

/// 1-based nearest rank of the p-th percentile of `n` values (`n` > 0).
fn rank(n: usize, p: f64) -> usize {
    (((p / 100.0) * n as f64).ceil() as usize).clamp(1, n)
}

/// Nearest-rank percentile of sorted values; `None` for an empty slice.
pub fn nearest_rank<T: Copy>(sorted: &[T], p: f64) -> Option<T> {
    if sorted.is_empty() {
        return None;
    }
    Some(sorted[rank(sorted.len(), p) - 1])
}

/// Reorders `v` so that each of the given percentiles (ascending) and the
/// maximum sit at their nearest rank, as they would in the sorted slice:
/// a chain of selections over shrinking suffixes, O(n) in all.
fn place_ranks<T>(v: &mut [T], percentiles: &[f64], cmp: impl Fn(&T, &T) -> std::cmp::Ordering) {
    let n = v.len();
    if n == 0 {
        return;
    }
    let mut lo = 0;
    for idx in percentiles.iter().map(|&p| rank(n, p) - 1).chain([n - 1]) {
        if idx >= lo {
            v[lo..].select_nth_unstable_by(idx - lo, &cmp);
            lo = idx + 1;
        }
    }
}

/// Index in [`Summary::ranked`] of a reported percentile `p` (one of
/// [`PERCENTILES`], or 100 for the maximum); panics on any other.
fn placed(p: f64) -> usize {
    match PERCENTILES.iter().position(|&q| q == p) {
        Some(i) => i,
        None if p == 100.0 => PERCENTILES.len(),
        None => panic!("percentile {p} is not computed (see PERCENTILES)"),
    }
}

/// Slowdown of a completed job: time in system over service,
/// (finish - arrival) / service = (wait + service) / service for a job that
/// ran once. `None` for a zero-length job (the ratio is undefined).
pub fn slowdown(arrival: Time, finish: Time, service: Time) -> Option<f64> {
    (service > 0).then(|| (finish - arrival) as f64 / service as f64)
}

/// The reported figures of one group's samples: how many, their mean, and
/// the values at the nearest ranks of [`PERCENTILES`] and the maximum.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Summary<T> {
    pub count: u64,
    /// Mean of the samples (meaningless when `count` is 0).
    pub mean: f64,
    /// Values at the nearest ranks of [`PERCENTILES`], then the maximum
    /// (meaningless when `count` is 0).
    pub ranked: [T; PERCENTILES.len() + 1],
}

impl<T: Copy + Default> Summary<T> {
    /// Summary of `v` (in arrival order): the mean is taken over `v` as
    /// given, then `v` is reordered to place the reported ranks.
    fn of(v: &mut [T], mean: impl Fn(&[T]) -> f64, cmp: impl Fn(&T, &T) -> Ordering) -> Self {
        let n = v.len();
        if n == 0 {
            return Summary::default();
        }
        let mean = mean(v);
        place_ranks(v, &PERCENTILES, cmp);
        let mut ranked = [v[n - 1]; PERCENTILES.len() + 1];
        for (r, &p) in ranked.iter_mut().zip(&PERCENTILES) {
            *r = v[rank(n, p) - 1];
        }
        Summary { count: n as u64, mean, ranked }
    }

    fn mean(&self) -> Option<f64> {
        (self.count > 0).then_some(self.mean)
    }

    /// Nearest-rank percentile, `p` one of [`PERCENTILES`] or 100.
    fn pct(&self, p: f64) -> Option<T> {
        let i = placed(p);
        (self.count > 0).then(|| self.ranked[i])
    }
}

/// Mean of waits: exact `u128` sum over the count.
fn wait_mean(v: &[Time]) -> f64 {
    v.iter().map(|&w| w as u128).sum::<u128>() as f64 / v.len() as f64
}

/// Mean of slowdowns: `f64` sum of the `f32` values in the order given
/// (arrival order). The sum is exact, so the order does not matter, as long
/// as it stays below 2^30: a slowdown is at least 1, so its `f32` is a
/// multiple of 2^-23, and the `f64` sum keeps 53 bits.
fn slowdown_mean(v: &[f32]) -> f64 {
    v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64
}

/// Counts and waits of one group of jobs (everything, one tenant, one class).
///
/// Laid out in declaration order, the counters a job touches on its way
/// (arrival, start, end) first and within one cache line: with 100,000
/// tenants each touch of a tenant's figures is a cache miss, so one line
/// instead of three matters. The summaries, filled at the end, come last.
#[derive(Debug, Clone, Default)]
#[repr(C, align(64))]
pub struct GroupStats {
    /// Jobs that arrived.
    pub jobs: u64,
    /// Longest time any job of the group sat claimable (including re-queues
    /// after failed attempts, and jobs that never started).
    pub oldest_age_max: Time,
    /// Service received (sum of attempt durations), for shares.
    pub service: Time,
    pub completed: u64,
    /// Jobs that waited longer than their class's `sla`.
    pub sla_misses: u64,
    /// Jobs that finished after their deadline, or expired.
    pub deadline_misses: u64,
    pub failed: u64,
    pub expired: u64,
    pub rejected: u64,
    pub unfinished: u64,
    /// Wait of every job that started (first start minus arrival), summarised
    /// by [`SampleLog::finish`].
    pub waits: Summary<Time>,
    /// Started jobs whose wait was positive (for P(wait > 0)).
    pub waited: u64,
    /// Slowdown of every completed job with non-zero service (see
    /// [`slowdown`]), as `f32` (7 significant digits, more than the 4
    /// decimals written), summarised by [`SampleLog::finish`].
    pub slowdowns: Summary<f32>,
    /// Service received and entitled, summed over fairness windows
    /// (worker-microseconds; see [`super::fairness::ServiceWindows`]).
    pub received: f64,
    pub entitled: f64,
    /// Jobs admission deferred (taken in, claimable later).
    pub deferred: u64,
    /// Worker time (in `service`) that did no useful work: failed attempts,
    /// the extra of slowed attempts, and `lost`.
    pub wasted: Time,
    /// Work lost by stopped attempts: capacity kills and preemptions (part
    /// of `wasted`).
    pub lost: Time,
}

impl GroupStats {
    /// Useful work done: the service of the attempts that completed their
    /// jobs, at undisturbed speed.
    pub fn goodput(&self) -> Time {
        self.service - self.wasted
    }
}

// the counters touched per job share the first cache line
const _: () = assert!(std::mem::offset_of!(GroupStats, deadline_misses) < 64);

/// What a run counts per tenant while it runs: a tenant's full
/// [`GroupStats`] is built at the end, for the tenants with jobs only, so
/// 10,000,000 declared tenants cost 32 bytes each here, not 192. Counts fit
/// `u32`: a run has at most 10^9 jobs.
#[derive(Debug, Clone, Copy, Default)]
pub struct TenantCounters {
    pub oldest_age_max: Time,
    pub failed: u32,
    pub expired: u32,
    pub rejected: u32,
    pub unfinished: u32,
    pub sla_misses: u32,
    pub deadline_misses: u32,
}

impl TenantCounters {
    /// Counts an outcome other than completion (the engine counts those).
    pub fn count_outcome(&mut self, o: Outcome) {
        match o {
            Outcome::Completed => {}
            Outcome::Failed => self.failed += 1,
            Outcome::Rejected => self.rejected += 1,
            Outcome::Expired => self.expired += 1,
            Outcome::Unfinished => self.unfinished += 1,
        }
    }

    /// The tenant's group, before its samples are summarised.
    pub fn group(&self, completed: u64) -> GroupStats {
        let mut g = GroupStats {
            oldest_age_max: self.oldest_age_max,
            completed,
            sla_misses: self.sla_misses.into(),
            deadline_misses: self.deadline_misses.into(),
            failed: self.failed.into(),
            expired: self.expired.into(),
            rejected: self.rejected.into(),
            unfinished: self.unfinished.into(),
            ..Default::default()
        };
        g.jobs = g.completed + g.failed + g.rejected + g.expired + g.unfinished;
        g
    }
}

impl GroupStats {
    pub fn count_outcome(&mut self, o: Outcome) {
        match o {
            Outcome::Completed => self.completed += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::Rejected => self.rejected += 1,
            Outcome::Expired => self.expired += 1,
            Outcome::Unfinished => self.unfinished += 1,
        }
    }

    /// Mean slowdown: the `f64` sum of the group's `f32` slowdowns in arrival
    /// order, over their count.
    pub fn slowdown_mean(&self) -> Option<f64> {
        self.slowdowns.mean()
    }

    /// Nearest-rank percentile of the slowdowns, `p` one of [`PERCENTILES`]
    /// or 100.
    pub fn slowdown_pct(&self, p: f64) -> Option<f64> {
        self.slowdowns.pct(p).map(f64::from)
    }

    pub fn wait_mean(&self) -> Option<f64> {
        self.waits.mean()
    }

    /// Nearest-rank percentile of the waits, `p` one of [`PERCENTILES`] or 100.
    pub fn wait_pct(&self, p: f64) -> Option<Time> {
        self.waits.pct(p)
    }

    pub fn wait_max(&self) -> Option<Time> {
        self.waits.pct(100.0)
    }
}

/// A first-attempt wait, with the job's tenant and class (16 bytes).
#[derive(Debug, Clone, Copy)]
struct WaitSample {
    wait: Time,
    tenant: TenantId,
    class: ClassId,
}

/// A completed job's slowdown, with its tenant and class (12 bytes).
#[derive(Debug, Clone, Copy)]
struct SlowdownSample {
    slowdown: f32,
    tenant: TenantId,
    class: ClassId,
}

const _: () = assert!(std::mem::size_of::<WaitSample>() + std::mem::size_of::<SlowdownSample>() <= 28);

/// The run's samples in the order they happened, one entry per sample
/// whatever the number of groups (see the module documentation).
#[derive(Debug, Default)]
pub struct SampleLog {
    waits: Vec<WaitSample>,
    slowdowns: Vec<SlowdownSample>,
}

impl SampleLog {
    /// The first-attempt wait of a job of `tenant` and `class`.
    pub fn wait(&mut self, wait: Time, tenant: TenantId, class: ClassId) {
        self.waits.push(WaitSample { wait, tenant, class });
    }

    /// The slowdown of a completed job of `tenant` and `class`.
    pub fn slowdown(&mut self, slowdown: f32, tenant: TenantId, class: ClassId) {
        self.slowdowns.push(SlowdownSample { slowdown, tenant, class });
    }

    /// Fills the wait and slowdown figures of every group (all, each tenant,
    /// each class), consuming the log: O(n + groups) time. Slowdowns go first
    /// (both logs plus a 4-byte scratch per sample: 32 bytes per job), their
    /// log is freed, then the waits (16 + 8 bytes per job).
    /// `tenants` holds the groups of the tenants with jobs, and `index` maps
    /// every tenant id to its place there (`u32::MAX`: none; such a tenant
    /// has no samples).
    pub fn finish(
        self,
        all: &mut GroupStats,
        (tenants, index): (&mut [GroupStats], &[u32]),
        classes: &mut [GroupStats],
    ) {
        let SampleLog { mut waits, mut slowdowns } = self;
        for s in &mut waits {
            s.tenant = index[s.tenant as usize];
        }
        for s in &mut slowdowns {
            s.tenant = index[s.tenant as usize];
        }
        // with one class, its samples are the all group's, in the same order
        let (one_class, classes) = match classes {
            [only] => (Some(only), &mut [][..]),
            more => (None, more),
        };
        by_group(
            slowdowns,
            |s| s.slowdown,
            |s| (s.tenant, s.class),
            (&mut *all, &mut *tenants, &mut *classes),
            |g, v| g.slowdowns = Summary::of(v, slowdown_mean, f32::total_cmp),
        );
        by_group(
            waits,
            |s| s.wait,
            |s| (s.tenant, s.class),
            (all, tenants, classes),
            |g, v| {
                g.waited = v.iter().filter(|&&w| w > 0).count() as u64;
                g.waits = Summary::of(v, wait_mean, Ord::cmp);
            },
        );
        if let Some(c) = one_class {
            (c.waits, c.waited, c.slowdowns) = (all.waits, all.waited, all.slowdowns);
        }
    }
}

/// Calls `fill` with each group and its samples' values in log order: the
/// all group, then each tenant, then each class (the empty ones included).
/// The values are laid out in one scratch buffer as long as the log, per
/// group by a stable counting sort; the log is freed once read for the last
/// time.
fn by_group<S, T: Copy>(
    log: Vec<S>,
    value: impl Fn(&S) -> T,
    key: impl Fn(&S) -> (TenantId, ClassId),
    (all, tenants, classes): (&mut GroupStats, &mut [GroupStats], &mut [GroupStats]),
    mut fill: impl FnMut(&mut GroupStats, &mut [T]),
) {
    let mut scratch: Vec<T> = log.iter().map(&value).collect();
    fill(all, &mut scratch);
    let ends = partition(&log, &value, |s| key(s).0 as usize, tenants.len(), &mut scratch);
    fill_groups(tenants, &ends, &mut scratch, &mut fill);
    if !classes.is_empty() {
        let ends = partition(&log, &value, |s| key(s).1 as usize, classes.len(), &mut scratch);
        drop(log);
        fill_groups(classes, &ends, &mut scratch, &mut fill);
    }
}

/// Counting sort of the log's values by group (`group`, below `groups`) into
/// `scratch`, stable; returns where each group's values end.
fn partition<S, T: Copy>(
    log: &[S],
    value: impl Fn(&S) -> T,
    group: impl Fn(&S) -> usize,
    groups: usize,
    scratch: &mut [T],
) -> Vec<usize> {
    // next[g]: where group g's next value goes, from its offset to its end
    let mut next = vec![0usize; groups + 1];
    for s in log {
        next[group(s) + 1] += 1;
    }
    for g in 1..next.len() {
        next[g] += next[g - 1];
    }
    for s in log {
        let g = group(s);
        scratch[next[g]] = value(s);
        next[g] += 1;
    }
    next.pop();
    next
}

/// `fill` on each group with its slice of `scratch` (ending at `ends`).
fn fill_groups<T>(
    groups: &mut [GroupStats],
    ends: &[usize],
    scratch: &mut [T],
    fill: &mut impl FnMut(&mut GroupStats, &mut [T]),
) {
    let mut start = 0;
    for (g, &end) in groups.iter_mut().zip(ends) {
        fill(g, &mut scratch[start..end]);
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_matches_hand_computed_values() {
        // 10 values 1..=10: p50 -> rank 5 -> 5; p95 -> rank ceil(9.5)=10 -> 10;
        // p99 -> rank 10; p10 -> rank 1 -> 1; p11 -> rank ceil(1.1)=2 -> 2.
        let v: Vec<Time> = (1..=10).collect();
        assert_eq!(nearest_rank(&v, 50.0), Some(5));
        assert_eq!(nearest_rank(&v, 95.0), Some(10));
        assert_eq!(nearest_rank(&v, 99.0), Some(10));
        assert_eq!(nearest_rank(&v, 10.0), Some(1));
        assert_eq!(nearest_rank(&v, 11.0), Some(2));
        assert_eq!(nearest_rank(&v, 0.0), Some(1));
        assert_eq!(nearest_rank::<Time>(&[], 50.0), None);
        // 200 values 0..200: p99 -> rank 198 -> value 197.
        let w: Vec<Time> = (0..200).collect();
        assert_eq!(nearest_rank(&w, 99.0), Some(197));
        // the float version uses the same rank: 4 values, p50 -> rank 2, p99 -> rank 4
        assert_eq!(nearest_rank(&[1.0, 1.5, 3.0, 9.0], 50.0), Some(1.5));
        assert_eq!(nearest_rank(&[1.0, 1.5, 3.0, 9.0], 99.0), Some(9.0));
    }

    /// The figures of one group holding `waits` and `slowdowns` (logged as
    /// tenant 0, class 0; the tenant and class groups must agree with all).
    fn one_group(waits: &[Time], slowdowns: &[f32]) -> GroupStats {
        let mut log = SampleLog::default();
        waits.iter().for_each(|&w| log.wait(w, 0, 0));
        slowdowns.iter().for_each(|&x| log.slowdown(x, 0, 0));
        let (mut all, mut t, mut c) =
            (GroupStats::default(), [GroupStats::default()], [GroupStats::default()]);
        log.finish(&mut all, (&mut t, &[0]), &mut c);
        for g in [&t[0], &c[0]] {
            assert_eq!((g.waits, g.waited, g.slowdowns), (all.waits, all.waited, all.slowdowns));
        }
        all
    }

    /// Small pseudo-random numbers (an LCG) for the tests.
    fn lcg(x: &mut u64, below: u64) -> u64 {
        *x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (*x >> 33) % below
    }

    #[test]
    fn placed_ranks_equal_the_sorted_ones() {
        // an independent check of the selection chain: shuffled data of every
        // length 1..300 (many duplicates), against a full sort
        let mut x: u64 = 12345;
        for n in 1..300usize {
            let v: Vec<Time> = (0..n).map(|_| lcg(&mut x, 50)).collect();
            let mut sorted = v.clone();
            sorted.sort_unstable();
            let g = one_group(&v, &[]);
            for p in PERCENTILES {
                assert_eq!(g.wait_pct(p), nearest_rank(&sorted, p), "n {n} p {p}");
            }
            assert_eq!(g.wait_max(), sorted.last().copied(), "n {n}");
        }
    }

    #[test]
    fn groups_of_an_interleaved_log_match_sorting_each_group() {
        // samples of 7 tenants (tenant 5 has none) and 3 classes (class 1 has
        // none), interleaved at random; each group's figures against its own
        // values collected in arrival order and fully sorted
        let mut x: u64 = 777;
        for n in [0usize, 1, 2, 5, 40, 333, 2000] {
            let (nt, nc) = (7usize, 3usize);
            let mut log = SampleLog::default();
            // per group (all, tenants, classes): waits and slowdowns in arrival order
            let mut want: Vec<(Vec<Time>, Vec<f32>)> = vec![Default::default(); 1 + nt + nc];
            for _ in 0..n {
                let t = [0, 1, 2, 3, 4, 6][lcg(&mut x, 6) as usize];
                let c = [0, 2][lcg(&mut x, 2) as usize];
                let groups = [0, 1 + t as usize, 1 + nt + c as usize];
                if lcg(&mut x, 4) > 0 {
                    let w = lcg(&mut x, 3) * lcg(&mut x, 1000); // a third are zero
                    log.wait(w, t, c);
                    groups.iter().for_each(|&g| want[g].0.push(w));
                }
                if lcg(&mut x, 3) > 0 {
                    let s = 1.0 + lcg(&mut x, 500) as f32 / 7.0;
                    log.slowdown(s, t, c);
                    groups.iter().for_each(|&g| want[g].1.push(s));
                }
            }
            let mut all = GroupStats::default();
            let mut tenants = vec![GroupStats::default(); nt];
            let mut classes = vec![GroupStats::default(); nc];
            let index: Vec<u32> = (0..nt as u32).collect();
            log.finish(&mut all, (&mut tenants, &index), &mut classes);
            let got = std::iter::once(&all).chain(&tenants).chain(&classes);
            for (i, (g, (waits, slowdowns))) in got.zip(&want).enumerate() {
                let ctx = format!("n {n} group {i}");
                let mean_w = (!waits.is_empty())
                    .then(|| waits.iter().map(|&w| w as u128).sum::<u128>() as f64 / waits.len() as f64);
                let mean_s = (!slowdowns.is_empty())
                    .then(|| slowdowns.iter().map(|&s| s as f64).sum::<f64>() / slowdowns.len() as f64);
                let mut sw = waits.clone();
                sw.sort_unstable();
                let mut ss = slowdowns.clone();
                ss.sort_unstable_by(f32::total_cmp);
                assert_eq!(g.waits.count, waits.len() as u64, "{ctx}");
                assert_eq!(g.waited, waits.iter().filter(|&&w| w > 0).count() as u64, "{ctx}");
                assert_eq!(g.wait_mean(), mean_w, "{ctx}");
                assert_eq!(g.slowdowns.count, slowdowns.len() as u64, "{ctx}");
                assert_eq!(g.slowdown_mean(), mean_s, "{ctx}");
                for p in PERCENTILES.into_iter().chain([100.0]) {
                    assert_eq!(g.wait_pct(p), nearest_rank(&sw, p), "{ctx} p {p}");
                    assert_eq!(g.slowdown_pct(p), nearest_rank(&ss, p).map(f64::from), "{ctx} p {p}");
                }
                assert_eq!(g.wait_max(), sw.last().copied(), "{ctx}");
            }
            assert!(n < 40 || (tenants[5].wait_max().is_none() && classes[1].slowdown_mean().is_none()));
            assert!(n < 40 || tenants[6].waits.count > 0);
        }
    }

    #[test]
    fn each_outcome_has_its_own_counter_and_jobs_is_their_sum() {
        // 1 completed, 2 failed, 3 rejected, 4 expired, 5 unfinished. A
        // tenant's completions are the engine's count (7 here), so its
        // counters ignore Completed: its group has 7 + 2 + 3 + 4 + 5 = 21 jobs.
        let (mut g, mut t) = (GroupStats::default(), TenantCounters::default());
        let outcomes = [
            (Outcome::Completed, 1),
            (Outcome::Failed, 2),
            (Outcome::Rejected, 3),
            (Outcome::Expired, 4),
            (Outcome::Unfinished, 5),
        ];
        for (o, n) in outcomes {
            for _ in 0..n {
                g.count_outcome(o);
                t.count_outcome(o);
            }
        }
        assert_eq!((g.completed, g.failed, g.rejected, g.expired, g.unfinished), (1, 2, 3, 4, 5));
        (t.sla_misses, t.deadline_misses, t.oldest_age_max) = (6, 8, 9);
        let tg = t.group(7);
        assert_eq!((tg.completed, tg.failed, tg.rejected, tg.expired, tg.unfinished), (7, 2, 3, 4, 5));
        assert_eq!((tg.jobs, tg.sla_misses, tg.deadline_misses, tg.oldest_age_max), (21, 6, 8, 9));
    }

    #[test]
    #[should_panic(expected = "not computed")]
    fn an_unplaced_percentile_is_refused() {
        one_group(&[3, 1, 2], &[]).wait_pct(90.0);
    }

    #[test]
    fn slowdown_is_time_in_system_over_service() {
        // arrives at 10s, waits 3s, runs 2s, finishes at 15s: (3 + 2) / 2 = 2.5
        assert_eq!(slowdown(10_000_000, 15_000_000, 2_000_000), Some(2.5));
        // no wait: 1
        assert_eq!(slowdown(0, 500_000, 500_000), Some(1.0));
        assert_eq!(slowdown(5, 5, 0), None);
        // group figures: slowdowns 1, 1, 2.5, 10 -> mean 14.5/4 = 3.625, p50 rank 2 = 1, p99 rank 4 = 10
        let g = one_group(&[], &[10.0, 1.0, 2.5, 1.0]);
        assert_eq!(g.slowdown_mean(), Some(3.625));
        assert_eq!(g.slowdown_pct(50.0), Some(1.0));
        assert_eq!(g.slowdown_pct(99.0), Some(10.0));
        // no waits logged: no wait figures
        assert_eq!((g.wait_mean(), g.wait_pct(50.0), g.wait_max(), g.waited), (None, None, None, 0));
    }

    #[test]
    fn wait_statistics_of_a_group() {
        // waits 0, 1, 2, ..., 19 s (20 jobs): mean 9.5 s; p50 rank 10 -> 9 s;
        // p95 rank 19 -> 18 s; p99 rank ceil(19.8) = 20 -> 19 s; max 19 s;
        // 19 of them positive.
        let s = 1_000_000;
        let waits: Vec<Time> = (0..20).rev().map(|i| i * s).collect();
        let g = one_group(&waits, &[]);
        assert_eq!(g.wait_mean(), Some(9.5 * s as f64));
        assert_eq!(g.wait_pct(50.0), Some(9 * s));
        assert_eq!(g.wait_pct(95.0), Some(18 * s));
        assert_eq!(g.wait_pct(99.0), Some(19 * s));
        assert_eq!(g.wait_max(), Some(19 * s));
        assert_eq!((g.waits.count, g.waited), (20, 19));
        assert_eq!((g.slowdown_mean(), g.slowdown_pct(99.0)), (None, None));
    }
}

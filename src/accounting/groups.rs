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

/// Groups up to this size are sorted whole: one small sort costs less than
/// a selection per percentile (callgrind, 10,000 tenants of 20 jobs: 1.7%
/// fewer instructions in the whole run).
const SORT_BELOW: usize = 256;

/// Reorders `v` so that each of the given percentiles (ascending) and the
/// maximum sit at their nearest rank, as they would in the sorted slice:
/// a chain of selections over shrinking suffixes, O(n) in all (a sort below
/// [`SORT_BELOW`]).
fn place_ranks<T>(v: &mut [T], percentiles: &[f64], cmp: impl Fn(&T, &T) -> std::cmp::Ordering) {
    let n = v.len();
    if n == 0 {
        return;
    }
    if n <= SORT_BELOW {
        v.sort_unstable_by(&cmp);
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
    /// given, then `v` is reordered to place the reported ranks, and those of
    /// `extra` (ascending percentiles none of which is reported anyway),
    /// whose values are appended to `out`.
    fn of(
        v: &mut [T],
        mean: impl Fn(&[T]) -> f64,
        cmp: impl Fn(&T, &T) -> Ordering,
        extra: &[f64],
        out: &mut Vec<Option<T>>,
    ) -> Self {
        let n = v.len();
        if n == 0 {
            out.extend(extra.iter().map(|_| None));
            return Summary::default();
        }
        let mean = mean(v);
        if extra.is_empty() {
            place_ranks(v, &PERCENTILES, cmp);
        } else {
            let mut all: Vec<f64> = PERCENTILES.iter().chain(extra).copied().collect();
            all.sort_unstable_by(f64::total_cmp);
            place_ranks(v, &all, cmp);
            out.extend(extra.iter().map(|&p| Some(v[rank(n, p) - 1])));
        }
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
    /// A log with room for `jobs` samples of each kind: grown by doubling, a
    /// block is copied, touching fresh pages (most of a run's page faults).
    pub fn with_capacity(jobs: usize) -> Self {
        let mut log = SampleLog::default();
        // refused (a tight `ulimit -v`): the log grows as it goes
        let _ = (log.waits.try_reserve_exact(jobs), log.slowdowns.try_reserve_exact(jobs));
        log
    }

    /// The first-attempt wait of a job of `tenant` and `class`.
    pub fn wait(&mut self, wait: Time, tenant: TenantId, class: ClassId) {
        self.waits.push(WaitSample { wait, tenant, class });
    }

    /// The slowdown of a completed job of `tenant` and `class`.
    pub fn slowdown(&mut self, slowdown: f32, tenant: TenantId, class: ClassId) {
        self.slowdowns.push(SlowdownSample { slowdown, tenant, class });
    }

    /// Fills the wait and slowdown figures of every group (all, each tenant,
    /// each class, each tenant x class pair), consuming the log: O(n +
    /// groups) time. Slowdowns go first (both logs plus a 4-byte scratch per
    /// sample: 32 bytes per job), their log is freed, then the waits (16 + 8
    /// bytes per job). The waits at `extra.percentiles` go to `extra`.
    pub fn finish(self, groups: Groups, extra: &mut ExtraWaits) {
        let SampleLog { mut waits, mut slowdowns } = self;
        let Groups { all, tenants, index, classes, pairs } = groups;
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
        let mut sets = Sets { all, tenants, classes, pairs };
        let mut none = Vec::new();
        by_group(
            slowdowns,
            |s| s.slowdown,
            |s| (s.tenant, s.class),
            &mut sets,
            |g, from| match from {
                Samples::Values(v) => {
                    g.slowdowns = Summary::of(v, slowdown_mean, f32::total_cmp, &[], &mut none)
                }
                Samples::Tenant(_, t) => g.slowdowns = t.slowdowns,
            },
        );
        let ps = std::mem::take(&mut extra.percentiles);
        let mut values = Vec::new();
        by_group(
            waits,
            |s| s.wait,
            |s| (s.tenant, s.class),
            &mut sets,
            |g, from| match from {
                Samples::Values(v) => {
                    g.waited = v.iter().filter(|&&w| w > 0).count() as u64;
                    g.waits = Summary::of(v, wait_mean, Ord::cmp, &ps, &mut values);
                }
                Samples::Tenant(place, t) => {
                    (g.waited, g.waits) = (t.waited, t.waits);
                    // the tenant's extra waits follow the all group's
                    let k = ps.len();
                    values.extend_from_within((1 + place) * k..(2 + place) * k);
                }
            },
        );
        let k = ps.len();
        let (nt, np) = (sets.tenants.len(), sets.pairs.as_ref().map_or(0, |p| p.groups.len()));
        let classes = if one_class.is_some() { 1 } else { sets.classes.len() };
        if let Some(c) = one_class {
            (c.waits, c.waited, c.slowdowns) = (sets.all.waits, sets.all.waited, sets.all.slowdowns);
            // the one class's extra waits are the all group's: inserted after the tenants'
            let at = (1 + nt) * k;
            let copy: Vec<_> = values[..k].to_vec();
            values.splice(at..at, copy);
        }
        *extra = ExtraWaits { percentiles: ps, values, tenants: nt, classes, pairs: np };
    }
}

/// The groups a [`SampleLog`] fills.
pub struct Groups<'a> {
    pub all: &'a mut GroupStats,
    /// The groups of the tenants with jobs.
    pub tenants: &'a mut [GroupStats],
    /// Every tenant id's place in `tenants` (`u32::MAX`: none; such a
    /// tenant has no samples).
    pub index: &'a [u32],
    pub classes: &'a mut [GroupStats],
    /// The tenant x class pairs, when the run keeps them.
    pub pairs: Option<PairGroups<'a>>,
}

/// The tenant x class groups with jobs, ordered by tenant (its place in
/// [`Groups::tenants`]) then class: `starts[i]..starts[i + 1]` are tenant
/// i's pairs, `classes` their classes.
pub struct PairGroups<'a> {
    pub groups: &'a mut [GroupStats],
    pub classes: &'a [ClassId],
    pub starts: &'a [u32],
}

impl PairGroups<'_> {
    /// The place of the pair (tenant place `t`, class `c`), which has jobs.
    fn of(&self, t: TenantId, c: ClassId) -> usize {
        let (lo, hi) = (self.starts[t as usize] as usize, self.starts[t as usize + 1] as usize);
        lo + self.classes[lo..hi].iter().position(|&x| x == c).unwrap_or(0)
    }
}

/// Waits at percentiles beyond [`PERCENTILES`] (the objectives' own), per
/// group: all, each tenant, each class, each tenant x class pair, in the
/// order of [`Groups`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExtraWaits {
    /// Ascending; none of [`PERCENTILES`] nor 100.
    pub percentiles: Vec<f64>,
    values: Vec<Option<Time>>,
    tenants: usize,
    classes: usize,
    pairs: usize,
}

/// One group of [`ExtraWaits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    All,
    /// A tenant's place among the tenants with jobs.
    Tenant(usize),
    Class(usize),
    /// A pair's place among the pairs with jobs.
    Pair(usize),
}

impl ExtraWaits {
    /// Asks for the waits at `percentiles` (those reported anyway dropped).
    pub fn asking(percentiles: impl IntoIterator<Item = f64>) -> Self {
        let mut ps: Vec<f64> =
            percentiles.into_iter().filter(|p| *p != 100.0 && !PERCENTILES.contains(p)).collect();
        ps.sort_unstable_by(f64::total_cmp);
        ps.dedup();
        ExtraWaits { percentiles: ps, ..Default::default() }
    }

    /// The wait of `group` at `p` (one of [`ExtraWaits::percentiles`]);
    /// `None` when the group has no waits or `p` was not asked for.
    pub fn get(&self, group: Group, p: f64) -> Option<Time> {
        let j = self.percentiles.iter().position(|&q| q == p)?;
        let i = match group {
            Group::All => 0,
            Group::Tenant(t) => 1 + t,
            Group::Class(c) => 1 + self.tenants + c,
            Group::Pair(x) => 1 + self.tenants + self.classes + x,
        };
        debug_assert!(self.pairs == 0 || i < 1 + self.tenants + self.classes + self.pairs);
        *self.values.get(i * self.percentiles.len() + j)?
    }
}

/// The groups being filled, for [`by_group`].
struct Sets<'a> {
    all: &'a mut GroupStats,
    tenants: &'a mut [GroupStats],
    classes: &'a mut [GroupStats],
    pairs: Option<PairGroups<'a>>,
}

/// Where a group's figures come from.
enum Samples<'a, T> {
    /// Its samples' values, in log order.
    Values(&'a mut [T]),
    /// The same samples as the tenant at this place, already filled: the
    /// pair of a tenant with jobs of one class only. Copying saves the
    /// selection, which on a flood (one tenant, one class, most of the jobs)
    /// is most of what the pairs cost.
    Tenant(usize, &'a GroupStats),
}

/// Calls `fill` with each group and its samples' values in log order: the
/// all group, then each tenant, then each class (the empty ones included),
/// then each tenant x class pair (a tenant's only pair with its tenant's
/// group instead). The values are laid out in one scratch
/// buffer as long as the log, per group by a stable counting sort; the log
/// is freed once read for the last time.
fn by_group<S, T: Copy>(
    log: Vec<S>,
    value: impl Fn(&S) -> T,
    key: impl Fn(&S) -> (TenantId, ClassId),
    sets: &mut Sets,
    mut fill: impl FnMut(&mut GroupStats, Samples<'_, T>),
) {
    let mut scratch: Vec<T> = log.iter().map(&value).collect();
    fill(sets.all, Samples::Values(&mut scratch));
    let ends = partition(&log, &value, |s| key(s).0 as usize, sets.tenants.len(), &mut scratch);
    fill_groups(sets.tenants, &ends, &mut scratch, &mut fill);
    let log = match (sets.classes.is_empty(), &sets.pairs) {
        (false, None) => {
            let ends = partition(&log, &value, |s| key(s).1 as usize, sets.classes.len(), &mut scratch);
            drop(log);
            fill_groups(sets.classes, &ends, &mut scratch, &mut fill);
            return;
        }
        (false, Some(_)) => {
            let ends = partition(&log, &value, |s| key(s).1 as usize, sets.classes.len(), &mut scratch);
            fill_groups(sets.classes, &ends, &mut scratch, &mut fill);
            log
        }
        (true, _) => log,
    };
    if let Some(p) = sets.pairs.as_mut() {
        let n = p.groups.len();
        let place = |s: &S| {
            let (t, c) = key(s);
            p.of(t, c)
        };
        let ends = partition(&log, &value, place, n, &mut scratch);
        drop(log);
        for (t, w) in p.starts.windows(2).enumerate() {
            let (lo, hi) = (w[0] as usize, w[1] as usize);
            if hi - lo == 1 {
                fill(&mut p.groups[lo], Samples::Tenant(t, &sets.tenants[t]));
                continue;
            }
            for i in lo..hi {
                let start = if i == 0 { 0 } else { ends[i - 1] };
                fill(&mut p.groups[i], Samples::Values(&mut scratch[start..ends[i]]));
            }
        }
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
    fill: &mut impl FnMut(&mut GroupStats, Samples<'_, T>),
) {
    let mut start = 0;
    for (g, &end) in groups.iter_mut().zip(ends) {
        fill(g, Samples::Values(&mut scratch[start..end]));
        start = end;
    }
}

#[cfg(test)]
#[path = "groups_tests.rs"]
mod tests;

//! The statistics of one run: counts and outcomes per group, the wait and
//! slowdown samples behind the percentiles, busy time, and the fairness
//! windows. Nothing here writes a file: the logs are [`super::logs`].

use crate::core::{Job, JobState, Outcome, TenantLoad};
use crate::model::{ClassId, Measure, Scenario, TenantId};
use crate::time::Time;

use super::fairness::{ServiceWindows, Window};
use super::groups::{slowdown, ExtraWaits, GroupStats, Groups, PairGroups, SampleLog, TenantCounters};
use super::pairs::Pairs;

/// Everything measured in one run of one policy.
#[derive(Debug, Clone, Default)]
pub struct RunStats {
    pub all: GroupStats,
    /// The tenants with jobs, in id order, with their figures.
    pub tenants: Vec<(TenantId, GroupStats)>,
    pub classes: Vec<GroupStats>,
    /// The tenant x class pairs with jobs, by tenant then class, when the
    /// scenario declares two or more classes (none otherwise).
    pub pairs: Vec<((TenantId, ClassId), GroupStats)>,
    /// Waits at the percentiles the objectives ask beyond the reported ones.
    pub extra_waits: ExtraWaits,
    /// Sum over attempts of service time (worker-microseconds of busy time).
    pub busy: u128,
    /// Per resource of the scenario (`resources:` order): the sum over
    /// attempts of the amount held times the time held (resource-microseconds).
    pub resource_busy: Vec<u128>,
    /// Time of the last event (finish of the last job).
    pub makespan: Time,
    /// Jain's index over the fairness windows with two or more backlogged
    /// tenants, on service received (see [`super::fairness`]).
    pub jain: WindowStats,
    /// The Gini coefficient over the same windows.
    pub gini: WindowStats,
    /// Worker-microseconds the pool offered over the run when its size
    /// changed (`capacity:`); `None`: workers x makespan.
    pub worker_time: Option<f64>,
    /// Per pool, with dispatch costs: worker-microseconds spent claiming,
    /// refused and finishing (`None` without costs).
    pub overhead: Option<Overhead>,
}

/// What dispatch costs took, for `pools.csv`.
#[derive(Debug, Clone, Default)]
pub struct Overhead {
    /// Per pool: worker-microseconds spent claiming, refused and finishing.
    pub per_pool: Vec<u128>,
    /// Attempts started (the default pool's `started`; a topology counts its own).
    pub started: u64,
}

/// A fairness index over counted windows (Jain's, Gini's): enough for the
/// mean, the least and the greatest, in constant memory however long the run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WindowStats {
    pub sum: f64,
    pub count: u64,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl WindowStats {
    /// Counts `n` windows with index `j`.
    fn add(&mut self, j: f64, n: u64) {
        self.sum += if n == 1 { j } else { j * n as f64 };
        self.count += n;
        self.min = Some(self.min.map_or(j, |m| m.min(j)));
        self.max = Some(self.max.map_or(j, |m| m.max(j)));
    }

    /// The mean over counted windows, if any.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }
}

/// Room to reserve in the sample log: the jobs the scenario is expected
/// to start (a Poisson count by time varies by some square roots of it),
/// at most 2^24: past glibc's mmap threshold (at most 32 MiB) a growing
/// block is moved by `mremap`, without a copy.
fn expected_samples(sc: &Scenario) -> usize {
    let generated: f64 = sc.workload.iter().map(|e| e.arrivals.expected_count()).sum();
    let n = generated + sc.traces.iter().map(|t| t.scan.rows as f64).sum::<f64>();
    let n = n + 4.0 * n.sqrt();
    if n.is_finite() {
        n.min((1u64 << 24) as f64) as usize
    } else {
        0
    }
}

/// Live statistics of one run.
pub struct Tally {
    stats: RunStats,
    /// Per tenant, what it counts while the run goes (see [`TenantCounters`]).
    tenants: Vec<TenantCounters>,
    /// Waits and slowdowns in the order they happen, grouped at `finish`.
    samples: SampleLog,
    /// Service received per tenant and per class in the current fairness window.
    fair_tenants: ServiceWindows,
    fair_classes: ServiceWindows,
    /// Deferred jobs per tenant, kept aside: only admission's deferrals touch it.
    deferred: std::collections::HashMap<TenantId, u64>,
    /// Wasted and lost worker time per tenant (see [`GroupStats::wasted`]),
    /// kept aside likewise: only failures, slowdowns and kills touch it.
    wasted: std::collections::HashMap<TenantId, (Time, Time)>,
    /// Whether a job may first become claimable after its arrival (admission
    /// defers and re-sends, a planner's ledger, `on_cap` delays): its wait
    /// (from arrival) is then not its claimable age, and each first start
    /// raises `oldest_age_max` itself. Otherwise the two are equal and the
    /// largest wait gives `oldest_age_max` at the end, for free.
    ages_apart: bool,
    /// The tenant x class counters, with two or more classes declared.
    pairs: Option<Pairs>,
}

impl Tally {
    pub fn new(sc: &Scenario) -> Self {
        let pool = if sc.workers == u32::MAX { u64::MAX / 4 } else { sc.workers as u64 };
        Tally {
            stats: RunStats {
                classes: vec![GroupStats::default(); sc.classes.len()],
                extra_waits: ExtraWaits::asking(sc.objectives.iter().filter_map(|o| match o.measure {
                    Measure::Wait { percentile } => Some(percentile),
                    _ => None,
                })),
                resource_busy: vec![0; sc.resources.len()],
                ..Default::default()
            },
            tenants: vec![TenantCounters::default(); sc.tenants.len()],
            samples: SampleLog::with_capacity(expected_samples(sc)),
            fair_tenants: ServiceWindows::new(
                sc.tenants.weights(),
                sc.tenants.caps().into_iter().map(|c| (c as u64).min(pool)).collect(),
            )
            .with_gini(),
            fair_classes: ServiceWindows::new(
                sc.classes.iter().map(|c| c.weight).collect(),
                vec![pool; sc.classes.len()],
            ),
            deferred: std::collections::HashMap::new(),
            wasted: std::collections::HashMap::new(),
            ages_apart: !sc.admission.is_empty() || sc.run_topology().is_some_and(|t| t.planner.is_some()),
            pairs: (sc.classes.len() > 1).then(|| Pairs::new(sc.tenants.len(), sc.classes.len())),
        }
    }

    /// Per-class figures so far (the class series of the logs reads completions).
    pub fn classes(&self) -> &[GroupStats] {
        &self.stats.classes
    }

    /// Prefetches the tenant's fairness record (see [`crate::prefetch`]).
    pub fn warm_tenant(&self, tenant: usize) {
        self.fair_tenants.warm(tenant);
    }

    pub fn on_queued(&mut self, job: &Job) {
        self.fair_tenants.on_queued(job.tenant as usize, job.service);
        self.fair_classes.on_queued(job.class as usize, job.service);
    }

    /// Jobs may first become claimable after their arrival (see `ages_apart`);
    /// to be said before the first start.
    pub fn set_ages_apart(&mut self) {
        self.ages_apart = true;
    }

    /// A queued job left the queue without starting (see [`super::Recorder::on_withdrawn`]).
    pub fn on_withdrawn(&mut self, job: &Job) {
        self.fair_tenants.on_dropped(job.tenant as usize, job.service);
        self.fair_classes.on_dropped(job.class as usize, job.service);
    }

    pub fn on_start(&mut self, job: &Job, now: Time) {
        let age = now - job.ready;
        if job.slices == 1 {
            // its first start (not a later slice of its first attempt): waits
            // count from arrival (docs/metrics.md), whatever held the job
            // before it became claimable
            self.samples.wait(now - job.arrival, job.tenant, job.class);
            if self.ages_apart {
                self.raise_oldest_age(job, age);
            } else {
                // its age is its wait: the groups' oldest_age_max take the largest
                // wait at the end (see `finish`), so the tenant's figures are not touched now
                debug_assert_eq!(job.ready, job.arrival, "a job claimable after its arrival");
            }
        } else {
            self.raise_oldest_age(job, age);
        }
        self.fair_tenants.on_start(job.tenant as usize, job.service, now);
        self.fair_classes.on_start(job.class as usize, job.service, now);
    }

    fn raise_oldest_age(&mut self, job: &Job, age: Time) {
        for g in [&mut self.stats.all, &mut self.stats.classes[job.class as usize]] {
            g.oldest_age_max = g.oldest_age_max.max(age);
        }
        let t = &mut self.tenants[job.tenant as usize];
        t.oldest_age_max = t.oldest_age_max.max(age);
    }

    pub fn on_attempt_end(&mut self, job: &Job, now: Time, ran: Time) {
        self.fair_tenants.on_end(job.tenant as usize, now);
        self.fair_classes.on_end(job.class as usize, now);
        self.stats.busy += ran as u128;
        for (used, &amount) in self.stats.resource_busy.iter_mut().zip(&job.cost) {
            *used += ran as u128 * amount as u128;
        }
        self.stats.all.service += ran;
        self.stats.classes[job.class as usize].service += ran;
    }

    pub fn on_lost(&mut self, job: &Job, wasted: Time, killed: bool) {
        let lost = if killed { wasted } else { 0 };
        for g in [&mut self.stats.all, &mut self.stats.classes[job.class as usize]] {
            g.wasted += wasted;
            g.lost += lost;
        }
        let w = self.wasted.entry(job.tenant).or_default();
        w.0 += wasted;
        w.1 += lost;
    }

    /// A job's life ended with `outcome` at `now`.
    pub fn on_end(&mut self, sc: &Scenario, job: &Job, now: Time, outcome: Outcome) {
        let sla_miss = match (sc.classes[job.class as usize].sla, job.first_start) {
            (Some(sla), Some(s)) => s - job.arrival > sla,
            (Some(sla), None) => now - job.arrival > sla,
            _ => false,
        };
        let deadline_miss = outcome == Outcome::Expired
            || job.deadline.is_some_and(|d| outcome == Outcome::Completed && now > d);
        if job.first_start.is_none() || job.state == JobState::Queued {
            // never started, or left waiting: its age still counts as claimable time
            self.raise_oldest_age(job, now.saturating_sub(job.ready));
        }
        for g in [&mut self.stats.all, &mut self.stats.classes[job.class as usize]] {
            g.count_outcome(outcome);
            g.sla_misses += sla_miss as u64;
            g.deadline_misses += deadline_miss as u64;
        }
        // the engine counts each tenant's completions (`TenantLoad::completed`)
        if outcome != Outcome::Completed {
            self.tenants[job.tenant as usize].count_outcome(outcome);
        }
        if job.deferred() {
            self.stats.all.deferred += 1;
            self.stats.classes[job.class as usize].deferred += 1;
            *self.deferred.entry(job.tenant).or_default() += 1;
        }
        if let Some(p) = self.pairs.as_mut() {
            p.on_end(job.tenant, job.class, outcome, sla_miss, deadline_miss, job.deferred());
        }
        if sla_miss || deadline_miss {
            let t = &mut self.tenants[job.tenant as usize];
            t.sla_misses += sla_miss as u32;
            t.deadline_misses += deadline_miss as u32;
        }
        if job.state == JobState::Queued && outcome == Outcome::Expired {
            // dropped from the queue without starting: no longer claimable demand
            // (a rejected job was never queued, so it is not counted here)
            self.fair_tenants.on_dropped(job.tenant as usize, job.service);
            self.fair_classes.on_dropped(job.class as usize, job.service);
        }
        if outcome == Outcome::Completed {
            if let Some(x) = slowdown(job.arrival, now, job.service) {
                self.samples.slowdown(x as f32, job.tenant, job.class);
            }
        }
        if outcome != Outcome::Unfinished {
            self.stats.makespan = self.stats.makespan.max(now);
        }
    }

    /// Closes the fairness window `(end - len, end]`: Jain's index on service
    /// received against max-min entitlement; windows with fewer than two
    /// backlogged tenants have no index and are not counted.
    pub fn close_window(&mut self, end: Time, len: Time) -> Window {
        let w = self.fair_tenants.close(end, len);
        self.fair_classes.close(end, len);
        if let Some(j) = w.jain {
            self.stats.jain.add(j, 1);
        }
        if let Some(g) = w.gini {
            self.stats.gini.add(g, 1);
        }
        w
    }

    /// Closes `n` more windows, the last ending at `end`, each the same as
    /// the window closed last (nothing happened since it opened).
    pub fn repeat_window(&mut self, n: u64, end: Time) -> Window {
        let w = self.fair_tenants.repeat(n, end);
        self.fair_classes.repeat(n, end);
        if let Some(j) = w.jain {
            self.stats.jain.add(j, n);
        }
        if let Some(g) = w.gini {
            self.stats.gini.add(g, n);
        }
        w
    }

    /// Computes the wait and slowdown figures and the shares.
    pub fn finish(mut self, loads: &[TenantLoad]) -> RunStats {
        // idle claimants' entitlement is settled lazily (see ServiceWindows)
        self.fair_tenants.settle();
        self.fair_classes.settle();
        let stats = &mut self.stats;
        let (received, entitled) = (self.fair_tenants.received_totals(), self.fair_tenants.entitled_totals());
        let classes =
            self.fair_classes.received_totals().into_iter().zip(self.fair_classes.entitled_totals());
        for (g, (r, e)) in stats.classes.iter_mut().zip(classes) {
            g.received = r;
            g.entitled = e;
        }
        stats.all.received = received.iter().sum();
        stats.all.entitled = entitled.iter().sum();
        // the groups of the tenants with jobs (every arrival ends with an
        // outcome, so a tenant with an arrival has jobs), and where each is
        let mut index = vec![u32::MAX; self.tenants.len()];
        let (mut ids, mut groups) = (Vec::new(), Vec::new());
        for (t, (c, l)) in self.tenants.iter().zip(loads).enumerate() {
            let mut g = c.group(l.completed);
            if g.jobs == 0 {
                continue;
            }
            // Every attempt ran inside closed windows (the last window closes
            // after the last event), so the service a tenant received there is
            // the sum of its attempts' service: whole microseconds, summed
            // exactly. Read from there so no per-tenant array is touched per job.
            (g.received, g.entitled) = (received[t], entitled[t]);
            g.service = g.received as Time;
            g.deferred = self.deferred.get(&(t as TenantId)).copied().unwrap_or(0);
            (g.wasted, g.lost) = self.wasted.get(&(t as TenantId)).copied().unwrap_or((0, 0));
            index[t] = groups.len() as u32;
            ids.push(t as TenantId);
            groups.push(g);
        }
        drop((received, entitled));
        let mut pairs = self.pairs.take().map(|p| p.finish(&index, groups.len())).unwrap_or_default();
        let sets = Groups {
            all: &mut stats.all,
            tenants: &mut groups,
            index: &index,
            classes: &mut stats.classes,
            pairs: (!pairs.keys.is_empty()).then_some(PairGroups {
                groups: &mut pairs.groups,
                classes: &pairs.classes,
                starts: &pairs.starts,
            }),
        };
        std::mem::take(&mut self.samples).finish(sets, &mut stats.extra_waits);
        // the windows sum in f64, exact while a tenant's total stays within
        // 2^53 us (285 years of work); past it, within a microsecond per 2^53
        debug_assert!(
            stats.all.service > crate::time::HORIZON
                || groups.iter().map(|g| g.service).sum::<Time>() == stats.all.service,
            "tenant service from the fairness windows differs from the attempts' service"
        );
        for g in std::iter::once(&mut stats.all)
            .chain(&mut groups)
            .chain(&mut stats.classes)
            .chain(&mut pairs.groups)
        {
            g.jobs = g.completed + g.failed + g.rejected + g.expired + g.unfinished;
            if !self.ages_apart {
                g.oldest_age_max = g.oldest_age_max.max(g.wait_max().unwrap_or(0));
            }
        }
        stats.tenants = ids.into_iter().zip(groups).collect();
        stats.pairs = pairs.keys.into_iter().zip(pairs.groups).collect();
        self.stats
    }
}

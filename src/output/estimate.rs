//! How many bytes the per-run logs of a scenario will take, estimated from
//! the scenario before running it, so that a default run does not fill a
//! disk: the observation log lists every tenant seen so far in each tick's
//! `completed` cell, so 10,000 tenants over 35,000 ticks is 3.5 GB per
//! policy. The estimate is rough (within a factor of about 2 on the bench
//! scenarios) and errs high.

use super::load::OfferedLoad;
use crate::model::Scenario;
use crate::time::to_secs_f64;

/// Bytes of logs a `--logs full` run of every policy would write, roughly,
/// from the scenario's demand as `validate` reports it.
pub fn log_bytes(sc: &Scenario, load: &OfferedLoad) -> f64 {
    let (jobs, work) = (load.jobs, load.work);
    if jobs == 0.0 {
        return 0.0;
    }
    let workers = if sc.workers == u32::MAX { jobs } else { sc.workers as f64 };
    // a pool of resources alone: at worst every job at once
    let makespan = load.makespan_at_least.max(work / workers);
    // ticks with an event: at most a few per job; quiet runs cost two rows
    let ticks = (makespan / to_secs_f64(sc.tick)).min(3.0 * jobs) + 1.0;
    let tenants = (sc.tenants.len() as f64).min(jobs);
    // bytes of a tenant's name in a cell, with its count: the names' mean,
    // since one tenant named with 600 kB writes 600 kB in every tick it has work
    let mean_name = sc.tenants.name_bytes() as f64 / (sc.tenants.len().max(1) as f64);
    let name = (mean_name + 4.0).max(10.0);
    // a job's row names its tenant: the names weighted by the jobs they send
    // (one busy tenant with a long name writes it in every row of its jobs)
    let traced: f64 = sc.traces.iter().map(|t| t.scan.rows as f64).sum();
    let sent: f64 = (sc.workload.iter())
        .map(|e| e.arrivals.expected_count() * sc.tenants.name(e.tenant).len() as f64)
        .sum::<f64>()
        + traced * mean_name;
    let job_name = sent / jobs;
    let active_name = name.max(job_name + 4.0);
    // tenants with work in a tick: those running, and as many waiting
    // (or, past that, as many as send a job in a tick: a backlogged run
    // has every sending tenant waiting)
    let active = tenants.min((2.0 * workers.min(jobs)).max(jobs / ticks));
    // the tenant and class series twice: per policy and gathered at the top
    let per_tick =
        60.0 + tenants * name + 2.0 * (active * (active_name + 30.0) + sc.classes.len() as f64 * 40.0);
    // jobs.csv's row per job, dispatches.csv's per start: one per slice of
    // a sliced job (each policy may slice differently)
    let (per_job, per_start) = (80.0 + job_name, 30.0 + job_name);
    let logs: f64 = sc
        .policies
        .iter()
        .map(|p| {
            let extra: f64 =
                sc.workload.iter().map(|e| e.expected_starts(p.slice) - e.arrivals.expected_count()).sum();
            jobs * per_job + (jobs + extra) * per_start + ticks * per_tick
        })
        .sum();

    // under a topology, a row per declared queue (queue_totals.csv) and per
    // pool (pools.csv, which also names the pool's queues), whatever the work:
    // 65,535 queues and pools write 2.9 MB for 200 jobs
    let declared: f64 = sc
        .policies
        .iter()
        .filter_map(|p| sc.topologies.get(p.topology?))
        .map(|t| {
            let queues: usize = t.queues.iter().map(|q| q.len() + 16).sum();
            let pools: usize = t.pools.iter().map(|p| p.name.len() + 24 + 6 * p.queues.len()).sum();
            (queues + pools) as f64
        })
        .sum();
    logs + declared
}

/// Starts on a worker over every policy: one per job, and one per slice of
/// a job that runs in slices (the entry's `slice`, else the policy's).
/// Each is an event, so this, not the job count, is what a run's time
/// follows: 2,400 jobs in slices of 1 ms are 40 million starts.
pub fn starts(sc: &Scenario, load: &OfferedLoad) -> f64 {
    let traced: f64 = sc.traces.iter().map(|t| t.scan.rows as f64).sum();
    (sc.policies.iter())
        .map(|p| traced + sc.workload.iter().map(|e| e.expected_starts(p.slice)).sum::<f64>())
        .sum::<f64>()
        .max(load.jobs)
}

/// A byte count in words: `1.4 GB`.
pub fn human_bytes(b: f64) -> String {
    match b {
        b if b >= 1e9 => format!("{:.1} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.0} MB", b / 1e6),
        b => format!("{:.0} kB", b / 1e3),
    }
}

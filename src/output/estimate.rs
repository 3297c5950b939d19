//! How many bytes the per-run logs of a scenario will take, estimated from
//! the scenario before running it, so that a default run does not fill a
//! disk: the observation log lists every tenant seen so far in each tick's
//! `completed` cell, so 10,000 tenants over 35,000 ticks is 3.5 GB per
//! policy. The estimate is rough (within a factor of about 2 on the bench
//! scenarios) and errs high.

use crate::model::Scenario;
use crate::time::to_secs_f64;

/// Bytes of logs a `--logs full` run of every policy would write, roughly.
pub fn log_bytes(sc: &Scenario) -> f64 {
    let mut jobs = 0.0;
    let mut work = 0.0; // worker-seconds
    let mut last_arrival: f64 = 0.0;
    for e in &sc.workload {
        let n = e.arrivals.expected_count();
        jobs += n;
        work += n * e.service.mean_secs();
        last_arrival = last_arrival.max(arrivals_end(e, n));
    }
    for t in &sc.traces {
        jobs += t.scan.rows as f64;
        work += t.scan.work as f64 / 1e6;
        last_arrival = last_arrival.max(to_secs_f64(t.scan.last_arrival));
    }
    if jobs == 0.0 {
        return 0.0;
    }
    let workers = if sc.workers == u32::MAX { jobs } else { sc.workers as f64 };
    let makespan = last_arrival.max(work / workers);
    // ticks with an event: at most a few per job; quiet runs cost two rows
    let ticks = (makespan / to_secs_f64(sc.tick)).min(3.0 * jobs) + 1.0;
    let tenants = (sc.tenants.len() as f64).min(jobs);
    let name = 10.0; // bytes of a tenant's name in a cell, with its count
                     // tenants with work in a tick: those running, and as many waiting
    let active = tenants.min(2.0 * workers.min(jobs));
    // the tenant and class series twice: per policy and gathered at the top
    let per_tick = 60.0 + tenants * name + 2.0 * (active * (name + 30.0) + sc.classes.len() as f64 * 40.0);
    let per_job = 90.0 + 40.0; // jobs.csv, and dispatches.csv's row per start

    sc.policies.len() as f64 * (jobs * per_job + ticks * per_tick)
}

/// When the entry's last arrival comes, in seconds.
fn arrivals_end(e: &crate::model::EntrySpec, n: f64) -> f64 {
    use crate::model::ArrivalSpec;
    match e.arrivals {
        ArrivalSpec::Batch { at, .. } => to_secs_f64(at),
        ArrivalSpec::Poisson { rate, start, .. } => to_secs_f64(start) + n / rate,
        ArrivalSpec::Every { every, start, .. } => to_secs_f64(start) + n * to_secs_f64(every),
    }
}

/// A byte count in words: `1.4 GB`.
pub fn human_bytes(b: f64) -> String {
    match b {
        b if b >= 1e9 => format!("{:.1} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.0} MB", b / 1e6),
        b => format!("{:.0} kB", b / 1e3),
    }
}

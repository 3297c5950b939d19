//! The memory guard of `fairsim run --jobs N`: N simulations at once hold
//! N times the memory of one, so when that is more than the machine has
//! free, fewer run at once (the results are the same at any number; only
//! the wall time changes), with a notice saying so.

use crate::error::{Error, Result};
use crate::model::Scenario;
use crate::output::estimate::human_bytes;
use crate::output::load::OfferedLoad;

/// What the free memory is read from: tests set it to try the guard.
pub const OVERRIDE: &str = "FAIRSIM_MEMORY_AVAILABLE";

/// Bytes one simulation of `sc` holds at its peak, roughly and erring
/// high, from the costs docs/performance.md measured ("Memory: what a job
/// and a tenant cost"): about 37 bytes per job (the wait and slowdown
/// samples behind the exact percentiles), 166 to 237 bytes per declared
/// tenant (run counters, load and fairness-window state; wfq the most),
/// and, for a load past saturation, the job table's 120 bytes for each
/// job that is still waiting when the arrivals end.
pub fn simulation_bytes(sc: &Scenario, load: &OfferedLoad) -> f64 {
    // the program, the arrival windows and the log writers' buffers
    const BASE: f64 = 16e6;
    const PER_JOB: f64 = 40.0;
    const PER_TENANT: f64 = 240.0;
    const PER_WAITING_JOB: f64 = 120.0;
    // at load rho > 1 the share 1 - 1/rho of the arrivals is still queued
    // at the last one (a batch at one instant: rho infinite, all of them)
    let waiting = load.rho.filter(|&r| r > 1.0).map_or(0.0, |r| 1.0 - 1.0 / r);
    BASE + load.jobs * (PER_JOB + PER_WAITING_JOB * waiting) + sc.tenants.len() as f64 * PER_TENANT
}

/// Free memory in bytes: [`OVERRIDE`] when set, else `MemAvailable` of
/// /proc/meminfo, with where it was read; `None` when neither says (the
/// guard then stays out of the way).
pub fn available() -> Result<Option<(f64, &'static str)>> {
    if let Ok(v) = std::env::var(OVERRIDE) {
        return match v.trim().parse::<u64>() {
            Ok(b) => Ok(Some((b as f64, OVERRIDE))),
            Err(_) => Err(Error::Usage(format!(
                "{OVERRIDE}={v}: give the free memory as a whole number of bytes, e.g. {OVERRIDE}=2000000000, or unset it to read /proc/meminfo"
            ))),
        };
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    Ok(mem_available(&meminfo).map(|b| (b, "MemAvailable in /proc/meminfo")))
}

/// `MemAvailable` of a /proc/meminfo text, in bytes (the file says kB: KiB).
fn mem_available(meminfo: &str) -> Option<f64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024.0)
}

/// How many of `wanted` simulations of `each` bytes to run at once in
/// `free` bytes: as many as fit, and never fewer than one (a single
/// simulation runs whatever the estimate says, as it always has).
pub fn at_once(wanted: usize, each: f64, free: f64) -> usize {
    let fit = (free / each).floor();
    if fit >= wanted as f64 {
        wanted
    } else {
        (fit as usize).clamp(1, wanted.max(1))
    }
}

/// The simulations to run at once for `wanted`, and the one-line notice
/// when the memory makes that fewer.
pub fn guard(wanted: usize, each: f64, free: Option<(f64, &str)>) -> (usize, Option<String>) {
    let Some((bytes, source)) = free else { return (wanted, None) };
    let n = at_once(wanted, each, bytes);
    let notice = (n < wanted).then(|| {
        format!(
            "note: running {n} simulation{} at a time instead of {wanted}: each may take about {} and {} of memory is free ({source}); the results are the same, only slower",
            if n == 1 { "" } else { "s" },
            human_bytes(each),
            human_bytes(bytes)
        )
    });
    (n, notice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_many_run_as_fit_and_at_least_one() {
        assert_eq!(at_once(3, 10e6, 25e6), 2);
        assert_eq!(at_once(3, 10e6, 30e6), 3);
        assert_eq!(at_once(2, 10e6, 1e12), 2);
        assert_eq!(at_once(3, 10e6, 1.0), 1, "one runs whatever the guess");
    }

    #[test]
    fn the_notice_names_how_many_and_why() {
        let (n, notice) = guard(3, 20e6, Some((45e6, OVERRIDE)));
        assert_eq!(n, 2);
        let notice = notice.expect("a notice");
        assert!(notice.starts_with("note: running 2 simulations at a time instead of 3"), "{notice}");
        assert!(
            notice.contains("about 20 MB and 45 MB of memory is free (FAIRSIM_MEMORY_AVAILABLE)"),
            "{notice}"
        );
        assert_eq!(guard(3, 20e6, Some((60e6, OVERRIDE))), (3, None));
        assert_eq!(guard(3, 20e6, None), (3, None), "nothing known, nothing held back");
    }

    #[test]
    fn mem_available_is_read_in_kib() {
        let text = "MemTotal:       16316412 kB\nMemFree:         1202032 kB\nMemAvailable:    8158200 kB\n";
        assert_eq!(mem_available(text), Some(8158200.0 * 1024.0));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn the_estimate_covers_the_measured_peak_of_ten_million_jobs() {
        // docs/performance.md: `summary-10m.yaml` (10,000,000 jobs, 1,000
        // tenants, load 0.9) peaked at 367 MB resident under fifo
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/bench/summary-10m.yaml");
        let sc = crate::scenario::load(&path).expect("the bench scenario");
        let est = simulation_bytes(&sc, &OfferedLoad::of(&sc));
        assert!((367e6..2.0 * 367e6).contains(&est), "{est}");
    }
}

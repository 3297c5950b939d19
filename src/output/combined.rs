//! The top-level long tables: every policy's log file of a name gathered
//! into one file of that name at the top of the results folder, its rows
//! under a leading `policy` column, so one `read_csv` compares policies.
//!
//! The files that grow with the jobs (a row per job, per start, per tick)
//! are gathered only on request (`--combine`): copying them
//! would double the disk a large run takes and a fifth of its time
//! (docs/performance.md), for a table a notebook can also build by
//! concatenating the policies' files, which keep their shape.

use std::path::Path;

use crate::error::Result;

use super::tables::gather;

/// Gathered in every run with full logs: their size follows the ticks,
/// queues, pools and rules, not the jobs.
pub const ALWAYS: [&str; 10] = [
    "tenants.csv",
    "refusals.csv",
    "classes.csv",
    "fairness.csv",
    "queues.csv",
    "queue_totals.csv",
    "pools.csv",
    "pool_queues.csv",
    "routes.csv",
    "planner.csv",
];

/// Gathered with `--combine`: the event logs, as large as the run.
pub const ON_REQUEST: [&str; 4] = ["jobs.csv", "dispatches.csv", "skips.csv", "ticks.csv"];

/// Writes the top-level long tables of the policies `labels` into `dir`.
pub fn write(dir: &Path, labels: &[&str], all: bool) -> Result<()> {
    let extra: &[&str] = if all { &ON_REQUEST } else { &[] };
    for file in ALWAYS.iter().chain(extra) {
        gather(dir, labels, file)?;
    }
    Ok(())
}

//! The observation log (`ticks.csv`): one row per tick with the idle workers
//! at its start, each waiting tenant's queue length at its end, the tenants
//! dispatched in order, the tenants passed over with their reason, and every
//! tenant's cumulative completions.
//!
//! The same events also go, one fact a row, to the long-form files an
//! analyst (and `fairsim check`) loads without parsing list cells, since a
//! tenant's name may hold the spaces and colons that delimit them:
//! `dispatches.csv` (a row per entry of `chosen`), `skips.csv` (a row per
//! entry of `skipped`) and `refusals.csv` (the `refused` and `deferred`
//! cells). They are written here, from the very calls that fill the cells,
//! so the two forms agree by construction. The `waiting` and `completed`
//! cells have theirs in `tenants.csv` ([`super::series`]), which has a row
//! for every tenant whose count changed or that has jobs waiting.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use crate::core::{Job, Skip, TenantLoad};
use crate::error::Result;
use crate::model::{Features, Scenario, TenantId, Tenants};
use crate::time::Time;

use super::columns::{header, DISPATCHES};
use super::csv_rows::{open_csv, push_u64, Csv};

pub struct TickLog {
    csv: Csv,
    dispatches: Csv,
    skips: Csv,
    refusals: Csv,
    /// 1-based index of the open tick (the `tick` column of the long files).
    open_tick: u64,
    /// The names a dispatch row writes, copied from the scenario because
    /// the engine reports a start without it.
    names: Names,
    /// Workers idle at the start of the current tick.
    free_at_start: u32,
    chosen: Vec<TenantId>,
    /// Tenants passed over in this tick with their reason, each pair once,
    /// in the order first seen.
    skipped: Vec<(TenantId, Skip)>,
    skipped_set: HashSet<(TenantId, Skip)>,
    /// Admission's refusals (final or to be re-sent) and deferrals in this
    /// tick, per tenant.
    refused: std::collections::BTreeMap<TenantId, u64>,
    deferred: std::collections::BTreeMap<TenantId, u64>,
    /// The tenants still parked from earlier ticks were listed in this tick.
    pub parked_listed: bool,
    /// Tenants with at least one arrival so far, in id order.
    seen: BTreeSet<TenantId>,
    /// Tenants with queued jobs.
    waiting: DenseSet,
    /// Scratch buffers for the list cells.
    cell: Vec<u8>,
    name: String,
    waiting_sorted: Vec<TenantId>,
}

impl TickLog {
    pub fn new(sc: &Scenario, dir: &Path, features: &Features) -> Result<Self> {
        Ok(TickLog {
            csv: open_csv(
                dir,
                "ticks.csv",
                &[
                    "tick",
                    "time",
                    "workers_free",
                    "waiting",
                    "chosen",
                    "skipped",
                    "completed",
                    "refused",
                    "deferred",
                ],
            )?,
            dispatches: open_csv(dir, "dispatches.csv", &header(&DISPATCHES, features))?,
            skips: open_csv(dir, "skips.csv", &["tick", "time", "tenant", "reason"])?,
            refusals: open_csv(dir, "refusals.csv", &["tick", "time", "tenant", "refused", "deferred"])?,
            open_tick: 1,
            names: Names::new(sc, features.topology),
            free_at_start: sc.workers,
            chosen: Vec::new(),
            skipped: Vec::new(),
            skipped_set: HashSet::new(),
            refused: Default::default(),
            deferred: Default::default(),
            parked_listed: false,
            seen: BTreeSet::new(),
            waiting: DenseSet::new(sc.tenants.len()),
            cell: Vec::new(),
            name: String::new(),
            waiting_sorted: Vec::new(),
        })
    }

    pub fn on_arrival(&mut self, tenant: TenantId) {
        self.seen.insert(tenant);
    }

    /// Whether `tenant` has queued jobs, for the `waiting` cell.
    pub fn set_waiting(&mut self, tenant: TenantId, waiting: bool) {
        if waiting {
            self.waiting.insert(tenant);
        } else {
            self.waiting.remove(tenant);
        }
    }

    /// `job` started (an attempt or a slice) at `now`: an entry of the
    /// tick's `chosen` cell and a row of `dispatches.csv`.
    pub fn on_chosen(&mut self, job: &Job, now: Time) -> Result<()> {
        self.chosen.push(job.tenant);
        let (w, n) = (&mut self.dispatches, &self.names);
        w.int(self.open_tick);
        w.secs(now);
        w.tenant(&n.tenants, job.tenant);
        w.text(&n.classes[job.class as usize]);
        w.int(job.seq);
        match (n.queues.get(job.queue as usize), n.pools.get(job.pool as usize)) {
            (Some(q), Some(p)) => {
                w.text(q);
                w.text(p);
            }
            _ if n.topology_columns => {
                w.empty();
                w.empty();
            }
            _ => {}
        }
        w.end()
    }

    /// A tenant passed over in this tick; each tenant:reason is listed once.
    pub fn on_skip(&mut self, s: (TenantId, Skip)) {
        if self.skipped_set.insert(s) {
            self.skipped.push(s);
        }
    }

    /// Every tenant with jobs waiting is passed over for `reason`.
    pub fn skip_waiting(&mut self, reason: Skip) {
        for i in 0..self.waiting.items.len() {
            self.on_skip((self.waiting.items[i], reason));
        }
    }

    /// Admission refused (`deferred`: deferred) a job of `tenant`.
    pub fn on_refused(&mut self, tenant: TenantId, deferred: bool) {
        let map = if deferred { &mut self.deferred } else { &mut self.refused };
        *map.entry(tenant).or_default() += 1;
    }

    /// Writes the row of tick `index`, which ends at `end`, and opens the
    /// next one with `free_now` idle workers.
    pub fn close(
        &mut self,
        sc: &Scenario,
        loads: &[TenantLoad],
        index: u64,
        end: Time,
        free_now: u32,
    ) -> Result<()> {
        let tenants = &sc.tenants;
        let scratch = &mut self.name;
        let (w, cell) = (&mut self.csv, &mut self.cell);
        w.int(index);
        w.secs(end);
        if sc.workers == u32::MAX {
            // a pool bounded by resources alone has no worker count to show
            w.bytes(b"");
        } else {
            w.int(self.free_at_start as u64);
        }
        self.waiting_sorted.clear();
        self.waiting_sorted.extend_from_slice(&self.waiting.items);
        self.waiting_sorted.sort_unstable();
        cell.clear();
        for &t in &self.waiting_sorted {
            list_sep(cell);
            push_name(cell, scratch, tenants, t);
            cell.push(b':');
            push_u64(cell, loads[t as usize].queued);
        }
        w.bytes(cell);
        cell.clear();
        for &t in &self.chosen {
            list_sep(cell);
            push_name(cell, scratch, tenants, t);
        }
        w.bytes(cell);
        cell.clear();
        for &(t, r) in &self.skipped {
            list_sep(cell);
            push_name(cell, scratch, tenants, t);
            cell.push(b':');
            cell.extend_from_slice(r.as_str().as_bytes());
        }
        w.bytes(cell);
        for &(t, r) in &self.skipped {
            let s = &mut self.skips;
            s.int(index);
            s.secs(end);
            s.tenant(tenants, t);
            s.text(r.as_str());
            s.end()?;
        }
        cell.clear();
        for &t in &self.seen {
            list_sep(cell);
            push_name(cell, scratch, tenants, t);
            cell.push(b':');
            push_u64(cell, loads[t as usize].completed);
        }
        w.bytes(cell);
        if !self.refused.is_empty() || !self.deferred.is_empty() {
            self.write_refusals(tenants, index, end)?;
        }
        let w = &mut self.csv;
        let (scratch, cell) = (&mut self.name, &mut self.cell);
        for map in [&mut self.refused, &mut self.deferred] {
            cell.clear();
            for (&t, &n) in map.iter() {
                list_sep(cell);
                push_name(cell, scratch, tenants, t);
                cell.push(b':');
                push_u64(cell, n);
            }
            w.bytes(cell);
            map.clear();
        }
        w.end()?;
        self.chosen.clear();
        self.skipped.clear();
        self.skipped_set.clear();
        self.parked_listed = false;
        self.free_at_start = free_now;
        self.open_tick = index + 1;
        Ok(())
    }

    /// The tick's rows of `refusals.csv`, in tenant id order like the cells.
    fn write_refusals(&mut self, tenants: &Tenants, index: u64, end: Time) -> Result<()> {
        let listed: BTreeSet<TenantId> = self.refused.keys().chain(self.deferred.keys()).copied().collect();
        for t in listed {
            let w = &mut self.refusals;
            w.int(index);
            w.secs(end);
            w.tenant(tenants, t);
            w.int(self.refused.get(&t).copied().unwrap_or(0));
            w.int(self.deferred.get(&t).copied().unwrap_or(0));
            w.end()?;
        }
        Ok(())
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.csv.flush()?;
        self.dispatches.flush()?;
        self.skips.flush()?;
        self.refusals.flush()
    }
}

/// Tenant, class, queue and pool names (no queues or pools without a topology).
struct Names {
    tenants: Tenants,
    classes: Vec<String>,
    queues: Vec<String>,
    pools: Vec<String>,
    /// `dispatches.csv` has `queue` and `pool` (some entry of the run has a topology).
    topology_columns: bool,
}

impl Names {
    fn new(sc: &Scenario, topology_columns: bool) -> Self {
        let (queues, pools) = match sc.run_topology() {
            Some(t) => (t.queues.clone(), t.pools.iter().map(|p| p.name.clone()).collect()),
            None => (Vec::new(), Vec::new()),
        };
        Names {
            tenants: sc.tenants.clone(),
            classes: sc.classes.iter().map(|c| c.name.clone()).collect(),
            queues,
            pools,
            topology_columns,
        }
    }
}

/// A set of tenant ids with O(1) insert and remove (unordered).
struct DenseSet {
    items: Vec<TenantId>,
    pos: Vec<u32>,
}

impl DenseSet {
    fn new(n: usize) -> Self {
        DenseSet { items: Vec::new(), pos: vec![u32::MAX; n] }
    }

    fn insert(&mut self, t: TenantId) {
        if self.pos[t as usize] == u32::MAX {
            self.pos[t as usize] = self.items.len() as u32;
            self.items.push(t);
        }
    }

    fn remove(&mut self, t: TenantId) {
        let p = self.pos[t as usize];
        if p != u32::MAX {
            self.items.swap_remove(p as usize);
            if let Some(&moved) = self.items.get(p as usize) {
                self.pos[moved as usize] = p;
            }
            self.pos[t as usize] = u32::MAX;
        }
    }
}

/// Appends a tenant's name to a cell, through a reused scratch string.
fn push_name(cell: &mut Vec<u8>, scratch: &mut String, tenants: &Tenants, t: TenantId) {
    scratch.clear();
    tenants.write_name(t, scratch);
    cell.extend_from_slice(scratch.as_bytes());
}

/// Space between the items of a list cell.
fn list_sep(cell: &mut Vec<u8>) {
    if !cell.is_empty() {
        cell.push(b' ');
    }
}

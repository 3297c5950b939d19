//! `queue_totals.csv`, `pools.csv`, `pool_queues.csv` and `routes.csv` of a
//! run under a topology: what each queue received and served, how busy each
//! pool was and which queues it polls (one a row in `pool_queues.csv`, the
//! long form of `pools.csv`'s `queues` list, since a queue's name may hold
//! a space), which routing rule placed how many jobs.

use std::path::Path;

use crate::error::{Error, Result};
use crate::model::{RouteAction, Throttle, TopologySpec};
use crate::time::{fmt_secs, Time};
use crate::topology::planner::PlannerEvent;
use crate::topology::TopologyStats;

/// `pools.csv`'s columns after `utilization` when the scenario declares
/// dispatch costs (every run of it has them, so the combined table lines up).
const COST_COLUMNS: &str = ",overhead,occupancy";

/// A pool's `overhead` and `occupancy` cells: worker time spent claiming,
/// refused and finishing, and (service + overhead) / (workers x makespan).
fn cost_cells(busy: u128, overhead: u128, workers: u32, makespan: Time) -> String {
    let occupancy = if makespan == 0 {
        String::new()
    } else {
        format!("{:.6}", (busy + overhead) as f64 / (f64::from(workers) * makespan as f64))
    };
    format!(",{},{occupancy}", fmt_secs(overhead.min(Time::MAX as u128) as Time))
}

/// `pools.csv`'s last columns when a pool of the topology reserves ahead
/// (`prefetch:`): jobs it reserved, most held at once, and the mean time
/// from a job's reservation to its start.
const RESERVE_COLUMNS: &str = ",reserved,held_max,held_mean";

/// A pool's reservation cells; blank for a pool that does not reserve.
fn reserve_cells(node: bool, s: &TopologyStats, i: usize) -> String {
    if !node {
        return ",,,".into();
    }
    let mean = match s.pool_started[i] {
        0 => String::new(),
        // every start of a node is of a job it held
        n => fmt_secs((s.held_sum[i] / u128::from(n)).min(Time::MAX as u128) as Time),
    };
    format!(",{},{},{mean}", s.reserved[i], s.held_max[i])
}

/// `pools.csv` of a run on the default pool, in a scenario that declares
/// dispatch costs: one row, `default`, polling the one queue.
pub fn write_default_pool(
    dir: &Path,
    workers: u32,
    started: u64,
    busy: u128,
    overhead: u128,
    makespan: Time,
) -> Result<()> {
    let util = if makespan == 0 {
        String::new()
    } else {
        format!("{:.6}", busy as f64 / (f64::from(workers) * makespan as f64))
    };
    let text = format!(
        "pool,workers,queues,started,busy,utilization{COST_COLUMNS}\ndefault,{workers},,{started},{},{util}{}\n",
        fmt_secs(busy.min(Time::MAX as u128) as Time),
        cost_cells(busy, overhead, workers, makespan)
    );
    let path = dir.join("pools.csv");
    std::fs::write(&path, text).map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

/// Writes the four files into the run's folder `dir`; `overhead`: per
/// pool, when the scenario declares dispatch costs.
pub fn write(
    dir: &Path,
    t: &TopologySpec,
    s: &TopologyStats,
    makespan: Time,
    overhead: Option<&[u128]>,
) -> Result<()> {
    if let Some(log) = &s.planner {
        return write_planner(dir, &log.borrow());
    }
    let mut q = String::from("queue,routed,started,max_depth,wait_mean,wait_max\n");
    for (i, name) in t.queues.iter().enumerate() {
        let mean = if s.started[i] == 0 {
            String::new()
        } else {
            fmt_secs((s.wait_sum[i] / u128::from(s.started[i])) as Time)
        };
        let max = if s.started[i] == 0 { String::new() } else { fmt_secs(s.wait_max[i]) };
        q.push_str(&format!(
            "{},{},{},{},{mean},{max}\n",
            field(name),
            s.routed[i],
            s.started[i],
            s.max_depth[i]
        ));
    }
    let mut p = String::from("pool,workers,queues,started,busy,utilization");
    if overhead.is_some() {
        p.push_str(COST_COLUMNS);
    }
    // only where some pool reserves ahead: other topologies' files are unchanged
    let reserving = !s.reserved.is_empty();
    if reserving {
        p.push_str(RESERVE_COLUMNS);
    }
    p.push('\n');
    let mut pq = String::from("pool,queue,poll_order\n");
    for (i, pool) in t.pools.iter().enumerate() {
        for (k, &q) in pool.queues.iter().enumerate() {
            pq.push_str(&format!("{},{},{}\n", field(&pool.name), field(&t.queues[q as usize]), k + 1));
        }
        let queues: Vec<&str> = pool.queues.iter().map(|&q| t.queues[q as usize].as_str()).collect();
        let busy = s.pool_busy[i];
        let util = if makespan == 0 {
            String::new()
        } else {
            format!("{:.6}", busy as f64 / (f64::from(pool.workers) * makespan as f64))
        };
        p.push_str(&format!(
            "{},{},{},{},{},{util}",
            field(&pool.name),
            pool.workers,
            field(&queues.join(" ")),
            s.pool_started[i],
            fmt_secs(busy.min(Time::MAX as u128) as Time)
        ));
        if let Some(o) = overhead {
            p.push_str(&cost_cells(busy, o.get(i).copied().unwrap_or(0), pool.workers, makespan));
        }
        if reserving {
            p.push_str(&reserve_cells(pool.prefetch.is_some(), s, i));
        }
        p.push('\n');
    }
    let mut r = String::from("rule,action,jobs\n");
    for (i, rule) in t.route.iter().enumerate() {
        r.push_str(&format!("{},{},{}\n", i + 1, field(&describe(t, &rule.action)), s.rule_matched[i]));
    }
    // rule 0 rather than a blank: an empty cell would turn pandas' integer
    // column into floats
    r.push_str(&format!("0,unrouted (first queue),{}\n", s.unrouted));
    let files = [("queue_totals.csv", q), ("pools.csv", p), ("pool_queues.csv", pq), ("routes.csv", r)];
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| Error::io(format!("cannot write {}", path.display()), e))?;
    }
    Ok(())
}

/// `planner.csv`: one row per wake-up (`sleep` or `plan`) and promotion.
fn write_planner(dir: &Path, events: &[PlannerEvent]) -> Result<()> {
    let mut text = String::from("time,event,active_tenants,main_depth,main_latency,planning_time,promoted\n");
    for e in events {
        let planning = if e.event == "plan" { fmt_secs(e.planning) } else { String::new() };
        let promoted = if e.event == "promote" { e.promoted.to_string() } else { String::new() };
        text.push_str(&format!(
            "{},{},{},{},{},{planning},{promoted}\n",
            fmt_secs(e.time),
            e.event,
            e.active,
            e.main_depth,
            fmt_secs(e.main_latency)
        ));
    }
    let path = dir.join("planner.csv");
    std::fs::write(&path, text).map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

/// A rule's action in words: `to slow`, `shard over 10`, ...
fn describe(t: &TopologySpec, a: &RouteAction) -> String {
    match a {
        RouteAction::To(q) => format!("to {}", t.queues[*q as usize]),
        RouteAction::Shard { queues } => format!("shard over {}", queues.len()),
        RouteAction::ShuffleShard { queues, per_tenant } => {
            format!("shuffle_shard {per_tenant} of {}", queues.len())
        }
        RouteAction::Throttle { limit: Throttle::Bucket { rate, burst }, to } => {
            format!("throttle bucket {rate}/s burst {burst} to {}", t.queues[*to as usize])
        }
        RouteAction::Throttle { limit: Throttle::Window { limit, window }, to } => {
            format!("throttle {limit} per {} s to {}", fmt_secs(*window), t.queues[*to as usize])
        }
        RouteAction::Throttle { limit: Throttle::Fixed { limit, per }, to } => {
            format!("throttle {limit} per fixed {} s to {}", fmt_secs(*per), t.queues[*to as usize])
        }
    }
}

/// A CSV field, quoted when it must be.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

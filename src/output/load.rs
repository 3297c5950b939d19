//! What a scenario asks of its pool, before running it: jobs and work per
//! workload entry, the offered load ρ = λ·E[S] / capacity over the arrivals
//! and at their busiest, per resource too, and a lower bound on the
//! makespan. A run with ρ ≥ 1 builds a backlog that only the end of the
//! arrivals drains; `validate` and `run` say so before simulating it.

use crate::model::{ArrivalSpec, EntrySpec, Scenario};
use crate::time::to_secs_f64;

/// One generator entry's demand.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryLoad {
    pub line: usize,
    pub jobs: f64,
    /// Expected worker-seconds.
    pub work: f64,
    /// When its arrivals start and end, in seconds (equal for a batch).
    pub from: f64,
    pub to: f64,
}

impl EntryLoad {
    fn of(e: &EntrySpec) -> Self {
        let jobs = e.arrivals.expected_count();
        let (from, to) = match e.arrivals {
            ArrivalSpec::Batch { at, .. } => (to_secs_f64(at), to_secs_f64(at)),
            ArrivalSpec::Poisson { start, .. } => {
                let rate = e.arrivals.mean_rate().unwrap_or(1.0);
                (to_secs_f64(start), to_secs_f64(start) + jobs / rate)
            }
            ArrivalSpec::Every { every, start, .. } => {
                let s = to_secs_f64(start);
                (s, s + (jobs - 1.0).max(0.0) * to_secs_f64(every))
            }
        };
        EntryLoad { line: e.line, jobs, work: jobs * e.service.mean_secs(), from, to }
    }

    /// Its work per second while its arrivals last (none for a batch).
    fn rate(&self) -> f64 {
        if self.to > self.from {
            self.work / (self.to - self.from)
        } else {
            0.0
        }
    }
}

/// The demand of a whole scenario against its pool.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedLoad {
    pub entries: Vec<EntryLoad>,
    pub jobs: f64,
    pub work: f64,
    /// First and last arrival, in seconds.
    pub from: f64,
    pub to: f64,
    /// Work over (workers x the arrival span); `None` without a worker count.
    pub rho: Option<f64>,
    /// The busiest stretch: (ρ, from, to) while the most work per second
    /// arrives (batches aside).
    pub peak: Option<(f64, f64, f64)>,
    /// Per resource: work x cost over (capacity x the arrival span).
    pub resources: Vec<(String, f64)>,
    /// No schedule ends before this: the last arrival, or all the work on
    /// every worker at once.
    pub makespan_at_least: f64,
}

impl OfferedLoad {
    /// The demand of the scenario's generators and traces.
    pub fn of(sc: &Scenario) -> Self {
        let entries: Vec<EntryLoad> = sc.workload.iter().map(EntryLoad::of).collect();
        let mut jobs: f64 = entries.iter().map(|e| e.jobs).sum();
        let mut work: f64 = entries.iter().map(|e| e.work).sum();
        let mut from = entries.iter().map(|e| e.from).fold(f64::INFINITY, f64::min);
        let mut to = entries.iter().map(|e| e.to).fold(0.0, f64::max);
        for t in &sc.traces {
            jobs += t.scan.rows as f64;
            work += t.scan.work as f64 / 1e6;
            // a trace's first row arrives at its origin, 0 unless it keeps its times
            from = from.min(0.0);
            to = to.max(to_secs_f64(t.scan.last_arrival));
        }
        if !from.is_finite() {
            from = 0.0;
        }
        let workers = (sc.workers != u32::MAX).then_some(f64::from(sc.workers));
        let span = to - from;
        let rho = workers.map(|w| if span > 0.0 { work / (w * span) } else { f64::INFINITY });
        let peak = workers.and_then(|w| peak(&entries).map(|(r, a, b)| (r / w, a, b)));
        // per resource: offered load, and the time its capacity needs for
        // the resource-seconds asked of it (a makespan bound of its own)
        let (resources, on_resources): (Vec<(String, f64)>, Vec<f64>) = (sc.resources.iter().enumerate())
            .map(|(i, (name, cap))| {
                let used: f64 =
                    (sc.workload.iter().zip(&entries)).map(|(e, l)| l.work * e.cost[i] as f64).sum();
                let rho = if span > 0.0 { used / (*cap as f64 * span) } else { f64::INFINITY };
                ((name.clone(), rho), used / *cap as f64)
            })
            .unzip();
        let on_all = workers.map_or(0.0, |w| work / w);
        let makespan_at_least = on_resources.into_iter().fold(to.max(on_all), f64::max);
        OfferedLoad { entries, jobs, work, from, to, rho, peak, resources, makespan_at_least }
    }

    /// The report's lines, for `validate` and the start of `run`.
    pub fn lines(&self) -> Vec<String> {
        let secs = human;
        let mut out = Vec::new();
        for e in &self.entries {
            out.push(format!(
                "entry at line {}: about {:.0} jobs, {} of work, arriving {} to {}",
                e.line,
                e.jobs,
                secs(e.work),
                secs(e.from),
                secs(e.to)
            ));
        }
        out.push(format!("in all: about {:.0} jobs, {} of work", self.jobs, secs(self.work)));
        let load = |rho: f64| match rho.is_finite() {
            true => format!("{rho:.2}"),
            false => "not defined (every job arrives at one instant; see the makespan bound)".to_string(),
        };
        if let Some(rho) = self.rho {
            out.push(format!(
                "offered load ρ over the arrivals ({} to {}): {}",
                secs(self.from),
                secs(self.to),
                load(rho)
            ));
        }
        if let Some((rho, a, b)) = self.peak.filter(|p| self.rho.is_some_and(|r| p.0 > r * 1.05)) {
            out.push(format!("busiest: ρ {rho:.2} from {} to {}", secs(a), secs(b)));
        }
        for (name, rho) in &self.resources {
            out.push(format!("offered load on {name}: {}", load(*rho)));
        }
        out.push(format!("makespan at least about {}", secs(self.makespan_at_least)));
        out
    }

    /// A warning when the pool (or a resource) is offered more than it
    /// can serve over the arrivals: the backlog then grows until they end.
    /// Arrivals at one instant (a batch) have no rate to compare: they
    /// drain, and the makespan bound says how long that takes.
    pub fn warning(&self) -> Option<String> {
        let over = self
            .rho
            .map(|r| ("the workers are".to_string(), r))
            .into_iter()
            .chain(self.resources.iter().map(|(n, r)| (format!("resource {n} is"), *r)))
            .filter(|(_, r)| r.is_finite() && *r >= 1.0)
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        let secs = human;
        Some(format!(
            "warning: {} offered ρ = {:.2} of what they can serve while jobs arrive: the backlog grows without bound until the arrivals stop, and the run lasts at least {}; add capacity, lower the rates, or add admission rules",
            over.0,
            over.1,
            secs(self.makespan_at_least)
        ))
    }
}

/// Seconds for a reader: `250ms`, `4.5s`, `4m 10s`, `2h 5m` (truncated, so
/// a lower bound stays one).
fn human(s: f64) -> String {
    match s {
        s if s >= 3600.0 => format!("{}h {}m", (s / 3600.0).floor(), ((s % 3600.0) / 60.0).floor()),
        s if s >= 60.0 => format!("{}m {}s", (s / 60.0).floor(), (s % 60.0).floor()),
        s if s >= 1.0 || s == 0.0 => format!("{}s", (s * 10.0).floor() / 10.0),
        s => format!("{}ms", (s * 1000.0).round()),
    }
}

/// The most work per second that arrives at once from the entries whose
/// arrival windows overlap, with that stretch.
fn peak(entries: &[EntryLoad]) -> Option<(f64, f64, f64)> {
    let mut cuts: Vec<f64> = entries.iter().flat_map(|e| [e.from, e.to]).collect();
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    let mut best: Option<(f64, f64, f64)> = None;
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let rate: f64 =
            entries.iter().filter(|e| e.from <= a && e.to >= b && e.to > e.from).map(|e| e.rate()).sum();
        match best {
            Some((r, from, _)) if (rate - r).abs() <= 1e-9 * r && from < a => best = Some((r, from, b)),
            Some((r, ..)) if rate <= r => {}
            _ => best = Some((rate, a, b)),
        }
    }
    best.filter(|b| b.0 > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    #[test]
    fn offered_load_is_work_over_worker_time_of_the_arrivals() {
        let sc = load_str(
            "workers: 4\nworkload:\n  - {tenant: A, arrivals: {every: 500ms, count: 201}, service: 1s}\n  - {tenant: B, arrivals: {every: 1s, start: 50s, count: 51}, service: 3s}\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let l = OfferedLoad::of(&sc);
        // A: 201 jobs every 0.5 s span 0..100 s, 201 s of work; B: 51 jobs of
        // 3 s from 50 s to 100 s, 153 s: 354 s over 4 x 100 s = 0.885
        assert!((l.rho.expect("workers") - 0.885).abs() < 1e-9, "{:?}", l.rho);
        // 50..100 s: A 201/100 = 2.01 and B 153/50 = 3.06 worker-s per s over 4
        let (peak, a, b) = l.peak.expect("a peak");
        assert!((peak - (2.01 + 3.06) / 4.0).abs() < 1e-9 && (a, b) == (50.0, 100.0), "{:?}", l.peak);
        assert_eq!(l.makespan_at_least, 100.0);
        assert!(l.warning().is_none());
    }

    #[test]
    fn a_batch_on_a_resource_pool_drains_without_warning_and_bounds_the_makespan() {
        // 10 jobs of 2 s holding 1 gpu each, all at t = 0, on 4 gpus: 20
        // gpu-seconds over 4 gpus need at least 5 s; a batch has no rate,
        // so no overload warning
        let sc = load_str(
            "resources: {gpu: 4}\nworkload:\n  - {tenant: A, count: 10, at: 0s, service: 2s, cost: {gpu: 1}}\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let l = OfferedLoad::of(&sc);
        assert_eq!(l.makespan_at_least, 5.0);
        assert!(l.warning().is_none(), "{:?}", l.warning());
        assert!(l.lines().iter().any(|x| {
            x == "offered load on gpu: not defined (every job arrives at one instant; see the makespan bound)"
        }));
    }

    #[test]
    fn an_overloaded_pool_is_warned_about_with_its_makespan_bound() {
        // 10/s of 1 s jobs for 100 s on 4 workers: 1000 s of work, rho 2.5
        // (1001 jobs every 100 ms: span 100 s, 1001 s of work: 2.5025);
        // all workers busy from the start end no earlier than 1001 / 4 s.
        let sc = load_str(
            "workers: 4\nworkload:\n  - {tenant: A, arrivals: {every: 100ms, count: 1001}, service: 1s}\n",
            Path::new("t.yaml"),
        )
        .expect("valid");
        let l = OfferedLoad::of(&sc);
        assert!((l.rho.expect("workers") - 2.5025).abs() < 1e-9);
        assert_eq!(l.makespan_at_least, 250.25);
        let w = l.warning().expect("overloaded");
        assert!(w.contains("ρ = 2.50") && w.contains("at least 4m 10s"), "{w}");
    }
}

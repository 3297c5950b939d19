//! How many claims `on_cap: {delay, refuse: each}` refuses, estimated from
//! the scenario before running it. Each refusal is an event (a claim, a
//! delay, a return), so this, besides the jobs, is what such a run's time
//! follows: a flooder's thousand rows refused every 10 ms for an hour are
//! 360 million of them. The loader refuses an entry past the limit on jobs
//! and `validate` prints the figure.

use std::collections::HashMap;

use super::{PolicySpec, Scenario, TenantId};
use crate::time::to_secs_f64;

impl Scenario {
    /// Claims refused at a cap by policy entry `spec` under `refuse:
    /// each`, roughly and on the high side (0 for any other entry). `self`
    /// is the scenario as the entry's run sees it ([`Scenario::for_run`]).
    ///
    /// A job of a capped tenant is refused at most once when first claimed
    /// and then once per `delay` while it waits; it waits at most the time
    /// its tenant's work takes through its cap (its work over the cap, or
    /// the workers when fewer): about twice the mean wait of a flood at its
    /// cap. A refusal cost is left out: it slows the refusals only where
    /// every worker is refusing.
    pub fn expected_refusals(&self, spec: &PolicySpec) -> f64 {
        let Some(delay) = spec.cap_delay.filter(|_| spec.cap_refuse_each) else { return 0.0 };
        let delay = to_secs_f64(delay);
        let workers = match self.run_topology() {
            Some(t) => f64::from(t.workers()),
            None => f64::from(self.workers),
        };
        // per capped tenant (or spread of tenants): jobs, work, and the most
        // jobs its cap lets run at once
        let mut groups: HashMap<(TenantId, u32), (f64, f64, f64)> = HashMap::new();
        for e in &self.workload {
            // a cap of all the workers is never reached with a worker free to refuse
            let caps = (e.tenant..e.tenant.saturating_add(e.spread))
                .filter_map(|t| self.tenants.cap(t))
                .filter(|&c| f64::from(c) < workers);
            let (mut capped, mut through) = (0u64, 0f64);
            for c in caps {
                capped += 1;
                through += f64::from(c);
            }
            if capped == 0 {
                continue;
            }
            let jobs = e.arrivals.expected_count();
            // a spread entry's jobs go to its capped tenants in proportion
            let share = capped as f64 / f64::from(e.spread.max(1));
            let g = groups.entry((e.tenant, e.spread)).or_insert((0.0, 0.0, through));
            g.0 += jobs * share;
            g.1 += jobs * share * e.service.mean_secs();
        }
        let mut refusals: f64 = groups
            .values()
            .map(|&(jobs, work, through)| jobs * (1.0 + work / through.min(workers).max(1.0) / delay))
            .sum();
        // a trace's tenants are known only when it is read: its jobs as if
        // all were one tenant's at the smallest cap
        if let Some(cap) = self.tenants.caps().into_iter().filter(|&c| f64::from(c) < workers).min() {
            for t in &self.traces {
                let (jobs, work) = (t.scan.rows as f64, t.scan.work as f64 / 1e6);
                refusals += jobs * (1.0 + work / f64::from(cap).min(workers).max(1.0) / delay);
            }
        }
        refusals
    }
}

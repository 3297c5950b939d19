//! What the charts take from the scenario rather than from the CSV files:
//! its name (for titles), its classes' SLAs (lines on wait charts) and
//! each policy's worker count over time (a line on the running-jobs
//! charts). Read from the copy of the scenario in the results folder; a
//! folder without one, or with one this fairsim cannot load, is drawn
//! without them.

use std::path::Path;

use crate::model::Scenario;
use crate::time::to_secs_f64;

/// The scenario facts the charts draw.
#[derive(Debug, Clone, Default)]
pub struct Scene {
    pub name: Option<String>,
    /// (class, SLA in seconds), in the scenario's class order.
    pub slas: Vec<(String, f64)>,
    /// Per policy label, the worker count as steps (from time s, n workers).
    capacity: Vec<(String, Vec<(f64, f64)>)>,
    /// The same for a policy given on the command line (not in the file).
    base: Option<Vec<(f64, f64)>>,
}

impl Scene {
    /// A scene with only a name (a scenario this fairsim cannot load).
    pub fn named(name: Option<String>) -> Scene {
        Scene { name, ..Scene::default() }
    }

    /// The scene of a loaded scenario.
    pub fn of(sc: &Scenario) -> Scene {
        let slas = sc.classes.iter().filter_map(|c| Some((c.name.clone(), to_secs_f64(c.sla?)))).collect();
        let capacity =
            sc.policies.iter().filter_map(|p| Some((p.label.clone(), steps(&sc.for_run(p))?))).collect();
        Scene { name: Some(sc.name.clone()), slas, capacity, base: steps(sc) }
    }

    /// The worker count of policy `label` over time, as steps.
    pub fn capacity(&self, label: &str) -> Option<&[(f64, f64)]> {
        match self.capacity.iter().find(|(l, _)| l == label) {
            Some((_, s)) => Some(s),
            None => self.base.as_deref(),
        }
    }

    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

/// The scenario echoed in the results folder `dir`, as this fairsim loads
/// it; `None` when it is missing or does not load (then the report says
/// less, rather than failing).
pub fn load(dir: &Path) -> Option<Scenario> {
    let path = dir.join("scenario.yaml");
    crate::scenario::load_unscanned(&path).or_else(|_| crate::scenario::load_for_trace(&path)).ok()
}

/// A run's worker count as steps; `None` for a pool bounded by resources
/// alone (no worker count to draw).
fn steps(run: &Scenario) -> Option<Vec<(f64, f64)>> {
    if run.workers == u32::MAX {
        return None;
    }
    let mut steps = vec![(0.0, f64::from(run.workers))];
    if run.topology.is_none() {
        steps.extend(run.capacity.iter().map(|c| (to_secs_f64(c.at), f64::from(c.workers))));
    }
    Some(steps)
}

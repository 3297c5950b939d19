//! `fairsim validate`: check a scenario file and print what it describes,
//! without simulating. The loader is the gate: what it accepts, `run`
//! accepts (for reasons the scenario alone decides).

use std::path::Path;

use super::run::trace_report;
use super::style;
use crate::error::Result;
use crate::output::load::OfferedLoad;
use crate::scenario;
use crate::time::fmt_secs;

/// Runs `fairsim validate`.
pub fn execute(path: &Path) -> Result<()> {
    // the loader builds every policy entry once, as its run will
    let sc = scenario::load(path)?;
    println!("{}: ok", path.display());
    println!("  name: {}, seed: {}, tick: {}s", sc.name, sc.seed, fmt_secs(sc.tick));
    if sc.workers == u32::MAX {
        println!("  workers: unlimited");
    } else {
        println!("  workers: {}", sc.workers);
    }
    for (n, c) in &sc.resources {
        println!("  resource {n}: {c}");
    }
    println!(
        "  tenants: {}, classes: {}, workload entries: {}",
        sc.tenants.len(),
        sc.classes.len(),
        sc.workload.len() + sc.traces.len()
    );
    for line in trace_report(&sc).lines() {
        println!("  {line}");
    }
    let labels: Vec<String> = sc.policies.iter().map(|p| format!("{} ({})", p.label, p.kind)).collect();
    println!("  policies: {}", labels.join(", "));
    for p in sc.policies.iter().filter(|p| !p.tenants.is_empty()) {
        let changes: Vec<String> = p
            .tenants
            .iter()
            .map(|c| {
                let mut s = sc.tenants.name(c.id).into_owned();
                if let Some(w) = c.weight {
                    s.push_str(&format!(" weight {w}"));
                }
                if let Some(k) = c.cap {
                    s.push_str(&format!(" cap {k}"));
                }
                s
            })
            .collect();
        println!("  {}: its own tenants: {}", p.label, changes.join(", "));
    }
    if !sc.objectives.is_empty() {
        let names: Vec<&str> = sc.objectives.iter().map(|o| o.name.as_str()).collect();
        println!("  objectives: {}", names.join("; "));
    }
    let n = |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
    for (i, t) in sc.topologies.iter().enumerate() {
        let shape = match &t.planner {
            Some(_) => "a planner in front of `main`".to_string(),
            None => format!(
                "{}, {}",
                n(t.queues.len(), "queue", "queues"),
                n(t.route.len(), "routing rule", "routing rules")
            ),
        };
        let workers = match t.workers() {
            u32::MAX => "unlimited workers (resources only)".to_string(),
            w => n(w as usize, "worker", "workers"),
        };
        println!("  topology {}: {shape}, {} with {workers}", t.name, n(t.pools.len(), "pool", "pools"));
        if let Some(p) = sc.presets.iter().find(|p| p.topology == i) {
            print_preset(&sc, t, p);
            continue;
        }
        for p in &t.pools {
            if let Some(d) = describe_dispatch(&p.costs, p.limiter.as_ref()) {
                println!("    pool {}: {d}", p.name);
            }
        }
    }
    if let Some(d) = describe_dispatch(&sc.costs, sc.limiter.as_ref()) {
        println!("  default pool: {d}");
    }
    for g in &sc.start_limits {
        let names: Vec<String> = g.tenants.iter().map(|&t| sc.tenants.name(t).into_owned()).collect();
        let limit = describe_dispatch(&crate::model::Costs::default(), Some(&g.limit)).unwrap_or_default();
        println!("  start limit of {}: {limit}", names.join(", "));
    }
    let load = OfferedLoad::of(&sc);
    for line in load.lines() {
        println!("  {line}");
    }
    let bytes = crate::output::estimate::log_bytes(&sc, &load);
    println!("  full logs: about {} for all policies", crate::output::estimate::human_bytes(bytes));
    // only where slices multiply the events: otherwise it is the job count
    let starts = crate::output::estimate::starts(&sc, &load);
    let runs = load.jobs * sc.policies.len() as f64;
    if starts > 1.5 * runs {
        println!("  starts: about {starts:.0} for all policies (jobs run in slices; each start is an event)");
    }
    // `on_cap: {refuse: each}` refuses every claim at a cap: each an event, as a start is
    let refusals: f64 = sc.policies.iter().map(|p| sc.for_run(p).expected_refusals(p)).sum();
    if refusals > 0.0 {
        println!("  refusals: about {refusals:.0} for all policies (on_cap refuse: each; at most, each capped job once per delay while it waits)");
    }
    if let Some(w) = load.warning() {
        eprintln!("{}", style::paint(&w));
    }
    Ok(())
}

/// A pool's dispatch costs and start limiter in words; `None` with neither.
fn describe_dispatch(c: &crate::model::Costs, l: Option<&crate::model::StartLimit>) -> Option<String> {
    use crate::model::StartLimit;
    use crate::time::fmt_secs;
    let mut parts = Vec::new();
    for (name, d) in
        [("claim", c.claim), ("refusal", c.refusal), ("finish", c.finish), ("poll every", c.poll_interval)]
    {
        if d > 0 {
            parts.push(format!("{name} {} s", fmt_secs(d)));
        }
    }
    match l {
        Some(StartLimit::Anchored { max, duration }) => {
            parts.push(format!("at most {max} starts per {} s window", fmt_secs(*duration)))
        }
        Some(StartLimit::Bucket { rate, burst }) => {
            parts.push(format!("starts at {rate}/s, {burst} at once"))
        }
        Some(StartLimit::Sliding { limit, window }) => {
            parts.push(format!("at most {limit} starts in any {} s", fmt_secs(*window)))
        }
        None => {}
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// What a processor preset expanded to, as YAML to paste, and how to run
/// it in the processor's own order.
fn print_preset(sc: &crate::model::Scenario, t: &crate::model::TopologySpec, p: &crate::model::PresetNote) {
    println!("    a `{}` preset (from {}); it expands to:", p.processor, p.source);
    for line in crate::output::expansion::topology_yaml(sc, t, "      ") {
        println!("{line}");
    }
    println!(
        "    the processor's order inside a queue is `{}`: an entry `{{topology: {}}}` runs it",
        p.order, t.name
    );
    for note in &p.notes {
        println!("    note: {note}");
    }
}

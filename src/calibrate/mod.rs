//! `fairsim calibrate`: how close is the simulator to production? A trace
//! that records what production did (a CSV export with each job's
//! `started` time, an SWF log's wait, field 3) is replayed under the
//! policy and capacity production used, and the simulated starts are set
//! against the recorded ones: per-job start error, wait per tenant and
//! class side by side, and how much the order of starts differs
//! (docs/calibrate.md). Job k of the simulated run is the k-th replayed
//! row of the trace, so the two sides are joined by position.

use std::path::{Path, PathBuf};

use crate::check::jobs::read as read_jobs;
use crate::error::{Error, Result};
use crate::results::table::Table;
use crate::workload::trace::{self, recorded::recorded};

pub mod band;
pub mod compare;
mod write;

use compare::Pair;

/// `fairsim calibrate`'s arguments.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// The scenario: production's pool (workers, resources, caps) and its policies.
    pub scenario: PathBuf,
    /// What production did: a CSV export with each job's start (`columns:
    /// {started: NAME}`, default `started_at`) or an SWF log.
    #[arg(long, value_name = "FILE")]
    pub trace: PathBuf,
    /// The policy production ran: a label of the scenario or a policy name.
    #[arg(long, value_name = "LABEL|NAME")]
    pub policy: String,
    /// Results folder; the figures go to DIR/calibration/ (default
    /// output/<scenario name>/).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Format of --trace when its extension does not say: csv or swf; or a
    /// job table's (good_jobs, bullmq, postgres, celery_events, sidekiq_log).
    #[arg(long, value_name = "FORMAT")]
    pub trace_format: Option<String>,
    /// Skip and count broken trace rows instead of failing.
    #[arg(long)]
    pub skip_bad_rows: bool,
    /// Simulate at N seeds (the scenario's seed, seed + 1, ... as `run
    /// --seeds`) and say whether each recorded mean and p99 wait lies in
    /// the simulated band (min .. max); the band goes to band.csv.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seeds: u64,
    /// With --seeds: exit 1 when a recorded figure lies outside its band.
    #[arg(long)]
    pub require_band: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// What a calibration found: its folder, the figures at the scenario's
/// seed, the policy's label, and the bands when run at more seeds.
pub struct Outcome {
    pub dir: PathBuf,
    pub calibration: compare::Calibration,
    pub label: String,
    pub bands: Vec<band::Band>,
}

/// Runs the calibration and writes its folder.
pub fn run(args: &CalibrateArgs) -> Result<Outcome> {
    if args.seeds == 0 {
        return Err(Error::Usage(
            "--seeds 0: give at least 1 (the default, one seed; --seeds 20 gives a band of 20 outcomes)"
                .into(),
        ));
    }
    if args.require_band && args.seeds < 2 {
        return Err(Error::Usage(
            "--require-band needs --seeds 2 or more: one seed gives no band to be inside".into(),
        ));
    }
    let mut sc = crate::scenario::load_for_trace(&args.scenario)?;
    let spec = crate::check::policy_by_name(&sc, &args.policy)?;
    let t = trace::from_cli(&sc, &args.trace, args.trace_format.as_deref(), args.skip_bad_rows)?;
    sc.workload.clear();
    sc.traces = vec![t];
    trace::prepare(&mut sc)?;
    // read before simulating: a trace without recorded starts fails fast
    let record = recorded(&sc.traces[0], &sc)?;
    if record.iter().all(|r| r.start.is_none()) {
        let column = match &sc.traces[0].format {
            crate::model::TraceFormat::Csv(c) => {
                format!("column `{}`", c.started.as_deref().unwrap_or("started_at"))
            }
            crate::model::TraceFormat::Swf { .. } => "field 3 (wait)".to_string(),
            crate::model::TraceFormat::Events(_) => "a start event".to_string(),
        };
        return Err(Error::input(
            &args.trace,
            0,
            0,
            format!(
                "no row has a recorded start ({column} is empty or unknown in all {} rows): nothing to compare, so no calibration was made; export the jobs with their start times",
                record.len()
            ),
        ));
    }
    let dir = args.out.clone().unwrap_or_else(|| Path::new("output").join(&sc.name)).join("calibration");
    let pairs = simulate_pairs(&sc, &spec, &record, &dir.join("simulated"), &args.trace)?;
    let c = compare::calibrate(&pairs);
    let ids: Vec<String> = record.iter().map(|r| r.id.clone()).collect();
    write::files(&dir, &c, &pairs, &ids, &sc.name)?;
    let mut bands = Vec::new();
    if args.seeds > 1 {
        // the later seeds' runs are only read back for their waits
        let scratch = dir.join(".seed-run");
        let mut runs = vec![c.clone()];
        for k in 1..args.seeds {
            let mut at = sc.clone();
            at.seed = sc.seed.wrapping_add(k);
            runs.push(compare::calibrate(&simulate_pairs(&at, &spec, &record, &scratch, &args.trace)?));
        }
        std::fs::remove_dir_all(&scratch)
            .map_err(|e| Error::io(format!("cannot remove {}", scratch.display()), e))?;
        bands = band::bands(&runs);
        write::bands(&dir, &bands)?;
    }
    Ok(Outcome { dir, calibration: c, label: spec.label, bands })
}

/// Simulates `sc` with its run's files in `simulated`, and pairs each job
/// with its record (job k with the k-th replayed row).
fn simulate_pairs(
    sc: &crate::model::Scenario,
    spec: &crate::model::PolicySpec,
    record: &[crate::workload::trace::recorded::Recorded],
    simulated: &Path,
    trace: &Path,
) -> Result<Vec<Pair>> {
    std::fs::create_dir_all(simulated)
        .map_err(|e| Error::io(format!("cannot create {}", simulated.display()), e))?;
    crate::run::simulate(sc, spec, Some(simulated), None, false)?;
    let table = Table::read(simulated, "jobs.csv")?
        .ok_or_else(|| Error::Other(format!("the simulation wrote no {}/jobs.csv", simulated.display())))?;
    let mut jobs = read_jobs(&table)?;
    jobs.sort_by_key(|j| j.id);
    if jobs.len() != record.len() {
        return Err(Error::Other(format!(
            "the simulation ran {} jobs but the trace has {} rows to compare",
            jobs.len(),
            record.len()
        )));
    }
    let mut pairs = Vec::with_capacity(jobs.len());
    for (j, r) in jobs.into_iter().zip(record) {
        if j.arrival != r.arrival {
            return Err(Error::Other(format!(
                "job {} arrived at {} us in the simulation but line {} of {} says {} us: the trace changed while it was read",
                j.id,
                j.arrival,
                r.line,
                trace.display(),
                r.arrival
            )));
        }
        pairs.push(Pair {
            tenant: j.tenant.to_string(),
            class: j.class.to_string(),
            arrival: j.arrival,
            recorded: r.start,
            simulated: j.start,
        });
    }
    Ok(pairs)
}

/// `fairsim calibrate`: runs it and prints the summary.
pub fn execute(args: &CalibrateArgs) -> Result<()> {
    let o = run(args)?;
    if !args.quiet {
        print!("{}", write::summary(&o.calibration, &o.label));
        if !o.bands.is_empty() {
            print!("{}", band::summary(&o.bands, args.seeds as usize));
        }
        eprintln!("results in {}", o.dir.display());
    }
    let outside = o.bands.iter().filter(|b| !b.inside()).count();
    if args.require_band && outside > 0 {
        return Err(Error::Other(format!(
            "--require-band: {outside} of {} recorded figures lie outside the simulated band ({}/band.csv)",
            o.bands.len(),
            o.dir.display()
        )));
    }
    Ok(())
}

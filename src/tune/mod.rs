//! `fairsim tune`: the best value of one or two scenario keys that meets
//! every requirement with 95% confidence, found with the sweep's machinery
//! (each point over many seeds, the sweep's runner and Student t intervals).
//!
//! - [`param`]: `--param KEY=LO..HI` or `KEY=V1,V2,...`.
//! - [`metric`]: the figures a requirement names and how a run gives them.
//! - [`require`]: `--require` parsing and judging an interval.
//! - [`search`]: grid or bisection, and the evaluation of a batch of points.
//! - [`answer`]: the verdict in words, and `tune.json`.
//! - [`output`]: `tune.csv` and the chart.

pub mod answer;
pub mod metric;
pub mod output;
pub mod param;
pub mod require;
pub mod search;

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::model::Scenario;
use crate::output::StagedDir;
use crate::scenario;
use crate::sweep::grid::{Grid, Node};
use crate::sweep::output::{write_runs, RunsTable};
use crate::sweep::runner::Shape;
use answer::{Objective, Search};
use metric::Metric;
use param::Param;
use require::Requirement;
use search::{bisect, grid_points, Context, Evaluated, Prefer};

/// Options of `fairsim tune`.
#[derive(Debug, clap::Args)]
#[command(mut_arg("out", |a| a.required(true)))]
#[command(mut_arg("quiet", |a| a.help("Print the answer only, no progress notes.")))]
pub struct TuneArgs {
    /// The scenario file (YAML).
    pub scenario: PathBuf,
    /// A key to tune and its values: a range of whole numbers,
    /// --param workers=1..16, or a list, --param tenants.*.cap=1,2,4,8
    /// (`*` stands for every key written there). At most two.
    #[arg(long = "param", value_name = "KEY=LO..HI|KEY=V1,V2,...", required = true)]
    pub params: Vec<String>,
    /// A requirement every accepted value meets with 95% confidence, e.g.
    /// 'p99(class=interactive) <= 2s' or 'jain >= 0.9'. Repeat for several.
    #[arg(long = "require", value_name = "EXPR", required = true)]
    pub requires: Vec<String>,
    /// Of the accepted points, the one with the smallest value of this
    /// --param key or metric (default: the first --param's smallest value).
    #[arg(long, value_name = "KEY", conflicts_with = "maximize")]
    pub minimize: Option<String>,
    /// Of the accepted points, the one with the largest value of this --param key or metric.
    #[arg(long, value_name = "KEY")]
    pub maximize: Option<String>,
    /// The requirements, all together, pass on one side of a value of the
    /// (single) --param and fail on the other: bisect instead of trying
    /// every value.
    #[arg(long)]
    pub monotone: bool,
    /// The policy judged: a label from the scenario's `policies` or a policy
    /// name with default parameters (needed when the scenario has several).
    #[arg(long = "policy", value_name = "NAME")]
    pub policy: Option<String>,
    /// Seeds per point: the scenario's seed, seed + 1, ..., seed + N - 1.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub seeds: u64,
    /// Runs at once (default: the number of CPUs).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub output: crate::output::OutputArgs,
}

/// Runs the search; `select` keeps the policy `--policy` names.
pub fn execute(args: TuneArgs, select: &dyn Fn(&mut Scenario) -> Result<()>) -> Result<()> {
    if args.seeds < 2 {
        return Err(Error::Usage(format!(
            "--seeds {}: an interval needs at least 2 seeds per point (default 20)",
            args.seeds
        )));
    }
    if args.jobs == Some(0) {
        return Err(Error::Usage("--jobs 0: give at least 1 (default: the number of CPUs)".into()));
    }
    if args.params.len() > 2 {
        return Err(Error::Usage(format!(
            "{} --param options: tune searches one or two keys; sweep more with `fairsim sweep`",
            args.params.len()
        )));
    }
    if args.policy.as_deref().is_some_and(|p| p.trim_start().starts_with('{')) {
        return Err(Error::Usage(
            "--policy: tune takes a label or a policy name; add the entry to the scenario's `policies` with a `label:` and name that".into(),
        ));
    }
    let mut base = scenario::load(&args.scenario)?;
    select(&mut base)?;
    if base.policies.len() != 1 {
        let labels: Vec<&str> = base.policies.iter().map(|p| p.label.as_str()).collect();
        return Err(Error::Usage(format!(
            "{}: tune judges one policy and the scenario has {} ({}); choose one with --policy LABEL",
            args.scenario.display(),
            labels.len(),
            labels.join(", ")
        )));
    }
    let text = std::fs::read_to_string(&args.scenario)
        .map_err(|e| Error::io(format!("cannot read {}", args.scenario.display()), e))?;
    let tree = Node::parse(&text).map_err(|e| Error::Usage(format!("{}: {e}", args.scenario.display())))?;
    let params = parse_params(&args, &tree)?;
    let reqs = args.requires.iter().map(|r| Requirement::parse(r, &base)).collect::<Result<Vec<_>>>()?;
    let objective = Objective::parse(args.minimize.as_deref(), args.maximize.as_deref(), &params, &base)?;
    let search = if args.monotone { Search::Bisection } else { Search::Grid };
    if search == Search::Bisection {
        if params.len() != 1 {
            return Err(Error::Usage("--monotone bisects one --param; give one, or drop --monotone".into()));
        }
        if !matches!(objective, Objective::Param { .. }) {
            return Err(Error::Usage(
                "--monotone finds the boundary of the accepted values, not the best metric among them: --minimize or --maximize the --param, or drop --monotone".into(),
            ));
        }
    }
    // each figure is read once per run, however many requirements name it
    let mut metrics: Vec<Metric> = Vec::new();
    let mut index_of =
        |m: &Metric| match metrics.iter().position(|k| k.column == m.column && k.scope == m.scope) {
            Some(i) => i,
            None => {
                metrics.push(m.clone());
                metrics.len() - 1
            }
        };
    let metric_of: Vec<usize> = reqs.iter().map(|r| index_of(&r.metric)).collect();
    let objective = objective.indexed(&mut index_of);

    let seeds = usize::try_from(args.seeds).unwrap_or(usize::MAX);
    let threads = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let ctx = Context {
        path: &args.scenario,
        tree: &tree,
        params: &params,
        select,
        seeds,
        threads,
        metrics: &metrics,
        requirements: &reqs,
        metric_of: &metric_of,
    };
    ctx.check_values()?;
    let marker = serde_json::json!({"fairsim": env!("CARGO_PKG_VERSION"), "tune": "tune.json"});
    // before any run: a bad --out fails at once
    let staged = StagedDir::new(args.output.required_out()?, args.output.force, &format!("{marker:#}\n"))?;
    let total: usize = params.iter().map(Param::count).fold(1, usize::saturating_mul);
    if !args.output.quiet {
        eprintln!("tune: {}", search.plan(&params, total, seeds));
    }
    let started = std::time::Instant::now();
    let mut points = match search {
        Search::Grid => ctx.evaluate(&grid_points(&params), 1)?,
        Search::Bisection => {
            let prefer = if objective.maximize() { Prefer::High } else { Prefer::Low };
            let mut done: Vec<Evaluated> = Vec::new();
            bisect(params[0].count(), prefer, &mut |batch: &[usize]| {
                let coords: Vec<Vec<usize>> = batch.iter().map(|&i| vec![i]).collect();
                let step = done.last().map_or(1, |p| p.step + 1);
                let got = ctx.evaluate(&coords, step)?;
                let pass = got.iter().map(Evaluated::accepted).collect();
                done.extend(got);
                Ok(pass)
            })?;
            done
        }
    };
    points.sort_by(|a, b| a.coords.cmp(&b.coords));
    let chosen = objective.best(&points, &params);

    let dir = staged.path();
    let first_seed = base.seed;
    let grid = match search {
        Search::Grid => {
            Grid { axes: params.iter().map(|p| p.axis(&(0..p.count()).collect::<Vec<_>>())).collect() }
        }
        Search::Bisection => {
            Grid { axes: vec![params[0].axis(&points.iter().map(|p| p.coords[0]).collect::<Vec<_>>())] }
        }
    };
    let shape = Shape { points: points.len(), seeds, policies: 1 };
    let runs: Vec<_> = points.iter().flat_map(|p| p.runs.iter().cloned()).collect();
    let first_seeds = vec![first_seed; points.len()];
    write_runs(&dir.join("runs.csv"), &RunsTable::new(&grid, shape, &first_seeds, &runs))?;
    output::write_csv(&dir.join("tune.csv"), &params, &metrics, &reqs, &points, chosen)?;
    let verdict = answer::Verdict::new(&reqs, &points, chosen, &ctx, &objective);
    if let Some(r) = verdict.charted() {
        output::chart(dir, &params, &reqs[r], metric_of[r], &points, &base.name)?;
    }
    let summary = answer::Summary {
        params: &params,
        reqs: &reqs,
        objective: &objective,
        search,
        points: &points,
        chosen,
        seeds,
        total,
        policy: &base.policies[0].label,
    };
    let json = summary.json(&ctx, &verdict);
    for (name, body) in [("tune.json", format!("{json:#}\n")), ("scenario.yaml", text.clone())] {
        let path = dir.join(name);
        std::fs::write(&path, body).map_err(|e| Error::io(format!("cannot write {}", path.display()), e))?;
    }
    let out = staged.commit()?;
    for line in summary.lines(&ctx, &verdict) {
        println!("{line}");
    }
    if !args.output.quiet {
        eprintln!(
            "{} runs in {:.2}s; results in {}",
            shape.runs(),
            started.elapsed().as_secs_f64(),
            out.display()
        );
    }
    match chosen {
        Some(_) => Ok(()),
        None => Err(Error::Other(format!(
            "{}; results in {}",
            verdict.failure(&reqs, &points, &ctx),
            out.display()
        ))),
    }
}

/// The `--param` options, each key checked against the scenario's text
/// before any run (its path, its `*`).
fn parse_params(args: &TuneArgs, tree: &Node) -> Result<Vec<Param>> {
    let mut params: Vec<Param> = Vec::new();
    for option in &args.params {
        let p = Param::parse(option, args.monotone)?;
        if params.iter().any(|q| q.key == p.key) {
            return Err(Error::Usage(format!(
                "{}: `{}` is tuned twice; give its values in one --param",
                p.option(),
                p.key
            )));
        }
        let probe = Grid { axes: vec![p.axis(&[0])] };
        probe.text_with(tree, &[(0, 0)]).map_err(|e| {
            let star = if p.key.contains('*') {
                "; `*` stands for the keys written in the file (declare the tenants under `tenants:` to tune them all)"
            } else {
                ""
            };
            Error::Usage(format!("{}: {e}{star}", p.option()))
        })?;
        params.push(p);
    }
    Ok(params)
}

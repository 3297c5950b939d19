//! `fairsim-bench floor`: round_robin on `tenants-10k.yaml` beside the bare
//! loop, the floor of what a simulation of that workload can cost on one
//! core: a binary heap of events, a deque of arrival and service times per
//! tenant and a ring of the tenants with work, nothing else (no job table,
//! no fairness windows, no percentiles, no logs, no generic policy).
//!
//! The loop draws the same jobs fairsim draws (the entry's random stream,
//! in the generator's order: the first gap, then per job its tenant, its
//! service and the next gap), so both simulate the same schedule: the mean
//! wait printed for each must agree (up to the order of tenants that get
//! work at the same microsecond, which the loop does not settle by rank).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rand::RngExt;
use rand_distr::{Distribution, Exp};

use fairsim::model::{self, ArrivalSpec, ServiceSpec};
use fairsim::time::{from_secs_f64, Time, SECOND};
use fairsim::workload::rng::{stream, Purpose};

use super::{cpu_secs, fairsim_exe, load, repeat};

/// What the loop measured: jobs started, their waits' sum in microseconds.
pub struct Floor {
    pub jobs: u64,
    pub wait_sum: u128,
}

/// The workload of the loop: one entry's Poisson arrivals spread uniformly
/// over `tenants`, exponential service, `workers` identical workers.
pub struct Shape {
    pub seed: u64,
    pub tenants: u32,
    pub rate: f64,
    pub count: u64,
    pub mean_service: Time,
    pub workers: u32,
}

impl Shape {
    /// The shape of `sc`, which must be one such entry (as `tenants-10k.yaml` is).
    pub fn of(sc: &model::Scenario) -> Option<Shape> {
        let [e] = &sc.workload[..] else { return None };
        let ArrivalSpec::Poisson { rate, start: 0, stop: None, count: Some(count), profile: None } =
            e.arrivals
        else {
            return None;
        };
        let ServiceSpec::Exponential { mean } = e.service else { return None };
        let plain = e.tenant == 0 && e.failure.is_none() && e.deadline.is_none() && e.slice.is_none();
        (plain && mean > 0 && e.spread > 1).then_some(Shape {
            seed: sc.seed,
            tenants: e.spread,
            rate,
            count,
            mean_service: mean,
            workers: sc.workers,
        })
    }
}

/// Event kinds, in the order the engine handles them at one instant:
/// completions before arrivals, and dispatch after both.
const DONE: u8 = 0;
const ARRIVE: u8 = 1;

/// Round robin over the tenants with work, one job per turn; a tenant that
/// gets work joins the back of the ring.
pub fn bare_loop(s: &Shape) -> Floor {
    let mut rng = stream(s.seed, 0, Purpose::Workload);
    let gap = Exp::new(s.rate).expect("positive rate");
    let service = Exp::new(SECOND as f64 / s.mean_service as f64).expect("positive rate");
    let mut queues: Vec<VecDeque<(Time, Time)>> = vec![VecDeque::new(); s.tenants as usize];
    let mut ring: VecDeque<u32> = VecDeque::new();
    let mut events: BinaryHeap<Reverse<(Time, u8)>> = BinaryHeap::new();
    let (mut free, mut emitted, mut jobs, mut wait_sum) = (s.workers, 0u64, 0u64, 0u128);
    events.push(Reverse((from_secs_f64(gap.sample(&mut rng)), ARRIVE)));
    while let Some(&Reverse((now, _))) = events.peek() {
        while let Some(&Reverse((t, kind))) = events.peek() {
            if t != now {
                break;
            }
            events.pop();
            if kind == DONE {
                free += 1;
                continue;
            }
            let tenant = rng.random_range(0..s.tenants);
            let work = from_secs_f64(service.sample(&mut rng));
            let next = now.saturating_add(from_secs_f64(gap.sample(&mut rng)));
            emitted += 1;
            if emitted < s.count {
                events.push(Reverse((next, ARRIVE)));
            }
            let q = &mut queues[tenant as usize];
            if q.is_empty() {
                ring.push_back(tenant);
            }
            q.push_back((now, work));
        }
        while free > 0 {
            let Some(tenant) = ring.pop_front() else { break };
            let q = &mut queues[tenant as usize];
            let (arrived, work) = q.pop_front().expect("a tenant in the ring has work");
            if !q.is_empty() {
                ring.push_back(tenant);
            }
            free -= 1;
            jobs += 1;
            wait_sum += u128::from(now - arrived);
            events.push(Reverse((now + work, DONE)));
        }
    }
    Floor { jobs, wait_sum }
}

/// CPU seconds of one `fairsim run` of `scenario` (round_robin, summary
/// logs, no charts), end to end: start-up, loading, simulation, writing.
fn end_to_end(scenario: &std::path::Path, out: &std::path::Path) -> f64 {
    let child = std::process::Command::new(fairsim_exe())
        .arg("run")
        .arg(scenario)
        .args(["--policy", "round_robin", "--logs", "summary", "--no-plots", "--quiet", "--force", "--out"])
        .arg(out)
        .spawn();
    let Ok(child) = child else {
        eprintln!("cannot start {} (build it with cargo build --release)", fairsim_exe().display());
        std::process::exit(1)
    };
    match super::moonshot::wait(child) {
        (true, cpu, _) => cpu,
        _ => {
            eprintln!("fairsim run {} failed", scenario.display());
            std::process::exit(1)
        }
    }
}

/// The section: `--repeat` rounds of the loop, round_robin simulated in
/// this process (what `throughput` times), and `fairsim run` of the
/// scenario end to end in a child process; which one goes first rotates.
/// CPU time of each; the medians of the rounds' ratios to the loop.
pub fn section() {
    let sc = load("tenants-10k.yaml");
    let Some(shape) = Shape::of(&sc) else {
        eprintln!(
            "tenants-10k.yaml is no longer one Poisson entry spread over tenants with exponential service"
        );
        std::process::exit(1)
    };
    let Some(rr) = sc.policies.iter().find(|p| p.label == "round_robin") else {
        eprintln!("tenants-10k.yaml lists no round_robin");
        std::process::exit(1)
    };
    println!(
        "## floor: round_robin on tenants-10k.yaml ({} jobs, {} tenants, {} workers, logs off) vs the bare loop, CPU time, {} rounds ({})",
        shape.count,
        shape.tenants,
        shape.workers,
        repeat(),
        fairsim_exe().display()
    );
    let floor_once = || {
        let c0 = cpu_secs();
        let f = bare_loop(&shape);
        (cpu_secs() - c0, f.jobs, f.wait_sum as f64 / f.jobs.max(1) as f64 / 1e6)
    };
    let fairsim_once = || {
        let c0 = cpu_secs();
        let stats = fairsim::run::simulate(&sc, rr, None, None, false).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1)
        });
        (cpu_secs() - c0, stats.all.jobs, stats.all.wait_mean().unwrap_or(0.0) / 1e6)
    };
    let out = std::env::temp_dir().join(format!("fairsim-bench-floor-{}", std::process::id()));
    let path = super::bench_dir().join("tenants-10k.yaml");
    let (mut t, mut ratios) = ([Vec::new(), Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
    let (mut loop_wait, mut our_wait, mut n) = (0.0, 0.0, 0);
    for r in 0..repeat() {
        let mut took = [0.0; 3];
        for k in 0..3 {
            match (r + k) % 3 {
                0 => {
                    let a = floor_once();
                    (took[0], loop_wait) = (a.0, a.2);
                }
                1 => {
                    let b = fairsim_once();
                    (took[1], our_wait, n) = (b.0, b.2, b.1);
                }
                _ => took[2] = end_to_end(&path, &out),
            }
        }
        for k in 0..3 {
            t[k].push(took[k]);
        }
        ratios[0].push(took[1] / took[0]);
        ratios[1].push(took[2] / took[0]);
    }
    let _ = std::fs::remove_dir_all(&out);
    let med = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0], v[v.len() - 1])
    };
    let per_job = |s: f64| s * 1e9 / n.max(1) as f64;
    let [l, o, e] = [med(&t[0]).0, med(&t[1]).0, med(&t[2]).0];
    println!("| side | median cpu s | ns per job | mean wait s | / loop, median (range) |\n|---|---:|---:|---:|---|");
    println!("| bare loop | {l:.3} | {:.0} | {loop_wait:.6} | |", per_job(l));
    let (r, lo, hi) = med(&ratios[0]);
    println!(
        "| round_robin simulated in-process (`run::simulate`) | {o:.3} | {:.0} | {our_wait:.6} | {r:.2}x ({lo:.2}–{hi:.2}) |",
        per_job(o)
    );
    let (r, lo, hi) = med(&ratios[1]);
    println!(
        "| `fairsim run --policy round_robin --logs summary --no-plots`, end to end | {e:.3} | {:.0} | | **{r:.2}x** ({lo:.2}–{hi:.2}) |",
        per_job(e)
    );
    println!("target: <= 2.5x the loop\n");
}

//! The verdict: which accepted point is best, which requirement binds there
//! (or fails everywhere), and how it is said: the lines on stdout and
//! `tune.json`.

use super::metric::Metric;
use super::output::human;
use super::param::Param;
use super::require::{parse_metric, Requirement};
use super::search::{Context, Evaluated};
use crate::error::{Error, Result};
use crate::model::Scenario;

/// What "best" means among the accepted points.
#[derive(Debug, Clone)]
pub enum Objective {
    /// The smallest (largest) value of a tuned key.
    Param { index: usize, maximize: bool },
    /// The smallest (largest) mean of a metric; `index` into the metrics read.
    Metric { metric: Metric, index: usize, maximize: bool },
}

impl Objective {
    /// `--minimize KEY` / `--maximize KEY`: a `--param` key or a metric;
    /// without either, the first `--param`'s smallest value.
    pub fn parse(min: Option<&str>, max: Option<&str>, params: &[Param], sc: &Scenario) -> Result<Objective> {
        let (key, maximize, option) = match (min, max) {
            (Some(k), None) => (k.trim(), false, "--minimize"),
            (None, Some(k)) => (k.trim(), true, "--maximize"),
            (None, None) => return Ok(Objective::Param { index: 0, maximize: false }),
            (Some(_), Some(_)) => return Err(Error::Usage("give --minimize or --maximize, not both".into())),
        };
        if let Some(index) = params.iter().position(|p| p.key == key) {
            return Ok(Objective::Param { index, maximize });
        }
        let keys: Vec<&str> = params.iter().map(|p| p.key.as_str()).collect();
        match parse_metric(option, key, sc) {
            Ok(metric) => Ok(Objective::Metric { metric, index: 0, maximize }),
            Err(e) => Err(Error::Usage(format!(
                "{e}\n{option} takes a --param key ({}) or a metric such as p99 or 'p99(class=NAME)'",
                keys.join(", ")
            ))),
        }
    }

    /// Numbers a metric objective among the metrics read.
    pub fn indexed(self, index_of: &mut dyn FnMut(&Metric) -> usize) -> Objective {
        match self {
            Objective::Metric { metric, maximize, .. } => {
                let index = index_of(&metric);
                Objective::Metric { metric, index, maximize }
            }
            p => p,
        }
    }

    pub fn maximize(&self) -> bool {
        match self {
            Objective::Param { maximize, .. } | Objective::Metric { maximize, .. } => *maximize,
        }
    }

    /// A point's place in the objective's order: smaller is better; a
    /// point whose objective metric was not measured comes last.
    pub fn key(&self, p: &Evaluated, params: &[Param]) -> f64 {
        let v = match self {
            Objective::Param { index, .. } => Some(params[*index].number(p.coords[*index])),
            Objective::Metric { index, .. } => p.estimates[*index].map(|e| e.mean),
        };
        match (v, self.maximize()) {
            (None, _) => f64::INFINITY,
            (Some(v), true) => -v,
            (Some(v), false) => v,
        }
    }

    /// The accepted point the objective prefers, the first on ties.
    pub fn best(&self, points: &[Evaluated], params: &[Param]) -> Option<usize> {
        let accepted = points.iter().enumerate().filter(|(_, p)| p.accepted());
        accepted
            .min_by(|a, b| self.key(a.1, params).total_cmp(&self.key(b.1, params)).then(a.0.cmp(&b.0)))
            .map(|(i, _)| i)
    }

    fn describe(&self, params: &[Param]) -> String {
        match self {
            Objective::Param { index, maximize } => {
                format!("{} {}", if *maximize { "largest" } else { "smallest" }, params[*index].key)
            }
            Objective::Metric { metric, maximize, .. } => {
                format!("{} mean {}", if *maximize { "highest" } else { "lowest" }, metric.label)
            }
        }
    }
}

/// How the points were chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Search {
    Grid,
    Bisection,
}

/// At most how many of `n` values a bisection evaluates: both ends, then
/// ceil(log2(n - 1)) halvings.
pub fn bisection_bound(n: usize) -> usize {
    match n {
        0 | 1 => n,
        _ => 2 + (usize::BITS - (n - 2).leading_zeros()) as usize,
    }
}

impl Search {
    fn name(self) -> &'static str {
        match self {
            Search::Grid => "grid",
            Search::Bisection => "bisection",
        }
    }

    /// The plan and its cost, before any run.
    pub fn plan(self, params: &[Param], total: usize, seeds: usize) -> String {
        let options: Vec<String> = params.iter().map(Param::option).collect();
        match self {
            Search::Grid => format!(
                "grid over {}: {total} points x {seeds} seeds x 1 policy = {} runs",
                options.join(" x "),
                total.saturating_mul(seeds)
            ),
            Search::Bisection => {
                let most = bisection_bound(total);
                format!(
                    "bisection over {} (declared monotone): at most {most} of {total} points x {seeds} seeds x 1 policy = {} runs (a grid: {})",
                    options[0],
                    most * seeds,
                    total.saturating_mul(seeds)
                )
            }
        }
    }
}

/// Which requirement the answer turns on.
pub struct Verdict {
    /// What keeps the answer from being better (see [`Verdict::new`]).
    pub binding: Option<usize>,
    /// Requirements no evaluated point meets, each with its closest approach.
    pub everywhere: Vec<(usize, String)>,
    /// The requirement that fails at the most points (when nothing is chosen).
    most_failing: Option<usize>,
}

impl Verdict {
    /// `binding`: what keeps the answer from being better, the requirement
    /// that fails at the most evaluated points the objective prefers to the
    /// chosen one (ties: the tighter at the chosen point); when none is
    /// preferred, the tightest at the chosen point.
    pub fn new(
        reqs: &[Requirement],
        points: &[Evaluated],
        chosen: Option<usize>,
        ctx: &Context,
        objective: &Objective,
    ) -> Verdict {
        let binding = chosen.and_then(|c| {
            let at = &points[c];
            let key = objective.key(at, ctx.params);
            let better: Vec<&Evaluated> =
                points.iter().filter(|p| objective.key(p, ctx.params) < key).collect();
            let fails = |r: usize| better.iter().filter(|p| !p.pass[r]).count();
            let slack = |r: usize| at.judged[r].map_or(f64::NEG_INFINITY, |j| reqs[r].relative_slack(j));
            let most =
                (0..reqs.len()).max_by(|&a, &b| fails(a).cmp(&fails(b)).then(slack(b).total_cmp(&slack(a))));
            most.filter(|&r| fails(r) > 0).or_else(|| at.tightest(reqs))
        });
        let fails = |r: usize| points.iter().filter(|p| !p.pass[r]).count();
        let everywhere = (0..reqs.len())
            .filter(|&r| fails(r) == points.len())
            .map(|r| {
                let req = &reqs[r];
                let closest = points
                    .iter()
                    .filter_map(|p| p.judged[r].map(|j| (p, j)))
                    .max_by(|a, b| req.slack(a.1).total_cmp(&req.slack(b.1)));
                let text = match closest {
                    Some((p, j)) => format!(
                        "`{}` fails at every point evaluated; closest: {} CI {} at {}, {} {} the bound",
                        req.text,
                        req.side(),
                        human(req.metric.kind, j),
                        ctx.name(&p.coords),
                        human(req.metric.kind, -req.slack(j)),
                        if req.op.upper() { "over" } else { "under" }
                    ),
                    None => format!(
                        "`{}` is measured at no point evaluated (fewer than 2 seeds gave {} a value)",
                        req.text, req.metric.label
                    ),
                };
                (r, text)
            })
            .collect();
        let most_failing = (0..reqs.len()).max_by_key(|&r| (fails(r), std::cmp::Reverse(r)));
        Verdict { binding, everywhere, most_failing }
    }

    /// The requirement whose metric the chart shows.
    pub fn charted(&self) -> Option<usize> {
        self.binding.or(self.everywhere.first().map(|e| e.0)).or(self.most_failing)
    }

    /// Why nothing was chosen, in one sentence.
    pub fn failure(&self, reqs: &[Requirement], points: &[Evaluated], ctx: &Context) -> String {
        if !self.everywhere.is_empty() {
            let parts: Vec<&str> = self.everywhere.iter().map(|e| e.1.as_str()).collect();
            return format!("no point meets all requirements: {}", parts.join("; "));
        }
        // each requirement is met somewhere, never all at once
        let parts: Vec<String> = points
            .iter()
            .take(6)
            .map(|p| {
                let failed: Vec<&str> =
                    (0..reqs.len()).filter(|&r| !p.pass[r]).map(|r| reqs[r].text.as_str()).collect();
                format!("{} fails {}", ctx.name(&p.coords), failed.join(" and "))
            })
            .collect();
        let more = if points.len() > 6 { "; ..." } else { "" };
        format!("no point meets all requirements at once: {}{more}", parts.join("; "))
    }
}

/// Everything the answer is made of.
pub struct Summary<'a> {
    pub params: &'a [Param],
    pub reqs: &'a [Requirement],
    pub objective: &'a Objective,
    pub search: Search,
    pub points: &'a [Evaluated],
    pub chosen: Option<usize>,
    pub seeds: usize,
    pub total: usize,
    pub policy: &'a str,
}

impl Summary<'_> {
    /// The cost as spent.
    fn cost(&self) -> String {
        let mut s = format!(
            "search: {} over {}: {} of {} points x {} seeds x 1 policy ({}) = {} runs",
            self.search.name(),
            self.params.iter().map(Param::option).collect::<Vec<_>>().join(" x "),
            self.points.len(),
            self.total,
            self.seeds,
            self.policy,
            self.points.len() * self.seeds
        );
        if self.search == Search::Bisection {
            s.push_str(&format!(" (a grid: {})", self.total.saturating_mul(self.seeds)));
        }
        s
    }

    /// Each requirement at point `p`: `text: upper CI 1.73 s`, the binding one first.
    fn details(&self, p: &Evaluated, binding: Option<usize>) -> String {
        let mut order: Vec<usize> = (0..self.reqs.len()).collect();
        order.sort_by_key(|&r| Some(r) != binding);
        let parts: Vec<String> = order
            .iter()
            .map(|&r| {
                let req = &self.reqs[r];
                let at = p.judged[r].map_or("unmeasured".into(), |j| {
                    format!("{} CI {}", req.side(), human(req.metric.kind, j))
                });
                let tag = if Some(r) == binding { "binding: " } else { "" };
                format!("{tag}{}: {at}", req.text)
            })
            .collect();
        parts.join("; ")
    }

    /// What stdout says.
    pub fn lines(&self, ctx: &Context, verdict: &Verdict) -> Vec<String> {
        let mut lines = Vec::new();
        match self.chosen {
            Some(c) => {
                let p = &self.points[c];
                let value = match (self.objective, self.params) {
                    (Objective::Param { index, .. }, [_]) => self.params[*index].value(p.coords[*index]),
                    (Objective::Metric { metric, index, .. }, _) => format!(
                        "{} at {}",
                        p.estimates[*index].map_or("?".into(), |e| human(metric.kind, e.mean)),
                        ctx.name(&p.coords)
                    ),
                    _ => ctx.name(&p.coords),
                };
                lines.push(format!(
                    "{} meeting all requirements: {value} ({})",
                    self.objective.describe(self.params),
                    self.details(p, verdict.binding)
                ));
                if let Some(line) = self.neighbour(c) {
                    lines.push(line);
                }
            }
            None => lines.push(verdict.failure(self.reqs, self.points, ctx)),
        }
        lines.push(self.cost());
        lines
    }

    /// For one tuned key: the next value past the answer, when evaluated
    /// and failing, with what it fails (why the answer is not better).
    fn neighbour(&self, c: usize) -> Option<String> {
        let ([param], Objective::Param { maximize, .. }) = (self.params, self.objective) else {
            return None;
        };
        let at = self.points[c].coords[0];
        let next = if *maximize { at.checked_add(1)? } else { at.checked_sub(1)? };
        let p = self.points.iter().find(|p| p.coords[0] == next && !p.accepted())?;
        let failed: Vec<String> = (0..self.reqs.len())
            .filter(|&r| !p.pass[r])
            .map(|r| {
                let req = &self.reqs[r];
                let at = p.judged[r].map_or("unmeasured".into(), |j| {
                    format!("{} CI {}", req.side(), human(req.metric.kind, j))
                });
                format!("{} ({at})", req.text)
            })
            .collect();
        Some(format!("{}={} fails {}", param.key, param.value(next), failed.join(" and ")))
    }

    /// `tune.json`: the question, the search and its cost, the answer.
    pub fn json(&self, ctx: &Context, verdict: &Verdict) -> serde_json::Value {
        let point = |p: &Evaluated| -> serde_json::Map<String, serde_json::Value> {
            self.params.iter().zip(&p.coords).map(|(q, &i)| (q.key.clone(), q.value(i).into())).collect()
        };
        serde_json::json!({
            "fairsim": env!("CARGO_PKG_VERSION"),
            "policy": self.policy,
            "params": self.params.iter().map(Param::option).collect::<Vec<_>>(),
            "requirements": self.reqs.iter().map(|r| r.text.clone()).collect::<Vec<_>>(),
            "objective": self.objective.describe(self.params),
            "search": {
                "method": self.search.name(),
                "points_total": self.total,
                "points_evaluated": self.points.len(),
                "seeds": self.seeds,
                "policies": 1,
                "runs": self.points.len() * self.seeds,
            },
            "statistics": "student_t_95_over_seeds; a requirement passes when the interval's end on its unfavourable side (upper for <=, <; lower for >=, >) meets the bound",
            "answer": match self.chosen {
                Some(c) => serde_json::json!({
                    "found": true,
                    "point": point(&self.points[c]),
                    "binding": verdict.binding.map(|b| self.reqs[b].text.clone()),
                }),
                None => serde_json::json!({
                    "found": false,
                    "why": verdict.failure(self.reqs, self.points, ctx),
                }),
            },
        })
    }
}

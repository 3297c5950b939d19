//! Workload generator entries: tenant, class, arrivals, service, deadline,
//! cost and failure injection.

use serde_saphyr::Spanned;

use super::{pos, Builder, MAX_ATTEMPTS, MAX_BATCH, MAX_JOBS};
use crate::error::Result;
use crate::model::*;
use crate::scenario::raw::*;
use crate::time::{parse_rate, to_secs_f64, Time, HORIZON, HORIZON_TEXT};

/// Largest `declared: {factor}`: a job of up to the horizon (2^53 us) then
/// declares at most 2^53 x 100 < 2^60 us, inside an i64 deficit with room.
const MAX_DECLARED_FACTOR: f64 = 100.0;

impl Builder<'_> {
    pub(super) fn build_entry(&mut self, e: &Spanned<Box<RawEntry>>) -> Result<EntrySpec> {
        let (line, col) = pos(e);
        let r = &e.value;
        let (tenant, spread) = self.entry_tenants(r, line, col)?;
        let class = match &r.class {
            Some(c) => self.class_ref(c)?,
            None => 0,
        };
        let arrivals = self.build_arrivals(r, line, col)?;
        if !self.workload_optional {
            self.check_horizon(&arrivals, line)?;
        }
        let Some(service) = &r.service else {
            return Err(self.err_line(
                line,
                col,
                "workload entry has no `service`; add e.g. `service: 1s` or `service: {exponential: 2s}`",
            ));
        };
        let service = self.build_service(service)?;
        let deadline = match &r.deadline {
            Some(d) => Some(self.pos_dur(d, "deadline")?),
            None => None,
        };
        let cost = match &r.cost {
            Some(c) => self.cost(c)?,
            None => [0; MAX_RESOURCES],
        };
        let failure = r.failure.as_ref().map(|f| self.failure(f)).transpose()?;
        let slice = self.slicing(r)?;
        if let (Some(sl), Some(raw)) = (&slice, &r.slice) {
            // each slice is an event: a million per job is the most that
            // still runs in reasonable time
            if service.mean_secs() > 1e6 * to_secs_f64(sl.slice) {
                return Err(self.err_at(
                    raw,
                    "this slice cuts a job of mean size into more than a million slices; use a longer slice",
                ));
            }
        }
        let declared = r.declared.as_ref().map(|d| self.declared(d)).transpose()?;
        Ok(EntrySpec {
            line,
            tenant,
            spread,
            class,
            arrivals,
            service,
            deadline,
            cost,
            failure,
            slice,
            declared,
        })
    }

    /// `every` arrivals are fixed by `start`, `every` and `count`: when one
    /// of them would fall past the horizon, the run would stop there, so
    /// the loader refuses it with the generator's own message and place
    /// (the entry's line), and validate says what run says. (A `--trace`
    /// replaces the workload, so then it is not checked.)
    fn check_horizon(&self, arrivals: &ArrivalSpec, line: usize) -> Result<()> {
        let ArrivalSpec::Every { every, start, stop: None, count: Some(count) } = *arrivals else {
            // a `stop` is a duration, at most the horizon: it ends the
            // entry before any arrival past it
            return Ok(());
        };
        // the first arrival index whose time passes the horizon
        let k = (HORIZON.saturating_sub(start)) / every.max(1) + 1;
        if k >= count {
            return Ok(());
        }
        let t = start + k * every; // at most HORIZON + every <= 2^54
        Err(self.err_line(
            line,
            0,
            format!(
                "this workload entry drew an arrival time of {} s, past {HORIZON_TEXT}; lower its rate gaps or service times",
                crate::time::fmt_secs(t)
            ),
        ))
    }

    /// `declared: {factor: 0.1}`: what the tenant claims, as a multiple of
    /// the true service. At most [`MAX_DECLARED_FACTOR`], so that a declared
    /// cost (at most the factor times the horizon) stays far inside the
    /// policies' integer counters.
    fn declared(&self, d: &Spanned<RawDeclared>) -> Result<Declared> {
        let f = &d.value.factor;
        if !(f.value.is_finite() && f.value > 0.0 && f.value <= MAX_DECLARED_FACTOR) {
            return Err(self.err_at(
                f,
                format!(
                    "declared `factor` {} must be a number above 0 and at most {MAX_DECLARED_FACTOR}, e.g. 0.1 for a tenant claiming a tenth of its true service",
                    f.value
                ),
            ));
        }
        Ok(Declared { factor: f.value })
    }

    /// `slice: 2m` and `resume_overhead: 1s`.
    fn slicing(&self, r: &RawEntry) -> Result<Option<Slicing>> {
        match (&r.slice, &r.resume_overhead) {
            (None, None) => Ok(None),
            (None, Some(o)) => {
                Err(self.err_at(o, "`resume_overhead` goes with `slice`; add `slice: 2m` or remove it"))
            }
            (Some(s), o) => {
                let slice = self.pos_dur(s, "slice")?;
                let resume_overhead = match o {
                    Some(o) => self.dur(o, "resume_overhead")?,
                    None => 0,
                };
                Ok(Some(Slicing { slice, resume_overhead }))
            }
        }
    }

    /// The entry's tenant, or the first of its generated tenants and their count.
    fn entry_tenants(&mut self, r: &RawEntry, line: usize, col: usize) -> Result<(TenantId, u32)> {
        match (&r.tenant, &r.tenants) {
            (Some(_), Some(s)) => {
                Err(self.err_at(s, "an entry has both `tenant` and `tenants`; keep only one"))
            }
            (Some(t), None) => Ok((self.reference_tenant(t)?, 1)),
            (None, Some(s)) => self.spread_tenants(s),
            (None, None) => Err(self.err_line(
                line,
                col,
                "workload entry has no tenant; add `tenant: NAME` or `tenants: {count: N, prefix: t}`",
            )),
        }
    }

    /// `cost: {cpu: 2, mem: 4}`: declared resources, each within its capacity.
    fn cost(&self, c: &Spanned<NamedMap<Spanned<u64>>>) -> Result<Res> {
        let mut cost: Res = [0; MAX_RESOURCES];
        for (rname, amount) in &c.value.0 {
            let Some(i) = self.resources.iter().position(|(n, _)| n == rname) else {
                let declared = if self.resources.is_empty() {
                    "none; declare them with `resources: {cpu: 8}`".to_string()
                } else {
                    self.resources.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")
                };
                return Err(self.err_at(
                    amount,
                    format!("cost names resource `{rname}`, which is not declared; declared resources: {declared}"),
                ));
            };
            let capacity = self.resources[i].1;
            if amount.value > capacity {
                return Err(self.err_at(
                    amount,
                    format!(
                        "cost {rname}: {} exceeds the capacity {rname}: {capacity}, so these jobs can never fit; lower the cost or raise the capacity",
                        amount.value
                    ),
                ));
            }
            cost[i] = amount.value;
        }
        Ok(cost)
    }

    /// `failure: {probability, max_attempts}` (default 3 attempts).
    fn failure(&self, f: &Spanned<RawFailure>) -> Result<FailureSpec> {
        let p = &f.value.probability;
        if !(p.value.is_finite() && (0.0..1.0).contains(&p.value)) {
            return Err(self.err_at(
                p,
                format!("failure probability {} must be at least 0 and below 1, e.g. 0.1", p.value),
            ));
        }
        let max_attempts = match &f.value.max_attempts {
            Some(m) if m.value == 0 || m.value > MAX_ATTEMPTS => {
                return Err(
                    self.err_at(m, format!("`max_attempts` must be between 1 (no retry) and {MAX_ATTEMPTS}"))
                )
            }
            Some(m) => m.value,
            None => 3,
        };
        Ok(FailureSpec { probability: p.value, max_attempts })
    }

    pub(super) fn build_arrivals(&self, r: &RawEntry, line: usize, col: usize) -> Result<ArrivalSpec> {
        let Some(a) = &r.arrivals else {
            return self.batch_shorthand(r, line, col);
        };
        if let Some(c) = &r.count {
            return Err(self.err_at(
                c,
                "`count` at the entry level is the batch shorthand and cannot be combined with `arrivals:`; move it inside `arrivals:`",
            ));
        }
        if let Some(t) = &r.at {
            return Err(self.err_at(
                t,
                "`at` at the entry level cannot be combined with `arrivals:`; move it inside `arrivals:`",
            ));
        }
        let m = &a.value;
        let kinds = [m.poisson.is_some(), m.every.is_some(), m.batch.is_some()];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(self.err_at(
                a,
                "`arrivals` needs exactly one of `poisson: RATE`, `every: DURATION` or `batch: COUNT`",
            ));
        }
        let start = match &m.start {
            Some(s) => self.dur(s, "start")?,
            None => 0,
        };
        if let (Some(_), Some(pr)) = (&m.batch, &m.profile) {
            return Err(self.err_at(pr, "`profile` applies to `poisson` arrivals only; use `poisson: RATE`"));
        }
        match &m.batch {
            Some(b) => self.batch(m, b, start),
            None => self.process(a, start),
        }
    }

    /// `count: N` (and `at:`) at the entry level: a batch.
    fn batch_shorthand(&self, r: &RawEntry, line: usize, col: usize) -> Result<ArrivalSpec> {
        let Some(count) = &r.count else {
            if let Some(at) = &r.at {
                return Err(self.err_at(at, "`at` needs `count: N` (how many jobs arrive at that time)"));
            }
            return Err(self.err_line(
                line,
                col,
                "workload entry has no arrivals; add `count: N` (a batch at time `at`, default 0) or `arrivals: {poisson: 2/s, stop: 10m}`",
            ));
        };
        self.batch_size(count)?;
        let at = match &r.at {
            Some(t) => self.dur(t, "at")?,
            None => 0,
        };
        Ok(ArrivalSpec::Batch { count: count.value, at })
    }

    /// The size of a batch: at least 1, at most [`MAX_BATCH`].
    fn batch_size(&self, n: &Spanned<u64>) -> Result<()> {
        match n.value {
            0 => Err(self.err_at(n, "a batch needs at least 1 job")),
            v if v > MAX_BATCH => Err(self.err_at(
                n,
                format!("a batch of {v} jobs is more than {MAX_BATCH} queued at one instant (about 150 bytes each); split it over time with `arrivals: {{every: ...}}` or `poisson`"),
            )),
            _ => Ok(()),
        }
    }

    /// `arrivals: {batch: N, at: T}`.
    fn batch(&self, m: &RawArrivals, b: &Spanned<u64>, start: Time) -> Result<ArrivalSpec> {
        self.batch_size(b)?;
        for (key, bad) in [("stop", m.stop.as_ref().map(pos)), ("count", m.count.as_ref().map(pos))] {
            if let Some((l, c)) = bad {
                return Err(self.err_line(
                    l,
                    c,
                    format!(
                        "`{key}` does not apply to `batch` arrivals (all jobs arrive at once); remove it"
                    ),
                ));
            }
        }
        let at = match (&m.at, &m.start) {
            (Some(t), Some(_)) => {
                return Err(self.err_at(t, "give either `at` or `start` for a batch, not both"))
            }
            (Some(t), None) => self.dur(t, "at")?,
            (None, _) => start,
        };
        Ok(ArrivalSpec::Batch { count: b.value, at })
    }

    /// `arrivals: {poisson: RATE | every: D, start, stop, count}`.
    fn process(&self, a: &Spanned<Box<RawArrivals>>, start: Time) -> Result<ArrivalSpec> {
        let m = &a.value;
        if let Some(t) = &m.at {
            return Err(
                self.err_at(t, "`at` applies to `batch` arrivals only; use `start` for poisson and every")
            );
        }
        let stop = match &m.stop {
            Some(s) => {
                let t = self.dur(s, "stop")?;
                if t <= start {
                    return Err(self.err_at(s, "`stop` must be later than `start`"));
                }
                Some(t)
            }
            None => None,
        };
        let count = match &m.count {
            Some(c) if c.value == 0 => return Err(self.err_at(c, "`count` must be at least 1")),
            Some(c) if c.value > MAX_JOBS => {
                return Err(self.err_at(
                    c,
                    format!(
                        "`count: {}` is more than the {MAX_JOBS} jobs fairsim simulates in a run",
                        c.value
                    ),
                ))
            }
            Some(c) => Some(c.value),
            None => None,
        };
        if stop.is_none() && count.is_none() {
            return Err(self.err_at(
                a,
                "these arrivals would never end; add `stop: DURATION` (e.g. stop: 10m) or `count: N`",
            ));
        }
        if let Some(p) = &m.poisson {
            let rate = parse_rate(&p.value.0.text).map_err(|msg| {
                let hint = if msg.ends_with("greater than zero") {
                    "; write a positive rate such as 2/s, or remove the entry"
                } else {
                    ""
                };
                self.err_at(p, format!("`poisson`: {msg}{hint}"))
            })?;
            let profile = match &m.profile {
                Some(pr) => Some(self.build_profile(pr, rate, start, stop, count)?),
                None => None,
            };
            return Ok(ArrivalSpec::Poisson { rate, start, stop, count, profile });
        }
        if let Some(pr) = &m.profile {
            return Err(self.err_at(pr, "`profile` applies to `poisson` arrivals only; use `poisson: RATE`"));
        }
        match &m.every {
            Some(e) => Ok(ArrivalSpec::Every { every: self.pos_dur(e, "every")?, start, stop, count }),
            None => Err(self.err_at(a, "`arrivals` needs one of poisson, every or batch")),
        }
    }
}

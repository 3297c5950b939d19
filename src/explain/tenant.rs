//! `fairsim explain --tenant T --at TIME`: why a tenant got nothing (or
//! what it got) in the log tick around a moment.

use serde_json::{json, Value};

use super::files::{Files, TickRow};
use super::{reason_text, secs};

/// A dispatch of the tick, with the keys decisions.csv gives.
pub struct Dispatched {
    pub id: u64,
    pub time: i64,
    pub tenant: String,
    pub class: String,
    pub job: u64,
    /// The chosen job's key, and the tenant's own head's key and place
    /// among the other tenants (`None`: not listed, or no decisions).
    pub key: Option<String>,
    pub tenant_key: Option<(u64, String)>,
}

pub struct TenantStory<'f> {
    pub tenant: String,
    pub at: i64,
    pub tick: &'f TickRow,
    pub tick_length: i64,
    /// The tenant's jobs waiting at `at` (arrived, not started).
    pub waiting: u64,
    pub dispatches: Vec<Dispatched>,
    pub reasons: Vec<String>,
    pub key_kind: Option<String>,
}

pub fn story<'f>(f: &'f Files, tenant: &str, at: i64) -> TenantStory<'f> {
    let want = f.tick_of(at);
    let tick = f.ticks.iter().find(|t| t.tick >= want).or(f.ticks.last()).expect("the caller checked ticks");
    let waiting = (f.jobs.iter())
        .filter(|j| j.tenant == tenant && j.arrival <= at && j.start.is_none_or(|s| s > at))
        .count() as u64;
    let reasons = (f.skips.iter())
        .filter(|s| s.tick == tick.tick && s.tenant == tenant)
        .map(|s| s.reason.clone())
        .collect();
    let mut dispatches = Vec::new();
    for (i, d) in f.dispatches.iter().enumerate().filter(|(_, d)| d.tick == tick.tick) {
        let id = i as u64 + 1;
        let (mut key, mut tenant_key) = (None, None);
        if let Some((decisions, candidates)) = &f.decisions {
            key = decisions.get(i).filter(|x| x.dispatch == id).map(|x| x.key.clone());
            tenant_key = (candidates.iter())
                .find(|c| c.dispatch == id && c.tenant == tenant)
                .map(|c| (c.rank, c.key.clone()));
        }
        dispatches.push(Dispatched {
            id,
            time: d.time,
            tenant: d.tenant.clone(),
            class: d.class.clone(),
            job: d.job,
            key,
            tenant_key,
        });
    }
    let key_kind = f.decisions.as_ref().and_then(|(d, _)| d.first().map(|x| x.key_kind.clone()));
    TenantStory {
        tenant: tenant.to_string(),
        at,
        tick,
        tick_length: f.tick_length(),
        waiting,
        dispatches,
        reasons,
        key_kind,
    }
}

impl TenantStory<'_> {
    fn chosen(&self) -> usize {
        self.dispatches.iter().filter(|d| d.tenant == self.tenant).count()
    }

    pub fn text(&self, policy: &str) -> String {
        let t = self.tick;
        let mut s = format!("tenant {} at {} under {policy}\n", self.tenant, secs(self.at));
        s += &format!(
            "  tick {} ({} to {}), workers free at its start: {}, waiting at its end: {}\n",
            t.tick,
            secs(t.end - self.tick_length),
            secs(t.end),
            t.workers_free,
            if t.waiting.is_empty() { "none" } else { &t.waiting }
        );
        s += &format!("  {}'s jobs waiting at {}: {}\n", self.tenant, secs(self.at), self.waiting);
        s += &format!("  dispatches in the tick: {}\n", self.dispatches.len());
        for d in &self.dispatches {
            s += &format!("    #{} at {}: {} job {} ({})", d.id, secs(d.time), d.tenant, d.job, d.class);
            if let Some(k) = &d.key {
                s += &format!(", key {}", if k.is_empty() { "none" } else { k });
            }
            if let Some((rank, k)) = &d.tenant_key {
                s += &format!("; {} next-best #{rank} with key {k}", self.tenant);
            }
            s += "\n";
        }
        let reasons = if self.reasons.is_empty() { "none".to_string() } else { self.reasons.join(", ") };
        s += &format!("  {} passed over (skips.csv): {reasons}\n", self.tenant);
        match &self.key_kind {
            Some(k) => s += &format!("  key kind: {k}\n"),
            None => s += "  keys: run with --decisions for keys\n",
        }
        s + "\n" + &self.paragraph() + "\n"
    }

    pub fn paragraph(&self) -> String {
        let n = self.dispatches.len();
        let who: Vec<String> =
            self.dispatches.iter().map(|d| format!("{}'s job {}", d.tenant, d.job)).collect();
        let mut p = format!(
            "In tick {} ({} to {}) {n} job{} started{}.",
            self.tick.tick,
            secs(self.tick.end - self.tick_length),
            secs(self.tick.end),
            if n == 1 { "" } else { "s" },
            if n == 0 { String::new() } else { format!(": {}", who.join(", then ")) }
        );
        let got = self.chosen();
        if got > 0 {
            let places: Vec<String> = (self.dispatches.iter().enumerate())
                .filter(|(_, d)| d.tenant == self.tenant)
                .map(|(i, _)| ordinal(i + 1))
                .collect();
            p += &format!(" {} was not left out: it got {got} of them ({}).", self.tenant, places.join(", "));
        } else if self.waiting == 0 {
            p += &format!(" {} got nothing because it had nothing waiting.", self.tenant);
        } else {
            p += &format!(" {} got nothing with {} job(s) waiting.", self.tenant, self.waiting);
        }
        if !self.reasons.is_empty() {
            let why: Vec<String> = self.reasons.iter().map(|r| format!("{r}: {}", reason_text(r))).collect();
            p += &format!(" It was passed over ({}).", why.join("; "));
        } else if got == 0 && self.waiting > 0 {
            p += " No reason was logged for passing it over: the policy ranked the others first.";
        }
        if let Some(kind) = &self.key_kind {
            let lost: Vec<String> = (self.dispatches.iter())
                .filter(|d| d.tenant != self.tenant)
                .filter_map(|d| {
                    let (rank, mine) = d.tenant_key.as_ref()?;
                    Some(format!(
                        "{} {} vs its {} (next-best #{rank})",
                        d.tenant,
                        d.key.as_deref().unwrap_or(""),
                        mine
                    ))
                })
                .collect();
            if !lost.is_empty() {
                p += &format!(" By {kind}: {}.", lost.join("; "));
            }
        } else if got == 0 {
            p += " Run with --decisions for the policy's keys.";
        }
        p
    }

    pub fn json(&self, policy: &str) -> Value {
        let dispatches: Vec<Value> = (self.dispatches.iter())
            .map(|d| {
                json!({
                    "dispatch": d.id,
                    "time": d.time as f64 / 1e6,
                    "tenant": d.tenant,
                    "class": d.class,
                    "job": d.job,
                    "key": d.key.as_deref().and_then(|k| k.parse::<f64>().ok()),
                    "tenant_rank": d.tenant_key.as_ref().map(|x| x.0),
                    "tenant_key": d.tenant_key.as_ref().and_then(|x| x.1.parse::<f64>().ok()),
                })
            })
            .collect();
        json!({
            "policy": policy,
            "tenant": self.tenant,
            "at": self.at as f64 / 1e6,
            "tick": self.tick.tick,
            "tick_start": (self.tick.end - self.tick_length) as f64 / 1e6,
            "tick_end": self.tick.end as f64 / 1e6,
            "waiting": self.waiting,
            "chosen": self.chosen(),
            "skips": self.reasons,
            "key_kind": self.key_kind,
            "dispatches": dispatches,
            "answer": self.paragraph(),
        })
    }
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, x) if x != 11 => "st",
        (2, x) if x != 12 => "nd",
        (3, x) if x != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

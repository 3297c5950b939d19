//! `fairsim explain --job ID`: why one job waited as long as it did.

use serde_json::{json, Value};

use super::files::{Files, JobRow};
use super::{counted, reason_text, secs};

/// What the files say about one job's wait.
pub struct JobStory<'f> {
    pub job: &'f JobRow,
    /// Dispatches while it waited (from its arrival to its start, or to the
    /// end of the run), counted per tenant and per class, most first.
    pub by_tenant: Vec<(String, u64)>,
    pub by_class: Vec<(String, u64)>,
    pub dispatched: u64,
    /// Its tenant passed over in the ticks of its wait, per reason.
    pub skips: Vec<(String, u64)>,
    pub keys: Option<Keys>,
}

/// What decisions.csv adds.
pub struct Keys {
    pub kind: String,
    /// First dispatch (id, time) at which the job was its tenant's head.
    pub first_head: Option<(u64, i64)>,
    /// First dispatch at which it was the best claimable head of all.
    pub first_best: Option<(u64, i64)>,
    /// Its key when it started.
    pub own_key: Option<String>,
    /// The last dispatch to another tenant while it was its tenant's head:
    /// (dispatch, time, tenant, job, key), and its own key then.
    pub last_lost: Option<(u64, i64, String, u64, String, String)>,
}

pub fn story<'f>(f: &'f Files, job: &'f JobRow) -> JobStory<'f> {
    // dispatches from its arrival up to its own first start (exclusive)
    let from = f.dispatches.iter().position(|d| d.time >= job.arrival).unwrap_or(f.dispatches.len());
    let during: Vec<usize> =
        (from..f.dispatches.len()).take_while(|&i| f.dispatches[i].job != job.id).collect();
    let by_tenant = counted(during.iter().map(|&i| f.dispatches[i].tenant.as_str()));
    let by_class = counted(during.iter().map(|&i| f.dispatches[i].class.as_str()));
    let end = job.start.or_else(|| f.ticks.last().map(|t| t.end)).unwrap_or(job.arrival);
    let ticks = f.tick_of(job.arrival)..=f.tick_of(end);
    let skips = counted(
        (f.skips.iter())
            .filter(|s| s.tenant == job.tenant && ticks.contains(&s.tick))
            .map(|s| s.reason.as_str()),
    );
    let keys = f.decisions.as_ref().map(|(decisions, candidates)| {
        let mut k = Keys {
            kind: decisions.first().map_or("none".into(), |d| d.key_kind.clone()),
            first_head: None,
            first_best: None,
            own_key: None,
            last_lost: None,
        };
        let time_of = |d: u64| f.dispatches.get(d as usize - 1).map_or(0, |x| x.time);
        // a dispatch id is its row number in dispatches.csv as well
        let mut c = candidates.iter().peekable();
        for d in decisions.iter().filter(|d| d.dispatch > from as u64) {
            let listed: Vec<_> = std::iter::from_fn(|| c.next_if(|x| x.dispatch <= d.dispatch))
                .filter(|x| x.dispatch == d.dispatch)
                .collect();
            let mine = listed.iter().find(|x| x.job == job.id);
            let chosen = d.job == job.id;
            if (chosen || mine.is_some()) && k.first_head.is_none() {
                k.first_head = Some((d.dispatch, time_of(d.dispatch)));
            }
            let best = match d.rank.as_str() {
                "1" => chosen,
                _ => listed.first().is_some_and(|x| x.job == job.id),
            };
            if best && k.first_best.is_none() {
                k.first_best = Some((d.dispatch, time_of(d.dispatch)));
            }
            if chosen {
                k.own_key = Some(d.key.clone());
                break;
            }
            if let Some(m) = mine {
                let lost =
                    (d.dispatch, time_of(d.dispatch), d.tenant.clone(), d.job, d.key.clone(), m.key.clone());
                k.last_lost = Some(lost);
            }
        }
        k
    });
    let dispatched = during.len() as u64;
    JobStory { job, by_tenant, by_class, dispatched, skips, keys }
}

fn list(pairs: &[(String, u64)]) -> String {
    let p: Vec<String> = pairs.iter().map(|(n, c)| format!("{n} {c}")).collect();
    if p.is_empty() {
        "none".into()
    } else {
        p.join(", ")
    }
}

impl JobStory<'_> {
    pub fn text(&self, policy: &str) -> String {
        let j = self.job;
        let mut s = format!("job {} (tenant {}, class {}) under {policy}\n", j.id, j.tenant, j.class);
        s += &format!("  arrival: {}\n", secs(j.arrival));
        match j.start {
            Some(st) => s += &format!("  start:   {}\n  wait:    {}\n", secs(st), secs(st - j.arrival)),
            None => s += &format!("  start:   never ({})\n", j.outcome),
        }
        s += &format!("  dispatches while it waited: {}\n", self.dispatched);
        s += &format!("    by tenant: {}\n    by class:  {}\n", list(&self.by_tenant), list(&self.by_class));
        s += &format!("  {} passed over (skips.csv, ticks of its wait): {}\n", j.tenant, list(&self.skips));
        match &self.keys {
            None => s += "  keys: run with --decisions for keys\n",
            Some(k) => {
                let at = |d: &Option<(u64, i64)>| match d {
                    Some((id, t)) => format!("dispatch {id} at {}", secs(*t)),
                    None => "never".into(),
                };
                s += &format!("  key kind: {}\n", k.kind);
                s += &format!("  first its tenant's best candidate: {}\n", at(&k.first_head));
                s += &format!("  first the best candidate overall:  {}\n", at(&k.first_best));
                if let Some(key) = &k.own_key {
                    s += &format!("  its key when it started: {}\n", show_key(key));
                }
            }
        }
        s + "\n" + &self.paragraph() + "\n"
    }

    /// The plain-language answer.
    pub fn paragraph(&self) -> String {
        let j = self.job;
        let mut p = match j.start {
            Some(st) if st == j.arrival && self.dispatched == 0 => {
                return format!("Job {} started the moment it arrived: it did not wait.", j.id)
            }
            Some(st) => format!(
                "Job {} of {} waited {} (from {} to {}).",
                j.id,
                j.tenant,
                secs(st - j.arrival),
                secs(j.arrival),
                secs(st)
            ),
            None => format!(
                "Job {} of {} arrived at {} and never started ({}).",
                j.id,
                j.tenant,
                secs(j.arrival),
                j.outcome
            ),
        };
        if self.dispatched > 0 {
            let own = self.by_tenant.iter().find(|(t, _)| *t == j.tenant).map_or(0, |x| x.1);
            let (top, n) = &self.by_tenant[0];
            p += &format!(" Meanwhile {} other jobs started", self.dispatched);
            if own > 0 {
                p += &format!(", {own} of them older jobs of its own tenant");
            }
            if top != &j.tenant {
                p += &format!("; {top} got the most ({n})");
            }
            p += ".";
        }
        let passed: u64 = self.skips.iter().map(|x| x.1).sum();
        if passed > 0 {
            let (r, n) = &self.skips[0];
            p += &format!(
                " {} was passed over in {passed} tick-reasons, mostly because {} ({n}).",
                j.tenant,
                reason_text(r)
            );
        } else {
            p += &format!(
                " {} was never passed over with a reason: the policy simply ranked other work first.",
                j.tenant
            );
        }
        match &self.keys {
            None => p += " Run with --decisions for the policy's keys.",
            Some(k) if k.kind == "none" => p += " This policy does not report keys.",
            Some(k) => {
                if let Some((id, t, tenant, job, key, mine)) = &k.last_lost {
                    p += &format!(
                        " At dispatch {id} ({}), the last it lost while at the head of {}, the policy chose {tenant}'s job {job} with {} {} over its {}{}.",
                        secs(*t),
                        j.tenant,
                        k.kind,
                        show_key(key),
                        show_key(mine),
                        if key == mine { " (a tie: the policy's own order, e.g. the lower job id, decided)" } else { "" }
                    );
                }
                if let Some((id, _)) = k.first_best {
                    p += &format!(" It became the best candidate at dispatch {id}.");
                }
            }
        }
        p
    }

    pub fn json(&self, policy: &str) -> Value {
        let j = self.job;
        let pairs =
            |v: &[(String, u64)]| Value::Object(v.iter().map(|(k, n)| (k.clone(), json!(n))).collect());
        let at = |d: &Option<(u64, i64)>| d.map(|(id, t)| json!({"dispatch": id, "time": t as f64 / 1e6}));
        json!({
            "policy": policy,
            "job": j.id,
            "tenant": j.tenant,
            "class": j.class,
            "arrival": j.arrival as f64 / 1e6,
            "start": j.start.map(|s| s as f64 / 1e6),
            "wait": j.start.map(|s| (s - j.arrival) as f64 / 1e6),
            "outcome": j.outcome,
            "dispatches_while_waiting": self.dispatched,
            "by_tenant": pairs(&self.by_tenant),
            "by_class": pairs(&self.by_class),
            "tenant_skips": pairs(&self.skips),
            "keys": self.keys.as_ref().map(|k| json!({
                "key_kind": k.kind,
                "first_tenant_best": at(&k.first_head),
                "first_best": at(&k.first_best),
                "key_at_start": k.own_key.as_deref().and_then(|x| x.parse::<f64>().ok()),
            })),
            "answer": self.paragraph(),
        })
    }
}

fn show_key(k: &str) -> &str {
    if k.is_empty() {
        "no key"
    } else {
        k
    }
}

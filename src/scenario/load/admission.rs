//! `admission:` and `admission_sets:`: the rules that refuse or put off
//! arrivals, for every policy or for the policy entries that name a set.

use serde_saphyr::Spanned;

use super::Builder;
use crate::error::Result;
use crate::model::{Action, AdmissionRule, AdmissionSet, Bound, Limit, Predictor, Scope};
use crate::scenario::raw::{NamedMap, RawAdmission, RawRules};
use crate::time::{parse_duration, HORIZON, HORIZON_TEXT};

/// Most times a producer sends a refused job again.
const MAX_RETRIES: u32 = 100;

type RuleList = Spanned<RawRules>;

impl Builder<'_> {
    /// The top-level rules; `workers` is the scenario's (`u32::MAX` when it
    /// declares only resources).
    pub(super) fn build_admission(&self, raw: Option<&RuleList>, workers: u32) -> Result<Vec<AdmissionRule>> {
        self.rule_list(raw, "", workers)
    }

    /// `admission_sets: {NAME: [rules]}`.
    pub(super) fn build_admission_sets(
        &self,
        raw: Option<&Spanned<NamedMap<RuleList>>>,
        workers: u32,
    ) -> Result<Vec<AdmissionSet>> {
        let Some(sets) = raw else { return Ok(Vec::new()) };
        let mut out: Vec<AdmissionSet> = Vec::with_capacity(sets.value.0.len());
        for (name, list) in &sets.value.0 {
            if name == "none" || name.is_empty() {
                return Err(self.err_at(
                    list,
                    format!("a rule set may not be called `{name}`: a policy entry's `admission: none` means no rules; choose another name"),
                ));
            }
            out.push(AdmissionSet { name: name.clone(), rules: self.rule_list(Some(list), name, workers)? });
        }
        Ok(out)
    }

    fn rule_list(&self, raw: Option<&RuleList>, set: &str, workers: u32) -> Result<Vec<AdmissionRule>> {
        let Some(list) = raw else { return Ok(Vec::new()) };
        list.value.iter().enumerate().map(|(i, r)| self.admission_rule(i, r, set, workers)).collect()
    }

    fn admission_rule(
        &self,
        i: usize,
        rule: &Spanned<RawAdmission>,
        set: &str,
        workers: u32,
    ) -> Result<AdmissionRule> {
        let r = &rule.value;
        let tenant = match &r.tenant {
            None => Scope::All,
            Some(t) if t.value == "*" => Scope::Each,
            Some(t) => Scope::One(self.tenant_ref(t)?),
        };
        let class = match &r.class {
            None => Scope::All,
            Some(c) if c.value == "*" => Scope::Each,
            Some(c) => Scope::One(self.class_ref(c)?),
        };
        let limit = self.limit(rule, class, workers)?;
        let mode = r.action.as_ref().map_or("reject", |a| a.value.as_str());
        let stray = |key: &str, ok: &str| {
            format!("`{key}` goes with `action: {ok}`; remove it or write `action: {ok}` (this rule's action is `{mode}`)")
        };
        if mode != "retry" {
            if let Some(a) = &r.after {
                return Err(self.err_at(a, stray("after", "retry")));
            }
            if let Some(n) = &r.retries {
                return Err(self.err_at(n, stray("retries", "retry")));
            }
        }
        if mode != "defer" {
            if let Some(b) = &r.by {
                return Err(self.err_at(b, stray("by", "defer")));
            }
        }
        let action = match mode {
            "reject" => Action::Reject,
            "retry" => {
                let Some(after) = &r.after else {
                    return Err(self.err_at(rule, "`action: retry` needs `after: D`, how long the producer waits before sending the job again"));
                };
                let max = match &r.retries {
                    None => 3,
                    Some(n) if (1..=MAX_RETRIES).contains(&n.value) => n.value,
                    Some(n) => {
                        return Err(self.err_at(n, format!("`retries` must be from 1 to {MAX_RETRIES}")))
                    }
                };
                let after_t = self.pos_dur(after, "after")?;
                if after_t.saturating_mul(u64::from(max)) >= HORIZON / 2 {
                    return Err(self.err_at(
                        after,
                        format!("`after` x `retries` ({max}) must stay under half of {HORIZON_TEXT}, or the last re-send would come past the end of simulated time; use a shorter `after` or fewer `retries`"),
                    ));
                }
                Action::Retry { after: after_t, max: max as u8 }
            }
            "defer" => {
                let Some(by) = &r.by else {
                    return Err(self.err_at(
                        rule,
                        "`action: defer` needs `by: D`, how much later the job becomes claimable",
                    ));
                };
                let by_t = self.pos_dur(by, "by")?;
                if by_t >= HORIZON / 2 {
                    return Err(self.err_at(by, format!("`by` must stay under half of {HORIZON_TEXT}, or a deferred job would become claimable past the end of simulated time")));
                }
                Action::Defer { by: by_t }
            }
            other => {
                let at = r.action.as_ref().expect("a mode other than the default came from the file");
                return Err(self.err_at(at, format!("`action: {other}` is not an admission action; use reject, retry (with `after`, `retries`) or defer (with `by`)")));
            }
        };
        let name = match set {
            "" => format!("rule {}", i + 1),
            s => format!("{s} rule {}", i + 1),
        };
        Ok(AdmissionRule { tenant, class, limit, action, name })
    }

    /// The one thing a rule limits.
    fn limit(&self, rule: &Spanned<RawAdmission>, class: Scope<u16>, workers: u32) -> Result<Limit> {
        let r = &rule.value;
        let given =
            [r.max_queued.is_some(), r.max_queued_work.is_some(), r.throttle.is_some(), r.predict.is_some()];
        if given.iter().filter(|g| **g).count() != 1 {
            return Err(self.err_at(
                rule,
                "an admission rule limits one thing: `max_queued: N` (jobs waiting to start), `max_queued_work: D` (their service), `throttle: {rate, burst}` / `{limit, window}` / `{limit, per}` (admissions per time) or `predict: backlog|oldest` with `max_wait` (predicted delay)",
            ));
        }
        if let (None, Some(m)) = (&r.predict, &r.max_wait) {
            return Err(self.err_at(
                m,
                "`max_wait` goes with `predict: backlog` or `predict: oldest`; add one or remove `max_wait`",
            ));
        }
        if let Some(n) = &r.max_queued {
            if n.value == 0 {
                return Err(self.err_at(n, "`max_queued` must be at least 1 (0 would refuse every job)"));
            }
            return Ok(Limit::Queued(n.value));
        }
        if let Some(w) = &r.max_queued_work {
            return Ok(Limit::QueuedWork(self.pos_dur(w, "max_queued_work")?));
        }
        if let Some(t) = &r.throttle {
            return Ok(Limit::Rate(self.throttle(t)?));
        }
        let p = r.predict.as_ref().expect("one of the four keys is given");
        let predict = match p.value.as_str() {
            "backlog" if workers == u32::MAX => {
                return Err(self.err_at(p, "`predict: backlog` divides the queued work by the workers, and this scenario sets no `workers:`; add `workers: N`"))
            }
            "backlog" => Predictor::Backlog,
            "oldest" => Predictor::Oldest,
            other => {
                return Err(self.err_at(p, format!("`predict: {other}` is not a predictor; use `backlog` (queued work over the workers) or `oldest` (the oldest claimable job's age)")))
            }
        };
        let Some(m) = &r.max_wait else {
            return Err(self.err_at(rule, "`predict` needs `max_wait`: a duration such as 30s, `sla` (the job's class `sla`) or `deadline` (the job's own deadline)"));
        };
        let bound = match m.value.0.text.as_str() {
            "sla" => {
                match class {
                    Scope::One(c) if self.classes[c as usize].sla.is_none() => {
                        return Err(self.err_at(m, format!("`max_wait: sla`: class `{}` has no `sla`; give it one under `classes:` or write a duration", self.classes[c as usize].name)))
                    }
                    _ if self.classes.iter().all(|c| c.sla.is_none()) => {
                        return Err(self.err_at(m, "`max_wait: sla`: no class declares an `sla`; give the classes one under `classes:` or write a duration"))
                    }
                    _ => Bound::Sla,
                }
            }
            "deadline" => Bound::Deadline,
            text => match parse_duration(text) {
                Ok(d) if d < HORIZON / 2 => Bound::Wait(d),
                Ok(_) => return Err(self.err_at(m, format!("`max_wait` must stay under half of {HORIZON_TEXT}"))),
                Err(e) => return Err(self.err_at(m, format!("`max_wait`: {e}; or write `sla` or `deadline`"))),
            },
        };
        Ok(Limit::Delay { predict, bound })
    }
}

//! `admission:`: the rules that refuse or put off arrivals.

use serde_saphyr::Spanned;

use super::Builder;
use crate::error::Result;
use crate::model::{Action, AdmissionRule, Limit, Scope};
use crate::scenario::raw::RawAdmission;
use crate::time::{HORIZON, HORIZON_TEXT};

/// Most times a producer sends a refused job again.
const MAX_RETRIES: u32 = 100;

impl Builder<'_> {
    pub(super) fn build_admission(
        &self,
        raw: Option<&Spanned<Vec<Spanned<RawAdmission>>>>,
    ) -> Result<Vec<AdmissionRule>> {
        let Some(list) = raw else { return Ok(Vec::new()) };
        list.value.iter().enumerate().map(|(i, r)| self.admission_rule(i, r)).collect()
    }

    fn admission_rule(&self, i: usize, rule: &Spanned<RawAdmission>) -> Result<AdmissionRule> {
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
        let limit = match (&r.max_queued, &r.throttle) {
            (Some(n), None) if n.value >= 1 => Limit::Queued(n.value),
            (Some(n), None) => return Err(self.err_at(n, "`max_queued` must be at least 1 (0 would refuse every job)")),
            (None, Some(t)) => Limit::Rate(self.throttle(t)?),
            _ => {
                return Err(self.err_at(
                    rule,
                    "an admission rule limits one thing: `max_queued: N` (jobs waiting to start) or `throttle: {rate, burst}` / `{limit, window}` (admissions per time)",
                ))
            }
        };
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
        Ok(AdmissionRule { tenant, class, limit, action, name: format!("rule {}", i + 1) })
    }
}

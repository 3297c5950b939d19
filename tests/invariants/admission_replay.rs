//! Bounded admission, replayed from jobs.csv.
//!
//! What a `max_queued: N` rule counts (src/admission/rules.rs): the
//! admitted jobs of its scope that are claimable and have not started yet
//! (a failed attempt's retry and a slice's continuation do not count again;
//! a deferred job counts from the instant it becomes claimable). What it
//! promises: a job is *accepted* into the scope only while fewer than N are
//! counted. A deferred job is not checked when it becomes claimable, so the
//! count may pass N by the deferred jobs that came back; without any
//! deferral it never passes N.
//!
//! The replay follows the engine's order within one instant
//! (src/engine/mod.rs `simulate`): new arrivals in job order, then re-sends
//! in job order, then deferred jobs coming back, and only then the
//! dispatch, which starts jobs. Admission decides each arrival against the
//! count as it stands at that point, so the replay checks:
//! - each accepted entry: count < N just before it;
//! - each last refusal (or deferral) by a `max_queued` rule: count >= N
//!   just before it (the rule did not refuse for nothing);
//! - without deferrals in the scope: count <= N at every instant.

use std::collections::HashMap;

use fairsim::model::{Limit, Scenario};

use crate::lives::{claimable, common_after, decided_at};
use crate::outputs::Run;

/// What the replay saw, for the coverage counts.
#[derive(Debug, Default, Clone, Copy)]
pub struct Seen {
    /// Accepted entries checked against a bound.
    pub accepts: u64,
    /// Of them, entries that filled the count to exactly N.
    pub filled: u64,
    /// Refusals and deferrals by a `max_queued` rule checked.
    pub refusals: u64,
    /// Scopes whose count passed N through deferred jobs.
    pub passed_by_deferral: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// An accepted job enters the count (phase 0 new, 1 re-sent).
    Accept,
    /// The job's last refusal or deferral, by the rule being replayed.
    Refused,
    /// A deferred job becomes claimable (phase 2).
    Back,
    /// The job starts for the first time (phase 3: the dispatch).
    Start,
}

/// (time, phase within the instant, job id, what happens).
type Event = (i64, u8, u64, Ev);

/// Checks every `max_queued` rule of the run's scenario.
pub fn check(run: &Run, seen: &mut Seen) -> Result<(), String> {
    let sc = &run.sc;
    let Some(after) = common_after(sc) else { return Ok(()) };
    if run.jobs.iter().any(|j| j.outcome == "expired") {
        // an expired job leaves the count at an instant jobs.csv does not give
        return Ok(());
    }
    for (ri, rule) in sc.admission.iter().enumerate() {
        let Limit::Queued(n) = rule.limit else { continue };
        let n = n as i64;
        // (time, phase, job id, event) per count of the rule
        let mut events: HashMap<(u32, u32), Vec<Event>> = HashMap::new();
        for j in &run.jobs {
            let (t, c) = ids(sc, &j.tenant, &j.class);
            if !rule.matches(t, c) {
                continue;
            }
            let ev = events.entry(rule.key(t, c)).or_default();
            let phase = |resends: i64| if resends == 0 { 0 } else { 1 };
            if j.rule == Some(ri) {
                // the last refusal: a rejection or deferral at the last
                // decision, or the refusal before the last re-send
                let last = if j.outcome == "rejected" || j.deferred { j.resends } else { j.resends - 1 };
                ev.push((j.arrival + last * after, phase(last), j.id, Ev::Refused));
            }
            if j.outcome == "rejected" {
                continue;
            }
            if j.deferred {
                ev.push((claimable(sc, j, after), 2, j.id, Ev::Back));
            } else {
                ev.push((decided_at(j, after), phase(j.resends), j.id, Ev::Accept));
            }
            if let Some(s) = j.start {
                ev.push((s, 3, j.id, Ev::Start));
            }
        }
        for (key, mut ev) in events {
            ev.sort_unstable();
            let deferrals = ev.iter().any(|e| e.3 == Ev::Back);
            let mut queued = 0i64;
            for (t, _, id, e) in ev {
                let at = format!("rule {} (max_queued {n}), count {key:?}, job {id} at {t} us", ri + 1);
                match e {
                    Ev::Accept => {
                        if queued >= n {
                            return Err(format!("{at}: accepted while {queued} were queued"));
                        }
                        seen.accepts += 1;
                        seen.filled += u64::from(queued + 1 == n);
                        queued += 1;
                    }
                    Ev::Refused => {
                        if queued < n {
                            return Err(format!("{at}: refused while only {queued} were queued"));
                        }
                        seen.refusals += 1;
                    }
                    Ev::Back => {
                        queued += 1;
                        seen.passed_by_deferral += u64::from(queued == n + 1);
                    }
                    Ev::Start => queued -= 1,
                }
                if queued < 0 {
                    return Err(format!("{at}: started more jobs than entered"));
                }
                if !deferrals && queued > n {
                    return Err(format!("{at}: {queued} queued without any deferral"));
                }
            }
        }
    }
    Ok(())
}

/// The tenant and class ids of a jobs.csv row.
pub fn ids(sc: &Scenario, tenant: &str, class: &str) -> (u32, u16) {
    let t = sc.tenants.id_of(tenant).expect("a tenant of the scenario");
    let c = sc.classes.iter().position(|c| c.name == class).expect("a class of the scenario");
    (t, c as u16)
}

//! What jobs.csv tells about each job's life: when it became claimable
//! (admission's re-sends and deferrals replayed), and the intervals it
//! surely held a worker.

use fairsim::model::{Action, Scenario};

use crate::outputs::JobRow;

/// The `after` shared by every `retry` rule, if they share one (then the
/// n-th re-send of a job is at arrival + n x after); `Some(0)` without
/// retry rules.
pub fn common_after(sc: &Scenario) -> Option<i64> {
    let afters: Vec<i64> = sc
        .admission
        .iter()
        .filter_map(|r| match r.action {
            Action::Retry { after, .. } => Some(after as i64),
            _ => None,
        })
        .collect();
    match afters.first() {
        None => Some(0),
        Some(&a) => afters.iter().all(|&b| b == a).then_some(a),
    }
}

/// When admission last decided about the job: its arrival, or its last
/// re-send.
pub fn decided_at(j: &JobRow, after: i64) -> i64 {
    j.arrival + j.resends * after
}

/// When an admitted job became claimable: its last decision, plus `by`
/// when deferred (the deferring rule is the one named, since a deferral
/// is always a job's last decision).
pub fn claimable(sc: &Scenario, j: &JobRow, after: i64) -> i64 {
    let at = decided_at(j, after);
    if !j.deferred {
        return at;
    }
    match sc.admission[j.rule.expect("a deferred job names its rule")].action {
        Action::Defer { by } => at + by as i64,
        ref a => panic!("job {} deferred by a rule whose action is {a:?}", j.id),
    }
}

/// The one slicing of every sliced entry, if they share one and no policy
/// slices the whole run.
fn common_slice(sc: &Scenario) -> Option<i64> {
    if sc.policies.iter().any(|p| p.slice.is_some()) {
        return None;
    }
    let slices: Vec<i64> = sc.workload.iter().filter_map(|e| e.slice.map(|s| s.slice as i64)).collect();
    match slices.first() {
        None => Some(0),
        Some(&s) => slices.iter().all(|&x| x == s).then_some(s),
    }
}

/// A job cut into slices started more often than it was attempted.
pub fn is_sliced(j: &JobRow) -> bool {
    j.slices > j.attempts
}

/// The intervals a job surely held a worker, [start, end) in µs, and
/// whether they are all of them. An expired job that ran has a `finish` of
/// its expiry, so only its first attempt (or slice) is known. An unsliced job's attempts last its
/// service each: the first starts at `start`, the last ends at `finish`,
/// and only with three or more is one in between unknown. A sliced job's
/// first slice is [start, start + slice) (a job is sliced only when longer
/// than its slice, and the first slice has no resume overhead).
pub fn busy(sc: &Scenario, j: &JobRow) -> (Vec<(i64, i64)>, bool) {
    let (Some(s), Some(f)) = (j.start, j.finish) else {
        // never started, or expired after an attempt of unknown time
        return (Vec::new(), j.attempts == 0);
    };
    if j.outcome == "expired" {
        // failed attempts or slices, then expired at `finish` while queued
        // for the next; `service` may be the slice it waited for
        let first = match common_slice(sc) {
            None => return (Vec::new(), false),
            Some(0) => j.service,
            Some(slice) => j.service.min(slice),
        };
        return (vec![(s, s + first.min(f - s))], false);
    }
    if is_sliced(j) {
        return match common_slice(sc) {
            Some(slice) if slice > 0 => (vec![(s, s + slice)], false),
            _ => (Vec::new(), false),
        };
    }
    match j.attempts {
        1 => (vec![(s, s + j.service)], true),
        2 => (vec![(s, s + j.service), (f - j.service, f)], true),
        _ => (vec![(s, s + j.service), (f - j.service, f)], false),
    }
}

/// The intervals a job waited to be claimed, when all are known (one or
/// two attempts, unsliced): from claimable to its start, and from the end
/// of a failed first attempt to the start of the second.
pub fn waiting(j: &JobRow, claimable: i64) -> Option<Vec<(i64, i64)>> {
    let (s, f) = (j.start?, j.finish?);
    match j.attempts {
        1 if !is_sliced(j) => Some(vec![(claimable, s)]),
        2 if !is_sliced(j) => Some(vec![(claimable, s), (s + j.service, f - j.service)]),
        _ => None,
    }
}

/// The most intervals open at once, ends at an instant before starts.
pub fn peak(intervals: impl IntoIterator<Item = (i64, i64)>) -> i64 {
    let mut ev: Vec<(i64, i64)> = Vec::new();
    for (a, b) in intervals {
        ev.push((a, 1));
        ev.push((b, -1));
    }
    ev.sort_unstable();
    let (mut open, mut most) = (0, 0);
    for (_, d) in ev {
        open += d;
        most = most.max(open);
    }
    most
}

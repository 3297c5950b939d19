//! What jobs.csv tells about each job's life. The job-life model itself
//! (re-sends and deferrals replayed, the intervals a job surely held a
//! worker or waited) is `fairsim::check::jobs`, which `fairsim check` uses
//! on any folder; this adds what the property tests need beyond it.

use fairsim::model::Scenario;

pub use fairsim::check::jobs::{busy, common_after, waiting, JobRow};

/// When admission last decided about the job: its arrival, or its last
/// re-send.
pub fn decided_at(j: &JobRow, after: i64) -> i64 {
    j.arrival + j.resends * after
}

/// When an admitted job became claimable; unlike `fairsim check`, which
/// skips a job whose rules do not say, a generated run must always say.
pub fn claimable(sc: &Scenario, j: &JobRow, after: i64) -> i64 {
    fairsim::check::jobs::claimable(sc, j, Some(after))
        .unwrap_or_else(|| panic!("job {}: deferred by a rule that is not a defer", j.id))
}

/// A job cut into slices started more often than it was attempted.
pub fn is_sliced(j: &JobRow) -> bool {
    j.sliced()
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

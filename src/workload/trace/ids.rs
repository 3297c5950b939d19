//! The trace's own job ids, handed from the arrival stream to the
//! `jobs.csv` writer: the engine numbers jobs 0..n-1 in arrival order, and
//! the `trace_id` column joins results back to the production records.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Ids of the jobs in flight, by job id: an entry is added when the stream
/// hands out a trace row with an id and taken when the job's row is
/// written, so memory follows the jobs in the system (some 60 bytes each,
/// plus the id's length), not the length of the trace.
#[derive(Debug, Clone, Default)]
pub struct TraceIds(Rc<RefCell<HashMap<u64, Box<str>>>>);

impl TraceIds {
    pub(crate) fn insert(&self, job: u64, id: &str) {
        self.0.borrow_mut().insert(job, id.into());
    }

    /// The trace id of job `job` (its position in the arrival stream), removed.
    pub fn take(&self, job: u64) -> Option<Box<str>> {
        self.0.borrow_mut().remove(&job)
    }
}

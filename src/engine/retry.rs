//! Retries after a failed attempt (`retry:`): a backoff before the retry
//! becomes claimable, and a retry budget per tenant. A retry is the same
//! logical job, charged to the same tenant; past its tenant's budget the
//! job fails for good rather than come back with fresh quota (the
//! backpressure article's "retry storm receives fresh quota").

use std::cmp::Reverse;

use super::Engine;
use crate::core::{Outcome, Slot};
use crate::error::Result;

impl Engine<'_> {
    /// Puts a job whose attempt just failed (and may be tried again) back:
    /// claimable now, after its backoff, or failed when its tenant's retry
    /// budget is spent.
    pub(super) fn retry(&mut self, slot: Slot) -> Result<()> {
        let now = self.now;
        let Some(spec) = self.sc.retry else {
            self.jobs.get_mut(slot).ready = now;
            self.enqueue(slot);
            return Ok(());
        };
        let job = self.jobs.get(slot);
        if let Some((limit, window)) = spec.budget {
            let w = self.retry_budgets.entry(job.tenant).or_default();
            if !w.fits(now, limit, window) {
                let job = job.clone();
                self.rec.on_end(self.sc, &job, now, Outcome::Failed)?;
                // its slicing, reset for the retry that will not come, would
                // otherwise cut the next job given this slot into slices of
                // work it does not have (which once looped for ever)
                self.sliced.remove(&slot);
                self.jobs.remove(slot);
                return Ok(());
            }
            w.count(now, limit);
        }
        // attempts so far = the failed ones: this is retry number `attempts`
        let at = now + spec.wait(self.sc.seed, job.seq, job.attempts);
        let seq = job.seq;
        self.jobs.get_mut(slot).ready = at;
        if at == now {
            self.enqueue(slot);
        } else {
            self.put_off.backoff.push(Reverse((at, seq, slot)));
        }
        Ok(())
    }
}

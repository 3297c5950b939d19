//! Live jobs: a slab indexed by slot, so memory follows the number of jobs in
//! the system, not the length of the run.

use crate::model::{ClassId, PoolId, QueueId, Res, TenantId};
use crate::time::Time;

/// A job as the workload produces it, before the engine assigns its id.
#[derive(Debug, Clone, PartialEq)]
pub struct Arrival {
    pub time: Time,
    pub tenant: TenantId,
    pub class: ClassId,
    pub service: Time,
    /// Absolute deadline, if the entry has one.
    pub deadline: Option<Time>,
    pub cost: Res,
    /// How many attempts fail before one succeeds (drawn up front so that every
    /// policy sees the same failures).
    pub failures: u32,
    /// Attempts allowed in all; when `failures >= max_attempts` the job fails for good.
    pub max_attempts: u32,
    /// Interruptible iteration: 1 + the index of the workload entry whose
    /// `slice` applies, 0 for none (an index, not the durations, keeps the
    /// struct in the padding it had).
    pub slicing: u16,
    /// Cost gaming: 1 + the index of the workload entry whose `declared`
    /// applies, 0 when the job declares its true service.
    pub declared_entry: u16,
}

/// Index of a live job in the [`JobTable`]; reused after the job ends.
pub type Slot = u32;

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    /// Claimable: waiting for the policy to choose it.
    Queued,
    Running,
    /// Finished, failed, rejected or expired: the slot is free.
    Ended,
}

/// How a job's life ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Completed,
    /// Every allowed attempt failed.
    Failed,
    /// Refused by admission control.
    Rejected,
    /// Dropped by the policy (e.g. `edf` with `late: drop`).
    Expired,
    /// Still queued or running when the simulation stopped.
    Unfinished,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Failed => "failed",
            Outcome::Rejected => "rejected",
            Outcome::Expired => "expired",
            Outcome::Unfinished => "unfinished",
        }
    }
}

/// A job in the system. 120 bytes: the job table is the run's largest
/// array, so a field more must find room in the padding.
#[derive(Debug, Clone)]
pub struct Job {
    /// Job id: its position in the arrival stream (0-based), the same under every policy.
    pub seq: u64,
    pub tenant: TenantId,
    pub class: ClassId,
    pub arrival: Time,
    /// When the job last became claimable (arrival, or re-queue after a failed attempt).
    pub ready: Time,
    pub service: Time,
    pub deadline: Option<Time>,
    pub cost: Res,
    /// Attempts that will fail before one succeeds (drawn by the workload;
    /// at most `max_attempts`, which the loader keeps at most 100, so a byte
    /// each leaves room for `declared_entry`).
    pub failures: u8,
    pub max_attempts: u8,
    /// Attempts started so far (a job run in slices starts one attempt
    /// with its first slice).
    pub attempts: u32,
    /// Times the job started on a worker: every slice of every attempt.
    pub slices: u32,
    /// What admission did: the producer's re-sends in the low bits, and
    /// 0x80 once it was deferred.
    pub admission: u8,
    pub first_start: Option<Time>,
    pub state: JobState,
    /// Under a topology, the queue the job was routed to and the pool that
    /// last started it (0 and 0 otherwise); they fit in the struct's padding.
    pub queue: QueueId,
    pub pool: PoolId,
    /// [`Arrival::declared_entry`]: policies that charge what tenants
    /// declare look the entry's factor up (a u16 fits where a declared
    /// value of 8 bytes would not).
    pub declared_entry: u16,
}

impl Job {
    pub fn from_arrival(seq: u64, a: &Arrival) -> Self {
        Job {
            seq,
            tenant: a.tenant,
            class: a.class,
            arrival: a.time,
            ready: a.time,
            service: a.service,
            deadline: a.deadline,
            cost: a.cost,
            // failures >= max_attempts means "fails for good" either way
            failures: a.failures.min(a.max_attempts).min(u32::from(u8::MAX)) as u8,
            max_attempts: a.max_attempts.min(u32::from(u8::MAX)) as u8,
            attempts: 0,
            slices: 0,
            admission: 0,
            first_start: None,
            state: JobState::Queued,
            queue: 0,
            pool: 0,
            declared_entry: a.declared_entry,
        }
    }
}

const _: () = assert!(std::mem::size_of::<Job>() == 120);

/// [`Job::admission`]: the flag of a deferred job; the low bits count the
/// producer's re-sends.
pub const DEFERRED: u8 = 0x80;

impl Job {
    /// Whether admission deferred the job.
    pub fn deferred(&self) -> bool {
        self.admission & DEFERRED != 0
    }

    /// How many times admission refused the job and its producer sent it again.
    pub fn resends(&self) -> u8 {
        self.admission & !DEFERRED
    }
}

/// Slab of live jobs.
#[derive(Debug, Default)]
pub struct JobTable {
    jobs: Vec<Job>,
    free: Vec<Slot>,
}

impl JobTable {
    /// Stores a job and returns its slot.
    pub fn insert(&mut self, job: Job) -> Slot {
        if let Some(slot) = self.free.pop() {
            self.jobs[slot as usize] = job;
            slot
        } else {
            self.jobs.push(job);
            (self.jobs.len() - 1) as Slot
        }
    }

    /// Frees a slot (the job must have ended).
    pub fn remove(&mut self, slot: Slot) {
        self.jobs[slot as usize].state = JobState::Ended;
        self.free.push(slot);
    }

    /// The job in `slot`, or `None` for a slot never used (for hints, which
    /// may be stale and must not panic).
    pub fn try_get(&self, slot: Slot) -> Option<&Job> {
        self.jobs.get(slot as usize)
    }

    pub fn get(&self, slot: Slot) -> &Job {
        &self.jobs[slot as usize]
    }

    pub fn get_mut(&mut self, slot: Slot) -> &mut Job {
        &mut self.jobs[slot as usize]
    }

    /// Slots of every live job (for the end-of-run sweep).
    pub fn live_slots(&self) -> impl Iterator<Item = Slot> + '_ {
        self.jobs.iter().enumerate().filter(|(_, j)| j.state != JobState::Ended).map(|(i, _)| i as Slot)
    }
}

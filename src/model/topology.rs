//! Topologies: named queues, routing rules that choose a job's queue at
//! enqueue, and pools of workers that poll lists of queues. The default
//! topology (one queue, one pool of `workers`) is the absence of one.
//!
//! This is how Sidekiq, Solid Queue, GoodJob and BullMQ deployments are built
//! (the fair-by-design article's strategies, the priority-classes article's
//! dedicated pools and long-job pool): see docs/scenario.md, `topologies`.

use super::{ClassId, TenantId};
use crate::time::Time;

/// Index of a queue in [`TopologySpec::queues`].
pub type QueueId = u16;
/// Index of a pool in [`TopologySpec::pools`].
pub type PoolId = u16;

/// Most queues (and most pools) one topology may declare: ids are 16 bits,
/// stored beside each job.
pub const MAX_QUEUES: usize = 65_535;

/// One named topology.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologySpec {
    pub name: String,
    /// Queue names, in declaration order.
    pub queues: Vec<String>,
    /// Routing rules, in order; the first that matches places the job. A job
    /// no rule places goes to the first queue.
    pub route: Vec<RouteRule>,
    pub pools: Vec<PoolSpec>,
    /// A planner in front of the one queue (`queues` is then `[main]`, with
    /// no routing rules).
    pub planner: Option<PlannerSpec>,
}

/// The fair-by-design article's strategy 4: jobs wait in per-tenant virtual
/// queues (the ledger); every `interval` the planner looks at the main
/// queue and, unless it is busy enough, spends `base + per_active_tenant *
/// active tenants` planning, then promotes `batch` jobs chosen by `policy`.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannerSpec {
    pub interval: Time,
    pub batch: u32,
    pub busy: Busy,
    /// The ledger's fairness policy (a registered policy name).
    pub policy: String,
    pub cost_base: Time,
    pub cost_per_tenant: Time,
}

/// When the main queue is busy enough for the planner to sleep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Busy {
    /// Its oldest job has waited at least this long (`latency_below`).
    Latency(Time),
    /// It holds at least this many jobs (`depth_below`).
    Depth(u64),
}

impl TopologySpec {
    /// Workers over all pools.
    pub fn workers(&self) -> u32 {
        self.pools.iter().map(|p| p.workers).sum()
    }
}

/// A routing rule: which jobs it applies to, and where it sends them.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteRule {
    /// Only jobs of these classes (all when empty).
    pub classes: Vec<ClassId>,
    /// Only jobs of these tenants (all when empty).
    pub tenants: Vec<TenantId>,
    pub action: RouteAction,
}

/// Where a matching job goes.
#[derive(Debug, Clone, PartialEq)]
pub enum RouteAction {
    /// Always to this queue.
    To(QueueId),
    /// To `queues[hash(tenant name) mod queues.len()]` (plain sharding).
    Shard { queues: Vec<QueueId> },
    /// Each tenant owns a seeded `per_tenant`-subset of `queues`; each job
    /// goes to one of the tenant's queues, drawn at random.
    ShuffleShard { queues: Vec<QueueId>, per_tenant: u32 },
    /// To `to` when the tenant's limit overflows; otherwise the rule does not
    /// match and the next rule decides.
    Throttle { limit: Throttle, to: QueueId },
}

/// A per-tenant enqueue limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Throttle {
    /// A leaky bucket: each job pours one unit in, the bucket drains `rate`
    /// units per second and holds `burst`; a job that would spill overflows.
    Bucket { rate: f64, burst: f64 },
    /// A sliding-window counter (sidekiq-fair_tenant): a job overflows when
    /// the tenant already enqueued `limit` jobs in the last `window`.
    Window { limit: u32, window: Time },
    /// A fixed (calendar) window counter (Naeem's article's hourly key): at most
    /// `limit` jobs in each window [k·per, (k+1)·per), the count starting
    /// afresh at every boundary.
    Fixed { limit: u32, per: Time },
}

/// How a free worker chooses among its pool's queues.
#[derive(Debug, Clone, PartialEq)]
pub enum Poll {
    /// The first queue in list order with a claimable job.
    Strict,
    /// A fresh weighted random order per fetch (Sidekiq's `-q main,4 -q
    /// slow,1`): queue q comes first with probability w_q / sum of the
    /// weights of the queues with claimable work.
    Weighted(Vec<f64>),
}

/// A group of identical workers.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolSpec {
    pub name: String,
    pub workers: u32,
    /// The queues its workers fetch from, in poll order.
    pub queues: Vec<QueueId>,
    pub poll: Poll,
    /// Jobs a worker claims per fetch (`LIMIT N`) and then runs one after
    /// another; 1 without claim batching.
    pub batch: u32,
    /// Its dispatch costs: its own `costs:`, the top-level ones for the keys
    /// it leaves out.
    pub costs: super::Costs,
    /// How many jobs its workers may start per interval (`limiter:`).
    pub limiter: Option<StartLimit>,
    /// Reservation ahead (`prefetch:`): the pool is one worker node that
    /// takes jobs from its queues before a worker is free for them.
    pub prefetch: Option<Prefetch>,
}

/// A worker node that reserves jobs ahead (Celery's
/// `worker_prefetch_multiplier`, an AMQP consumer's prefetch count, a batch
/// receive): up to `limit` unacknowledged jobs leave the shared queue for
/// the node, where only its own workers can run them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prefetch {
    /// Most unacknowledged jobs the node holds (multiplier x workers);
    /// `u32::MAX`: no limit (Celery's multiplier 0).
    pub limit: u32,
    pub handoff: Handoff,
    /// A job is acknowledged when its attempt ends, not when it starts, so
    /// the running jobs count against `limit` too.
    pub acks_late: bool,
    /// A full node that an acknowledgement gives room takes jobs again
    /// only at its next event (one of its jobs starting or ending, a turn
    /// of its loop later) or at the next tick of a timer with this period
    /// (on a phase drawn from the seed), whichever comes first: Celery
    /// defers an acknowledgement to the next turn of its event loop, after
    /// that turn's fetch. 0: at once.
    pub refetch: Time,
}

/// How a node hands its reserved jobs to its workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handoff {
    /// Only to an idle worker, in reservation order (Celery's default
    /// strategy since 4.0, `fair`).
    Fair,
    /// Written at once to the node's first worker, busy or not, where they
    /// run one after another (Celery's `fcfs` write strategy).
    Fcfs,
}

/// A limit on a pool's starts, as opposed to admission's
/// limits on arrivals: a job it holds back waits claimable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StartLimit {
    /// BullMQ's queue limiter `{max, duration}`: a window of `duration`
    /// opens at the first start after the last window closed and holds at
    /// most `max` starts.
    Anchored { max: u32, duration: Time },
    /// A token bucket: `rate` starts a second, `burst` at once.
    Bucket { rate: f64, burst: f64 },
    /// A sliding window: at most `limit` starts in any `window`.
    Sliding { limit: u32, window: Time },
}

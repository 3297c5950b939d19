//! The dispatcher's unit tests.

use std::path::Path;

use super::*;
use crate::policy::testkit::Kit;
use crate::scenario::load_str;

#[test]
fn a_queue_policy_is_built_only_when_its_queue_gets_a_job() {
    // 1,000 queues x 1,000 tenants and 3 jobs: a fifo per declared queue
    // would hold 1,000 x 1,000 per-tenant entries; built on first use,
    // only the queues the 3 jobs were routed to (1 to 3 of them) have one
    let sc = load_str(
        "workers: 1\nworkload:\n  - {tenants: {count: 1000, prefix: t}, count: 3, service: 1s}\n\
         topologies:\n  t:\n    queues: [{prefix: q, count: 1000}]\n    \
         route: [{shard: {count: 1000, prefix: q}}]\n    \
         pools: [{name: p, count: 1000, workers: 1, queues: [\"q{i}\"]}]\n\
         policies: [{policy: fifo, topology: t}]\n",
        Path::new("t.yaml"),
    )
    .expect("valid scenario");
    let run = sc.for_run(&sc.policies[0]);
    let run: &Scenario = &run;
    let topology = run.run_topology().expect("the policy runs on a topology");
    let stats = Rc::new(RefCell::new(TopologyStats::default()));
    let d = Dispatcher::build(run, &run.policies[0], topology, stats).expect("builds");
    assert_eq!(d.queues.len(), 1000);
    assert!(d.queues.iter().all(Option::is_none), "no queue policy before any job");
    let mut kit = Kit::with_policy(run, Box::new(d));
    kit.push_all();
    let built = kit.policy.queues.iter().filter(|q| q.is_some()).count();
    let used = kit.policy.depth.iter().filter(|&&n| n > 0).count();
    assert_eq!(built, used);
    assert!((1..=3).contains(&used), "{used} queues used");
    // and they serve the jobs as before: all three start on the 1,000 pools
    assert!((0..3).all(|_| kit.pick().is_some()));
}

"""Starts one Celery worker node (prefork) of the ground-truth suite.

    python3 node.py NAME CONCURRENCY PREFETCH_MULTIPLIER STRATEGY ACKS_LATE

STRATEGY is the pool's write strategy, `fair` (Celery's default since 4.0)
or `fcfs`. Celery's command line offers only `-O default|fair`, so the node
is started through the API (`app.Worker(optimization=...)`), which passes
it on to the prefork pool as its `sched_strategy`. ACKS_LATE is 1 or 0
(`task_acks_late`).
"""
import os
import sys

name, concurrency, multiplier, strategy, acks_late = sys.argv[1:6]
os.environ["GROUNDTRUTH_NODE"] = name
os.environ["GROUNDTRUTH_ACKS_LATE"] = acks_late
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tasks import app  # noqa: E402  (after the environment it reads)

app.Worker(
    hostname=name + "@groundtruth",
    concurrency=int(concurrency),
    prefetch_multiplier=int(multiplier),
    pool="prefork",
    optimization=strategy,
    loglevel="WARNING",
    without_gossip=True,
    without_mingle=True,
    without_heartbeat=True,
).start()

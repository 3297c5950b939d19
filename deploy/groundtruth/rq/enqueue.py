"""Enqueues the workload (workload.csv, argument 2) into RQ's queues at its
offsets from now, each job with its tenant, queue, service and the instant
it was enqueued (its arrival in the record).

    python3 enqueue.py redis://127.0.0.1:PORT/0 workload.csv
"""
import csv
import sys
import time

from redis import Redis
from rq import Queue

redis = Redis.from_url(sys.argv[1])
queues = {name: Queue(name, connection=redis) for name in ("high", "default", "low")}
rows = list(csv.DictReader(open(sys.argv[2])))
t0 = time.time()
for r in rows:
    wait = t0 + int(r["offset_ms"]) / 1000.0 - time.time()
    if wait > 0:
        time.sleep(wait)
    created = time.time()
    queues[r["queue"]].enqueue(
        "gtjobs.sleep_job",
        args=(int(r["id"]), r["tenant"], r["queue"], int(r["service_ms"]), created),
        result_ttl=0,
    )

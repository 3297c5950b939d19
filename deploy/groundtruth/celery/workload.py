"""Writes the recorded workload of one Celery deployment
(id,tenant,offset_ms,service_ms): a fixed seed, so a failure can be
replayed.

    python3 workload.py two-nodes > workload.csv   # also acks-late: the same tasks
    python3 workload.py fcfs > workload.csv

Tenant `short` sends tasks of 40-120 ms as a Poisson stream; tenant
`long` sends a task of 2-3 s every INTERVAL (+-20%), over DURATION seconds
(GROUNDTRUTH_CELERY_DURATION, default 20). Two nodes of 2 processes get 8
short tasks a second and a long one every 1.25 s, about 2.6 of their 4
processes busy: a node running two long tasks still reserves up to 8 more,
and the short ones among them wait for a long task to end while the other
node idles. One node under `fcfs` runs every task on one process, so it
gets 3 short tasks a second and a long one every 5 s (0.7 of a process).
"""
import os
import random
import sys

DURATION = float(os.environ.get("GROUNDTRUTH_CELERY_DURATION", "20"))
MIX = {
    # deployment: (short tasks per second, seconds between long tasks)
    "two-nodes": (8.0, 1.25),
    "fcfs": (3.0, 5.0),
}

kind = sys.argv[1] if len(sys.argv) > 1 else "two-nodes"
rate, interval = MIX["two-nodes" if kind == "acks-late" else kind]
rng = random.Random(20261203)
jobs = []
t = 0.0
while True:
    t += rng.expovariate(rate)
    if t >= DURATION:
        break
    jobs.append((round(t * 1000), "short", rng.randint(40, 120)))
t = rng.uniform(0, interval)
while t < DURATION:
    jobs.append((round(t * 1000), "long", rng.randint(2000, 3000)))
    t += interval * rng.uniform(0.8, 1.2)
jobs.sort(key=lambda j: j[0])
print("id,tenant,offset_ms,service_ms")
for i, (at, tenant, ms) in enumerate(jobs):
    print(f"{i},{tenant},{at},{ms}")

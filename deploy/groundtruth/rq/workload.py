"""Writes the recorded workload of the RQ run (id,tenant,queue,offset_ms,
service_ms): a fixed seed, the same every run. Two tenants send a steady
mix of high, default and low jobs over DURATION seconds (about 2 of the 4
workers busy, forks included); at FLOOD_AT the tenant `flood` enqueues
FLOOD_JOBS low jobs of 100 ms, some 8 s of the workers left, so low queues
behind high and default work while it drains.

    python3 workload.py > workload.csv
"""
import os
import random

DURATION = float(os.environ.get("GROUNDTRUTH_DURATION", "40"))
FLOOD_AT = 5.0
FLOOD_JOBS = int(os.environ.get("GROUNDTRUTH_FLOOD", "150"))
# per queue: arrivals per second over all tenants, service range in ms
MIX = {"high": (6.0, 20, 60), "default": (4.0, 50, 200), "low": (3.0, 100, 300)}
TENANTS = ["t1", "t2"]

rng = random.Random(20261204)
jobs = []
for queue, (rate, lo, hi) in MIX.items():
    t = 0.0
    while True:
        t += rng.expovariate(rate)
        if t >= DURATION:
            break
        jobs.append((rng.choice(TENANTS), queue, round(t * 1000), rng.randint(lo, hi)))
jobs += [("flood", "low", round(FLOOD_AT * 1000), 100)] * FLOOD_JOBS
jobs = [j for _, j in sorted(enumerate(jobs), key=lambda p: (p[1][2], p[0]))]
print("id,tenant,queue,offset_ms,service_ms")
for i, (tenant, queue, at, ms) in enumerate(jobs):
    print(f"{i},{tenant},{queue},{at},{ms}")

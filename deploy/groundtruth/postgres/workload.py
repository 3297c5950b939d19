"""Writes the recorded workload of the PostgreSQL run (id,tenant,queue,
offset_ms,service_ms): a fixed seed, the same every run (1,365 jobs).
Three tenants send a steady mix of critical, default and bulk jobs over
DURATION seconds (about 4 of the 8 workers busy, mostly bulk); at FLOOD_AT
the tenant `flood`, capped at 3 running jobs, inserts FLOOD_JOBS bulk rows
of 400 ms: 16 s of its cap, during which every worker that reaches the bulk
rows refuses the flood's available rows one by one before it gets to
another tenant's, and the other tenants' bulk rows wait for that sweep and
for the one worker or two the flood and the sweeps leave. Each steady
tenant has some 400 jobs, so its p99 is the 4th or 5th largest wait, of
the bulk rows that arrive during the flood.

The flood is sized so that a sweep over its rows (about 120 refusals of
0.5-3 ms spread over the workers not running a job) ends well inside the
0.5 s a refused row waits. A larger flood (600 rows of 100 ms was
tried) sweeps for longer than that on a loaded machine: rows come back
before the sweep reaches the other tenants' bulk rows, which then starve
until the flood has shrunk, and whether that happens turns on a
millisecond of refusal cost (3.3 ms: waits of 1.4 s simulated, 5 ms: 7.8
s, against 2.9 s recorded): a figure about the machine's load, not about
the model.

    python3 workload.py > workload.csv
"""
import os
import random

DURATION = float(os.environ.get("GROUNDTRUTH_DURATION", "50"))
FLOOD_AT = 5.0
FLOOD_JOBS = int(os.environ.get("GROUNDTRUTH_FLOOD", "120"))
# per queue (class): arrivals per second over all tenants, service range in ms
MIX = {"critical": (4.0, 20, 60), "default": (4.0, 50, 200), "bulk": (16.0, 100, 300)}
TENANTS = ["t1", "t2", "t3"]

rng = random.Random(20261203)
jobs = []
for queue, (rate, lo, hi) in MIX.items():
    t = 0.0
    while True:
        t += rng.expovariate(rate)
        if t >= DURATION:
            break
        jobs.append((rng.choice(TENANTS), queue, round(t * 1000), rng.randint(lo, hi)))
jobs += [("flood", "bulk", round(FLOOD_AT * 1000), 400)] * FLOOD_JOBS
jobs = [j for _, j in sorted(enumerate(jobs), key=lambda p: (p[1][2], p[0]))]
print("id,tenant,queue,offset_ms,service_ms")
for i, (tenant, queue, at, ms) in enumerate(jobs):
    print(f"{i},{tenant},{queue},{at},{ms}")

"""RQ's cost per job that the scenario must be told: the gap between the
finish of a job and the start of the next one on the same worker, while
that worker had work waiting (the next job arrived before the first
finished). That is RQ's fork of a work horse per job, the horse's set-up
and its exit, the job's status writes to Redis and the worker's next
dequeue. Prints the mean gap in whole microseconds, for `costs: {claim}`
(the mean: the gaps' sum is what delays the jobs queued behind).

    python3 overhead.py RECORD.csv
"""
import csv
import sys
from collections import defaultdict

by_worker = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    by_worker[r["worker"]].append((float(r["created_at"]), float(r["started_at"]), float(r["finished_at"])))
gaps = []
for jobs in by_worker.values():
    jobs.sort(key=lambda j: j[1])
    gaps += [b[1] - a[2] for a, b in zip(jobs, jobs[1:]) if b[0] < a[2]]
if not gaps:
    sys.exit(f"overhead.py: no worker ever had work waiting in {sys.argv[1]}")
print(round(sum(gaps) / len(gaps) * 1e6))

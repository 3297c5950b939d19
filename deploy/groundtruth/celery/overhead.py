"""Celery's cost per task that fairsim's scenario must be told: the gap
between the finish of a task and the start of the next one on the same
process, while that process had work waiting (the next task arrived
before the first finished): the result sent back to the node, the next
task written to the process, its trace set-up. Prints the mean gap in
whole microseconds, for the scenario's `costs: {claim: ...}`.

    python3 overhead.py RECORD.csv
"""
import csv
import sys
from collections import defaultdict

by_process = defaultdict(list)
with open(sys.argv[1]) as f:
    for r in csv.DictReader(f):
        by_process[(r["node"], r["pid"])].append(
            (float(r["started_at"]), float(r["created_at"]), float(r["finished_at"])))
gaps = []
for tasks in by_process.values():
    tasks.sort()
    for (_, _, fin), (start, created, _) in zip(tasks, tasks[1:]):
        if created < fin:
            gaps.append(start - fin)
if not gaps:
    sys.exit(f"overhead.py: no process ever had work waiting in {sys.argv[1]}")
print(round(sum(gaps) / len(gaps) * 1e6))

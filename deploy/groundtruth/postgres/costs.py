"""Exports the jobs table as the record `fairsim calibrate` reads, and
measures from the workers' logs what the scenario must be told, over the
claims, refusals and finishes made while another job was waiting (as the
Sidekiq suite's overhead.rb does): those are the ones that delay the jobs
queued behind, and on 2 shared cores they cost more than the rest (2.3 ms
a claim during the flood against 1.6 ms outside it, on one run):

    claim    a claim that won its row: from the claim's start to the job's
             service start (SELECT ... SKIP LOCKED, the cap's UPDATE, the
             row's UPDATE, COMMIT)
    refusal  a claim refused at the cap: from its start to its COMMIT
    finish   from the service's end to the finishing COMMIT
    poll     from a claim that found nothing to the worker's next claim
             (the sleep of POLL and the empty claim's own time)

Prints `claim_us refusal_us finish_us poll_us refusals` (means, whole
microseconds; the refusals counted).

    python3 costs.py DSN LOGDIR RECORD.csv
"""
import bisect
import csv
import glob
import os
import sys
from collections import defaultdict

import psycopg2

dsn, logdir, record = sys.argv[1], sys.argv[2], sys.argv[3]
conn = psycopg2.connect(dsn)
cur = conn.cursor()
cur.execute(
    "SELECT id, tenant, queue, created_at, started_at, finished_at, worker FROM jobs "
    "WHERE state = 'done' ORDER BY created_at, id"
)
with open(record, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["id", "tenant", "queue", "created_at", "started_at", "finished_at", "worker"])
    for r in cur.fetchall():
        w.writerow([r[0], r[1], r[2], f"{r[3]:.6f}", f"{r[4]:.6f}", f"{r[5]:.6f}", r[6]])
cur.execute("SELECT created_at, started_at FROM jobs WHERE state = 'done'")
times = cur.fetchall()
conn.close()
arrived = sorted(t[0] for t in times)
begun = sorted(t[1] for t in times)


def others_waiting(at, own):
    """Jobs created and not yet started at `at`, besides the op's own one."""
    return bisect.bisect_right(arrived, at) - bisect.bisect_right(begun, at) - own


spans = defaultdict(list)
for path in glob.glob(os.path.join(logdir, "worker*.log")):
    lines = [line.rstrip("\n").split(",") for line in open(path)]
    for i, (kind, _job, a, b) in enumerate(lines):
        a, b = float(a), float(b)
        if kind == "empty":
            # the next claim of this worker, if there was one
            if i + 1 < len(lines):
                spans["poll"].append(float(lines[i + 1][2]) - a)
        elif others_waiting(a, 0 if kind == "finished" else 1) > 0:
            spans[kind].append(b - a)


def mean_us(kind):
    v = spans[kind]
    return round(sum(v) / len(v) * 1e6) if v else 0


refusals = sum(1 for path in glob.glob(os.path.join(logdir, "worker*.log")) for line in open(path) if line.startswith("refused,"))
print(mean_us("claimed"), mean_us("refused"), mean_us("finished"), mean_us("poll"), refusals)

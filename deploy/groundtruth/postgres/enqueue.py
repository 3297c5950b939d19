"""Inserts the workload (workload.csv, argument 2) into the jobs table at
its offsets from now; a row's created_at (its arrival in the record) and
available_at are the instant it was inserted.

    python3 enqueue.py DSN workload.csv
"""
import csv
import sys
import time

import psycopg2

PRIORITY = {"critical": 1, "default": 5, "bulk": 9}

conn = psycopg2.connect(sys.argv[1])
conn.autocommit = True
cur = conn.cursor()
rows = list(csv.DictReader(open(sys.argv[2])))
t0 = time.time()
for r in rows:
    wait = t0 + int(r["offset_ms"]) / 1000.0 - time.time()
    if wait > 0:
        time.sleep(wait)
    now = time.time()
    cur.execute(
        "INSERT INTO jobs (id, tenant, queue, priority, service_ms, created_at, available_at) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (int(r["id"]), r["tenant"], r["queue"], PRIORITY[r["queue"]], int(r["service_ms"]), now, now),
    )
conn.close()

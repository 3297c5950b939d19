"""Pushes a workload (id,tenant,offset_ms,service_ms) into the broker at
its offsets from now, each task with the instant it was pushed (its
arrival in the record).

    CELERY_BROKER_URL=redis://127.0.0.1:PORT/0 python3 enqueue.py workload.csv
"""
import csv
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tasks import sleep_task  # noqa: E402

with open(sys.argv[1]) as f:
    rows = list(csv.DictReader(f))
t0 = time.time()
for r in rows:
    wait = t0 + int(r["offset_ms"]) / 1000.0 - time.time()
    if wait > 0:
        time.sleep(wait)
    sleep_task.apply_async(args=[int(r["id"]), r["tenant"], int(r["service_ms"]), time.time()])

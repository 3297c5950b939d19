"""Pushes N warm-up tasks of 200 ms (job id -1, left out of the record)
at once, so that each process has run a task before the workload: a
process's first task waits 0.1-0.2 s for its imports, which the workload
would otherwise count as queueing.

    CELERY_BROKER_URL=redis://127.0.0.1:PORT/0 python3 warm.py N
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tasks import sleep_task  # noqa: E402

for _ in range(int(sys.argv[1])):
    sleep_task.apply_async(args=[-1, "warmup", 200, time.time()])

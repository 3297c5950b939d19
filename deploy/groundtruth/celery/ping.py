"""Exits 0 once N worker nodes answer a ping through the broker, 1 after
30 s: a task pushed before a node consumes would wait for its boot.

    CELERY_BROKER_URL=redis://127.0.0.1:PORT/0 python3 ping.py N
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tasks import app  # noqa: E402

want = int(sys.argv[1])
deadline = time.time() + 30
while time.time() < deadline:
    if len(app.control.ping(timeout=0.5)) >= want:
        sys.exit(0)
sys.exit(1)

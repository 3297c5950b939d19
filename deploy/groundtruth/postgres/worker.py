"""One ground-truth worker: a loop of PostgreSQL SKIP LOCKED claims with a
tenant cap, as a home-grown Postgres job queue runs them.

    claim:   SELECT ... WHERE state = 'queued' AND available_at <= now
             ORDER BY priority, created_at LIMIT 1 FOR UPDATE SKIP LOCKED
    cap:     UPDATE tenant_runtime SET active = active + 1
             WHERE tenant = $1 AND active < max_active
    refused: UPDATE jobs SET available_at = now + DELAY; COMMIT; claim again
    run:     UPDATE jobs SET state = 'running'; COMMIT; sleep the service
    finish:  UPDATE jobs SET state = 'done', ...; active = active - 1; COMMIT
    nothing: COMMIT; sleep POLL; claim again

Each transaction's start and end go to this worker's log (argument 3),
from which costs.py measures the claim, refusal and finish costs and the
idle poll the scenario is given. Stops on SIGTERM after its current job.

    python3 worker.py DSN WORKER_ID LOG [DELAY_S] [POLL_S]
"""
import signal
import sys
import time

import psycopg2

dsn, me, log_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
DELAY = float(sys.argv[4]) if len(sys.argv) > 4 else 0.5
POLL = float(sys.argv[5]) if len(sys.argv) > 5 else 0.010

stop = False


def on_term(_sig, _frame):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
conn = psycopg2.connect(dsn)
cur = conn.cursor()
log = open(log_path, "w", buffering=1 << 16)
clock = time.time

while not stop:
    began = clock()
    cur.execute(
        "SELECT id, tenant, service_ms FROM jobs WHERE state = 'queued' AND available_at <= %s "
        "ORDER BY priority, created_at LIMIT 1 FOR UPDATE SKIP LOCKED",
        (began,),
    )
    row = cur.fetchone()
    if row is None:
        conn.commit()
        log.write(f"empty,,{began:.6f},{clock():.6f}\n")
        time.sleep(POLL)
        continue
    job, tenant, service_ms = row
    cur.execute(
        "UPDATE tenant_runtime SET active = active + 1 WHERE tenant = %s AND active < max_active",
        (tenant,),
    )
    if cur.rowcount == 0:
        # the tenant is at its cap: this row waits DELAY, the worker claims again at once
        cur.execute("UPDATE jobs SET available_at = %s WHERE id = %s", (began + DELAY, job))
        conn.commit()
        log.write(f"refused,{job},{began:.6f},{clock():.6f}\n")
        continue
    cur.execute("UPDATE jobs SET state = 'running', worker = %s WHERE id = %s", (me, job))
    conn.commit()
    started = clock()
    time.sleep(service_ms / 1000.0)
    finished = clock()
    cur.execute(
        "UPDATE jobs SET state = 'done', started_at = %s, finished_at = %s WHERE id = %s",
        (started, finished, job),
    )
    cur.execute("UPDATE tenant_runtime SET active = active - 1 WHERE tenant = %s", (tenant,))
    conn.commit()
    log.write(f"claimed,{job},{began:.6f},{started:.6f}\n")
    log.write(f"finished,{job},{finished:.6f},{clock():.6f}\n")
log.close()
conn.close()

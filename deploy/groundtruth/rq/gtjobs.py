"""The job every RQ ground-truth run executes, in the work horse RQ forks
for it: it sleeps its service time and appends its own record (arrival as
enqueued, start and finish as seen inside the job, and the worker that
forked it) to the CSV named by GROUNDTRUTH_CSV. Times are epoch seconds:
the enqueuer and the workers share this machine's clock.
"""
import os
import time


def sleep_job(job_id, tenant, queue, service_ms, created_at):
    started = time.time()
    time.sleep(service_ms / 1000.0)
    finished = time.time()
    line = f"{job_id},{tenant},{queue},{created_at:.6f},{started:.6f},{finished:.6f},{os.getppid()}\n"
    # one write in append mode: lines of several processes never interleave
    with open(os.environ["GROUNDTRUTH_CSV"], "a") as f:
        f.write(line)

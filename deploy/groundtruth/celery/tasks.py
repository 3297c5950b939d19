"""The Celery app of the ground-truth suite and its one task.

The task sleeps its service time and appends its own record (arrival as
pushed, start and finish seen from inside the task, the node and the
process that ran it) to the CSV named by GROUNDTRUTH_CSV; the node's main
process appends the instant it reserved each task (Celery's
`task_received` signal, sent when a message reaches the node) to
GROUNDTRUTH_CSV + ".received". Times are epoch
seconds: the pusher and the nodes share this machine's clock. The broker
is the private redis-server of run.sh (CELERY_BROKER_URL); results are not
stored, and events, gossip, mingle and heartbeats are off so that a node's
only traffic is its tasks.
"""
import os
import time

from celery import Celery
from celery.signals import task_received

app = Celery("groundtruth", broker=os.environ["CELERY_BROKER_URL"])
app.conf.update(
    task_serializer="json",
    accept_content=["json"],
    task_ignore_result=True,
    worker_send_task_events=False,
    worker_hijack_root_logger=False,
    broker_connection_retry_on_startup=True,
    # set by node.py from its arguments before this module is imported
    task_acks_late=os.environ.get("GROUNDTRUTH_ACKS_LATE") == "1",
)


@app.task(name="sleep_task")
def sleep_task(job, tenant, service_ms, created):
    started = time.time()
    time.sleep(service_ms / 1000.0)
    finished = time.time()
    line = "%d,%s,%.6f,%.6f,%.6f,%s,%d\n" % (
        job, tenant, created, started, finished, os.environ.get("GROUNDTRUTH_NODE", "?"), os.getpid())
    # one write in append mode per line: the processes' lines never interleave
    fd = os.open(os.environ["GROUNDTRUTH_CSV"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


@task_received.connect
def on_received(request=None, **_):
    # in the node's main process, as the message arrives: the reservation
    line = "%d,%.6f\n" % (request.args[0], time.time())
    fd = os.open(os.environ["GROUNDTRUTH_CSV"] + ".received", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)

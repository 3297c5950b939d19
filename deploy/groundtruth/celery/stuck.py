"""Counts the short tasks stuck with a process idle: a task of tenant
`short` whose wait overlaps, by at least STUCK seconds, a stretch in which
a process that could have run it sat idle: with two nodes, one of the
other node's processes (the task was reserved by a node whose processes
were busy); with one node, another of its own processes (the task was
written to a busy process's pipe). Reads a recorded CSV (created_at,
started_at, finished_at, node) or fairsim's jobs.csv (arrival, start,
finish, pool), so the record and the model are measured alike.

    python3 stuck.py FILE NODES PROCESSES    # prints: stuck, shorts, longest stuck wait (s)
"""
import csv
import sys

STUCK = 0.25


def read(path):
    """(tenant, node, arrival, start, finish) of every started task."""
    out = []
    with open(path) as f:
        for r in csv.DictReader(f):
            if "created_at" in r:
                out.append((r["tenant"], r["node"], float(r["created_at"]), float(r["started_at"]), float(r["finished_at"])))
            elif r["start"]:
                out.append((r["tenant"], r["pool"], float(r["arrival"]), float(r["start"]), float(r["finish"])))
    return out


def stuck(tasks, nodes, processes):
    """(stuck tasks, short tasks, longest wait of a stuck one)."""
    names = sorted({t[1] for t in tasks})
    # per node: (time, +1 start / -1 finish), to know how many ran at any instant
    changes = {n: sorted([(t[3], 1) for t in tasks if t[1] == n] + [(t[4], -1) for t in tasks if t[1] == n]) for n in names}

    def idle_stretches(node_set, lo, hi, capacity):
        """Seconds of [lo, hi] in which the nodes of node_set ran fewer than capacity tasks."""
        events = sorted(e for n in node_set for e in changes[n])
        running, last, idle = 0, None, 0.0
        for t, d in events:
            if last is not None and running < capacity:
                a, b = max(last, lo), min(t, hi)
                if b > a:
                    idle += b - a
            running += d
            last = t
        if last is not None and running < capacity and hi > last:
            idle += hi - max(last, lo)
        return idle

    count, shorts, longest = 0, 0, 0.0
    for tenant, node, arrival, start, _ in tasks:
        if tenant != "short":
            continue
        shorts += 1
        if nodes == 1:
            # another of its node's processes idle: fewer than all of them busy
            idle = idle_stretches([node], arrival, start, processes)
        else:
            others = [n for n in names if n != node]
            idle = idle_stretches(others, arrival, start, processes * len(others))
        if idle >= STUCK:
            count += 1
            longest = max(longest, start - arrival)
    return count, shorts, longest


if __name__ == "__main__":
    c, n, w = stuck(read(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
    print(f"{c} {n} {w:.3f}")

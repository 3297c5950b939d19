"""The record of one deployment: the tasks' own lines (RAW) joined with the
instant their node reserved them (RAW.received), warm-up tasks (id -1)
left out, in arrival order.

    python3 record.py RAW > record.csv
"""
import csv
import sys

raw = sys.argv[1]
received = {}
with open(raw + ".received") as f:
    for job, at in csv.reader(f):
        received[job] = at
rows = []
with open(raw) as f:
    for r in csv.reader(f):
        if r[0] != "-1":
            rows.append(r[:5] + [received.get(r[0], "")] + r[5:])
rows.sort(key=lambda r: (float(r[2]), int(r[0])))
out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["id", "tenant", "created_at", "started_at", "finished_at", "received_at", "node", "pid"])
out.writerows(rows)

"""Judges one Celery deployment: prints every figure and exits 1 when one
is past its tolerance (docs/validation.md, Celery).

    python3 judge.py KIND SCENARIO RECORD DIR    # DIR holds `calibrate --seeds 20`'s calibration/

1. Waits: every tenant's recorded mean and p99 wait lies in the band of
   the 20 simulated seeds (band.csv), within max(REL x recorded, FLOOR).
2. Reservation: the mean time from a task's reservation by its node to its
   start (the record's received_at; fairsim's pools.csv held_mean), within
   max(REL x recorded, FLOOR). Under acks-late both must stay under
   HELD_NONE: no task waits on a node behind a busy process.
3. Stuck short tasks (stuck.py): under two-nodes and fcfs the record must
   show the effect (at least STUCK_SHARE of the short tasks) and fairsim
   must count as many within max(STUCK_REL x recorded, STUCK_FLOOR), while
   plain fifo on the same processes (label `plain`) counts none.
"""
import csv
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stuck  # noqa: E402

REL, FLOOR = 0.10, 0.050
HELD_NONE = 0.020
STUCK_SHARE, STUCK_REL, STUCK_FLOOR = 0.05, 0.40, 5
SHAPE = {"two-nodes": (2, 2), "fcfs": (1, 4), "acks-late": (2, 2)}

kind, scenario, record, folder = sys.argv[1:5]
nodes, procs = SHAPE[kind]
fairsim = os.environ["FAIRSIM"]
bad = []


def check(what, rec, err, allowed):
    ratio = abs(err) / allowed
    line = "%-36s recorded %9.1f, error %+8.1f (%.2f of the allowed)" % (what, rec, err, ratio)
    print(line)
    if ratio > 1.0:
        bad.append(line)


# 1. waits against the band of the seeds
with open(os.path.join(folder, "calibration", "band.csv")) as f:
    for r in csv.DictReader(f):
        if r["group"] != "tenant":
            continue
        rec = float(r["recorded"])
        check("%s %s (ms, band)" % (r["name"], r["metric"]), rec * 1000, float(r["outside_by"]) * 1000,
              max(REL * rec, FLOOR) * 1000)

# the model and plain fifo at the scenario's seed, for their logs
sim = os.path.join(folder, "sim")
subprocess.run([fairsim, "run", scenario, "--trace", record, "--out", sim, "--no-plots", "--quiet", "--force"],
               check=True)

# 2. time held reserved
with open(record) as f:
    rows = [r for r in csv.DictReader(f)]
held_rec = sum(float(r["started_at"]) - float(r["received_at"]) for r in rows) / len(rows)
with open(os.path.join(sim, kind, "pools.csv")) as f:
    pools = list(csv.DictReader(f))
held_sim = sum(float(p["held_mean"] or 0) * int(p["started"]) for p in pools) / sum(int(p["started"]) for p in pools)
check("mean held reserved (ms)", held_rec * 1000, (held_sim - held_rec) * 1000, max(REL * held_rec, FLOOR) * 1000)
if kind == "acks-late":
    for who, v in (("recorded", held_rec), ("fairsim", held_sim)):
        print("%s: a task waits %.1f ms on its node after its reservation (at most %.0f)" % (who, v * 1000, HELD_NONE * 1000))
        if v > HELD_NONE:
            bad.append("%s holds tasks reserved behind busy processes: %.3f s" % (who, v))

# 3. short tasks stuck with a process idle that could have run them
got = {}
for who, path in (("recorded", record), ("fairsim", os.path.join(sim, kind, "jobs.csv")),
                  ("plain fifo", os.path.join(sim, "plain", "jobs.csv"))):
    got[who] = stuck.stuck(stuck.read(path), nodes, procs)
    print("%-10s %d of %d short tasks stuck %.2f s or more with a process idle (longest wait %.3f s)"
          % (who, got[who][0], got[who][1], stuck.STUCK, got[who][2]))
if kind != "acks-late":
    rec, n = got["recorded"][0], got["recorded"][1]
    if rec < STUCK_SHARE * n:
        bad.append("the record shows %d stuck short tasks, under %.0f%% of %d" % (rec, STUCK_SHARE * 100, n))
    check("stuck short tasks", rec, got["fairsim"][0] - rec, max(STUCK_REL * rec, STUCK_FLOOR))
    if got["plain fifo"][0] != 0:
        bad.append("plain fifo left %d short tasks stuck" % got["plain fifo"][0])

if bad:
    print("groundtruth celery %s: %d figures past the tolerance:" % (kind, len(bad)), file=sys.stderr)
    for line in bad:
        print("  " + line, file=sys.stderr)
    sys.exit(1)
print("groundtruth celery %s: every figure within its tolerance" % kind)

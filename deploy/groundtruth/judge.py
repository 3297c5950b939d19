"""Judges a calibration folder of the PostgreSQL or RQ run: every tenant's
mean and p99 wait within max(RELATIVE of the recorded figure, FLOOR) (the
classes' figures are printed, not judged). Exits 1 when one is past it.

    python3 judge.py NAME RELATIVE FLOOR_S DIR/calibration   # postgres 0.10 0.040, rq 0.05 0.020

The floor is for short waits, where the processor's own timing is the
whole difference: a job of the first queue or priority waits only for a
worker to end its job or its poll, and the workers' scheduling on a
shared CPU, which fairsim does not model, decides by how much (as for
Sidekiq, assert.rb: 20 ms). The PostgreSQL run's floor is 40 ms: its
tenants' p99 (160-250 ms) are the 4th or 5th largest wait of some 400
jobs, bulk rows that wait for the flood's refusal sweep and a free
worker, and such a row waits a whole bulk job (100-300 ms) more or less
when a claim comes a millisecond earlier or later; the workers' costs per
claim, refusal and finish vary by a third between runs on a loaded
machine, and 40 ms is some 20 of them (docs/validation.md).
"""
import csv
import os
import sys

name, RELATIVE, FLOOR, folder = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
worst, bad = (0.0, None), []
for group, judged in (("tenant", True), ("class", False)):
    for r in csv.DictReader(open(os.path.join(folder, f"per_{group}.csv"))):
        for m in ("mean", "p99"):
            rec, sim = float(r[f"recorded_{m}_wait"]), float(r[f"simulated_{m}_wait"])
            ratio = abs(sim - rec) / max(RELATIVE * rec, FLOOR)
            line = f"{group} {r[group]} {m}: recorded {rec * 1000:9.1f} ms, error {(sim - rec) * 1000:+8.1f} ms ({(sim - rec) / rec * 100 if rec else 0:+.1f}%, {ratio:.2f} of the allowed)"
            print(line + ("" if judged else "  (not judged)"))
            if judged:
                worst = max(worst, (ratio, f"{group} {r[group]} {m}"))
                if ratio > 1:
                    bad.append(line)
print(f"worst: {worst[1]} at {worst[0]:.2f} of the allowed error")
if bad:
    print(f"groundtruth {name}: {len(bad)} figures past the tolerance:", file=sys.stderr)
    for line in bad:
        print("  " + line, file=sys.stderr)
    sys.exit(1)

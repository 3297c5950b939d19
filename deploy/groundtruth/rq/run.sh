#!/usr/bin/env bash
# The ground-truth suite's RQ deployment: how close is fairsim to a real RQ?
# Runs a recorded workload (workload.py: 635 jobs over 40 s, a 150-job low
# flood by `flood`) through 4 `rq worker high default low` processes
# against a private redis-server; each job records its arrival, start and
# finish from inside its work horse (gtjobs.py). RQ's cost per job (the
# fork of a work horse among it) is measured from the record (overhead.py)
# and given to rq.yaml as `costs: {claim}`; `fairsim calibrate` must put
# every tenant's mean and p99 wait within max(5%, 20 ms) of the record
# (../judge.py, docs/validation.md).
#
#   deploy/groundtruth/rq/run.sh
#
# Installs redis-server and python3-rq (Debian's RQ) with apt-get when
# missing (as root). Redis listens on a free 127.0.0.1 port, its files in a
# new temporary folder; redis and the workers are stopped by pid on exit.
# FAIRSIM, GROUNDTRUTH_KEEP as in ../run.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
started=$(date +%s)
say() { echo "groundtruth rq: $*" >&2; }
# Debian's python3, which python3-rq installs into
py=/usr/bin/python3
[ -x "$py" ] || py=python3

. "$root/deploy/find-fairsim.sh"
if ! command -v redis-server >/dev/null || ! "$py" -c 'import rq' 2>/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    say "redis-server or python3-rq missing; run as root once to apt-get install redis-server python3-rq"
    exit 1
  fi
  say "installing redis-server and python3-rq"
  DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server python3-rq >&2
fi

free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  say "no free port found"; exit 1
}

work=$(mktemp -d /tmp/fairsim-groundtruth-rq.XXXXXX)
redis_pid=""
workers=()
cleanup() {
  local status=$?
  # the workers first: each would log a lost connection
  for p in "${workers[@]}" $redis_pid; do
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  if [ -n "${GROUNDTRUTH_KEEP:-}" ]; then mkdir -p "$GROUNDTRUTH_KEEP" && cp -r "$work"/. "$GROUNDTRUTH_KEEP"/; fi
  rm -rf "$work"
  say "finished in $(($(date +%s) - started)) s, exit $status"
  exit "$status"
}
trap cleanup EXIT

port=$(free_port)
redis-server --port "$port" --bind 127.0.0.1 --dir "$work" --save "" --appendonly no \
  --logfile "$work/redis.log" &
redis_pid=$!
url="redis://127.0.0.1:$port/0"
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
"$py" "$here/workload.py" >"$work/workload.csv"
jobs=$(($(wc -l <"$work/workload.csv") - 1))
export GROUNDTRUTH_CSV="$work/raw.csv"
: >"$GROUNDTRUTH_CSV"
rq_version=$("$py" -c 'import rq; print(rq.__version__)')
say "RQ $rq_version, redis on 127.0.0.1:$port, $jobs jobs, folder $work"
for i in 1 2 3 4; do
  PYTHONPATH="$here" "$py" -m rq.cli worker --url "$url" --name "w$i" --quiet high default low \
    >"$work/worker$i.log" 2>&1 &
  workers+=($!)
done
# a job enqueued before the workers listen would wait for their start
for _ in $(seq 300); do
  [ "$(redis-cli -p "$port" scard rq:workers)" -ge 4 ] && break
  sleep 0.1
done
[ "$(redis-cli -p "$port" scard rq:workers)" -ge 4 ] || { say "the workers did not start:"; tail -20 "$work/worker1.log" >&2; exit 1; }
sleep 1
"$py" "$here/enqueue.py" "$url" "$work/workload.csv"
for _ in $(seq 600); do
  [ "$(wc -l <"$GROUNDTRUTH_CSV")" -ge "$jobs" ] && break
  sleep 0.2
done
done_jobs=$(wc -l <"$GROUNDTRUTH_CSV")
if [ "$done_jobs" -ne "$jobs" ]; then
  say "$done_jobs of $jobs jobs recorded"; exit 1
fi
{ echo "id,tenant,queue,created_at,started_at,finished_at,worker"; sort -t, -k4,4g -k1,1n "$GROUNDTRUTH_CSV"; } >"$work/record.csv"
claim_us=$("$py" "$here/overhead.py" "$work/record.csv")
say "RQ's cost per job (mean gap between a worker's jobs) ${claim_us} us"
sed "s/^costs: .*/costs: {claim: ${claim_us}us}/" "$here/rq.yaml" >"$work/rq.yaml"
"$FAIRSIM" calibrate "$work/rq.yaml" --trace "$work/record.csv" --policy rq --out "$work/rq" --quiet
say "judging $work/rq/calibration"
"$py" "$here/../judge.py" rq 0.05 0.020 "$work/rq/calibration"

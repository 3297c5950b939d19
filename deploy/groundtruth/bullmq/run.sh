#!/usr/bin/env bash
# The ground-truth suite's BullMQ deployment: how close is fairsim to a real
# BullMQ queue limiter? Runs a recorded workload (workload.js: 487 jobs
# over 30 s, a 150-job bulk flood by `flood`) through one BullMQ Worker of
# concurrency 8 with the queue limiter {max: 20, duration: 1000} against a
# private redis-server; each job records its arrival, its move to active
# and its start and finish from inside the processor (worker.js). BullMQ's
# cost from the move to active to the processor's start is measured from
# the record (claim.js) and given to bullmq.yaml, whose default pool has
# the same `limiter:`; `fairsim calibrate` must put every tenant's mean
# and p99 wait within max(5%, 20 ms) of the record (../judge.py).
#
#   deploy/groundtruth/bullmq/run.sh
#
# Installs redis-server, nodejs and npm with apt-get when missing (as
# root), and BullMQ (the version package.json pins) with npm into the
# temporary folder. Redis listens on a free 127.0.0.1 port, its files in
# that folder; redis and the worker are stopped by pid on exit. FAIRSIM,
# GROUNDTRUTH_KEEP as in ../run.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
started=$(date +%s)
say() { echo "groundtruth bullmq: $*" >&2; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3

. "$root/deploy/find-fairsim.sh"
if ! command -v redis-server >/dev/null || ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    say "redis-server, node or npm missing; run as root once to apt-get install redis-server nodejs npm"
    exit 1
  fi
  say "installing redis-server, nodejs and npm"
  DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server nodejs npm >&2
fi

free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  say "no free port found"; exit 1
}

work=$(mktemp -d /tmp/fairsim-groundtruth-bullmq.XXXXXX)
redis_pid=""
worker_pid=""
cleanup() {
  local status=$?
  for p in $worker_pid $redis_pid; do
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  if [ -n "${GROUNDTRUTH_KEEP:-}" ]; then
    mkdir -p "$GROUNDTRUTH_KEEP" && cp -r "$work"/. "$GROUNDTRUTH_KEEP"/ 2>/dev/null || true
  fi
  rm -rf "$work"
  say "finished in $(($(date +%s) - started)) s, exit $status"
  exit "$status"
}
trap cleanup EXIT

cp "$here/package.json" "$work/"
(cd "$work" && npm install --no-audit --no-fund --loglevel=error >"$work/npm.log" 2>&1) ||
  { say "npm install failed:"; tail -20 "$work/npm.log" >&2; exit 1; }
export NODE_PATH="$work/node_modules"
port=$(free_port)
redis-server --port "$port" --bind 127.0.0.1 --dir "$work" --save "" --appendonly no \
  --maxmemory-policy noeviction --logfile "$work/redis.log" &
redis_pid=$!
export REDIS_PORT=$port
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
node "$here/workload.js" >"$work/workload.csv"
jobs=$(($(wc -l <"$work/workload.csv") - 1))
export GROUNDTRUTH_CSV="$work/raw.csv"
: >"$GROUNDTRUTH_CSV"
version=$(node -e "console.log(require('bullmq/package.json').version)")
say "BullMQ $version, node $(node --version), redis on 127.0.0.1:$port, $jobs jobs, folder $work"
node "$here/worker.js" >"$work/worker.log" 2>&1 &
worker_pid=$!
for _ in $(seq 100); do
  [ -e "$GROUNDTRUTH_CSV.ready" ] && break
  sleep 0.1
done
[ -e "$GROUNDTRUTH_CSV.ready" ] || { say "the worker did not start:"; tail -20 "$work/worker.log" >&2; exit 1; }
sleep 1
node "$here/enqueue.js" "$work/workload.csv"
for _ in $(seq 600); do
  [ "$(wc -l <"$GROUNDTRUTH_CSV")" -ge "$jobs" ] && break
  sleep 0.2
done
done_jobs=$(wc -l <"$GROUNDTRUTH_CSV")
if [ "$done_jobs" -ne "$jobs" ]; then
  say "$done_jobs of $jobs jobs recorded"; exit 1
fi
{ echo "id,tenant,queue,created_at,started_at,finished_at,processed_on"; sort -t, -k4,4g -k1,1n "$GROUNDTRUTH_CSV"; } >"$work/record.csv"
read -r claim_us window_us < <(node "$here/claim.js" "$work/record.csv")
say "measured: ${claim_us} us from a job's move to active to its start; the limiter's window lived as ${window_us} us"
sed -e "s/^costs: .*/costs: {claim: ${claim_us}us}/" -e "s/^limiter: .*/limiter: {max: 20, duration: ${window_us}us}/" \
  "$here/bullmq.yaml" >"$work/bullmq.yaml"
"$FAIRSIM" calibrate "$work/bullmq.yaml" --trace "$work/record.csv" --policy bullmq --out "$work/bullmq" --quiet
say "judging $work/bullmq/calibration"
"$py" "$here/../judge.py" bullmq 0.05 0.020 "$work/bullmq/calibration"

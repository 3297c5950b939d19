#!/usr/bin/env bash
# The ground-truth suite: how close is fairsim to a real Sidekiq?
# Runs one recorded workload (workload.rb: 2,772 jobs of 20-200 ms over
# 50 s, with a 1,200-job bulk flood by one tenant) through a real Sidekiq 6
# process of 8 threads against a private redis-server, once per deployment,
# records each job's arrival, start and finish from inside the job, and
# judges `fairsim calibrate` of the matching scenario against the record
# (assert.rb, docs/validation.md):
#
#   strict    sidekiq -c 8 -q critical -q default -q bulk        calibrate, every mean and p99 within tolerance
#   weighted  sidekiq -c 8 -q critical,6 -q default,3 -q bulk,1  calibrate --seeds 20, every p99 inside the band
#
#   deploy/groundtruth/run.sh              # both, then Celery (celery/run.sh); exit 0 when every figure holds
#   deploy/groundtruth/run.sh weighted     # one of them, no Celery
#
# Installs redis-server and ruby-sidekiq with apt-get when missing (as
# root). Redis listens on a free 127.0.0.1 port, its files in a new
# temporary folder; every process it starts is stopped by its pid on exit.
# The binary is FAIRSIM when set, otherwise the one `cargo build --release`
# reports, wherever cargo puts it (CARGO_TARGET_DIR, build.target-dir).
# Set GROUNDTRUTH_KEEP=DIR to keep the records and calibrations there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
started=$(date +%s)
say() { echo "groundtruth: $*" >&2; }
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(strict weighted)

. "$root/deploy/find-fairsim.sh"
if ! command -v redis-server >/dev/null || ! command -v sidekiq >/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    say "redis-server or sidekiq missing; run as root once to apt-get install redis-server ruby-sidekiq"
    exit 1
  fi
  say "installing redis-server and ruby-sidekiq"
  DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server ruby-sidekiq >&2
fi

free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  say "no free port found"; exit 1
}

work=$(mktemp -d /tmp/fairsim-groundtruth.XXXXXX)
redis_pid=""
sidekiq_pid=""
cleanup() {
  local status=$?
  # Sidekiq first: it would log a lost connection for every thread
  for p in $sidekiq_pid $redis_pid; do
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
export REDIS_URL="redis://127.0.0.1:$port/0"
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
ruby "$here/workload.rb" >"$work/workload.csv"
jobs=$(($(wc -l <"$work/workload.csv") - 1))
say "redis on 127.0.0.1:$port, $jobs jobs per deployment, folder $work"

status=0
for kind in "${kinds[@]}"; do
  case $kind in
    strict) queues=(-q critical -q default -q bulk) ;;
    weighted) queues=(-q critical,6 -q default,3 -q bulk,1) ;;
    *) say "unknown deployment '$kind': give strict and/or weighted"; exit 2 ;;
  esac
  record="$work/$kind-record.csv"
  export GROUNDTRUTH_CSV="$work/$kind-raw.csv"
  : >"$GROUNDTRUTH_CSV"
  redis-cli -p "$port" flushall >/dev/null
  sidekiq -r "$here/sleep_job.rb" -c 8 "${queues[@]}" -t 5 >"$work/$kind-sidekiq.log" 2>&1 &
  sidekiq_pid=$!
  # a job pushed before the threads poll would wait for the boot, not the
  # queue: wait for the process's first heartbeat, then a second for its
  # threads to reach their first fetch
  for _ in $(seq 300); do
    [ "$(redis-cli -p "$port" scard processes)" -ge 1 ] && break
    sleep 0.1
  done
  [ "$(redis-cli -p "$port" scard processes)" -ge 1 ] || { say "sidekiq did not start:"; tail -20 "$work/$kind-sidekiq.log" >&2; exit 1; }
  sleep 1
  say "$kind: sidekiq pid $sidekiq_pid ${queues[*]}, enqueueing"
  ruby "$here/enqueue.rb" "$work/workload.csv"
  for _ in $(seq 1200); do
    [ "$(wc -l <"$GROUNDTRUTH_CSV")" -ge "$jobs" ] && break
    sleep 0.1
  done
  kill "$sidekiq_pid"
  wait "$sidekiq_pid" 2>/dev/null || true
  sidekiq_pid=""
  done_jobs=$(wc -l <"$GROUNDTRUTH_CSV")
  if [ "$done_jobs" -ne "$jobs" ]; then
    say "$kind: $done_jobs of $jobs jobs recorded"; exit 1
  fi
  { echo "id,tenant,queue,created_at,started_at,finished_at,thread"; sort -t, -k4,4g -k1,1n "$GROUNDTRUTH_CSV"; } >"$record"
  # the scenario gets this run's own cost per job, measured from the record
  claim_us=$(ruby "$here/overhead.rb" "$record")
  sed "s/^costs: .*/costs: {claim: ${claim_us}us}/" "$here/$kind.yaml" >"$work/$kind.yaml"
  seeds=()
  [ "$kind" = weighted ] && seeds=(--seeds 20)
  say "$kind: Sidekiq's cost per job (mean gap between a thread's jobs) ${claim_us} us"
  "$FAIRSIM" calibrate "$work/$kind.yaml" --trace "$record" --policy "$kind" --out "$work/$kind" "${seeds[@]}" --quiet
  say "$kind: judging $work/$kind/calibration"
  ruby "$here/assert.rb" "$kind" "$work/$kind/calibration" || status=1
done
# Celery, with its own files and broker (deploy/groundtruth/celery/run.sh)
if [ $# -eq 0 ]; then
  FAIRSIM="$FAIRSIM" "$here/celery/run.sh" || status=1
fi
exit "$status"

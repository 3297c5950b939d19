#!/usr/bin/env bash
# The ground-truth suite's Celery part: how close is fairsim to real
# Celery worker nodes that reserve tasks ahead? Runs a mix of short and
# long tasks (workload.py) through Celery (Debian's python3-celery 5.2,
# prefork pool, a private redis-server as broker), once per deployment,
# records each task's arrival, start, finish, node and process from inside
# the task, and judges fairsim's model of the same deployment against the
# record (judge.py, docs/validation.md):
#
#   two-nodes  2 nodes x 2 processes, worker_prefetch_multiplier 4, fair strategy
#   fcfs       1 node x 4 processes, prefetch 4, the fcfs write strategy
#   acks-late  2 nodes x 2 processes, prefetch 1, task_acks_late
#
#   deploy/groundtruth/celery/run.sh                 # all three; exit 0 when every figure holds
#   deploy/groundtruth/celery/run.sh fcfs            # one of them
#
# Installs redis-server and python3-celery with apt-get when missing (as
# root). Redis listens on a free 127.0.0.1 port, its files in a new
# temporary folder; every node is its own process group, stopped by its
# pid on exit. The binary is FAIRSIM when set, else the one cargo builds.
# GROUNDTRUTH_KEEP=DIR keeps the records and calibrations there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
started=$(date +%s)
say() { echo "groundtruth celery: $*" >&2; }
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(two-nodes fcfs acks-late)
# Debian's interpreter, which python3-celery installs into (a python3
# earlier on PATH, e.g. a pyenv one, would not see it)
py=/usr/bin/python3

. "$root/deploy/find-fairsim.sh"
if ! command -v redis-server >/dev/null || ! "$py" -c "import celery" 2>/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    say "redis-server or python3-celery missing; run as root once to apt-get install redis-server python3-celery"
    exit 1
  fi
  say "installing redis-server and python3-celery"
  DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server python3-celery >&2
fi
say "celery $("$py" -c 'import celery; print(celery.__version__)'), $(redis-server --version | cut -d' ' -f3)"

free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  say "no free port found"; exit 1
}

work=$(mktemp -d /tmp/fairsim-groundtruth-celery.XXXXXX)
redis_pid=""
nodes=()
stop_nodes() {
  # each node leads its own process group (setsid): its pool's children go with it
  for p in "${nodes[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
  for p in "${nodes[@]}"; do wait "$p" 2>/dev/null || true; done
  nodes=()
}
cleanup() {
  local status=$?
  stop_nodes
  if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
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
export CELERY_BROKER_URL="redis://127.0.0.1:$port/0"
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
say "redis on 127.0.0.1:$port, folder $work"

status=0
for kind in "${kinds[@]}"; do
  # nodes, processes per node, prefetch multiplier, strategy, acks_late
  case $kind in
    two-nodes) set -- 2 2 4 fair 0 ;;
    fcfs) set -- 1 4 4 fcfs 0 ;;
    acks-late) set -- 2 2 1 fair 1 ;;
    *) say "unknown deployment '$kind': give two-nodes, fcfs and/or acks-late"; exit 2 ;;
  esac
  n_nodes=$1 procs=$2 multiplier=$3 strategy=$4 acks=$5
  "$py" "$here/workload.py" "$kind" >"$work/$kind-workload.csv"
  jobs=$(($(wc -l <"$work/$kind-workload.csv") - 1))
  export GROUNDTRUTH_CSV="$work/$kind-raw.csv"
  : >"$GROUNDTRUTH_CSV"
  : >"$GROUNDTRUTH_CSV.received"
  redis-cli -p "$port" flushall >/dev/null
  for i in $(seq "$n_nodes"); do
    setsid "$py" "$here/node.py" "n$i" "$procs" "$multiplier" "$strategy" "$acks" >"$work/$kind-n$i.log" 2>&1 &
    nodes+=($!)
  done
  "$py" "$here/ping.py" "$n_nodes" || { say "$kind: the nodes did not answer:"; tail -20 "$work/$kind"-n*.log >&2; exit 1; }
  warm=$((n_nodes * procs * 2))
  "$py" "$here/warm.py" "$warm"
  for _ in $(seq 100); do
    [ "$(wc -l <"$GROUNDTRUTH_CSV")" -ge "$warm" ] && break
    sleep 0.1
  done
  # a node that acknowledged its last warm-up task while full asks its
  # broker again only at its next event (refetch in the scenarios): a ping
  # is one, so every node waits on the queue when the workload starts
  "$py" "$here/ping.py" "$n_nodes"
  say "$kind: $n_nodes node(s) of $procs processes, prefetch $multiplier, $strategy, acks_late $acks; $jobs tasks"
  "$py" "$here/enqueue.py" "$work/$kind-workload.csv"
  for _ in $(seq 600); do
    [ "$(wc -l <"$GROUNDTRUTH_CSV")" -ge $((jobs + warm)) ] && break
    sleep 0.1
  done
  stop_nodes
  record="$work/$kind-record.csv"
  "$py" "$here/record.py" "$GROUNDTRUTH_CSV" >"$record"
  done_jobs=$(($(wc -l <"$record") - 1))
  if [ "$done_jobs" -ne "$jobs" ]; then
    say "$kind: $done_jobs of $jobs tasks recorded"; exit 1
  fi
  # the scenario gets this run's own cost per task, measured from the
  # record; under acks_late a process's next task is not on the node yet
  # when it ends (the gap is mostly the node's wait for its next event,
  # which refetch models), so acks-late takes the two-nodes figure
  if [ "$kind" != acks-late ]; then
    claim_us=$("$py" "$here/overhead.py" "$record")
    say "$kind: Celery's cost per task (mean gap between a process's tasks) ${claim_us} us"
    [ "$kind" = two-nodes ] && nodes_claim_us=$claim_us
  else
    claim_us=${nodes_claim_us:-1000}
  fi
  sed "s/^costs: .*/costs: {claim: ${claim_us}us}/" "$here/$kind.yaml" >"$work/$kind.yaml"
  "$FAIRSIM" calibrate "$work/$kind.yaml" --trace "$record" --policy "$kind" --out "$work/$kind" --seeds 20 --quiet
  FAIRSIM="$FAIRSIM" "$py" "$here/judge.py" "$kind" "$work/$kind.yaml" "$record" "$work/$kind" || status=1
done
exit "$status"

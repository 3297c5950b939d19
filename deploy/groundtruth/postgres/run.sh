#!/usr/bin/env bash
# The ground-truth suite's PostgreSQL queue: how close is fairsim to a real
# SKIP LOCKED queue with a tenant cap? Runs a recorded workload
# (workload.py: 1,365 jobs over 50 s, a 120-row bulk flood by `flood`,
# capped at 3 running jobs) through 8 workers (worker.py) against a
# private PostgreSQL 15, exports the jobs table, measures the claim,
# refusal and finish costs and the idle poll from the workers' logs
# (costs.py), and judges `fairsim calibrate` of postgres.yaml with those
# costs against the record: every tenant's mean and p99 wait within
# max(10%, 40 ms) (../judge.py, docs/validation.md).
#
#   deploy/groundtruth/postgres/run.sh
#
# Installs postgresql and python3-psycopg2 with apt-get when missing (as
# root). The server runs as `nobody` when started by root (PostgreSQL
# refuses root), on a free 127.0.0.1 port, its data and unix socket in a
# new temporary folder; the server and every worker are stopped by pid on
# exit. FAIRSIM, GROUNDTRUTH_KEEP as in ../run.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
started=$(date +%s)
say() { echo "groundtruth postgres: $*" >&2; }
# Debian's python3, which python3-psycopg2 installs into (a python3 earlier
# on PATH, e.g. pyenv's, would not see it)
py=/usr/bin/python3
[ -x "$py" ] || py=python3

. "$root/deploy/find-fairsim.sh"
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
if [ -z "$(pg_bin)" ] || ! "$py" -c 'import psycopg2' 2>/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    say "postgresql or python3-psycopg2 missing; run as root once to apt-get install postgresql python3-psycopg2"
    exit 1
  fi
  say "installing postgresql and python3-psycopg2"
  DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql python3-psycopg2 >&2
fi
bin=$(pg_bin)

free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  say "no free port found"; exit 1
}

work=$(mktemp -d /tmp/fairsim-groundtruth-pg.XXXXXX)
pg_pid=""
workers=()
cleanup() {
  local status=$?
  for p in "${workers[@]}"; do
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  # SIGINT: PostgreSQL's fast shutdown (disconnects any client left)
  if [ -n "$pg_pid" ]; then
    kill -INT "$pg_pid" 2>/dev/null || true
    wait "$pg_pid" 2>/dev/null || true
  fi
  if [ -n "${GROUNDTRUTH_KEEP:-}" ]; then
    mkdir -p "$GROUNDTRUTH_KEEP" && cp -r "$work"/. "$GROUNDTRUTH_KEEP"/ 2>/dev/null || true
  fi
  rm -rf "$work"
  say "finished in $(($(date +%s) - started)) s, exit $status"
  exit "$status"
}
trap cleanup EXIT

# as root the server runs as nobody, in a folder nobody owns
as=()
mkdir -p "$work/pg"
if [ "$(id -u)" = 0 ]; then
  chmod 755 "$work"
  chown nobody "$work/pg"
  as=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
fi
"${as[@]}" "$bin/initdb" -D "$work/pg/data" -U postgres --auth=trust >"$work/initdb.log" 2>&1 ||
  { say "initdb failed:"; tail -20 "$work/initdb.log" >&2; exit 1; }
port=$(free_port)
# durability off: a commit costs CPU time, not this machine's disk
"${as[@]}" "$bin/postgres" -D "$work/pg/data" -p "$port" -k "$work/pg" -c listen_addresses=127.0.0.1 \
  -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=40 \
  >"$work/postgres.log" 2>&1 &
pg_pid=$!
dsn="host=$work/pg port=$port dbname=postgres user=postgres"
for _ in $(seq 100); do
  "$py" -c "import psycopg2, sys; psycopg2.connect(sys.argv[1]).close()" "$dsn" 2>/dev/null && break
  sleep 0.1
done
"$py" - "$dsn" "$here/schema.sql" <<'PY'
import sys, psycopg2
c = psycopg2.connect(sys.argv[1]); c.autocommit = True
c.cursor().execute(open(sys.argv[2]).read())
# every tenant has a row (a missing one would refuse every claim); flood is capped at 3
c.cursor().execute("INSERT INTO tenant_runtime (tenant, max_active) VALUES "
                   "('t1', 1000000), ('t2', 1000000), ('t3', 1000000), ('flood', 3)")
PY
"$py" "$here/workload.py" >"$work/workload.csv"
jobs=$(($(wc -l <"$work/workload.csv") - 1))
say "postgres $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (pid $pg_pid), $jobs jobs, folder $work"

for i in $(seq 0 7); do
  "$py" "$here/worker.py" "$dsn" "$i" "$work/worker$i.log" 0.5 0.010 &
  workers+=($!)
done
# the workers' first claims find the table empty: the enqueuer starts after them
sleep 1
"$py" "$here/enqueue.py" "$dsn" "$work/workload.csv"
count_done() { "$py" -c "import psycopg2, sys; c = psycopg2.connect(sys.argv[1]).cursor(); c.execute(\"SELECT count(*) FROM jobs WHERE state = 'done'\"); print(c.fetchone()[0])" "$dsn"; }
for _ in $(seq 600); do
  [ "$(count_done)" -ge "$jobs" ] && break
  sleep 0.2
done
for p in "${workers[@]}"; do kill "$p" 2>/dev/null || true; done
for p in "${workers[@]}"; do wait "$p" 2>/dev/null || true; done
workers=()
done_jobs=$(count_done)
if [ "$done_jobs" -ne "$jobs" ]; then
  say "$done_jobs of $jobs jobs done"; exit 1
fi
read -r claim refusal finish poll refusals < <("$py" "$here/costs.py" "$dsn" "$work" "$work/record.csv")
say "measured: claim ${claim} us, refusal ${refusal} us (${refusals} refusals), finish ${finish} us, idle poll ${poll} us"
sed "s/^costs: .*/costs: {claim: ${claim}us, refusal: ${refusal}us, finish: ${finish}us, poll_interval: ${poll}us}/" \
  "$here/postgres.yaml" >"$work/postgres.yaml"
status=0
for label in skip-locked refuse-first; do
  "$FAIRSIM" calibrate "$work/postgres.yaml" --trace "$work/record.csv" --policy "$label" --out "$work/$label" --quiet
  # the simulated refusals, from the pool's overhead (every job's claim and
  # finish, the rest refusals): the same run as calibrate's, with pools.csv
  "$FAIRSIM" run "$work/postgres.yaml" --trace "$work/record.csv" --policy "$label" --out "$work/run-$label" \
    --no-plots --logs summary --quiet
  "$py" - "$work/run-$label/$label/pools.csv" "$claim" "$finish" "$refusal" "$label" <<'PY'
import csv, sys
p = next(csv.DictReader(open(sys.argv[1])))
claim, finish, refusal = (int(x) / 1e6 for x in sys.argv[2:5])
refused = (float(p["overhead"]) - int(p["started"]) * (claim + finish)) / refusal if refusal else 0
print(f"groundtruth postgres: {sys.argv[5]}: about {refused:.0f} refusals simulated", file=sys.stderr)
PY
  if [ "$label" = skip-locked ]; then
    say "judging $label (on_cap: {delay: 500ms, refuse: each})"
    "$py" "$here/../judge.py" postgres 0.10 0.040 "$work/$label/calibration" || status=1
  else
    say "for comparison, $label (on_cap: {delay: 500ms}, not judged):"
    "$py" "$here/../judge.py" postgres 0.10 0.040 "$work/$label/calibration" 2>/dev/null | tail -n 1 >&2 || true
  fi
done
exit "$status"

#!/usr/bin/env bash
# The Slurm test of `fairsim sweep --shard`: on this one machine,
# starts a private single-node Slurm (deploy/slurm/local-cluster.sh, on
# free ports of its own and a new temporary folder, so it cannot meet a
# cluster someone else runs), submits a small sweep with the shipped
# deploy/slurm/submit.sh (a 4-task array of sweep.sbatch and a dependent
# merge job), waits at most FAIRSIM_SLURM_TIMEOUT seconds (default 180)
# for them, runs the same sweep locally, and compares the two folders byte
# for byte (diff -r). The daemons it started are stopped by their pids on every exit.
#
#   deploy/slurm/test-slurm.sh          # exit 0: merged == local
#
# Needs root, or sudo without a password (the daemons run as root;
# slurm-wlm and munge are installed with apt-get when missing). About 11 s
# on a 2-core machine once fairsim is built. The binary is FAIRSIM when set,
# otherwise the one `cargo build --release` reports, wherever cargo puts it
# (CARGO_TARGET_DIR, build.target-dir): it is built as the calling user,
# before the test becomes root.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
limit=${FAIRSIM_SLURM_TIMEOUT:-180}
started=$(date +%s)
say() { echo "test-slurm: $*" >&2; }

if [ "$(id -u)" != 0 ] && ! sudo -n true 2>/dev/null; then
  say "needs root: the test starts munged, slurmctld and slurmd (and may apt-get install slurm-wlm munge); run it as root or with sudo"
  exit 1
fi
. "$root/deploy/find-fairsim.sh"
export FAIRSIM
if [ "$(id -u)" != 0 ]; then
  exec sudo -n -E "$0" "$@"
fi
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  say "installing slurm-wlm and munge"
  DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >&2
fi

# two free TCP ports from a range the default cluster (16817/16818) does not use
free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  say "no free port found"; exit 1
}
export SLURMCTLD_PORT=${SLURMCTLD_PORT:-$(free_port)}
export SLURMD_PORT=${SLURMD_PORT:-$(free_port)}
[ "$SLURMD_PORT" != "$SLURMCTLD_PORT" ] || SLURMD_PORT=$((SLURMCTLD_PORT + 1))
# a test run inside someone's Slurm job must talk to its own cluster only
unset SLURM_JOB_ID SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT JOB_COMPLETION_INDEX

cluster=""
work=$(mktemp -d /tmp/fairsim-slurm-test.XXXXXX)
chmod 755 "$work"
cleanup() {
  local status=$?
  if [ -n "$cluster" ]; then
    # jobs first, so no fairsim outlives the daemons
    SLURM_CONF=$cluster/slurm.conf scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 25); do
      [ -z "$(SLURM_CONF=$cluster/slurm.conf squeue -h 2>/dev/null)" ] && break
      sleep 0.2
    done
    "$root/deploy/slurm/local-cluster.sh" stop "$cluster" || true
  fi
  rm -rf "$work"
  say "finished in $(($(date +%s) - started)) s, exit $status"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fairsim=$FAIRSIM

cluster=$("$root/deploy/slurm/local-cluster.sh" start)
export SLURM_CONF=$cluster/slurm.conf
sinfo -h -o %T | grep -q idle || { say "the node did not become idle"; cat "$cluster"/slurm*.log >&2; exit 1; }
say "cluster up in $cluster (ports $SLURMCTLD_PORT, $SLURMD_PORT)"
say "fairsim: $fairsim"

cat > "$work/two.yaml" <<'YAML'
name: two-tenants
seed: 11
workers: 2
workload:
  - {tenant: A, arrivals: {poisson: 0.9/s, count: 400}, service: {exponential: 1s}}
  - {tenant: B, arrivals: {poisson: 0.6/s, count: 400}, service: {exponential: 1s}}
policies: [fifo, drr]
YAML
# 2 points x 4 seeds = 8 (point, seed) pairs over 4 shards
sweep=(--seeds 4 --set workers=2,3)
base=$work/slurm
# one CPU a task: two tasks at once on a 2-core machine, and it runs on one core too
ids=$(FAIRSIM_SBATCH_ARGS=--cpus-per-task=1 FAIRSIM=$fairsim "$root/deploy/slurm/submit.sh" 4 "$base" "$work/two.yaml" "${sweep[@]}")
say "$ids"
merge=$(echo "$ids" | sed -n 's/.*merge job \([0-9]*\).*/\1/p')
# the limit is for the jobs: a build or an apt-get install before them does not count
deadline=$(($(date +%s) + limit))
while [ -n "$(squeue -h -j "$merge" 2>/dev/null)" ]; do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    say "timed out after $limit s; queue:"; squeue >&2 || true
    exit 1
  fi
  sleep 1
done
if [ ! -d "$base/result" ]; then
  say "no merged folder; the jobs' logs:"
  tail -n 20 "$base"/logs/* >&2 || true
  exit 1
fi

"$fairsim" sweep "$work/two.yaml" "${sweep[@]}" --quiet --out "$work/local"
diff -r "$work/local" "$base/result"
say "merged folder of 4 Slurm array tasks == local sweep ($(ls "$base/result" | tr '\n' ' '))"

#!/usr/bin/env bash
# A single-node Slurm on this machine, for testing fairsim's Slurm job
# arrays: installs Debian's slurm-wlm and munge when missing (needs root and
# apt-get), starts munged, slurmctld and slurmd with every file (key,
# sockets, state, logs, pid files) under one new temporary folder and
# ports 16817/16818 (SLURMCTLD_PORT and SLURMD_PORT choose others, so two
# such clusters do not meet), waits until the node is idle, and prints the
# folder. `stop DIR` stops the daemons it started (by their pid files) and
# removes the folder; a start that fails half-way stops what it started.
#
#   d=$(deploy/slurm/local-cluster.sh start)
#   SLURM_CONF=$d/slurm.conf sbatch --wait --array=0-3 --wrap 'echo $SLURM_ARRAY_TASK_ID'
#   deploy/slurm/local-cluster.sh stop "$d"
#
# Checked on Debian 12 (slurm-wlm 22.05): the apt install takes about 20 s,
# and a 4-task array ends within about 10 s.
set -euo pipefail
cmd=${1:-start}
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >&2
fi
if [ "$cmd" = stop ]; then
  d=$2
  pids=""
  for p in slurmd slurmctld munged; do
    if [ -f "$d/$p.pid" ]; then pids="$pids $(cat "$d/$p.pid")"; fi
  done
  # shellcheck disable=SC2086
  [ -n "$pids" ] && kill $pids 2>/dev/null || true
  for _ in $(seq 50); do
    alive=0
    for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  rm -rf "$d"
  exit 0
fi
d=$(mktemp -d /tmp/fairsim-slurm.XXXXXX)
trap 'status=$?; [ $status = 0 ] || "$0" stop "$d"; exit $status' EXIT
chmod 755 "$d"
mkdir -p "$d/ctld" "$d/spool" "$d/munge"
chmod 700 "$d/munge"
dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$d/munge/munge.key"
munged --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.sock" \
  --pid-file="$d/munged.pid" --log-file="$d/munged.log" --seed-file="$d/munge/seed"
host=$(hostname -s)
cpus=$(nproc)
cat > "$d/slurm.conf" <<CONF
ClusterName=fairsim
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${SLURMCTLD_PORT:-16817}
SlurmdPort=${SLURMD_PORT:-16818}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.sock
StateSaveLocation=$d/ctld
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SchedulerType=sched/backfill
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$d/slurm.conf
slurmctld -f "$d/slurm.conf"
slurmd -f "$d/slurm.conf"
for _ in $(seq 50); do
  sinfo -h -o %T 2>/dev/null | grep -q idle && break
  sleep 0.2
done
echo "$d"

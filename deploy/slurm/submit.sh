#!/usr/bin/env bash
# Submits a fairsim sweep to Slurm: the shards as a job array of TASKS tasks
# (deploy/slurm/sweep.sbatch) and a merge job that starts when every task
# has succeeded (afterok) and writes BASE/result, the folder a single
# `fairsim sweep` would write. Prints the two job ids.
#
#   deploy/slurm/submit.sh TASKS BASE SCENARIO [sweep options...]
#   deploy/slurm/submit.sh 8 /shared/sweeps/caps scenario.yaml --seeds 30 --set workers=8,16,32
#
# BASE must be on a file system every node sees, and new or empty of
# shard folders (a leftover shard-I of another sweep makes merge refuse).
# FAIRSIM: the fairsim binary (default: fairsim on PATH); an absolute path
# is best, as the jobs may start on other nodes. Extra sbatch options
# (partition, account, time) go in SBATCH_* variables, e.g. SBATCH_PARTITION,
# or for the array alone in FAIRSIM_SBATCH_ARGS, e.g. "--cpus-per-task=8".
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,15p' "$0" >&2
  exit 2
fi
tasks=$1 base=$2
shift 2
case $tasks in '' | *[!0-9]* | 0) echo "submit.sh: TASKS must be a whole number >= 1, not '$tasks'" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
fairsim=${FAIRSIM:-fairsim}
mkdir -p "$base/logs"
base=$(cd "$base" && pwd)
# shellcheck disable=SC2086 # FAIRSIM_SBATCH_ARGS is a list of options
array=$(BASE=$base FAIRSIM=$fairsim sbatch --parsable --array="0-$((tasks - 1))" ${FAIRSIM_SBATCH_ARGS:-} \
  --output="$base/logs/shard-%a.out" "$here/sweep.sbatch" "$@")
array=${array%%;*}
# the trailing / keeps the glob to folders; merge itself refuses gaps and strays
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --job-name=fairsim-merge --output="$base/logs/merge.out" \
  --wrap "$(printf '%q merge %q/shard-*/ --out %q/result' "$fairsim" "$base" "$base")")
merge=${merge%%;*}
echo "array job $array ($tasks shards), merge job $merge; results in $base/result"

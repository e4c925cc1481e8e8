#!/bin/bash
# Submits both pipelines with their dependencies: calibration shards then the merge; the study's
# workers then the collecting run. Run it from any folder: the jobs start there, like any sbatch.
#   EDGEQ_DATA     the shared folder (model, calib/, study.json; default ./data); the jobs' logs go
#                  to EDGEQ_DATA/logs/, the statistics to EDGEQ_DATA/stats/
#   EDGEQ_SHARDS   calibration shards (array size; 4)     EDGEQ_WORKERS  study workers (4)
#   EDGEQ_CPUS     CPUs per array task (default: the scripts' --cpus-per-task, 2)
# Further arguments go to every sbatch (--partition=..., --account=..., --time=...).
# Prints each job's id: calibrate=ID merge=ID study=ID collect=ID.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
EDGEQ_DATA=$(realpath -m "${EDGEQ_DATA:-$PWD/data}")
EDGEQ_SHARDS=${EDGEQ_SHARDS:-4}
EDGEQ_WORKERS=${EDGEQ_WORKERS:-4}
export EDGEQ_DATA EDGEQ_SHARDS EDGEQ_WORKERS  # the jobs see the caller's environment
for n in "$EDGEQ_SHARDS" "$EDGEQ_WORKERS"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: EDGEQ_SHARDS / EDGEQ_WORKERS must be >= 1" >&2; exit 2; }
done
mkdir -p "$EDGEQ_DATA/logs" "$EDGEQ_DATA/stats"
cpus=()
if [ -n "${EDGEQ_CPUS:-}" ]; then cpus=(--cpus-per-task="$EDGEQ_CPUS"); fi
submit() { sbatch --parsable "$@" | cut -d';' -f1; }
array_log=--output=$EDGEQ_DATA/logs/%x-%A_%a.out
job_log=--output=$EDGEQ_DATA/logs/%x-%j.out
cal=$(submit "$array_log" --array=0-$((EDGEQ_SHARDS - 1)) "${cpus[@]}" "$@" "$here/calibrate.sbatch")
merge=$(submit "$job_log" --dependency=afterok:"$cal" "$@" "$here/merge.sbatch")
work=$(submit "$array_log" --array=0-$((EDGEQ_WORKERS - 1)) "${cpus[@]}" "$@" "$here/study.sbatch")
collect=$(submit "$job_log" --dependency=afterany:"$work" "$@" "$here/collect.sbatch")
echo "calibrate=$cal merge=$merge study=$work collect=$collect"

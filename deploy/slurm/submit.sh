#!/bin/bash
# Submits both pipelines with their dependencies: calibration shards then the merge; the study's
# workers then the collecting run. EDGEQ_DATA: the shared folder (model, calib/, study.json).
set -euo pipefail
cd "$(dirname "$0")"
cal=$(sbatch --parsable calibrate.sbatch)
sbatch --dependency=afterok:"$cal" merge.sbatch
work=$(sbatch --parsable study.sbatch)
sbatch --dependency=afterany:"$work" collect.sbatch

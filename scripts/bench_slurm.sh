#!/usr/bin/env bash
# The study through Slurm against one process (issue 50), on a one-node cluster started here
# (scripts/slurm_local.sh; root). The case of tests/slurm/run.sh: the zoo's yolo11n-pose and
# yolo11n at IMGSZ (64), arms A and C, W8A16 and W8A8, the 4 + 4 coco8-pose photos in data/.
# One process: `edgeq study --threads T` (T: all cores). Slurm: deploy/slurm/study.sbatch as an
# array of T tasks at 1 CPU (and 1 thread) each, then collect.sbatch after them (afterany), wall
# time from the first sbatch until the collecting job has ended (squeue polled every 0.1 s),
# scheduling included. Each round starts from an empty cache; rounds alternate; prints each round's times
# and the ratio of the medians. Never a pass/fail: a measurement.
#   scripts/bench_slurm.sh [ROUNDS] [IMGSZ]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
imgsz=${2:-64}
bin=$PWD/build/edgeq
threads=$(nproc)
work=$(mktemp -d /tmp/edgeq-bench-slurm.XXXXXX)
trap 'scripts/slurm_local.sh down "$work/cluster"; rm -rf "$work"' EXIT
scripts/slurm_local.sh up "$work/cluster" > /dev/null
export SLURM_CONF=$work/cluster/slurm.conf
mkdir -p "$work/bin" "$work/data/calib" "$work/data/test" "$work/data/logs"
ln -s "$bin" "$work/bin/edgeq"
export PATH=$work/bin:$PATH
data=$work/data
edgeq zoo yolo11n-pose -o "$data/yolo11n-pose.onnx" --imgsz "$imgsz" > /dev/null
edgeq zoo yolo11n -o "$data/yolo11n.onnx" --imgsz "$imgsz" > /dev/null
cp data/coco8-pose/images/train/*.jpg "$data/calib/"
cp data/coco8-pose/images/val/*.jpg "$data/test/"
cat > "$data/study.json" << EOF
{"models": ["$data/yolo11n-pose.onnx", "$data/yolo11n.onnx"], "images": "$data/calib",
 "test": "$data/test", "arms": ["A", "C"], "schemes": ["w8a16", "w8a8"], "bench_runs": 1,
 "bench_warmup": 0, "thumbnails": 1, "test_n": 2}
EOF
export EDGEQ_DATA=$data EDGEQ_WORKERS=$threads
now() { date +%s.%N; }
one=() two=()
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $threads cores; imgsz $imgsz"
for r in $(seq "$rounds"); do
  rm -rf "$work/one" "$data/study" "$data"/logs/*
  t0=$(now)
  edgeq study --config "$data/study.json" --out "$work/one" --threads "$threads" > /dev/null 2>&1
  t1=$(now)
  job=$(sbatch --parsable --array=0-$((threads - 1)) --cpus-per-task=1 \
    --output="$data/logs/%x-%A_%a.out" deploy/slurm/study.sbatch)
  coll=$(sbatch --parsable --dependency=afterany:"$job" --output="$data/logs/%x-%j.out" \
    deploy/slurm/collect.sbatch)
  while squeue -h -j "$job,$coll" -o %i 2> /dev/null | grep -q .; do sleep 0.1; done
  t2=$(now)
  [ "$(scontrol show job -o "$coll" | grep -o 'JobState=[A-Z]*')" = JobState=COMPLETED ] ||
    { echo "bench_slurm: collect did not complete: $(scontrol show job -o "$coll")" >&2; exit 1; }
  # Where the time went (Slurm's clock, whole seconds).
  sec() { date -d "$1" +%s; }
  first=$(sec "$(scontrol show job -o "$job" | grep -o 'StartTime=[^ ]*' | cut -d= -f2 | sort | head -n 1)")
  last=$(sec "$(scontrol show job -o "$job" | grep -o 'EndTime=[^ ]*' | cut -d= -f2 | sort | tail -n 1)")
  cstart=$(sec "$(scontrol show job -o "$coll" | grep -o 'StartTime=[^ ]*' | cut -d= -f2)")
  cend=$(sec "$(scontrol show job -o "$coll" | grep -o 'EndTime=[^ ]*' | cut -d= -f2)")
  detail="workers ran $((last - first)) s, collect waited $((cstart - last)) s and ran $((cend - cstart)) s"
  a=$(awk "BEGIN {print $t1 - $t0}") b=$(awk "BEGIN {print $t2 - $t1}")
  one+=("$a") two+=("$b")
  printf 'round %d: one process (%d threads) %.1f s, Slurm (%d tasks x 1 thread, then collect) %.1f s (%.3f; %s)\n' \
    "$r" "$threads" "$a" "$threads" "$b" "$(awk "BEGIN {print $b / $a}")" "$detail"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
m1=$(median "${one[@]}") m2=$(median "${two[@]}")
printf 'median: one process %.1f s, Slurm %.1f s: ratio %.3f\n' "$m1" "$m2" "$(awk "BEGIN {print $m2 / $m1}")"

#!/usr/bin/env bash
# Two study workers sharing this machine's cores against one process using all of them (issue 32):
# the zoo study (yolo11n-pose and yolo11s-pose at imgsz 160, arms A and C, W8A16 and W8A8, 3 test
# images, 8 calibration images). One process: `study --threads T` (T: all cores). Two workers:
# `--worker 0/2` and `--worker 1/2` at T/2 threads each, at once, then `--collect --threads T`
# (the latency steps, alone). Each round starts from an empty cache; rounds alternate; prints
# each round's wall times and the ratio of the medians.
#   scripts/bench_study_workers.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
bin=$PWD/build/edgeq
threads=$(nproc)
half=$(( threads / 2 > 0 ? threads / 2 : 1 ))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" zoo yolo11n-pose -o "$work/yolo11n-pose.onnx" --imgsz 160 > /dev/null
"$bin" zoo yolo11s-pose -o "$work/yolo11s-pose.onnx" --imgsz 160 > /dev/null
"$bin" scenes --out "$work/calib" --n 8 --seed 1 > /dev/null
"$bin" scenes --out "$work/test" --n 3 --seed 2 > /dev/null
study=(study --models "$work/yolo11n-pose.onnx,$work/yolo11s-pose.onnx" --images "$work/calib"
       --test "$work/test" --arms A,C --schemes w8a16,w8a8 --calib-n 8 --thumbnails 1)
now() { date +%s.%N; }
one=() two=()
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $threads threads"
for r in $(seq "$rounds"); do
  rm -rf "$work/one" "$work/two"
  t0=$(now)
  "$bin" "${study[@]}" --out "$work/one" --threads "$threads" > /dev/null 2>&1
  t1=$(now)
  "$bin" "${study[@]}" --out "$work/two" --threads "$half" --worker 0/2 > /dev/null 2>&1 &
  w0=$!
  "$bin" "${study[@]}" --out "$work/two" --threads "$half" --worker 1/2 > /dev/null 2>&1
  wait "$w0"
  "$bin" "${study[@]}" --out "$work/two" --threads "$threads" --collect > /dev/null 2>&1
  t2=$(now)
  a=$(awk "BEGIN {print $t1 - $t0}") b=$(awk "BEGIN {print $t2 - $t1}")
  one+=("$a") two+=("$b")
  printf 'round %d: one process %.1f s, two workers + collect %.1f s (%.3f)\n' "$r" "$a" "$b" \
    "$(awk "BEGIN {print $b / $a}")"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
m1=$(median "${one[@]}") m2=$(median "${two[@]}")
printf 'median: one process %.1f s, two workers + collect %.1f s: ratio %.3f\n' "$m1" "$m2" \
  "$(awk "BEGIN {print $m2 / $m1}")"

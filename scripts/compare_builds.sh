#!/usr/bin/env bash
# A refactor changes no result: runs the same commands with an earlier edgeq and this checkout's,
# on the in-tree yolo11n-pose, and compares what they write (stats, models, encodings, the
# search's set and log) byte for byte.
#   scripts/compare_builds.sh REV          build REV's edgeq beside this one (minutes), compare
#   scripts/compare_builds.sh --before BIN compare with an already built binary
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
[ $# -ge 1 ] || { echo "usage: $0 REV | --before BIN" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$1" = --before ]; then
  before=$(realpath "$2")
else
  git worktree add -q --detach "$work/src" "$1"
  trap 'git -C "$root" worktree remove --force "$work/src"; rm -rf "$work"' EXIT
  cmake -S "$work/src" -B "$work/build" -DBUILD_TESTING=OFF > /dev/null
  cmake --build "$work/build" -j"$(nproc)" --target edgeq > /dev/null
  before=$work/build/edgeq
fi
cmake --build build -j"$(nproc)" --target edgeq > /dev/null
after=$root/build/edgeq
model=$root/models/yolo11n-pose.onnx
train=$root/data/coco8-pose/images/train val=$root/data/coco8-pose/images/val
fails=0
for side in before after; do
  bin=${!side}
  mkdir -p "$work/$side"
  "$bin" calibrate --model "$model" --images "$train" --n 4 --out "$work/$side/s.cbor" \
    > "$work/$side/log" 2>&1
done
cmp -s "$work/before/s.cbor" "$work/after/s.cbor" || { echo "DIFF calibrate"; fails=1; }
i=0
while read -r opts; do
  i=$((i + 1))
  for side in before after; do
    bin=${!side}
    "$bin" quantize --model "$model" --stats "$work/before/s.cbor" $opts \
      --out "$work/$side/q$i.onnx" --encodings "$work/$side/q$i.json" \
      >> "$work/$side/log" 2>&1 || echo "$side failed: $opts" >> "$work/$side/failed"
  done
  same=1
  for f in q$i.onnx q$i.json; do
    cmp -s "$work/before/$f" "$work/after/$f" || { echo "DIFF quantize $opts ($f)"; same=0; }
  done
  [ "$same" = 1 ] && echo "same: quantize $opts" || fails=1
done <<EOF2
--scheme w8a16
--scheme w8a8
--scheme w8a8 --range mse --saturation-safe
--scheme w8a8 --a16 none --placement qnn
--scheme w8a16 --range percentile --percentile 99.9 --per-tensor-weights --placement cpu --qdq16 opset21
--scheme w8a16 --images $train --n 3
--scheme w8a8 --images $train --n 3 --cle --bias-correction --gptq
--scheme w8a8 --reduce-range --symmetric-activations --encodings-format 0.6.1
--scheme w8a8 --auto 8 --auto-n 2 --images $val
EOF2
if [ -f "$work/before/failed" ] || [ -f "$work/after/failed" ]; then
  cat "$work"/*/failed; fails=1
fi
[ "$fails" = 0 ] && echo "compare_builds: every output identical" || exit 1

#!/usr/bin/env bash
# A refactor changes no result: runs the same commands with an earlier edgeq and this checkout's,
# on the in-tree yolo11n-pose and a zoo model, and compares what they write byte for byte: stats,
# models, encodings, the search's set, drawn detections and raw outputs; JSON reports (compare,
# run, doctor, inspect, bench, study) with their timing fields left out.
#   scripts/compare_builds.sh REV          build REV's edgeq beside this one (minutes), compare
#   scripts/compare_builds.sh --before BIN compare with an already built binary
# A JSON report that differs prints its first differing lines.
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
# Every other command, on the same inputs (the earlier build's W8A8 file and statistics).
q=$work/before/q2.onnx stats=$work/before/s.cbor
untimed() {  # a JSON report without the fields that change from run to run
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
def strip(j):
    if isinstance(j, dict):
        return {k: strip(v) for k, v in j.items()
                if k not in ("timing", "seconds", "peak_rss_bytes", "peak", "throughput_ms_per_run", "fps",
                             "stages", "frames_per_s", "wall_s", "end_to_end",
                             "queue_high_water")
                and not k.endswith("_ms")
                and not (k == "reason" and "ran" in j)}  # the pipeline choice's measured times
    if isinstance(j, list):
        return [strip(v) for v in j]
    return j
print(json.dumps(strip(json.load(open(sys.argv[1], encoding="utf-8", errors="surrogateescape"))),
                 sort_keys=True, indent=1))
PY
}
while IFS='|' read -r name cmd files; do
  for side in before after; do
    bin=${!side}
    out=$work/$side/$name
    mkdir -p "$out"
    (cd "$out" && eval "\"$bin\" $cmd") >> "$work/$side/log" 2>&1 ||
      echo "$side failed: $name" >> "$work/$side/failed"
  done
  same=1
  for f in $files; do
    a=$work/before/$name/$f b=$work/after/$name/$f
    case $f in
      *.json) [ "$(untimed "$a")" = "$(untimed "$b")" ] || {
          echo "DIFF $name ($f); the first lines that differ (before <, after >):"
          diff <(untimed "$a") <(untimed "$b") | grep '^[<>]' | head -n 12 | cut -c1-200 || true
          same=0
        } ;;
      *) cmp -s "$a" "$b" || { echo "DIFF $name ($f)"; same=0; } ;;
    esac
  done
  [ "$same" = 1 ] && echo "same: $name" || fails=1
done <<EOF3
compare|compare --quiet --ref $model --test $q --images $val --json c.json|c.json
compare-int8|compare --quiet --ref $model --test $q --images $val --exec int8 --emulate avx2 --json c.json|c.json
run|run --model $q --image $val --json r.json --report t.json --draw drawn|r.json t.json drawn/000000000110.jpg
run-pipeline|run --model $model --image $val --pipeline --json r.json --report t.json|r.json t.json
infer|infer --model $q --image $val/000000000110.jpg --out o|o/output0.npy
doctor|doctor --model $q --stats $stats --target qnn-htp --json d.json|d.json
inspect|inspect --model $q --json i.json|i.json
zoo|zoo yolo11n-pose -o z.onnx --imgsz 160|z.onnx
bench|bench --model $q --runs 1 --warmup 0 --threads 1 --json b.json|b.json
study|study --models $work/before/zoo/z.onnx --images $train --test $val --arms A,C --schemes w8a16,w8a8 --bench-runs 1 --bench-warmup 0 --thumbnails 1 --calib-n 2 --out s|s/data.json
EOF3
if [ -f "$work/before/failed" ] || [ -f "$work/after/failed" ]; then
  cat "$work"/*/failed; fails=1
fi
[ "$fails" = 0 ] && echo "compare_builds: every output identical" || exit 1

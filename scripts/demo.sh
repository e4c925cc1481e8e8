#!/usr/bin/env bash
# The main job on the embedded default: set up, build, then look at, run and time a YOLO11n-pose.
#   scripts/demo.sh [MODEL.onnx]     (default: the synthetic zoo yolo11n-pose, no download)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
EQ=build/edgeq
OUT=out/demo
mkdir -p "$OUT"
MODEL="${1:-}"
if [ -z "$MODEL" ]; then
  MODEL="$OUT/yolo11n-pose.onnx"
  echo "== edgeq zoo yolo11n-pose (synthetic weights: the topology is real, the detections are not)"
  $EQ zoo yolo11n-pose -o "$MODEL"
fi
echo "== edgeq inspect"
$EQ inspect --model "$MODEL" --json "$OUT/inspect.json" 2>/dev/null || echo "(inspect not available in this build)"
echo "== demo images"
$EQ scenes --out "$OUT/images" --n 8
IMAGES="$OUT/images"
[ -d ../shared/data/coco8-pose/images ] && IMAGES=../shared/data/coco8-pose/images
echo "== edgeq run on $IMAGES"
$EQ run --model "$MODEL" --image "$IMAGES" --json "$OUT/detections.json" --draw "$OUT/drawn"
echo "== edgeq bench"
$EQ bench --model "$MODEL" --threads 2 --runs 20
echo "== outputs in $OUT"

#!/usr/bin/env bash
# The main job on the embedded default: set up and build, then quantize a YOLO11n-pose W8A16 and
# prove it against FP32 (inspect, calibrate, quantize, compare, doctor, bench).
#   scripts/demo.sh [MODEL.onnx [IMAGES_DIR]]
# Default: the synthetic zoo yolo11n-pose (official topology, untrained weights) and generated
# scenes, so it needs no download. Results land in out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
EQ=build/edgeq
OUT=out/demo
mkdir -p "$OUT"
MODEL="${1:-}"
IMAGES="${2:-}"
if [ -z "$MODEL" ]; then
  MODEL="$OUT/yolo11n-pose.onnx"
  echo "== edgeq zoo yolo11n-pose  (synthetic weights: real topology, meaningless detections)"
  $EQ zoo yolo11n-pose -o "$MODEL"
fi
if [ -z "$IMAGES" ]; then
  IMAGES="$OUT/images"
  echo "== edgeq scenes  (generated street scenes for calibration and comparison)"
  $EQ scenes --out "$IMAGES" --n 16
fi
echo "== edgeq inspect"
$EQ inspect --model "$MODEL" --json "$OUT/inspect.json"
echo "== edgeq calibrate"
$EQ calibrate --model "$MODEL" --images "$IMAGES" --n 16 --out "$OUT/stats.cbor"
echo "== edgeq quantize  (W8A16, mse ranges, QNN-style placement)"
$EQ quantize --model "$MODEL" --stats "$OUT/stats.cbor" --scheme w8a16 --range mse --placement qnn \
  --out "$OUT/model.w8a16.qdq.onnx" --encodings "$OUT/model.w8a16.encodings.json"
echo "== edgeq compare  (FP32 vs W8A16 on the same images)"
$EQ compare --ref "$MODEL" --test "$OUT/model.w8a16.qdq.onnx" --images "$IMAGES" --json "$OUT/compare.json" --quiet
echo "== edgeq doctor  (what an HTP deployment would hit)"
$EQ doctor --model "$OUT/model.w8a16.qdq.onnx" --stats "$OUT/stats.cbor" --target qnn-htp --json "$OUT/doctor.json"
echo "== edgeq run  (FP32, drawn results in $OUT/drawn)"
$EQ run --model "$MODEL" --image "$IMAGES" --json "$OUT/detections.json" --draw "$OUT/drawn" | tail -n 1
echo "== edgeq bench"
$EQ bench --model "$MODEL" --threads 2 --runs 20
echo "== done: outputs in $OUT"

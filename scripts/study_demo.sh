#!/usr/bin/env bash
# A small `edgeq study` with no download: synthetic yolo11n-pose and yolo11s-pose (`edgeq zoo`),
# generated scenes for calibration and test, three arms, W8A16 and W8A8 (add schemes as a third
# argument, e.g. w8a16,w8a8,w8a8-auto10). Writes OUT/data.json and OUT/index.html.
#   ./scripts/study_demo.sh [OUT=out/study-demo] [THREADS=0] [SCHEMES=w8a16,w8a8]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-out/study-demo}
THREADS=${2:-0}
SCHEMES=${3:-w8a16,w8a8}
EDGEQ=build/edgeq
mkdir -p "$OUT/models"
for m in yolo11n-pose yolo11s-pose; do
  [ -f "$OUT/models/$m.onnx" ] || "$EDGEQ" zoo "$m" -o "$OUT/models/$m.onnx"
done
[ -d "$OUT/calib" ] || "$EDGEQ" scenes --out "$OUT/calib" --n 8 --seed 1
[ -d "$OUT/test" ] || "$EDGEQ" scenes --out "$OUT/test" --n 4 --seed 2
"$EDGEQ" study --models "$OUT/models/yolo11n-pose.onnx,$OUT/models/yolo11s-pose.onnx" \
  --images "$OUT/calib" --test "$OUT/test" --schemes "$SCHEMES" --threads "$THREADS" \
  --out "$OUT/study"
echo "open $OUT/study/index.html"

#!/usr/bin/env bash
# The main job on the embedded default: the real YOLO11n-pose (models/yolo11n-pose.onnx) and the 8
# coco8-pose photos (data/coco8-pose), from a fresh machine to a report you can open.
#   scripts/demo.sh [--full]
# Sets up (Debian packages, onnxruntime-node) and builds the edgeq program only (the tests are
# scripts/test.sh's), then: run (drawn skeletons on the 8 photos) -> augment (calibration
# variants of the 4 train photos, judge variants of the 4 val photos, which calibration never
# sees) -> calibrate -> quantize W8A16, W8A8 and W8A8 for Snapdragon HTP (placement qnn) ->
# compare each with FP32 on the judge split
# (detections, keypoints, mAP against the labels) -> doctor for Snapdragon HTP and for this CPU ->
# bench FP32 / W8A16 / W8A8 int8 -> study page (the real n, arms A, B, C, with the synthetic zoo s
# beside it). --full adds the W8A8 `--auto 10` mixed-precision search (searched on variants of
# the train photos) and runs the study with more images and every scheme.
# Everything lands in out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
FULL=0
case "${1:-}" in
  --full) FULL=1 ;;
  "") ;;
  *) echo "usage: scripts/demo.sh [--full]" >&2; exit 2 ;;
esac
EDGEQ_BUILD_TARGETS="edgeq edgeq_python" ./scripts/setup.sh
. scripts/lib.sh
EQ=build/edgeq
OUT=out/demo
MODEL=models/yolo11n-pose.onnx
PHOTOS=data/coco8-pose/images
mkdir -p "$OUT"
start=$(date +%s)
step() { echo; echo "== [$(( $(date +%s) - start ))s] $*"; }
# On an x86 CPU without VNNI, int8 kernels pair products in int16 (docs/saturation.md: W8A8 on
# x86 CPUs without VNNI); the doctor's cpu-avx2 table says what that costs a W8A8 model here.
if grep -qw avx2 /proc/cpuinfo && ! grep -qwE 'avx512_vnni|avx_vnni' /proc/cpuinfo; then
  CPU_TARGET=cpu-avx2
else
  CPU_TARGET=cpu
fi
CALIB_N=32; JUDGE_N=32; BENCH_RUNS=10
[ "$FULL" = 1 ] && { CALIB_N=64; JUDGE_N=128; BENCH_RUNS=30; }

step "edgeq run: FP32 on the 8 photos, drawn with the COCO-17 skeleton -> $OUT/drawn/"
$EQ run --model "$MODEL" --image "$PHOTOS" --json "$OUT/detections.json" --draw "$OUT/drawn" \
  >"$OUT/run.txt"
tail -n 1 "$OUT/run.txt"

step "edgeq augment: $CALIB_N calibration variants of the train photos, $JUDGE_N judge variants of the val photos"
augment_split "$OUT/calib" "$PHOTOS/train" 2 "$CALIB_N"
augment_split "$OUT/judge" "$PHOTOS/val" 1 "$JUDGE_N"
[ "$FULL" = 1 ] && augment_split "$OUT/search" "$PHOTOS/train" 3 32
echo "wrote $OUT/calib and $OUT/judge (images/ with labels/ beside)"

step "edgeq calibrate (on the calibration split only)"
$EQ calibrate --model "$MODEL" --images "$OUT/calib/images" --n "$CALIB_N" --out "$OUT/stats.cbor" \
  2>/dev/null

# The recipes docs/quantization.md recommends per target: W8A8 with its defaults (minmax ranges,
# decode tail at 16 bit) for CPUs and ONNX Runtime; for Snapdragon HTP the same with placement
# qnn (every op quantized: the target's doctor finds no error); W8A16 as the accuracy reference.
step "edgeq quantize: W8A16, W8A8 (decode tail kept at 16 bit) and W8A8 for Snapdragon HTP"
$EQ quantize --model "$MODEL" --stats "$OUT/stats.cbor" --scheme w8a16 \
  --out "$OUT/w8a16.onnx" --encodings "$OUT/w8a16.encodings.json" 2>&1 | tail -n 2
$EQ quantize --model "$MODEL" --stats "$OUT/stats.cbor" --scheme w8a8 \
  --out "$OUT/w8a8.onnx" --encodings "$OUT/w8a8.encodings.json" 2>&1 | tail -n 2
$EQ quantize --model "$MODEL" --stats "$OUT/stats.cbor" --scheme w8a8 --placement qnn \
  --out "$OUT/w8a8-qnn.onnx" --encodings "$OUT/w8a8-qnn.encodings.json" 2>&1 | tail -n 2
SCHEMES=(w8a16 w8a8 w8a8-qnn)
if [ "$FULL" = 1 ]; then
  step "edgeq quantize --auto 10: which values W8A8 keeps at 16 bit (searched on train variants)"
  $EQ quantize --model "$MODEL" --stats "$OUT/stats.cbor" --scheme w8a8 --auto 10 \
    --images "$OUT/search/images" --auto-n 16 --out "$OUT/w8a8-auto10.onnx" 2>&1 | tail -n 3
  SCHEMES+=(w8a8-auto10)
fi

for s in "${SCHEMES[@]}"; do
  step "edgeq compare: FP32 vs $s on the $JUDGE_N judge variants (labels: mAP)"
  $EQ compare --ref "$MODEL" --test "$OUT/$s.onnx" --images "$OUT/judge/images" --quiet \
    --json "$OUT/compare.$s.json" >"$OUT/compare.$s.txt"
  sed -n '/^detections/,$p' "$OUT/compare.$s.txt"
done

step "edgeq doctor: W8A8 for Snapdragon HTP (placement qnn) on qnn-htp, W8A8 on this CPU ($CPU_TARGET)"
for t in qnn-htp "$CPU_TARGET"; do
  q="$OUT/w8a8.onnx"
  [ "$t" = qnn-htp ] && q="$OUT/w8a8-qnn.onnx"
  $EQ doctor --model "$q" --stats "$OUT/stats.cbor" --target "$t" \
    --json "$OUT/doctor.$t.json" >"$OUT/doctor.$t.txt"
  sed -n '1,6p' "$OUT/doctor.$t.txt"
  echo "  ... (grouped by kind: $OUT/doctor.$t.txt; every finding: $OUT/doctor.$t.json)"
done

step "edgeq bench: FP32, W8A16 (simulated), W8A8 (int8 kernels), $BENCH_RUNS runs each"
bench() {  # bench LABEL ARGS...
  printf '%-22s ' "$1"
  $EQ bench "${@:2}" --runs "$BENCH_RUNS" 2>/dev/null | grep "^latency ms"
}
bench "FP32" --model "$MODEL"
bench "W8A16 (simulate)" --model "$OUT/w8a16.onnx"
bench "W8A8 (int8 kernels)" --model "$OUT/w8a8.onnx" --exec int8

step "edgeq study: the real n (arms A, B, C) beside the synthetic zoo s -> $OUT/study/index.html"
[ -f "$OUT/zoo-yolo11s-pose.onnx" ] || $EQ zoo yolo11s-pose -o "$OUT/zoo-yolo11s-pose.onnx" >/dev/null
STUDY_SCHEMES=w8a16,w8a8
STUDY_N=4
STUDY_VAL=()  # the search's validation images: only a w8a8-autoP scheme reads them
[ "$FULL" = 1 ] && {
  STUDY_SCHEMES=w8a16,w8a8,w8a8-auto10
  STUDY_N=16
  STUDY_VAL=(--val "$OUT/calib/images")
}
$EQ study --models "$MODEL,$OUT/zoo-yolo11s-pose.onnx" --images "$OUT/calib/images" \
  --calib-n "$STUDY_N" --test "$OUT/judge/images" --test-n "$STUDY_N" "${STUDY_VAL[@]}" \
  --arms A,B,C --schemes "$STUDY_SCHEMES" --bench-runs 3 --out "$OUT/study" 2>&1 | tail -n 2

step "done"
cat <<EOF
Wrote, in $OUT/:
  drawn/                    the 8 photos with FP32 detections and skeletons (open any .jpg)
  detections.json           the same detections as data
  calib/, judge/            the calibration and judge splits (augmented variants, with labels)
  stats.cbor                calibration statistics
  ${SCHEMES[*]/%/.onnx}  QDQ models (ONNX Runtime loads them), with *.encodings.json
  compare.*.json            each quantized model against FP32 on the judge split
  doctor.*.json             findings for qnn-htp and $CPU_TARGET
  study/index.html          the study page: open it in a browser
EOF

#!/usr/bin/env bash
# Weight repair measured on held-out images: calibrate (statistics and repair) on one image set,
# judge with `edgeq compare` against FP32 on another, for W8A8 and W8A16 (minmax, ort placement),
# with no repair, each repair alone (--no-gptq where GPTQ is not asked for: it is the W8A16 default)
# and GPTQ + bias correction together.
#   scripts/measure_repair.sh [N=16] [MODEL.onnx CALIB_IMAGES JUDGE_IMAGES]
# Without arguments: the real yolo11n-pose calibrated on coco8-pose images/train and judged on
# images/val (data/coco8-pose), and a zoo yolo11n-pose (untrained weights) calibrated on
# N synthetic scenes (seed 0) and judged on N others (seed 1).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/edgeq ] || ./scripts/setup.sh >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N="${1:-16}"

measure() {  # TAG TITLE MODEL CALIB JUDGE
  local name="$2" model="$3" calib="$4" judge="$5" d="$tmp/$1"
  mkdir -p "$d"
  build/edgeq calibrate --model "$model" --images "$calib" --n "$N" --out "$d/stats" >/dev/null 2>&1
  for scheme in w8a8 w8a16; do
    for repair in none bias-correction gptq "gptq bias-correction" cle; do
      local flags="" tag="${repair// /+}"
      [ "$repair" = none ] || flags="--images $calib --n $N $(printf -- '--%s ' $repair)"
      [[ "$repair" = none || "$repair" = *gptq* ]] || flags="$flags --no-gptq"  # w8a16 default
      # shellcheck disable=SC2086
      build/edgeq quantize --model "$model" --stats "$d/stats" --scheme "$scheme" \
        --out "$d/$scheme.$tag.onnx" $flags > "$d/$scheme.$tag.log" 2>/dev/null
      build/edgeq compare --ref "$model" --test "$d/$scheme.$tag.onnx" --images "$judge" \
        --n "$N" --quiet --json "$d/$scheme.$tag.json" >/dev/null 2>&1
    done
  done
  grep -h "equalization" "$d"/*.cle.log | head -1
  node -e '
const fs = require("fs"), [d, name] = process.argv.slice(1);
const files = fs.readdirSync(d).filter(f => f.endsWith(".json")).sort();
console.log(name + ":");
console.log("  scheme  repair                 output0 rel L2  matched  box px  kpt px  pose mAP50-95");
for (const f of files) {
  const j = JSON.parse(fs.readFileSync(d + "/" + f)), det = j.detections;
  const [scheme, repair] = f.replace(/\.json$/, "").split(".");
  const pose = j.labels ? j.labels.test.pose.map50_95.toFixed(3) + " (fp32 " +
      j.labels.ref.pose.map50_95.toFixed(3) + ")" : "-";
  console.log("  " + scheme.padEnd(7) + " " + repair.padEnd(22) + " " +
      j.tensors[0].rel_l2.toExponential(3).padStart(14) + "  " +
      (det.matched + "/" + det.ref).padStart(7) + "  " + det.box_px.mean.toFixed(3).padStart(6) +
      "  " + det.keypoint_px.mean.toFixed(3).padStart(6) + "  " + pose);
}' "$d" "$name"
}

if [ $# -ge 4 ]; then
  measure custom "$2" "$2" "$3" "$4"
  exit 0
fi
measure real "yolo11n-pose, calibrated on coco8-pose train, judged on val" \
  models/yolo11n-pose.onnx data/coco8-pose/images/train data/coco8-pose/images/val
build/edgeq zoo yolo11n-pose -o "$tmp/zoo.onnx" >/dev/null
build/edgeq scenes --out "$tmp/calib" --n "$N" --seed 0 >/dev/null
build/edgeq scenes --out "$tmp/judge" --n "$N" --seed 1 >/dev/null
measure zoo "zoo yolo11n-pose (untrained), calibrated on $N scenes (seed 0), judged on $N (seed 1)" \
  "$tmp/zoo.onnx" "$tmp/calib" "$tmp/judge"

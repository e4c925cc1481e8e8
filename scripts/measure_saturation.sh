#!/usr/bin/env bash
# W8A8 on x86 CPUs without VNNI (docs/lessons.md, lesson 10): the plain W8A8 file, --saturation-safe
# (with and without GPTQ) and --reduce-range, each judged against FP32 on held-out images as
# executed by
#   formula:  ONNX Runtime with graph optimization "basic" (the exact QDQ formula),
#   ORT int8: ONNX Runtime's default session (its int8 kernels, on this machine's CPU),
#   edgeq int8: --exec int8 (exact integer sums on any CPU),
#   emulated: --exec int8 --emulate avx2 (ORT's kernels on an AVX2 CPU, on any machine).
#   scripts/measure_saturation.sh [MODEL.onnx] [LABELLED_IMAGES_ROOT] [OUT=out/saturation]
#                                 [JUDGE_N=64] [FOLD=A]
# Splits as scripts/quant_table.sh's folds: A calibrates (and runs GPTQ) on 32 variants of the
# train photos and judges on JUDGE_N variants of the val photos (edgeq augment), never seen by the
# former; B swaps train and val.
# Prints a markdown table (and writes OUT/table.md); says which CPU it ran on.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/edgeq ] || ./scripts/setup.sh >/dev/null
. scripts/lib.sh
MODEL="$(default_model "${1:-}")"
DATA="${2:-data/coco8-pose}"
OUT="${3:-out/saturation}"
JUDGE_N="${4:-64}"
FOLD="${5:-A}"
CALIB_FROM=train JUDGE_FROM=val
[ "$FOLD" = B ] && CALIB_FROM=val JUDGE_FROM=train
E=build/edgeq
ORT=tools/ort/ort_run.js
[ -d "$DATA/images/train" ] && [ -d "$DATA/images/val" ] ||
  { echo "measure_saturation: $DATA needs images/train and images/val with labels/ beside" >&2; exit 1; }
mkdir -p "$OUT"
augment_split "$OUT/calib" "$DATA/images/$CALIB_FROM" 2 32
augment_split "$OUT/judge" "$DATA/images/$JUDGE_FROM" 1 "$JUDGE_N"
$E calibrate --model "$MODEL" --images "$OUT/calib/images" --out "$OUT/stats.cbor" >/dev/null 2>&1

OPTIONS=(
  "w8a8|"
  "w8a8 --saturation-safe|--saturation-safe"
  "w8a8 --saturation-safe --gptq|--saturation-safe --images $OUT/calib/images --n 32 --gptq"
  "w8a8 --reduce-range|--reduce-range"
)
cpu="$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
flags="$(grep -m1 -o -w -E 'avx512_vnni|avx_vnni' /proc/cpuinfo | head -1 || true)"
isa="$(grep -q -w avx512f /proc/cpuinfo && echo AVX-512 || echo AVX2)${flags:+ + ${flags}}"
[ -z "$flags" ] && isa="$isa, no VNNI"
{
  echo "Fold $FOLD: calibrated on 32 variants of the $CALIB_FROM photos, judged on $JUDGE_N variants of the $JUDGE_FROM photos; CPU: $cpu ($isa), $(nproc) cores."
  echo
  echo "| edgeq quantize ... | executed by | match vs FP32 | box px | kpt px | pose mAP50-95 drop | box mAP50-95 drop |"
  echo "|---|---|---|---|---|---|---|"
} > "$OUT/table.md"
row() {  # json option engine
  node -e '
const j = JSON.parse(require("fs").readFileSync(process.argv[1]));
const d = j.detections;
const pts = (k) => j.labels && j.labels.ref[k] ? ((j.labels.ref[k].map50_95 - j.labels.test[k].map50_95) * 100).toFixed(2) : "-";
const px = (k) => (d.matched > 0 && d[k] ? d[k].mean.toFixed(2) : "-");
console.log(`| ${process.argv[2]} | ${process.argv[3]} | ${d.match_rate === null ? "none" : (100 * d.match_rate).toFixed(1) + "%"} (${d.matched}/${d.ref}) | ` +
            `${px("box_px")} | ${px("keypoint_px")} | ${pts("pose")} | ${pts("box")} |`);
' "$1" "$2" "$3" >> "$OUT/table.md"
}
inputs=""
i=0
for opt in "${OPTIONS[@]}"; do
  name="${opt%%|*}"
  i=$((i + 1))
  q="$OUT/q$i.onnx"
  echo "[$i/${#OPTIONS[@]}] $name" >&2
  # shellcheck disable=SC2086
  $E quantize --model "$MODEL" --stats "$OUT/stats.cbor" --scheme w8a8 ${opt#*|} --out "$q" \
    2>/dev/null | grep -E "saturation-safe|weight repair" >&2 || true
  cmp=("$E" compare --ref "$MODEL" --test "$q" --images "$OUT/judge/images" --quiet --threads 2)
  if [ -z "$inputs" ]; then
    "${cmp[@]}" --save-inputs "$OUT/inputs" --json "$OUT/q$i.simulate.json" >/dev/null 2>&1
    inputs="$(for k in $(seq 0 $((JUDGE_N - 1))); do printf '%s,' "$OUT/inputs/$k.npy"; done)"
    inputs="${inputs%,}"
  fi
  for level in basic all; do
    rm -rf "$OUT/ort"
    node "$ORT" run --opt "$level" "$q" "$OUT/ort" "images=$inputs" >/dev/null
    "${cmp[@]}" --test-outputs "$OUT/ort" --json "$OUT/q$i.ort-$level.json" >/dev/null 2>&1
  done
  "${cmp[@]}" --exec int8 --json "$OUT/q$i.int8.json" >/dev/null 2>&1
  "${cmp[@]}" --exec int8 --emulate avx2 --json "$OUT/q$i.emulated.json" >/dev/null 2>&1
  row "$OUT/q$i.ort-basic.json" "$name" "formula (ORT basic)"
  row "$OUT/q$i.ort-all.json" "" "ORT int8 kernels, this CPU"
  row "$OUT/q$i.int8.json" "" "edgeq --exec int8"
  row "$OUT/q$i.emulated.json" "" "edgeq --exec int8 --emulate avx2"
done
cat "$OUT/table.md"

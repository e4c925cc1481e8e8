#!/usr/bin/env bash
# Honest quantization numbers on a held-out dev split: every quantize option judged against the
# FP32 model on images the quantizer never saw.
#   scripts/quant_table.sh [MODEL.onnx] [LABELLED_IMAGES_ROOT] [OUT_DIR=out/quant_table]
# LABELLED_IMAGES_ROOT holds images/{train,val} with labels/ beside (default: ../shared/data/
# coco8-pose). Splits (edgeq augment: flips, scales, crops, mosaics):
#   calib  = 32 variants of the train photos        -> edgeq calibrate (and GPTQ for its w8a16 row)
#   search = 32 other variants of the train photos  -> quantize --auto (its validation images)
#   judge  = 128 variants of the val photos         -> edgeq compare (never seen by the above; at 32
#            the match rate of one option moved by +-3 of 188 detections with ranges that differ
#            by a step, so the table judges on more)
# Prints a markdown table and writes OUT_DIR/table.md and one compare JSON per option.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/edgeq ] || ./scripts/setup.sh >/dev/null
. scripts/lib.sh
MODEL="$(default_model "${1:-}")"
DATA="${2:-../shared/data/coco8-pose}"
OUT="${3:-out/quant_table}"
[ -d "$DATA/images/train" ] && [ -d "$DATA/images/val" ] ||
  { echo "quant_table: $DATA needs images/train and images/val with labels/ beside" >&2; exit 1; }
mkdir -p "$OUT"
E=build/edgeq
split() {  # name source seed [n=32]
  local n="${4:-32}"
  if [ "$(ls "$OUT/$1/images" 2>/dev/null | wc -l)" != "$n" ]; then
    rm -rf "$OUT/$1"
    $E augment --images "$DATA/images/$2" --out "$OUT/$1" --n "$n" --seed "$3" >/dev/null
  fi
}
split calib train 2
split search train 3
split judge val 1 128
$E calibrate --model "$MODEL" --images "$OUT/calib/images" --out "$OUT/stats.cbor" >/dev/null 2>&1

# name | quantize flags
OPTIONS=(
  "w8a16|--scheme w8a16"
  "w8a16 --images calib (GPTQ)|--scheme w8a16 --images $OUT/calib/images --n 32"
  "w8a8|--scheme w8a8"
  "w8a8 --a16 none|--scheme w8a8 --a16 none"
  "w8a8 --range mse|--scheme w8a8 --range mse"
  "w8a8 --range percentile|--scheme w8a8 --range percentile"
  "w8a8 --placement qnn|--scheme w8a8 --placement qnn"
  "w8a8 --placement cpu|--scheme w8a8 --placement cpu"
  "w8a8 --auto 10|--scheme w8a8 --auto 10 --images $OUT/search/images --auto-n 32"
  "w8a8 --placement cpu --auto 10|--scheme w8a8 --placement cpu --auto 10 --images $OUT/search/images --auto-n 32"
)
{
  echo "| edgeq quantize ... | 16-bit values | match vs FP32 | box px | kpt px | score shift | pose mAP50-95 drop | box mAP50-95 drop |"
  echo "|---|---|---|---|---|---|---|---|"
} > "$OUT/table.md"
i=0
for opt in "${OPTIONS[@]}"; do
  name="${opt%%|*}"
  flags="${opt#*|}"
  i=$((i + 1))
  echo "[$i/${#OPTIONS[@]}] $name" >&2
  # shellcheck disable=SC2086
  summary=$($E quantize --model "$MODEL" --stats "$OUT/stats.cbor" $flags --out "$OUT/q$i.onnx" 2>/dev/null |
            grep -oE '[0-9]+ at 16 bit' | head -1 | grep -oE '^[0-9]+')
  $E compare --ref "$MODEL" --test "$OUT/q$i.onnx" --images "$OUT/judge/images" --quiet \
    --json "$OUT/q$i.json" >/dev/null 2>&1
  node -e '
const j = JSON.parse(require("fs").readFileSync(process.argv[1]));
const d = j.detections, l = j.labels;
const pts = (a, b) => ((a - b) * 100).toFixed(2) + " pt";
const pose = l && l.ref.pose ? pts(l.ref.pose.map50_95, l.test.pose.map50_95) : "-";
const px = (s, digits = 2) => (d.matched > 0 && s ? s.mean.toFixed(digits) : "-");
const kpt = px(d.keypoint_px);
console.log(`| ${process.argv[2]} | ${process.argv[3]} | ${(100 * d.match_rate).toFixed(1)}% (${d.matched}/${d.ref}) | ` +
            `${px(d.box_px)} | ${kpt} | ${px(d.score_shift, 3)} | ${pose} | ` +
            `${pts(l.ref.box.map50_95, l.test.box.map50_95)} |`);
' "$OUT/q$i.json" "$name" "${summary:-?}" >> "$OUT/table.md"
done
node -e '
const j = JSON.parse(require("fs").readFileSync(process.argv[1]));
const r = j.labels.ref;
console.log(`FP32 on the judge split (${j.images} images): box mAP50-95 ${r.box.map50_95.toFixed(4)}` +
            (r.pose ? `, pose mAP50-95 ${r.pose.map50_95.toFixed(4)}` : "") + `; ${j.detections.ref} detections at conf 0.25`);
' "$OUT/q1.json" >> "$OUT/table.md"
cat "$OUT/table.md"

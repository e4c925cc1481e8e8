#!/usr/bin/env bash
# The routes for targets that refuse float decode ops, judged side by side on held-out images
# (the splits and two folds of scripts/quant_table.sh: calibration on 32 variants of one half of
# the photos, judging on 128 variants of the other half, then the halves swapped):
#   the full model quantized (W8A8 keeps its decode tail at 16 bit; under placement qnn every op
#   runs on the accelerator) against the raw head (`edgeq cut --arm head`: the graph ends at the
#   head's convolutions and the decode runs on the host) with 8-bit and with 16-bit outputs, and
#   W8A16 of both. Each is judged by `edgeq compare` against the full FP32 model (the raw head's
#   output0 comes from the host decode) under the exact QDQ formula (edgeq's simulate mode, equal
#   to ONNX Runtime with graph optimization "basic"), and diagnosed by `doctor --target qnn-htp`.
#   Latency: `edgeq bench` on this CPU (2 threads, --exec int8 where the file has 8-bit
#   activations, 20 runs after 3 warm-up), fold A's files in turn, 3 rounds: the median round;
#   the host decode's share apart. Run it on an otherwise idle machine.
#   scripts/raw_head_table.sh [MODEL.onnx] [LABELLED_IMAGES_ROOT] [OUT_DIR=out/raw_head_table]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/edgeq ] || ./scripts/setup.sh >/dev/null
. scripts/lib.sh
MODEL="$(default_model "${1:-}")"
DATA="${2:-data/coco8-pose}"
OUT="${3:-out/raw_head_table}"
require_split_data raw_head_table "$DATA"
E=build/edgeq
mkdir -p "$OUT"
# A run that stopped goes on where it stopped (delete OUT_DIR to start again).
[ -s "$OUT/head.onnx" ] || $E cut --model "$MODEL" --arm head --out "$OUT/head.onnx" >/dev/null
fold() {  # name calibration-photos judge-photos
  local dir="$OUT/$1"
  mkdir -p "$dir"
  augment_split "$dir/calib" "$DATA/images/$2" 2 32
  augment_split "$dir/judge" "$DATA/images/$3" 1 128
  [ -s "$dir/full.cbor" ] ||
    $E calibrate --model "$MODEL" --images "$dir/calib/images" --out "$dir/full.cbor" >/dev/null 2>&1
  [ -s "$dir/head.cbor" ] ||
    $E calibrate --model "$OUT/head.onnx" --images "$dir/calib/images" --out "$dir/head.cbor" >/dev/null 2>&1
}
fold A train val
fold B val train

# name | full or head | quantize flags
ROUTES=(
  "full W8A8 (decode tail at 16 bit)|full|--scheme w8a8"
  "full W8A8 --placement qnn|full|--scheme w8a8 --placement qnn"
  "raw head W8A8 (8-bit outputs)|head|--scheme w8a8"
  "raw head W8A8 --a16 outputs|head|--scheme w8a8 --a16 outputs"
  "raw head W8A8 --placement qnn|head|--scheme w8a8 --placement qnn"
  "full W8A16|full|--scheme w8a16"
  "raw head W8A16|head|--scheme w8a16"
)
{
  echo "| route | 16-bit values | match vs FP32 | pooled match | extra | box px | kpt px | score shift | score bias | pose mAP50-95 drop | box mAP50-95 drop | doctor qnn-htp | CPU ms (exec) | host decode ms |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$OUT/table.md"
rm -f "$OUT/rows.txt"
i=0
for route in "${ROUTES[@]}"; do
  name="${route%%|*}"
  rest="${route#*|}"
  kind="${rest%%|*}"
  flags="${rest#*|}"
  i=$((i + 1))
  model="$MODEL"
  [ "$kind" = head ] && model="$OUT/head.onnx"
  counts=()
  for f in A B; do
    echo "[$i/${#ROUTES[@]}] fold $f: $name" >&2
    if [ ! -s "$OUT/$f/q$i.json" ]; then
      # shellcheck disable=SC2086
      $E quantize --model "$model" --stats "$OUT/$f/$kind.cbor" $flags --out "$OUT/$f/q$i.onnx" \
        2>/dev/null | grep -oE '[0-9]+ at 16 bit' | head -1 | grep -oE '^[0-9]+' > "$OUT/$f/q$i.count" ||
        echo '?' > "$OUT/$f/q$i.count"
      $E compare --ref "$MODEL" --test "$OUT/$f/q$i.onnx" --images "$OUT/$f/judge/images" --quiet \
        --json "$OUT/$f/q$i.json" > /dev/null
    fi
    counts+=("$(cat "$OUT/$f/q$i.count" 2>/dev/null || echo '?')")
  done
  doctor="$($E doctor --model "$OUT/A/q$i.onnx" --target qnn-htp 2>/dev/null | grep -oE '^[0-9]+ errors' | head -1)"
  echo "$name|${counts[0]} / ${counts[1]}|${doctor:-?}" >> "$OUT/rows.txt"
done
# Latency last, every file in turn, 3 rounds (each file's median over its rounds' medians).
for round in 1 2 3; do
  for i in $(seq 1 ${#ROUTES[@]}); do
    exec=simulate
    case "${ROUTES[$((i - 1))]}" in *w8a8*) exec=int8 ;; esac
    $E bench --model "$OUT/A/q$i.onnx" --threads 2 --runs 20 --warmup 3 --exec "$exec" \
      --json "$OUT/A/bench$i.$round.json" > /dev/null
  done
done
i=0
while IFS='|' read -r name counts doctor; do
  i=$((i + 1))
  exec=simulate
  case "${ROUTES[$((i - 1))]}" in *w8a8*) exec=int8 ;; esac
  timing="$(node -e '
const fs = require("fs");
const runs = [1, 2, 3].map((r) => JSON.parse(fs.readFileSync(`${process.argv[1]}.${r}.json`)));
const med = (k) => runs.map((j) => j[k]).sort((a, b) => a - b)[1];
const d = runs[0].host_decode_median_ms === undefined ? "-" : med("host_decode_median_ms").toFixed(2);
console.log(`${med("median_ms").toFixed(1)} (${process.argv[2]})|${d}`);
' "$OUT/A/bench$i" "$exec")"
  node scripts/compare_row.js "$OUT/A/q$i.json" "$OUT/B/q$i.json" "$name" "$counts" "$doctor" \
    "${timing%%|*}" "${timing#*|}" >> "$OUT/table.md"
done < "$OUT/rows.txt"
echo "$(cpu_line)" >> "$OUT/table.md"
cat "$OUT/table.md"

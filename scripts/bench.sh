#!/usr/bin/env bash
# edgeq against ONNX Runtime on the same files, same threads, in one run: the FP32 model, its W8A16
# QDQ model (edgeq --exec simulate), its saturation-safe W8A8 QDQ model (--exec simulate and
# --exec int8; ORT runs its own int8 kernels on it, which are exact on that file on any x86 CPU)
# and its plain W8A8 file (--exec int8; ORT's int8 kernels saturate on it without VNNI: timed only).
# edgeq and ORT alternate over 3 rounds of RUNS/3 runs each; prints the median of the rounds'
# medians, the ratio edgeq / ORT of those (below 1.0: edgeq is faster), each quantized run
# against edgeq's own FP32, and each run against the CPU's peak that edgeq bench measures.
#   scripts/bench.sh [MODEL.onnx] [THREADS=2] [RUNS=30] [CALIB_IMAGES_DIR]
# Without MODEL: the repository's models/yolo11n-pose.onnx. The QDQ models are calibrated (mse
# ranges) on CALIB_IMAGES_DIR, else the 8 coco8-pose photos (data/coco8-pose/images); W8A8 keeps the decode tail at 16 bit.
# Prints the CPU it ran on and the instruction-set level edgeq used; on a CPU with AVX-512 it runs
# the table again with edgeq and oneDNN capped to AVX2 (EDGEQ_SIMD=avx2 ONEDNN_MAX_CPU_ISA=AVX2),
# the level of many edge x86 boxes and CI runners. ONNX Runtime has no such cap: it runs its own
# best kernels at both levels, so the capped ratio is edgeq at AVX2 against ORT at its best.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/edgeq ] && [ -d tools/ort/node_modules/onnxruntime-node ] || ./scripts/setup.sh >/dev/null
. scripts/lib.sh
MODEL="$(default_model "${1:-}")"
THREADS="${2:-2}"
RUNS="${3:-30}"
IMAGES="${4:-data/coco8-pose/images}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "quantizing $MODEL (calibration: $IMAGES) ..." >&2
build/edgeq calibrate --model "$MODEL" --images "$IMAGES" --out "$tmp/stats.cbor" >/dev/null 2>&1
build/edgeq quantize --model "$MODEL" --stats "$tmp/stats.cbor" --scheme w8a16 --range mse \
  --out "$tmp/w8a16.onnx" >/dev/null
build/edgeq quantize --model "$MODEL" --stats "$tmp/stats.cbor" --scheme w8a8 --range mse \
  --a16 decode --saturation-safe --out "$tmp/w8a8.onnx" >/dev/null 2>&1
build/edgeq quantize --model "$MODEL" --stats "$tmp/stats.cbor" --scheme w8a8 --range mse \
  --a16 decode --out "$tmp/w8a8plain.onnx" >/dev/null 2>&1

# name edgeq-model exec : one row each; edgeq and ORT alternate, three rounds of RUNS/3 each.
ROWS="fp32:$MODEL:simulate w8a16:$tmp/w8a16.onnx:simulate w8a8:$tmp/w8a8.onnx:simulate w8a8:$tmp/w8a8.onnx:int8"
ROWS="$ROWS w8a8p:$tmp/w8a8plain.onnx:int8"
ROUNDS=3
per_round=$(( (RUNS + ROUNDS - 1) / ROUNDS ))
cpu_line
table() {  # one table at the current level (the environment's caps)
rm -f "$tmp"/edgeq_*.json "$tmp"/ort_*.json
for round in $(seq $ROUNDS); do
  i=0
  for row in $ROWS; do
    IFS=: read -r name file exec <<<"$row"
    build/edgeq bench --model "$file" --threads "$THREADS" --exec "$exec" --runs "$per_round" --warmup 3 \
      --json "$tmp/edgeq_${i}_$round.json" >/dev/null 2>&1
    [ -f "$tmp/ort_${name}_$round.json" ] ||
      node tools/ort/ort_run.js bench "$file" "$THREADS" "$per_round" 3 > "$tmp/ort_${name}_$round.json"
    i=$((i + 1))
  done
done
node -e '
const fs = require("fs"), d = process.argv[1], rows = process.argv[2].split(" ");
const read = f => JSON.parse(fs.readFileSync(d + "/" + f));
const med = xs => { const s = xs.slice().sort((a, b) => a - b); const m = (s.length - 1) / 2;
                    return (s[Math.floor(m)] + s[Math.ceil(m)]) / 2; };
const rounds = +process.argv[5];
const mom = prefix => med([...Array(rounds).keys()].map(r => med(read(`${prefix}_${r + 1}.json`).samples_ms)));
console.log(`model ${process.argv[3]}  threads ${process.argv[4]}  edgeq simd ${read("edgeq_0_1.json").simd}  ORT ${read("ort_fp32_1.json").ort_version}`);
const peak = read("edgeq_0_1.json").peak;
console.log(`CPU peak on ${peak.threads} threads (edgeq bench, measured each run; round 1): FP32 ${peak.fp32_gflops.toFixed(1)} GFLOP/s (${peak.fp32_instruction}), int8 ${peak.int8_gops.toFixed(1)} GOP/s (${peak.int8_instruction})`);
console.log("model   edgeq exec   edgeq median   ORT median   edgeq/ORT   edgeq/edgeq FP32   of peak   edgeq/ORT per round");
let fp32 = 0;
rows.forEach((row, i) => {
  const [name, , exec] = row.split(":");
  const e = mom(`edgeq_${i}`);
  const o = mom(`ort_${name}`);
  if (i === 0) fp32 = e;
  const per = [...Array(rounds).keys()].map(r => (med(read(`edgeq_${i}_${r + 1}.json`).samples_ms) /
                                                 med(read(`ort_${name}_${r + 1}.json`).samples_ms)).toFixed(3));
  const frac = med([...Array(rounds).keys()].map(r => read(`edgeq_${i}_${r + 1}.json`).peak.fraction));
  console.log(`${name.padEnd(7)} ${exec.padEnd(12)} ${e.toFixed(2).padStart(9)} ms ${o.toFixed(2).padStart(9)} ms` +
              `   ${(e / o).toFixed(3).padStart(7)}   ${(e / fp32).toFixed(3).padStart(10)}   ${(100 * frac).toFixed(0).padStart(6)}%   ${per.join(" ")}`);
});
console.log(`(median of ${rounds} alternating rounds, each its median; ORT runs each file once per round with its own kernels; w8a8 = --saturation-safe,`);
console.log(" w8a8p = the plain W8A8 file (split weights where a pair can overflow on a CPU without VNNI); of peak: the multiply-add work of each run");
console.log(" at the measured CPU peak over its median time;");
console.log(" per-round ratios far apart mean a noisy host: run again)");
' "$tmp" "$ROWS" "$MODEL" "$THREADS" "$ROUNDS"
}
table
if grep -qw avx512f /proc/cpuinfo; then
  echo
  echo "capped to AVX2 (edgeq and oneDNN; ORT uncapped):"
  EDGEQ_SIMD=avx2 ONEDNN_MAX_CPU_ISA=AVX2 table
fi

#!/usr/bin/env bash
# What calibration costs next to plain FP32 forwards, measured in one go on this machine:
# `edgeq calibrate` over N images against N forwards of `edgeq bench` (same model, same threads),
# alternating the two twice so that neither gets a quieter machine. Both count from a planned
# model (plan time excluded) and include their first run (bench --warmup 0): per image, the mean.
# Prints both and the ratios.
#   scripts/bench_calibration.sh [MODEL.onnx] [IMAGES_DIR] [N=128] [THREADS=2]
# Without MODEL: ../shared/models/yolo11n-pose.onnx if present, else a zoo yolo11n-pose.
# Without IMAGES_DIR: N synthetic scenes (edgeq scenes).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/edgeq ] || ./scripts/setup.sh >/dev/null
. scripts/lib.sh
MODEL="$(default_model "${1:-}")"
IMAGES="${2:-}"
N="${3:-128}"
THREADS="${4:-2}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$IMAGES" ]; then
  IMAGES="$tmp/scenes"
  build/edgeq scenes --out "$IMAGES" --n "$N" >/dev/null
fi
for round in 1 2; do
  build/edgeq bench --model "$MODEL" --threads "$THREADS" --runs "$N" --warmup 0 \
    --json "$tmp/bench$round.json" >/dev/null
  build/edgeq calibrate --model "$MODEL" --images "$IMAGES" --n "$N" --threads "$THREADS" \
    --out "$tmp/stats$round.cbor" --json "$tmp/calib$round.json" >/dev/null 2>&1
done
node -e '
const fs = require("fs"), d = process.argv[1];
const read = f => JSON.parse(fs.readFileSync(d + "/" + f));
const med = xs => { const s = xs.slice().sort((a, b) => a - b); const m = (s.length - 1) / 2;
                    return (s[Math.floor(m)] + s[Math.ceil(m)]) / 2; };
const mean = xs => xs.reduce((a, b) => a + b, 0) / xs.length;
const fwd = [1, 2].map(r => mean(read(`bench${r}.json`).samples_ms));
const cal = [1, 2].map(r => read(`calib${r}.json`));
const c = cal[1];
console.log(`model ${process.argv[2]}  threads ${process.argv[3]}  images ${c.images}  histogram stride ${c.histogram_stride}`);
console.log(`values: ${c.values} (${c.values_read} read, ${c.values_derived} derived); calibrate peak RSS ${(c.peak_rss_bytes / 1048576).toFixed(1)} MiB`);
for (let r = 0; r < 2; ++r) {
  const f = fwd[r], k = cal[r];
  const total = k.image_wait_ms_per_image + k.forward_statistics_ms_per_image;
  console.log(`round ${r + 1}: FP32 forward mean ${f.toFixed(2)} ms | calibrate ${total.toFixed(2)} ms/image ` +
              `(waiting for images ${k.image_wait_ms_per_image.toFixed(2)}, forward + statistics ${k.forward_statistics_ms_per_image.toFixed(2)})`);
  console.log(`         ratio calibrate / forward: ${(total / f).toFixed(3)} (forward + statistics only: ` +
              `${(k.forward_statistics_ms_per_image / f).toFixed(3)})`);
}
' "$tmp" "$MODEL" "$THREADS"

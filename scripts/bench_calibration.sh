#!/usr/bin/env bash
# What calibration costs next to plain FP32 forwards, measured in one go on this machine:
# `edgeq calibrate` over N images against N forwards of `edgeq bench` (same model, same threads),
# alternating the two ROUNDS times so that neither gets a quieter machine. Both count from a
# planned model (plan time excluded) and include their first run (bench --warmup 0): per image,
# the mean. Prints each round and the median ratio over the rounds.
#   scripts/bench_calibration.sh [MODEL.onnx] [IMAGES_DIR] [N=128] [THREADS=2] [ROUNDS=2]
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
ROUNDS="${5:-2}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$IMAGES" ]; then
  IMAGES="$tmp/scenes"
  build/edgeq scenes --out "$IMAGES" --n "$N" >/dev/null
fi
for round in $(seq 1 "$ROUNDS"); do
  build/edgeq bench --model "$MODEL" --threads "$THREADS" --runs "$N" --warmup 0 \
    --json "$tmp/bench$round.json" >/dev/null
  build/edgeq calibrate --model "$MODEL" --images "$IMAGES" --n "$N" --threads "$THREADS" \
    --out "$tmp/stats$round.cbor" --json "$tmp/calib$round.json" >/dev/null 2>&1
done
node -e '
const fs = require("fs"), d = process.argv[1], rounds = Number(process.argv[4]);
const read = f => JSON.parse(fs.readFileSync(d + "/" + f));
const mean = xs => xs.reduce((a, b) => a + b, 0) / xs.length;
const med = xs => { const s = xs.slice().sort((a, b) => a - b); const m = (s.length - 1) / 2;
                    return (s[Math.floor(m)] + s[Math.ceil(m)]) / 2; };
const ratios = [];
for (let r = 1; r <= rounds; ++r) {
  const f = mean(read(`bench${r}.json`).samples_ms), k = read(`calib${r}.json`);
  if (r === 1) {
    console.log(`model ${process.argv[2]}  threads ${process.argv[3]}  images ${k.images}  histogram stride ${k.histogram_stride}`);
    console.log(`values: ${k.values} (${k.values_read} read, ${k.values_derived} derived); calibrate peak RSS ${(k.peak_rss_bytes / 1048576).toFixed(1)} MiB`);
  }
  const total = k.image_wait_ms_per_image + k.forward_statistics_ms_per_image;
  ratios.push(total / f);
  console.log(`round ${r}: FP32 forward mean ${f.toFixed(2)} ms | calibrate ${total.toFixed(2)} ms/image ` +
              `(reading outside the passes ${k.image_wait_ms_per_image.toFixed(2)}, forward + statistics + ` +
              `next image ${k.forward_statistics_ms_per_image.toFixed(2)}) | ratio ${(total / f).toFixed(3)}`);
}
console.log(`ratio calibrate / forward: median ${med(ratios).toFixed(3)} over ${rounds} rounds ` +
            `(min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)})`);
' "$tmp" "$MODEL" "$THREADS" "$ROUNDS"

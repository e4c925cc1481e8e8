#!/usr/bin/env bash
# What calibration costs next to plain FP32 forwards, measured in one go on this machine:
# `edgeq calibrate` over N images against N forwards of `edgeq bench` (same model, same threads),
# alternating ROUNDS times so that neither gets a quieter machine. Two baselines:
#   one at a time: `edgeq bench`, one image at a time on all threads (mean latency);
#   throughput:    `edgeq bench --workers W`, W images at once like calibrate (wall / runs).
# calibrate runs W workers (one per thread, at most 8), reads and letterboxes the JPEGs itself,
# and counts from its first worker being planned; the benches count from a planned model and
# include their first run (--warmup 0). Prints each round and the median ratios over the rounds.
#   scripts/bench_calibration.sh [MODEL.onnx] [IMAGES_DIR] [N=128] [THREADS=2] [ROUNDS=2]
# Without MODEL: the repository's models/yolo11n-pose.onnx.
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
WORKERS=$((THREADS < 8 ? THREADS : 8))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$IMAGES" ]; then
  IMAGES="$tmp/scenes"
  build/edgeq scenes --out "$IMAGES" --n "$N" >/dev/null
fi
for round in $(seq 1 "$ROUNDS"); do
  build/edgeq bench --model "$MODEL" --threads "$THREADS" --runs "$N" --warmup 0 \
    --json "$tmp/bench$round.json" >/dev/null
  build/edgeq bench --model "$MODEL" --threads "$THREADS" --workers "$WORKERS" --runs "$N" \
    --warmup 0 --json "$tmp/throughput$round.json" >/dev/null
  build/edgeq calibrate --model "$MODEL" --images "$IMAGES" --n "$N" --threads "$THREADS" \
    --out "$tmp/stats$round.cbor" --json "$tmp/calib$round.json" >/dev/null 2>&1
done
node -e '
const fs = require("fs"), d = process.argv[1], rounds = Number(process.argv[4]);
const read = f => JSON.parse(fs.readFileSync(d + "/" + f));
const med = xs => { const s = xs.slice().sort((a, b) => a - b); const m = (s.length - 1) / 2;
                    return (s[Math.floor(m)] + s[Math.ceil(m)]) / 2; };
const seq = [], thr = [];
for (let r = 1; r <= rounds; ++r) {
  const f = read(`bench${r}.json`).throughput_ms_per_run, t = read(`throughput${r}.json`);
  const k = read(`calib${r}.json`);
  if (r === 1) {
    console.log(`model ${process.argv[2]}  threads ${process.argv[3]}  images ${k.images}  histogram stride ${k.histogram_stride}`);
    console.log(`calibrate: ${k.workers} worker(s) x ${k.threads_per_worker} thread(s); values: ${k.values} (${k.values_read} read, ${k.values_derived} derived); peak RSS ${(k.peak_rss_bytes / 1048576).toFixed(1)} MiB`);
  }
  const c = k.ms_per_image, tp = t.throughput_ms_per_run;
  seq.push(c / f);
  thr.push(c / tp);
  console.log(`round ${r}: FP32 forward ${f.toFixed(2)} ms one at a time, ${tp.toFixed(2)} ms/image with ${t.workers} at once | ` +
              `calibrate ${c.toFixed(2)} ms/image | ratio ${(c / f).toFixed(3)} / ${(c / tp).toFixed(3)}`);
}
const line = (name, xs) => console.log(`ratio calibrate / forward (${name}): median ${med(xs).toFixed(3)} over ${rounds} rounds ` +
                                      `(min ${Math.min(...xs).toFixed(3)}, max ${Math.max(...xs).toFixed(3)})`);
line("one at a time", seq);
line("throughput", thr);
' "$tmp" "$MODEL" "$THREADS" "$ROUNDS"

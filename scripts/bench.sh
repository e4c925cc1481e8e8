#!/usr/bin/env bash
# Runs edgeq's bench and ONNX Runtime's on the same model, same threads, in one go, and prints
# both medians and the ratio edgeq / ORT (below 1.0 means edgeq is faster).
#   scripts/bench.sh [MODEL.onnx] [THREADS=2] [RUNS=30]
# Without MODEL: ../shared/models/yolo11n-pose.onnx if present, else a zoo yolo11n-pose.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/edgeq ] && [ -d tools/ort/node_modules/onnxruntime-node ] || ./scripts/setup.sh >/dev/null
. scripts/lib.sh
MODEL="$(default_model "${1:-}")"
THREADS="${2:-2}"
RUNS="${3:-30}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Alternate the two so that neither gets a quieter machine; each runs RUNS/2 twice.
half=$(( (RUNS + 1) / 2 ))
for round in 1 2; do
  build/edgeq bench --model "$MODEL" --threads "$THREADS" --runs "$half" --warmup 3 --json "$tmp/edgeq$round.json" >/dev/null
  node tools/ort/ort_run.js bench "$MODEL" "$THREADS" "$half" 3 > "$tmp/ort$round.json"
done
node -e '
const fs = require("fs"), d = process.argv[1];
const read = f => JSON.parse(fs.readFileSync(d + "/" + f));
const e = [read("edgeq1.json"), read("edgeq2.json")], o = [read("ort1.json"), read("ort2.json")];
const med = xs => { const s = xs.slice().sort((a, b) => a - b); const m = (s.length - 1) / 2;
                    return (s[Math.floor(m)] + s[Math.ceil(m)]) / 2; };
const es = e.flatMap(x => x.samples_ms);
const em = med(es), emin = Math.min(...es);
const os = o.flatMap(x => x.samples_ms);
const om = med(os), omin = Math.min(...os);
console.log(`model ${process.argv[2]}  threads ${process.argv[3]}  ORT ${o[0].ort_version}`);
console.log(`edgeq  median ${em.toFixed(2)} ms  min ${emin.toFixed(2)} ms  peak RSS ${(e[1].peak_rss_bytes/1048576).toFixed(1)} MiB`);
console.log(`ORT    median ${om.toFixed(2)} ms  min ${omin.toFixed(2)} ms`);
console.log(`ratio edgeq/ORT: median ${(em/om).toFixed(3)}  min ${(emin/omin).toFixed(3)}`);
' "$tmp" "$MODEL" "$THREADS"

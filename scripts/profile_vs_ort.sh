#!/usr/bin/env bash
# Where the time goes, node by node, in edgeq and in ONNX Runtime on the same file and threads:
# `edgeq bench --profile` (every step, timed runs only) beside ORT's own profiler (its time per
# node as it ran the graph after its fusions, warm-up runs dropped), joined by node name.
#   scripts/profile_vs_ort.sh [MODEL.onnx] [THREADS=2] [RUNS=30] [--exec simulate|int8]
# Without MODEL: the repository's models/yolo11n-pose.onnx. Matching: ORT names a node it
# rewrote to its blocked layout after the node's output ('/model.0/conv/Conv_output_0_nchwc' is
# '/model.0/conv/Conv'); the SiLU that edgeq fuses into a Conv ORT runs as its own QuickGelu
# ('/model.0/act/Mul/QuickGeluFusion/'), counted here with that Conv. What has no counterpart
# (edgeq's layout conversions, ORT's reorders) is listed apart. ORT's profiler slows ORT down
# (it times every node): compare the ratio per node, and its sum against ORT's profiled run.
# Both run one after the other on a host that may be noisy: run it twice before trusting a row.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
[ -x build/edgeq ] && [ -d tools/ort/node_modules/onnxruntime-node ] || ./scripts/setup.sh >/dev/null
MODEL="$(default_model "${1:-}")" THREADS="${2:-2}" RUNS="${3:-30}" EXEC="simulate"
[ "${4:-}" = "--exec" ] && EXEC="${5:?--exec needs simulate or int8}"
[ -f "$MODEL" ] || { echo "profile_vs_ort: no model $MODEL" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu_line
build/edgeq bench --model "$MODEL" --threads "$THREADS" --runs "$RUNS" --warmup 3 --exec "$EXEC" \
  --profile --json "$tmp/edgeq.json" >/dev/null
node tools/ort/ort_run.js profile "$MODEL" "$THREADS" "$RUNS" 3 >"$tmp/ort.json"
node -e '
const fs = require("fs");
const e = JSON.parse(fs.readFileSync(process.argv[1])), o = JSON.parse(fs.readFileSync(process.argv[2]));
const rows = new Map();  // key -> {edgeq, ort, label}
const row = (key, label) => rows.get(key) || rows.set(key, {edgeq: 0, ort: 0, label, matched: false}).get(key);
for (const s of e.profile.steps) {
  const m = /^node \x27(.*)\x27 \((.*)\)$/.exec(s.step);
  const r = m ? row(m[1], `${m[1]} (${m[2]})`) : row("edgeq:" + s.step, s.step);
  r.edgeq += s.ms_per_run;
}
for (const n of o.nodes) {
  let key = n.node.replace(/_nchwc$/, "").replace(/_output_0$/, "");
  const act = /^(.*)\/act\/.*QuickGelu/.exec(n.node);
  if (act && rows.has(act[1] + "/conv/Conv")) key = act[1] + "/conv/Conv";
  const r = rows.has(key) ? rows.get(key) : row("ort:" + n.node, `${n.node} (${n.op})`);
  r.ort += n.ms_per_run;
  r.matched = !key.startsWith("ort:") && !key.startsWith("edgeq:");
}
const all = [...rows.values()];
const both = all.filter(r => r.edgeq > 0 && r.ort > 0).sort((a, b) => (b.edgeq - b.ort) - (a.edgeq - a.ort));
const sum = (xs, f) => xs.reduce((t, x) => t + f(x), 0);
const f3 = x => x.toFixed(3).padStart(8);
console.log(`model ${e.model}  threads ${e.threads}  exec ${e.exec}  edgeq simd ${e.simd}  ORT ${o.ort_version}  runs ${e.runs}`);
console.log(`edgeq: steps ${sum(all, r => r.edgeq).toFixed(2)} ms a run, latency median ${e.median_ms.toFixed(2)} ms`);
console.log(`ORT:   nodes ${sum(all, r => r.ort).toFixed(2)} ms a run, profiled run median ${o.run_median_ms.toFixed(2)} ms (its profiler adds to its time)`);
console.log(`\nnodes both ran (${both.length}; edgeq ${sum(both, r => r.edgeq).toFixed(2)} ms, ORT ${sum(both, r => r.ort).toFixed(2)} ms), where edgeq loses most first:`);
console.log("  edgeq ms    ORT ms  edgeq/ORT  node");
for (const r of both) console.log(`${f3(r.edgeq)}  ${f3(r.ort)}   ${(r.edgeq / r.ort).toFixed(2).padStart(6)}   ${r.label}`);
for (const [who, pick] of [["edgeq", r => r.ort === 0 ? r.edgeq : 0], ["ORT", r => r.edgeq === 0 ? r.ort : 0]]) {
  const only = all.filter(r => pick(r) > 0).sort((a, b) => pick(b) - pick(a));
  console.log(`\nonly in ${who} (${only.length}; ${sum(only, pick).toFixed(2)} ms), the slowest 15:`);
  for (const r of only.slice(0, 15)) console.log(`${f3(pick(r))}  ${r.label}`);
}
' "$tmp/edgeq.json" "$tmp/ort.json"

#!/usr/bin/env bash
# Serial `edgeq run` against `edgeq run --pipeline` on the same generated 640x480 video, in one
# run: serial and pipelined runs alternate ROUNDS times; prints each run's frames/s, the median of
# each mode, their ratio (pipelined / serial), what each pipelined run ran (frames serially and in
# threads, changes of mode) and the last pipelined run's stage table, with the CPU and the load
# average before and after.
#   scripts/bench_pipeline.sh [MODEL.onnx] [FRAMES=300] [THREADS=2] [EXEC=simulate] [ROUNDS=3]
#                             [COMPETE=0]
# COMPETE=1 runs a busy loop pinned to core 0 (taskset) for the whole benchmark: other work
# taking one core, as on a shared machine.
# Without MODEL: the repository's models/yolo11n-pose.onnx. The video pans over the coco8-pose
# photos (data/coco8-pose/images). EXEC int8
# needs a W8A8 QDQ model (edgeq quantize --scheme w8a8).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/edgeq ] || ./scripts/setup.sh >/dev/null
. scripts/lib.sh
MODEL="$(default_model "${1:-}")"
FRAMES="${2:-300}"
THREADS="${3:-2}"
EXEC="${4:-simulate}"
ROUNDS="${5:-3}"
COMPETE="${6:-0}"
tmp=$(mktemp -d)
busy=""
trap '[ -z "$busy" ] || kill "$busy"; rm -rf "$tmp"' EXIT
build/edgeq scenes --video "$tmp/clip.avi" --n "$FRAMES" --size 640x480 \
  --images data/coco8-pose/images >/dev/null

run() {  # run MODE ROUND [--pipeline]
  build/edgeq run --model "$MODEL" --image "$tmp/clip.avi" --threads "$THREADS" --exec "$EXEC" \
    --report "$tmp/$1_$2.json" "${@:3}" >"$tmp/$1_$2.txt"
}
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$COMPETE" = 1 ]; then
  taskset -c 0 sh -c 'while :; do :; done' &
  busy=$!
  echo "competing: a busy loop on core 0 (pid $busy)"
fi
for round in $(seq "$ROUNDS"); do
  run serial "$round"
  run pipeline "$round" --pipeline
done

node -e '
const fs = require("fs"), d = process.argv[1], rounds = +process.argv[2];
const read = f => JSON.parse(fs.readFileSync(d + "/" + f));
const med = xs => { const s = xs.slice().sort((a, b) => a - b); const m = (s.length - 1) / 2;
                    return (s[Math.floor(m)] + s[Math.ceil(m)]) / 2; };
const fps = {serial: [], pipeline: []};
for (let r = 1; r <= rounds; ++r)
  for (const mode of ["serial", "pipeline"]) fps[mode].push(read(`${mode}_${r}.json`).frames_per_s);
const first = read("pipeline_1.json");
console.log(`model ${process.argv[3]}  exec ${process.argv[4]}  inference threads ${first.infer_threads}` +
            `  ${first.frames} frames 640x480  queue ${first.queue}`);
for (const mode of ["serial", "pipeline"])
  console.log(`${mode.padEnd(8)} frames/s: ${fps[mode].map(v => v.toFixed(1)).join(", ")}` +
              `  (median ${med(fps[mode]).toFixed(1)})`);
console.log(`ratio pipelined / serial: ${(med(fps.pipeline) / med(fps.serial)).toFixed(3)}`);
for (let r = 1; r <= rounds; ++r) {
  const p = read(`pipeline_${r}.json`), f = p.pipeline_frames, sw = p.pipeline_switches;
  if (!f) continue;
  const kept = sw.filter(s => s.kind === "keep").map(s => `${s.to} at ${s.frame}`);
  console.log(`pipelined run ${r}: predicted ${p.pipeline_choice.ran}; ${f.serial} frames serially, ` +
              `${f.threads} in threads; ${sw.length} changes` +
              (kept.length ? ` (kept ${kept.join(", ")})` : ""));
}
' "$tmp" "$ROUNDS" "$MODEL" "$EXEC"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "last pipelined run:"
sed -n '/^stage/,$p' "$tmp/pipeline_$ROUNDS.txt"

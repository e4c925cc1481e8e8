// One markdown table row from two `edgeq compare --json` reports (fold A and fold B of a held-out
// split), for scripts/quant_table.sh and scripts/raw_head_table.sh:
//   node scripts/compare_row.js A.json B.json NAME "16-bit values cell" [MORE CELLS...]
// Cells: match vs FP32 (each fold), pooled match, extra detections, box / keypoint px (mean over
// matched detections), score shift and bias, pose and box mAP50-95 drop in points; then MORE CELLS.
const fs = require("fs");
const [a, b] = [process.argv[2], process.argv[3]].map((p) => JSON.parse(fs.readFileSync(p)));
const both = (f) => `${f(a)} / ${f(b)}`;
const pts = (j, k) => (j.labels && j.labels.ref[k] ? ((j.labels.ref[k].map50_95 - j.labels.test[k].map50_95) * 100).toFixed(2) : "-");
const px = (j, k, digits = 2) => (j.detections.matched > 0 && j.detections[k] ? j.detections[k].mean.toFixed(digits) : "-");
const match = (j) => `${j.detections.match_rate === null ? "none" : (100 * j.detections.match_rate).toFixed(1) + "%"} (${j.detections.matched}/${j.detections.ref})`;
const m = a.detections.matched + b.detections.matched, r = a.detections.ref + b.detections.ref;
const signed = (v) => { const s = v.toFixed(3).replace(/^-(0\.0+)$/, "$1"); return /^(-|0\.0+$)/.test(s) ? s : "+" + s; };
const bias = (j) => (j.detections.matched > 0 ? signed(j.detections.score_bias) : "-");
const cells = [process.argv[4], process.argv[5], both(match), `${(100 * m / r).toFixed(1)}% (${m}/${r})`,
  both((j) => j.detections.extra), both((j) => px(j, "box_px")), both((j) => px(j, "keypoint_px")),
  both((j) => px(j, "score_shift", 3)), both(bias), both((j) => pts(j, "pose")), both((j) => pts(j, "box")),
  ...process.argv.slice(6)];
console.log(`| ${cells.join(" | ")} |`);

#!/usr/bin/env node
// ONNX Runtime oracle for edgeq's tests and benchmarks.
//   node ort_run.js run [--opt LEVEL] MODEL OUTDIR NAME=in.npy [NAME=in.npy ...]
//                                                              -> OUTDIR/<output>.npy
//     NAME=a.npy,b.npy,... runs once per file (one session): OUTDIR/<k>/<output>.npy
//   node ort_run.js bench [--opt LEVEL] MODEL THREADS RUNS WARMUP -> JSON latency line
//   node ort_run.js profile [--opt LEVEL] MODEL THREADS RUNS WARMUP -> JSON: ORT's profiler's
//     time per timed run of each node as ORT ran it (after its fusions), and its runs' median
// --opt: ORT's graph optimization level, disabled | basic | extended | all (default all, ORT's
// own default). "basic" keeps QDQ as DequantizeLinear -> float op -> QuantizeLinear, the exact
// QDQ formula; "all" fuses 8-bit QDQ into ORT's int8 kernels, which on x86 CPUs without VNNI add
// u8 x s8 products in saturating int16 pairs (docs/lessons.md, lesson 10).
// Output names have '/' replaced by '_' in file names, as `edgeq infer` does.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const NPY_TYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '|u1': ['uint8', Uint8Array], '|i1': ['int8', Int8Array],
  '<u2': ['uint16', Uint16Array], '<i2': ['int16', Int16Array],
  '<i4': ['int32', Int32Array], '<i8': ['int64', BigInt64Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(file + ' is not .npy');
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const hstart = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', hstart, hstart + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim())
      .filter(s => s.length).map(Number);
  const [type, Ctor] = NPY_TYPES[descr] || [];
  if (!type) throw new Error(file + ': unsupported dtype ' + descr);
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Ctor(n);
  Buffer.from(data.buffer).set(buf.subarray(hstart + hlen, hstart + hlen + n * Ctor.BYTES_PER_ELEMENT));
  return new ort.Tensor(type, data, shape);
}

function writeNpy(file, tensor) {
  const descr = Object.keys(NPY_TYPES).find(k => NPY_TYPES[k][0] === tensor.type);
  if (!descr) throw new Error('cannot write type ' + tensor.type);
  const dims = tensor.dims.length === 1 ? `${tensor.dims[0]},` : tensor.dims.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1; pre[7] = 0; pre.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), data]));
}

async function run(opt, model, outdir, feeds) {
  const session = await ort.InferenceSession.create(
      model, {intraOpNumThreads: 2, graphOptimizationLevel: opt});
  const lists = {};
  for (const f of feeds) {
    const eq = f.indexOf('=');
    lists[f.slice(0, eq)] = f.slice(eq + 1).split(',');
  }
  const names = Object.keys(lists);
  const count = Math.max(...names.map(n => lists[n].length));
  const batched = names.some(n => lists[n].length > 1);
  for (let k = 0; k < count; ++k) {
    const inputs = {};
    for (const n of names) inputs[n] = readNpy(lists[n][Math.min(k, lists[n].length - 1)]);
    const out = await session.run(inputs);
    const dir = batched ? path.join(outdir, String(k)) : outdir;
    fs.mkdirSync(dir, {recursive: true});
    for (const name of session.outputNames)
      writeNpy(path.join(dir, name.replace(/[\/\\:]/g, '_') + '.npy'), out[name]);
  }
}

function benchInputs(session) {
  const meta = session.inputMetadata ? session.inputMetadata : null;
  const inputs = {};
  for (let i = 0; i < session.inputNames.length; ++i) {
    const name = session.inputNames[i];
    const dims = meta && meta[i] && meta[i].shape ? meta[i].shape.map(d => (typeof d === 'number' ? d : 1))
                                                  : [1, 3, 640, 640];
    const n = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    let s = 1;
    for (let k = 0; k < n; ++k) { s = (s * 1103515245 + 12345) % 2147483648; data[k] = s / 2147483648; }
    inputs[name] = new ort.Tensor('float32', data, dims);
  }
  return inputs;
}

function sessionOptions(opt, threads) {
  return {intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
          graphOptimizationLevel: opt};
}

const median = xs => { const s = xs.slice().sort((a, b) => a - b); const m = (s.length - 1) / 2;
                       return (s[Math.floor(m)] + s[Math.ceil(m)]) / 2; };

async function bench(opt, model, threads, runs, warmup) {
  const session = await ort.InferenceSession.create(model, sessionOptions(opt, threads));
  const inputs = benchInputs(session);
  for (let i = 0; i < warmup; ++i) await session.run(inputs);
  const ms = [];
  for (let i = 0; i < runs; ++i) {
    const t0 = process.hrtime.bigint();
    await session.run(inputs);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const q = p => { const pos = p * (ms.length - 1); const lo = Math.floor(pos);
                   const hi = Math.min(lo + 1, ms.length - 1); return ms[lo] + (ms[hi] - ms[lo]) * (pos - lo); };
  console.log(JSON.stringify({ort_version: ort.env.versions.common, threads, runs,
                              min_ms: ms[0], median_ms: q(0.5), p95_ms: q(0.95), samples_ms: ms}));
}

// ORT's profiler writes one event per node and run (name '<node>_kernel_time', dur in us) and one
// 'model_run' per run, into a file of its own; the warm-up runs' events are dropped.
async function profile(opt, model, threads, runs, warmup) {
  const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'ort-profile-'));
  try {
    const session = await ort.InferenceSession.create(
        model, {...sessionOptions(opt, threads), enableProfiling: true,
                profileFilePrefix: path.join(dir, 'p')});
    const inputs = benchInputs(session);
    for (let i = 0; i < warmup + runs; ++i) await session.run(inputs);
    session.endProfiling();
    const file = fs.readdirSync(dir).find(f => f.endsWith('.json'));
    if (!file) throw new Error('ONNX Runtime wrote no profile');
    const events = JSON.parse(fs.readFileSync(path.join(dir, file)));
    const runMs = events.filter(e => e.cat === 'Session' && e.name === 'model_run')
                      .slice(warmup).map(e => e.dur / 1000);
    const nodes = new Map();  // in order of first appearance
    for (const e of events) {
      if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
      const name = e.name.slice(0, -'_kernel_time'.length);
      if (!nodes.has(name)) nodes.set(name, {node: name, op: e.args.op_name, seen: 0, ms: 0});
      const n = nodes.get(name);
      if (n.seen++ >= warmup) n.ms += e.dur / 1000;
    }
    console.log(JSON.stringify({
      ort_version: ort.env.versions.common, threads, runs, run_median_ms: median(runMs),
      nodes: [...nodes.values()].map(n => ({node: n.node, op: n.op, ms_per_run: n.ms / runs}))}));
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
}

const LEVELS = ['disabled', 'basic', 'extended', 'all'];
const [cmd, ...rest] = process.argv.slice(2);
let opt = 'all';
let args = rest;
if (args[0] === '--opt') {
  opt = args[1];
  args = args.slice(2);
}
(!LEVELS.includes(opt) ? Promise.reject(new Error(`--opt must be one of ${LEVELS.join(', ')}`))
 : cmd === 'run' ? run(opt, args[0], args[1], args.slice(2))
 : cmd === 'bench' ? bench(opt, args[0], Number(args[1]), Number(args[2]), Number(args[3]))
 : cmd === 'profile' ? profile(opt, args[0], Number(args[1]), Number(args[2]), Number(args[3]))
 : Promise.reject(new Error('usage: ort_run.js run|bench|profile [--opt LEVEL] ...')))
  .catch(e => { console.error('ort_run: ' + e.message); process.exit(1); });

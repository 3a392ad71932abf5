#!/usr/bin/env node
// Times ONNX Runtime's inference (onnxruntime-node) on one ONNX model, for the comparison of
// `nnplan run` (bench/peers/run_compare.sh): one InferenceSession created with
// graphOptimizationLevel 'all', intraOpNumThreads T (--threads, default 1) and interOpNumThreads 1
// on the CPU provider,
// then W untimed warm-up runs and N timed `session.run` calls on the same feeds. Each graph input
// is read from DIR/<name>.npy when that file exists, else filled with seeded normal values (dynamic
// dimensions taken as 1) and written there as .npy, so that nnplan runs on the same bytes. Each
// output of the last run is written to OUT_DIR/<name>.npy (float32, little endian). Names are
// used as file names with every character outside [A-Za-z0-9._-] replaced by '_'.
// Prints one line:
//   ort_run MODEL runs=N median_ms=… min_ms=… max_ms=… max_rss_kb=… node_rss_kb=… first_ms=…
// max_rss_kb is process.resourceUsage().maxRSS at the end (the peak resident set of the whole
// Node.js process: Node itself, the onnxruntime native library, the session and the runs);
// node_rss_kb is the same figure read before onnxruntime-node was loaded (Node alone); first_ms is
// the session's creation plus its first (warm-up) run, ORT's time to its first output.
// Then one `ort_input NAME FILE` and one `ort_output NAME FILE` line per input and output.
// Usage: node ort_run.js [--runs N] [--warmup W] [--seed S] [--threads T] --inputs DIR --outputs OUT_DIR MODEL
'use strict';

const nodeRssKb = process.resourceUsage().maxRSS;

const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

function parseArgs(argv) {
  const options = { runs: 10, warmup: 1, seed: 20261201, threads: 1, inputs: null, outputs: null, model: null };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--runs') options.runs = Number(argv[++i]);
    else if (a === '--warmup') options.warmup = Number(argv[++i]);
    else if (a === '--seed') options.seed = Number(argv[++i]);
    else if (a === '--threads') options.threads = Number(argv[++i]);
    else if (a === '--inputs') options.inputs = argv[++i];
    else if (a === '--outputs') options.outputs = argv[++i];
    else if (options.model === null) options.model = a;
    else options.model = undefined;
  }
  const ok =
    Number.isInteger(options.runs) && options.runs >= 1 && Number.isInteger(options.warmup) &&
    options.warmup >= 0 && Number.isInteger(options.seed) &&
    Number.isInteger(options.threads) && options.threads >= 1 && options.inputs && options.outputs &&
    options.model;
  if (!ok) {
    console.error(
      'usage: node ort_run.js [--runs N] [--warmup W] [--seed S] --inputs DIR --outputs OUT_DIR MODEL',
    );
    process.exit(2);
  }
  return options;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function fileName(name) {
  return name.replace(/[^A-Za-z0-9._-]/g, '_') + '.npy';
}

// xorshift32 uniforms in (0, 1), then Box-Muller: deterministic for a seed.
function normals(count, seed) {
  let s = seed >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s + 0.5) / 4294967296;
  };
  const out = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const t = 2 * Math.PI * uniform();
    out[i] = r * Math.cos(t);
    if (i + 1 < count) out[i + 1] = r * Math.sin(t);
  }
  return out;
}

// NumPy .npy version 1.0, '<f4', C order; the header padded so the data starts at a multiple of 64.
function writeNpy(file, dims, data) {
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  const unpadded = 10 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, 'latin1'), body]));
}

// Reads a .npy file written by writeNpy or NumPy: version 1 or 2, '<f4', C order.
function readNpy(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = bytes[6];
  const headerLength = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = bytes.toString('latin1', start, start + headerLength);
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header)) {
    throw new Error(`${file}: expected float32 little endian in C order, found ${header.trim()}`);
  }
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1];
  const dims = shape
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d.length > 0)
    .map(Number);
  const dataStart = start + headerLength;
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset + dataStart, bytes.byteOffset + bytes.length));
  return { dims, data };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  fs.mkdirSync(options.inputs, { recursive: true });
  fs.mkdirSync(options.outputs, { recursive: true });
  const created = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(options.model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: options.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const feeds = {};
  const inputFiles = [];
  session.inputNames.forEach((name, k) => {
    const file = path.join(options.inputs, fileName(name));
    let tensor;
    if (fs.existsSync(file)) {
      tensor = readNpy(file);
    } else {
      const meta = session.inputMetadata.find((m) => m.name === name);
      const dims = meta.shape.map((d) => (typeof d === 'number' ? d : 1));
      const count = dims.reduce((a, b) => a * b, 1);
      tensor = { dims, data: normals(count, options.seed + k) };
      writeNpy(file, dims, tensor.data);
    }
    feeds[name] = new ort.Tensor('float32', tensor.data, tensor.dims);
    inputFiles.push([name, file]);
  });
  let results;
  let firstMs = NaN;
  for (let i = 0; i < options.warmup; ++i) {
    results = await session.run(feeds);
    // Session creation plus the first run (input reading included): ORT's time to first output.
    if (i === 0) firstMs = Number(process.hrtime.bigint() - created) / 1e6;
  }
  const times = [];
  for (let i = 0; i < options.runs; ++i) {
    const start = process.hrtime.bigint();
    results = await session.run(feeds);
    const end = process.hrtime.bigint();
    times.push(Number(end - start) / 1e6);
  }
  const outputFiles = [];
  for (const name of session.outputNames) {
    const t = results[name];
    if (t.type !== 'float32') throw new Error(`output '${name}' has type ${t.type}; expected float32`);
    const file = path.join(options.outputs, fileName(name));
    writeNpy(file, t.dims, t.data);
    outputFiles.push([name, file]);
  }
  const maxRssKb = process.resourceUsage().maxRSS;
  const fmt = (x) => x.toFixed(3);
  console.log(
    `ort_run ${options.model} runs=${options.runs} median_ms=${fmt(median(times))} ` +
      `min_ms=${fmt(Math.min(...times))} max_ms=${fmt(Math.max(...times))} ` +
      `max_rss_kb=${maxRssKb} node_rss_kb=${nodeRssKb} first_ms=${fmt(firstMs)}`,
  );
  for (const [name, file] of inputFiles) console.log(`ort_input ${name} ${file}`);
  for (const [name, file] of outputFiles) console.log(`ort_output ${name} ${file}`);
}

main().catch((error) => {
  console.error(`ort_run: ${error && error.stack ? error.stack : error}`);
  process.exit(1);
});

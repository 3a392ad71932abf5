#!/usr/bin/env node
// Times ONNX Runtime's session creation (onnxruntime-node, optimizations disabled) on ONNX
// files: for each MODEL, K runs of `InferenceSession.create(MODEL, {graphOptimizationLevel:
// 'disabled'})` inside one warm Node.js process (the module and its native library are loaded,
// and one untimed creation runs, before timing). Prints one line per model:
//   ort_session MODEL runs=K median_ms=… min_ms=… max_ms=…
// With --run, also feeds the model one input of ones and prints the output's dims, to check that
// ONNX Runtime accepts and executes the generated model (not timed).
// Usage: node ort_session.js [--runs K] [--run] MODEL.onnx...
'use strict';

const ort = require('onnxruntime-node');

function parseArgs(argv) {
  const options = { runs: 10, run: false, models: [] };
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--runs') options.runs = Number(argv[++i]);
    else if (argv[i] === '--run') options.run = true;
    else options.models.push(argv[i]);
  }
  if (!Number.isInteger(options.runs) || options.runs < 1 || options.models.length === 0) {
    console.error('usage: node ort_session.js [--runs K] [--run] MODEL.onnx...');
    process.exit(2);
  }
  return options;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const sessionOptions = { graphOptimizationLevel: 'disabled', executionProviders: ['cpu'] };

async function runOnce(session) {
  const feeds = {};
  for (const name of session.inputNames) {
    const meta = session.inputMetadata.find((m) => m.name === name);
    const dims = meta && meta.shape ? meta.shape.map((d) => (typeof d === 'number' ? d : 1)) : [1];
    const count = dims.reduce((a, b) => a * b, 1);
    feeds[name] = new ort.Tensor('float32', new Float32Array(count).fill(1), dims);
  }
  const results = await session.run(feeds);
  for (const name of session.outputNames) {
    const t = results[name];
    console.log(`ort_run output=${name} dims=[${t.dims.join(',')}] first=${t.data[0]}`);
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  for (const model of options.models) {
    // Warm-up: the first creation also pays for one-time setup (environment, thread pools).
    const warm = await ort.InferenceSession.create(model, sessionOptions);
    if (options.run) await runOnce(warm);
    await warm.release();
    const times = [];
    for (let i = 0; i < options.runs; ++i) {
      const start = process.hrtime.bigint();
      const session = await ort.InferenceSession.create(model, sessionOptions);
      const end = process.hrtime.bigint();
      times.push(Number(end - start) / 1e6);
      await session.release();
    }
    const fmt = (x) => x.toFixed(3);
    console.log(
      `ort_session ${model} runs=${options.runs} median_ms=${fmt(median(times))} ` +
        `min_ms=${fmt(Math.min(...times))} max_ms=${fmt(Math.max(...times))}`,
    );
  }
}

main().catch((error) => {
  console.error(`ort_session: ${error && error.stack ? error.stack : error}`);
  process.exit(1);
});

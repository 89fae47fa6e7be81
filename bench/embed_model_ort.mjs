// ONNX Runtime peer of bench/embed_model.py: runs an exported encoder (inputs ids [B, T] int64 and mask [B, T]
// float32, output pooled [B, D]) over the calls bench/embed_model.py wrote, in each of its ways ("single",
// "bucket"), and prints {"seconds": {way: [wall per run]}, "cpu_seconds": {way: [user + system per run]},
// "pooled": {way: [[D floats] per text]}} as JSON.
//
//   NODE_PATH=~/.cache/tokvec/npm/node_modules \
//     node bench/embed_model_ort.mjs model.onnx calls.json THREADS REPEATS
//
// Session: onnxruntime-node 1.30.0, CPU, graphOptimizationLevel 'all', intraOpNumThreads THREADS,
// interOpNumThreads 1, sequential execution. One untimed warm-up call per way (as the PyTorch peer); session
// creation is not timed.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');

const [modelPath, callsPath, threadsArg, repeatsArg] = process.argv.slice(2);
if (!repeatsArg) {
  console.error('usage: embed_model_ort.mjs MODEL.onnx CALLS.json THREADS REPEATS');
  process.exit(2);
}
const threads = Number(threadsArg);
const repeats = Number(repeatsArg);
const ways = JSON.parse(readFileSync(callsPath, 'utf8'));
const session = await ort.InferenceSession.create(modelPath, {
  executionProviders: ['cpu'],
  graphOptimizationLevel: 'all',
  intraOpNumThreads: threads,
  interOpNumThreads: 1,
  executionMode: 'sequential',
});

// Tensors are built once, outside the timed loop (the Python peers also get ready-made arrays).
function feeds(call) {
  const [b, t] = call.shape;
  return {
    ids: new ort.Tensor('int64', BigInt64Array.from(call.ids, BigInt), [b, t]),
    mask: new ort.Tensor('float32', Float32Array.from(call.mask), [b, t]),
    // bench/rerank.py's cross-encoder also takes token type ids.
    ...(call.types ? {types: new ort.Tensor('int64', BigInt64Array.from(call.types, BigInt), [b, t])} : {}),
  };
}

async function runAll(inputs, pooled) {
  for (const { call, feed } of inputs) {
    const out = await session.run(feed);
    const data = out.pooled.data;
    const width = data.length / call.texts.length;
    call.texts.forEach((text, row) => { pooled[text] = Array.from(data.subarray(row * width, (row + 1) * width)); });
  }
}

const result = { seconds: {}, cpu_seconds: {}, pooled: {} };
for (const [way, calls] of Object.entries(ways)) {
  const inputs = calls.map((call) => ({ call, feed: feeds(call) }));
  const count = calls.reduce((n, call) => n + call.texts.length, 0);
  const pooled = new Array(count);
  await runAll(inputs.slice(0, 1), pooled);  // warm-up: the first call
  result.seconds[way] = [];
  result.cpu_seconds[way] = [];
  for (let r = 0; r < repeats; r++) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    await runAll(inputs, pooled);
    const used = process.cpuUsage(cpu);
    result.seconds[way].push((performance.now() - start) / 1000);
    result.cpu_seconds[way].push((used.user + used.system) / 1e6);
  }
  result.pooled[way] = pooled;
}
process.stdout.write(JSON.stringify(result));

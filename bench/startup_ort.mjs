// ONNX Runtime peer of bench/startup.py: a fresh node process that loads onnxruntime-node, creates a session for
// an exported encoder (inputs ids [1, T] int64 and mask [1, T] float32, output pooled [1, D]) and runs it once.
// Prints {"phases_ms": {require, session, run}, "pooled": [D floats]} as JSON; the caller times the process.
//
//   NODE_PATH=~/.cache/tokvec/npm/node_modules node bench/startup_ort.mjs model.onnx THREADS ID,ID,...
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const [modelPath, threadsArg, idsArg] = process.argv.slice(2);
if (!idsArg) {
  console.error('usage: startup_ort.mjs MODEL.onnx THREADS ID,ID,...');
  process.exit(2);
}
const t0 = performance.now();
const ort = createRequire(import.meta.url)('onnxruntime-node');
const t1 = performance.now();
const session = await ort.InferenceSession.create(modelPath, {
  executionProviders: ['cpu'],
  graphOptimizationLevel: 'all',
  intraOpNumThreads: Number(threadsArg),
  interOpNumThreads: 1,
  executionMode: 'sequential',
});
const t2 = performance.now();
const ids = idsArg.split(',').map(Number);
const out = await session.run({
  ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
  mask: new ort.Tensor('float32', new Float32Array(ids.length).fill(1), [1, ids.length]),
});
const t3 = performance.now();
console.log(JSON.stringify({ phases_ms: { require: t1 - t0, session: t2 - t1, run: t3 - t2 },
                             pooled: Array.from(out.pooled.data) }));

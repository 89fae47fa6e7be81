// Throughput and latency of `tokvec serve` on 127.0.0.1 (bench/serve.sh runs it on a small and a 12-layer model).
// For each setting it starts a server, runs CLIENTS concurrent keep-alive clients x REQUESTS requests of one text
// each (no checking: scripts/serve_check.sh checks), and prints requests (= embeddings) per second, tokens per
// second (usage.prompt_tokens) and p50/p99 latency; batching on (--max-batch-tokens 8192) against off (1) in the
// same run gives the batching gain. Then the HTTP overhead: the median latency of sequential one-text requests
// against the in-process time per text of `tokvec embed --lines` on the same texts (model load subtracted), and of
// GET /health (an HTTP round trip with no work).
//
//   node bench/serve_bench.mjs --tokvec build/tokvec --model DIR --texts FILE [--clients 16] [--requests 50]
//        [--threads 1] [--pooling auto]
import {spawn, execFileSync} from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) => {
  if (a.startsWith('--')) pairs.push([a.slice(2), all[i + 1]]);
  return pairs;
}, []));
const tokvec = path.resolve(args.tokvec), model = path.resolve(args.model);
const texts = fs.readFileSync(args.texts, 'utf8').split('\n').filter((t) => t);
const CLIENTS = Number(args.clients || 16), REQUESTS = Number(args.requests || 50), THREADS = args.threads || '1';
const name = path.basename(model);

function startServer(extra) {
  return new Promise((resolve, reject) => {
    const child = spawn(tokvec, ['serve', '-m', model, '--port', '0', '--threads', THREADS,
                                 '--pooling', args.pooling || 'auto', ...extra],
                        {stdio: ['ignore', 'ignore', 'pipe']});
    let log = '';
    child.stderr.on('data', (d) => {
      log += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(log);
      if (m && !child.port) { child.port = Number(m[1]); resolve(child); }
    });
    child.on('exit', (code) => { if (!child.port) reject(new Error('tokvec serve exited ' + code + ': ' + log)); });
  });
}
function request(port, agent, method, route, body) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const req = http.request({host: '127.0.0.1', port, path: route, method, agent,
                              headers: {'Content-Type': 'application/json'}}, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({status: res.statusCode, body: Buffer.concat(chunks).toString(),
                                   ms: Number(process.hrtime.bigint() - start) / 1e6}));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const stop = (child) => new Promise((resolve) => { child.on('exit', resolve); child.kill('SIGTERM'); });

// Inputs: the texts (token counts vary, so few requests share a length and batches are mostly one sequence per
// length), or with ids = true sequences of exactly 16 token ids (all batchable together).
const input = (i, ids) => ids ? Array.from({length: 16}, (_, k) => 10 + ((i * 7 + k * 13) % 280)) : texts[i % texts.length];

async function load(label, extra, ids = false) {
  const server = await startServer(extra);
  const latencies = [];
  let tokens = 0;
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({length: CLIENTS}, async (_, c) => {
    const agent = new http.Agent({keepAlive: true, maxSockets: 1});
    for (let r = 0; r < REQUESTS; ++r) {
      const res = await request(server.port, agent, 'POST', '/v1/embeddings',
                                {input: input(c * REQUESTS + r, ids), encoding_format: 'base64'});
      if (res.status !== 200) throw new Error(`status ${res.status}: ${res.body}`);
      tokens += JSON.parse(res.body).usage.prompt_tokens;
      latencies.push(res.ms);
    }
    agent.destroy();
  }));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await stop(server);
  const rate = latencies.length / seconds;
  console.log(`${name} ${label}: ${latencies.length} embeddings in ${seconds.toFixed(2)} s = ${rate.toFixed(1)} ` +
              `embeddings/s, ${(tokens / seconds).toFixed(0)} tokens/s; latency p50 ${percentile(latencies, 0.5).toFixed(1)} ms, ` +
              `p99 ${percentile(latencies, 0.99).toFixed(1)} ms`);
  return rate;
}

async function overhead() {
  const server = await startServer(['--max-batch-tokens', '8192']);
  let log = '';
  server.stderr.on('data', (d) => (log += d));
  const agent = new http.Agent({keepAlive: true, maxSockets: 1});
  const n = Math.min(64, texts.length), one = [], health = [];
  for (let i = 0; i < n; ++i) {
    one.push((await request(server.port, agent, 'POST', '/v1/embeddings', {input: texts[i]})).ms);
    health.push((await request(server.port, agent, 'GET', '/health')).ms);
  }
  agent.destroy();
  await stop(server);
  // The server's own time per request (its log line: parse, tokenize, queue, forward, response JSON).
  const inside = [...log.matchAll(/"POST \/v1\/embeddings" 200 .* ([0-9.]+)ms/g)].map((m) => Number(m[1]));
  // In process: `tokvec embed --lines` over the same n texts, minus the same command on one text (load + start).
  const file = path.join(path.dirname(args.texts), 'overhead_texts.txt');
  const timeEmbed = (lines) => {
    fs.writeFileSync(file, texts.slice(0, lines).join('\n') + '\n');
    const start = process.hrtime.bigint();
    execFileSync(tokvec, ['embed', '-m', model, '--lines', '--format', 'npy', '--threads', THREADS, '--pooling',
                          args.pooling && args.pooling !== 'auto' ? args.pooling : 'mean', '-o', '/dev/null', file]);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const base = median([timeEmbed(1), timeEmbed(1), timeEmbed(1)]);
  const all = median([timeEmbed(n), timeEmbed(n), timeEmbed(n)]);
  const perText = Math.max(0, (all - base) / (n - 1));
  console.log(`${name} HTTP overhead: one text per request, sequential: client median ${median(one).toFixed(2)} ms, ` +
              `server-side median ${median(inside).toFixed(2)} ms (so HTTP + client: ` +
              `${(median(one) - median(inside)).toFixed(2)} ms); GET /health round trip median ${median(health).toFixed(2)} ms; ` +
              `in process (embed --lines over the same texts, batched, load subtracted) ${perText.toFixed(2)} ms per text`);
}

for (const ids of [false, true]) {
  const what = ids ? '16-id inputs' : 'texts';
  const on = await load(`${what}, batching on (--max-batch-tokens 8192)`, ['--max-batch-tokens', '8192'], ids);
  const off = await load(`${what}, batching off (--max-batch-tokens 1)`, ['--max-batch-tokens', '1'], ids);
  console.log(`${name} ${what}: batching gain ${(on / off).toFixed(2)}x embeddings/s (${CLIENTS} clients, --threads ${THREADS})`);
}
await overhead();

// The checks of scripts/serve_check.sh against real `tokvec serve` processes on 127.0.0.1 (ephemeral ports):
//   1. the official `openai` npm client's embeddings.create (base64, its default, and float) returns the vectors
//      of `tokvec embed --lines` bit for bit (float32), for strings, arrays of strings and token ids;
//   2. a bounded load test (CLIENTS x REQUESTS, keep-alive) checking every response against the CLI's vectors,
//      with a client that disconnects mid-request and one that sends its request a byte at a time alongside;
//      prints throughput and p50/p99 latency and the batching the server did (from /metrics);
//   3. SIGTERM during load: the server exits 0, and every request it answered 200 (its log) reached its client
//      intact; requests after the stop are refused, none is cut off;
//   4. the viewer page in headless Chromium (DevTools protocol over a pipe): type a sentence, check the DOM and
//      the heatmap's pixels, save the screenshot (--screenshot).
//
//   node scripts/serve_check.mjs --tokvec build/tokvec --openai DIR/node_modules/openai --work DIR
//        [--clients 16] [--requests 200] [--screenshot docs/serve_viewer.png] [--no-chromium]
import {spawn, execFileSync} from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) => {
  if (a.startsWith('--')) pairs.push([a.slice(2), all[i + 1] && !all[i + 1].startsWith('--') ? all[i + 1] : true]);
  return pairs;
}, []));
const tokvec = path.resolve(args.tokvec);
const work = path.resolve(args.work);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const roberta = path.join(root, 'tests/attention/testdata/hf_roberta_f32');
const gpt2 = path.join(root, 'tests/attention/testdata/hf_gpt2_f32');
const CLIENTS = Number(args.clients || 16), REQUESTS = Number(args.requests || 200);
let failures = 0;
const fail = (message) => { failures++; console.log('FAIL ' + message); };
const check = (ok, message) => { if (!ok) fail(message); return ok; };

// Seeded texts (xorshift), short enough for the test model's 48 positions.
let seed = 12345;
const random = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) / 4294967296; };
const words = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'dog', 'ran', 'far', 'away', 'is', 'lovely', 'your', 'and'];
const texts = [];
for (let i = 0; i < 120; ++i) {
  const n = 1 + Math.floor(random() * 9);
  texts.push(Array.from({length: n}, () => words[Math.floor(random() * words.length)]).join(' ') + (i % 7 ? '' : '.'));
}
const unique = [...new Set(texts)];

// The CLI's vectors for every text, as float32.
fs.writeFileSync(path.join(work, 'texts.txt'), unique.join('\n') + '\n');
const cli = execFileSync(tokvec, ['embed', '-m', roberta, '--lines', '--format', 'json', path.join(work, 'texts.txt')],
                         {maxBuffer: 1 << 28}).toString().trim().split('\n').map((l) => JSON.parse(l));
const expected = new Map(unique.map((t, i) => [t, Float32Array.from(cli[i].vectors[0])]));
const same = (a, b) => a.length === b.length && a.every((x, i) => Object.is(Math.fround(x), b[i]));

// For the retrieval routes: a copy of the model with a prompt (config_sentence_transformers.json), the index of
// the texts' vectors, and the CLI's answers: per-token vectors, prompted vectors, search hits.
const stModel = path.join(work, 'st_roberta');
fs.cpSync(roberta, stModel, {recursive: true});
fs.writeFileSync(path.join(stModel, 'config_sentence_transformers.json'), JSON.stringify({prompts: {query: 'query: '}}));
const indexPath = path.join(work, 'index.npy');
execFileSync(tokvec, ['embed', '-m', roberta, '--lines', '--format', 'npy', '-o', indexPath, path.join(work, 'texts.txt')]);
const jsonLines = (args) => execFileSync(tokvec, args, {maxBuffer: 1 << 28}).toString().trim().split('\n')
    .map((l) => JSON.parse(l));
const perToken = jsonLines(['embed', '-m', roberta, '--lines', '--pooling', 'none', '--format', 'json',
                            path.join(work, 'texts.txt')]);
const expectedTokens = new Map(unique.map((t, i) => [t, perToken[i].vectors.map((v) => Float32Array.from(v))]));
const prompted = jsonLines(['embed', '-m', stModel, '--lines', '--prompt-name', 'query', '--format', 'json',
                            path.join(work, 'texts.txt')]);
const expectedPrompted = new Map(unique.map((t, i) => [t, Float32Array.from(prompted[i].vectors[0])]));
const searched = jsonLines(['search', '-i', indexPath, '-m', roberta, '-k', '3', '--format', 'json',
                            path.join(work, 'texts.txt')]);
const expectedHits = new Map(unique.map((t, i) => [t, searched[i].hits]));
// For /rerank, /v1/rerank and /predict: the cross-encoder's ranking of the texts for a few queries and the
// classifier's scores of each text, from `tokvec rerank` and `tokvec classify`.
const crossEncoder = path.join(root, 'tests/attention/testdata/hf_bert_cross');
const classifier = path.join(root, 'tests/attention/testdata/hf_distilbert_nli');
const rerankDocs = unique.slice(0, 12);
fs.writeFileSync(path.join(work, 'rerank_docs.txt'), rerankDocs.join('\n') + '\n');
const rerankQueries = unique.slice(12, 18);
const expectedRanking = new Map(rerankQueries.map((q) => [q, jsonLines(
    ['rerank', '-m', crossEncoder, '-q', q, '--format', 'json', path.join(work, 'rerank_docs.txt')])]));
const classified = jsonLines(['classify', '-m', classifier, path.join(work, 'rerank_docs.txt')]);
const expectedClasses = new Map(rerankDocs.map((t, i) => [t, classified[i].scores]));
const cut = (v, k) => {  // OpenAI's dimensions as tokvec's NormalizeL2 computes it (the sum of squares in double)
  const head = Array.from(v.slice(0, k));
  const norm = Math.max(Math.sqrt(head.reduce((sum, x) => sum + x * x, 0)), 1e-12);
  return Float32Array.from(head.map((x) => Math.fround(x / norm)));
};

// Starts `tokvec serve`; resolves with {port, child, log()} once it listens.
function startServer(extra) {
  return new Promise((resolve, reject) => {
    const child = spawn(tokvec, ['serve', '-m', roberta, '-m', gpt2, '--port', '0', ...extra],
                        {stdio: ['ignore', 'ignore', 'pipe']});
    let log = '';
    child.stderr.on('data', (d) => {
      log += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(log);
      if (m && !child.port) { child.port = Number(m[1]); resolve({port: child.port, child, log: () => log}); }
    });
    child.on('exit', (code) => { if (!child.port) reject(new Error('tokvec serve exited ' + code + ': ' + log)); });
  });
}
const exited = (child) => new Promise((resolve) => child.exitCode !== null ? resolve(child.exitCode)
                                                                          : child.on('exit', (code) => resolve(code)));

// One POST with a given agent; resolves {status, body, ms} or rejects with the socket error.
function post(port, agent, route, body) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const req = http.request({host: '127.0.0.1', port, path: route, method: 'POST', agent,
                              headers: {'Content-Type': 'application/json'}}, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({status: res.statusCode, body: Buffer.concat(chunks).toString(),
                                   ms: Number(process.hrtime.bigint() - start) / 1e6}));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
const get = (port, route) => new Promise((resolve, reject) => {
  http.get({host: '127.0.0.1', port, path: route}, (res) => {
    let s = '';
    res.on('data', (c) => (s += c));
    res.on('end', () => resolve(s));
  }).on('error', reject);
});

// Little-endian float32 bytes (a Buffer may sit at any offset of its pool, so read them one by one).
function fromBase64(text) {
  const bytes = Buffer.from(text, 'base64');
  return Array.from({length: bytes.length / 4}, (_, i) => bytes.readFloatLE(4 * i));
}

// A response's vectors against the CLI's, for the texts sent.
function verify(response, sent, format) {
  if (response.status !== 200) return `status ${response.status}: ${response.body.slice(0, 200)}`;
  const body = JSON.parse(response.body);
  if (body.data.length !== sent.length) return `${body.data.length} vectors for ${sent.length} inputs`;
  for (let i = 0; i < sent.length; ++i) {
    const e = body.data[i].embedding;
    const v = format === 'base64' ? fromBase64(e) : e;
    if (body.data[i].index !== i || !same(Array.from(v), expected.get(sent[i]))) return `input ${i} ('${sent[i]}') differs`;
  }
  return null;
}
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function openaiCheck(port) {
  const {default: OpenAI} = await import(path.join(path.resolve(args.openai), 'index.mjs'));
  const client = new OpenAI({apiKey: 'unused', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0});
  const batch = unique.slice(0, 40);
  const b64 = await client.embeddings.create({model: 'hf_roberta_f32', input: batch});  // base64 by default
  const flt = await client.embeddings.create({model: 'hf_roberta_f32', input: batch, encoding_format: 'float'});
  let bad = 0;
  batch.forEach((t, i) => {
    if (!same(b64.data[i].embedding, expected.get(t))) bad++;
    if (!same(flt.data[i].embedding, expected.get(t))) bad++;
  });
  check(bad === 0, `openai client: ${bad} of ${2 * batch.length} vectors differ from tokvec embed --lines`);
  check(b64.model === 'hf_roberta_f32' && b64.usage.prompt_tokens > batch.length, 'openai client: model/usage');
  const one = await client.embeddings.create({model: 'hf_roberta_f32', input: unique[3]});
  check(same(one.data[0].embedding, expected.get(unique[3])), 'openai client: a single string differs');
  const ids = JSON.parse((await post(port, false, '/tokenize', {model: 'hf_roberta_f32', content: unique[5]})).body).tokens;
  const fromIds = await client.embeddings.create({model: 'hf_roberta_f32', input: ids});
  check(same(fromIds.data[0].embedding, expected.get(unique[5])), 'openai client: token-id input differs');
  // dimensions (Matryoshka, OpenAI's semantics): the first 8 values rescaled to unit length, in base64 and float.
  const few = unique.slice(0, 6);
  for (const format of [{}, {encoding_format: 'float'}]) {  // the client's default: base64 it decodes itself
    const short = await client.embeddings.create({model: 'hf_roberta_f32', input: few, dimensions: 8, ...format});
    check(few.every((t, i) => short.data[i].embedding.length === 8 &&
                              same(short.data[i].embedding, cut(expected.get(t), 8))),
          `openai client: dimensions 8 (${format.encoding_format || 'default'}) differs from the CLI's vectors ` +
          'cut and rescaled');
  }
  let tooWide = null;
  try {
    await client.embeddings.create({model: 'hf_roberta_f32', input: 'x', dimensions: 33});
  } catch (e) { tooWide = e; }
  check(tooWide && tooWide.status === 400 && /must be 1 to 32/.test(tooWide.message), 'openai client: dimensions 33 not 400');
  let refused = null;
  try {
    await client.embeddings.create({model: 'gpt-9', input: 'x'});
  } catch (e) { refused = e; }
  check(refused && refused.status === 404 && /not served/.test(refused.message), 'openai client: unknown model not 404');
  console.log(`openai@${JSON.parse(fs.readFileSync(path.join(path.resolve(args.openai), 'package.json'))).version} ` +
              `embeddings.create: ${2 * batch.length + 2} vectors equal tokvec embed --lines bit for bit (base64 and float); ` +
              `dimensions: 8 gives the first 8 values rescaled, bit for bit, and dimensions: 33 a 400`);
}

// Misbehaving clients: half a request then gone, and a request sent one byte at a time.
function disconnectingClient(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.write('POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{"input": "the');
      setTimeout(() => { s.destroy(); resolve(); }, 100);
    });
    s.on('error', () => resolve());
  });
}
function slowClient(port) {
  return new Promise((resolve) => {
    const body = JSON.stringify({model: 'hf_roberta_f32', input: unique[0]});
    const request = `POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
                    `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    let reply = '', i = 0;
    const s = net.connect(port, '127.0.0.1');
    const timer = setInterval(() => {  // ~40 bytes a second: about 4 s for the request, within the 10 s timeout
      if (i < request.length) s.write(request.slice(i, i + 2)), (i += 2);
    }, 50);
    s.on('data', (d) => (reply += d));
    s.on('close', () => { clearInterval(timer); resolve(reply); });
    s.on('error', () => { clearInterval(timer); resolve(reply); });
  });
}

async function loadTest(port, label) {
  const latencies = [];
  let errors = 0;
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({length: CLIENTS}, async (_, c) => {
    const agent = new http.Agent({keepAlive: true, maxSockets: 1});
    for (let r = 0; r < REQUESTS; ++r) {
      const n = 1 + ((c + r) % 4);
      const sent = Array.from({length: n}, (_, k) => unique[(c * 31 + r * 7 + k * 13) % unique.length]);
      const format = r % 2 ? 'base64' : 'float';
      try {
        const response = await post(port, agent, '/v1/embeddings', {model: 'hf_roberta_f32', input: sent, encoding_format: format});
        const problem = verify(response, sent, format);
        if (problem && errors++ < 5) fail(`load: client ${c} request ${r}: ${problem}`);
        latencies.push(response.ms);
      } catch (e) {
        if (errors++ < 5) fail(`load: client ${c} request ${r}: ${e.message}`);
      }
    }
    agent.destroy();
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const metrics = await get(port, '/metrics');
  const value = (name) => Number((new RegExp('^' + name + ' (\\S+)$', 'm').exec(metrics) || [])[1]);
  const batches = value('tokvec_batch_requests_count');
  console.log(`${label}: ${CLIENTS} clients x ${REQUESTS} requests = ${latencies.length} answered, ${errors} errors, ` +
              `${seconds.toFixed(2)} s, ${(latencies.length / seconds).toFixed(0)} requests/s; latency p50 ` +
              `${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms; ` +
              `${(value('tokvec_batch_requests_sum') / batches).toFixed(2)} requests per batched forward (${batches} batches)`);
  check(errors === 0 && latencies.length === CLIENTS * REQUESTS, `${label}: every response correct`);
  return {p99: percentile(latencies, 0.99)};
}

// The retrieval routes under load, each answer checked against the CLI's: /v1/embeddings with dimensions,
// /embed_all (TEI), /embed with a prompt_name, /search over --index.
async function retrievalLoadTest(port) {
  const kinds = ['dimensions', 'embed_all', 'prompt', 'search'];
  const counts = Object.fromEntries(kinds.map((k) => [k, 0]));
  let errors = 0;
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({length: 8}, async (_, c) => {
    const agent = new http.Agent({keepAlive: true, maxSockets: 1});
    for (let r = 0; r < 60; ++r) {
      const kind = kinds[(c + r) % kinds.length];
      const t = unique[(c * 17 + r * 5) % unique.length];
      let problem = null;
      try {
        if (kind === 'dimensions') {
          const res = await post(port, agent, '/v1/embeddings', {model: 'hf_roberta_f32', input: [t], dimensions: 8});
          problem = res.status !== 200 ? res.body : same(JSON.parse(res.body).data[0].embedding, cut(expected.get(t), 8))
                                                      ? null : 'dimensions differ';
        } else if (kind === 'embed_all') {
          const res = await post(port, agent, '/embed_all', {model: 'hf_roberta_f32', inputs: [t]});
          const rows = res.status === 200 ? JSON.parse(res.body)[0] : null;
          const want = expectedTokens.get(t);
          problem = !rows ? res.body : rows.length === want.length && rows.every((v, k) => same(v, want[k]))
                                         ? null : 'per-token vectors differ';
        } else if (kind === 'prompt') {
          const res = await post(port, agent, '/embed', {model: 'st_roberta', inputs: [t], prompt_name: 'query'});
          problem = res.status !== 200 ? res.body : same(JSON.parse(res.body)[0], expectedPrompted.get(t))
                                                      ? null : 'prompted vector differs';
        } else {
          const res = await post(port, agent, '/search', {model: 'hf_roberta_f32', input: [t], k: 3});
          const hits = res.status === 200 ? JSON.parse(res.body).data[0].hits : null;
          const want = expectedHits.get(t);
          problem = !hits ? res.body : hits.every((h, k) => h.index === want[k].index &&
                                                            Object.is(Math.fround(h.score), Math.fround(want[k].score)))
                                         ? null : 'hits differ';
        }
      } catch (e) { problem = e.message; }
      if (problem) { if (errors++ < 5) fail(`retrieval load: ${kind}: '${t}': ${problem.slice(0, 200)}`); }
      else counts[kind]++;
    }
    agent.destroy();
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`retrieval routes under load: 8 clients x 60 requests in ${seconds.toFixed(2)} s, ${errors} errors; ` +
              kinds.map((k) => `${k} ${counts[k]} equal the CLI's`).join(', '));
  check(errors === 0, 'retrieval load: every response equals the CLI\'s');
}

// Reranking and classification under load: 8 clients, each request one of /rerank (TEI), /v1/rerank (Cohere) or
// /predict, every answer equal to the CLI's (order, indices and float32 scores).
async function rerankLoadTest(port) {
  const kinds = ['rerank', 'v1_rerank', 'predict'];
  const counts = Object.fromEntries(kinds.map((k) => [k, 0]));
  let errors = 0;
  const started = process.hrtime.bigint();
  const sameScore = (a, b) => Object.is(Math.fround(a), Math.fround(b));
  await Promise.all(Array.from({length: 8}, async (_, c) => {
    const agent = new http.Agent({keepAlive: true, maxSockets: 1});
    for (let r = 0; r < 30; ++r) {
      const kind = kinds[(c + r) % kinds.length];
      const q = rerankQueries[(c * 5 + r) % rerankQueries.length];
      const want = expectedRanking.get(q);
      let problem = null;
      try {
        if (kind === 'rerank') {
          const res = await post(port, agent, '/rerank', {model: 'hf_bert_cross', query: q, texts: rerankDocs});
          const got = res.status === 200 ? JSON.parse(res.body) : null;
          problem = !got ? res.body : got.length === want.length &&
              got.every((g, k) => g.index === want[k].index && sameScore(g.score, want[k].score)) ? null : 'ranking differs';
        } else if (kind === 'v1_rerank') {
          const res = await post(port, agent, '/v1/rerank', {model: 'hf_bert_cross', query: q, documents: rerankDocs,
                                                              top_n: 3});
          const got = res.status === 200 ? JSON.parse(res.body).results : null;
          problem = !got ? res.body : got.length === 3 &&
              got.every((g, k) => g.index === want[k].index && sameScore(g.relevance_score, want[k].score))
              ? null : 'ranking differs';
        } else {
          const t = rerankDocs[(c + r) % rerankDocs.length];
          const res = await post(port, agent, '/predict', {model: 'hf_distilbert_nli', inputs: t});
          const got = res.status === 200 ? JSON.parse(res.body) : null;
          const scores = expectedClasses.get(t);
          problem = !got ? res.body : got.length === Object.keys(scores).length &&
              got.every((g, k) => sameScore(g.score, scores[g.label]) && (k === 0 || got[k - 1].score >= g.score))
              ? null : 'scores differ';
        }
      } catch (e) { problem = e.message; }
      if (problem) { if (errors++ < 5) fail(`rerank load: ${kind}: '${q}': ${problem.slice(0, 200)}`); }
      else counts[kind]++;
    }
    agent.destroy();
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`rerank routes under load: 8 clients x 30 requests (${rerankDocs.length} documents each) in ` +
              `${seconds.toFixed(2)} s, ${errors} errors; ` + kinds.map((k) => `${k} ${counts[k]} equal the CLI's`).join(', '));
  check(errors === 0, 'rerank load: every response equals the CLI\'s');
}

async function sigtermCheck() {
  const server = await startServer(['--threads', '2']);
  const agent = false;  // a new connection per request: after the stop, new ones are refused
  let ok = 0, bad = 0, refused = 0, stopping = false;
  const clients = Array.from({length: 8}, async (_, c) => {
    for (let r = 0; r < 100000; ++r) {  // until refused after the stop
      const sent = [unique[(c * 5 + r) % unique.length], unique[(c + r * 3) % unique.length]];
      try {
        const response = await post(server.port, agent, '/v1/embeddings', {model: 'hf_roberta_f32', input: sent});
        const problem = verify(response, sent, 'float');
        if (problem) { bad++; fail(`SIGTERM: ${problem}`); } else ok++;
      } catch (e) {
        if (!stopping) { bad++; fail(`SIGTERM: before the stop: ${e.message}`); return; }
        if (e.code === 'ECONNREFUSED') { refused++; return; }
        if (e.code === 'ECONNRESET') { refused++; return; }  // reset in the backlog, never read (see the log check)
        bad++; fail(`SIGTERM: ${e.code || e.message}`); return;
      }
    }
  });
  await new Promise((r) => setTimeout(r, 700));
  stopping = true;
  server.child.kill('SIGTERM');
  await Promise.all(clients);
  const code = await exited(server.child);
  const answered = (server.log().match(/"POST \/v1\/embeddings" 200 /g) || []).length;
  console.log(`SIGTERM during load (8 clients, a connection per request): exit code ${code}; ${ok} responses, all ` +
              `correct; the server logged ${answered} answered; ${refused} requests refused after the stop`);
  check(code === 0, `SIGTERM: exit code ${code}, not 0`);
  check(bad === 0 && ok > 0, 'SIGTERM: a request was lost or wrong');
  check(answered === ok, `SIGTERM: the server answered ${answered} but clients received ${ok}`);
  check(/SIGTERM, finishing the requests in flight/.test(server.log()) && /stopped/.test(server.log()), 'SIGTERM: log lines');
}

// Chromium through the DevTools protocol on a pipe (fd 3: commands in, fd 4: replies out, NUL-separated JSON).
async function pageCheck(port) {
  const profile = fs.mkdtempSync(path.join(work, 'chromium-'));
  const browser = spawn('chromium', ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                                     '--remote-debugging-pipe', '--no-first-run', '--user-data-dir=' + profile, 'about:blank'],
                        {stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe']});
  const pending = new Map();
  let nextId = 1, buffer = '';
  browser.stdio[4].on('data', (d) => {
    buffer += d;
    let end;
    while ((end = buffer.indexOf('\0')) >= 0) {
      const message = JSON.parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      if (message.id && pending.has(message.id)) {
        pending.get(message.id)(message);
        pending.delete(message.id);
      }
    }
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    const id = nextId++;
    const timer = setTimeout(() => reject(new Error('chromium: no reply to ' + method)), 30000);
    pending.set(id, (m) => { clearTimeout(timer); m.error ? reject(new Error(method + ': ' + m.error.message)) : resolve(m.result); });
    browser.stdio[3].write(JSON.stringify({id, method, params, sessionId}) + '\0');
  });
  try {
    const {targetId} = await send('Target.createTarget', {url: 'about:blank'});
    const {sessionId} = await send('Target.attachToTarget', {targetId, flatten: true});
    const s = (method, params) => send(method, params, sessionId);
    const evaluate = async (expression) => (await s('Runtime.evaluate', {expression, returnByValue: true, awaitPromise: true})).result.value;
    const waitFor = async (expression, what) => {
      for (let i = 0; i < 200; ++i) {  // at most ~10 s
        if (await evaluate(expression)) return true;
        await new Promise((r) => setTimeout(r, 50));
      }
      fail('page: ' + what);
      return false;
    };
    await s('Emulation.setDeviceMetricsOverride', {width: 760, height: 720, deviceScaleFactor: 1, mobile: false});
    await s('Page.navigate', {url: `http://127.0.0.1:${port}/`});
    if (!await waitFor(`document.body && document.body.dataset.state === 'ready'`, 'the model list never loaded')) return;
    await evaluate(`(() => { const m = document.getElementById('model'); m.value = 'hf_gpt2_f32';
                             m.dispatchEvent(new Event('change')); document.getElementById('text').focus(); })()`);
    const sentence = 'Your cat is a lovely cat.\nIt sat on the mat.';
    await s('Input.insertText', {text: sentence});  // typed, as a person (or an IME) enters text
    if (!await waitFor(`document.body.dataset.state === 'drawn'`, 'no heatmap after typing')) return;
    const tokenized = JSON.parse((await post(port, false, '/tokenize', {model: 'hf_gpt2_f32', content: sentence})).body).tokens;
    const dom = await evaluate(`({n: Number(document.body.dataset.tokens),
      spans: [...document.querySelectorAll('#tokens span')].map((e) => e.textContent),
      status: document.getElementById('status').textContent})`);
    check(dom.n === tokenized.length && dom.spans.length === tokenized.length,
          `page: ${dom.n} tokens drawn, ${dom.spans.length} listed, /tokenize gives ${tokenized.length}`);
    check(dom.spans.includes('␣cat') && dom.spans.includes('⏎') && !dom.spans.some((t) => t.includes('Ġ')),
          'page: tokens not readable (want ␣cat and ⏎, no Ġ): ' + dom.spans.join(' '));
    // Pixels: GPT-2 is causal, so in every row the cells right of the diagonal are white (weight 0), the others
    // blue (softmax weights are > 0), and the first cell of the first row (weight 1) is the darkest blue.
    const pixels = await evaluate(`(() => {
      const c = document.getElementById('heatmap'), g = c.getContext('2d');
      const label = Number(c.dataset.label), cell = Number(c.dataset.cell), n = Number(document.body.dataset.tokens);
      const at = (i, j) => [...g.getImageData(label + j * cell + cell / 2, label + i * cell + cell / 2, 1, 1).data];
      let upperWhite = 0, upper = 0, blue = 0;
      for (let i = 0; i < n; ++i) for (let j = 0; j < n; ++j) {
        const p = at(i, j), white = p[0] === 255 && p[1] === 255 && p[2] === 255;
        if (j > i) { upper++; if (white) upperWhite++; }
        else if (!white && p[2] >= p[0]) blue++;  // every causal weight is > 0: some shade of blue
      }
      return {first: at(0, 0), upper, upperWhite, blue, lower: n * (n + 1) / 2};
    })()`);
    check(pixels.upper > 0 && pixels.upperWhite === pixels.upper, `page: ${pixels.upper - pixels.upperWhite} cells above the diagonal are not white`);
    check(pixels.first[0] === 8 && pixels.first[1] === 48 && pixels.first[2] === 107, `page: first cell is ${pixels.first}, not the darkest blue`);
    check(pixels.blue === pixels.lower, `page: only ${pixels.blue} of ${pixels.lower} causal cells are blue`);
    console.log(`viewer page in headless Chromium: typed ${sentence.length} characters, heatmap of ${dom.n}x${dom.n} ` +
                `tokens drawn (${pixels.blue} of ${pixels.lower} causal cells blue, all ${pixels.upper} future cells white); ` +
                `tokens: ${dom.spans.join(' ')}`);
    if (args.screenshot) {
      const shot = await s('Page.captureScreenshot', {format: 'png'});
      fs.writeFileSync(args.screenshot, Buffer.from(shot.data, 'base64'));
      console.log(`screenshot: ${args.screenshot} (${fs.statSync(args.screenshot).size} bytes)`);
    }
  } finally {
    try { await send('Browser.close'); } catch (e) { browser.kill(); }
  }
}

const server = await startServer(['--threads', '2', '-m', stModel, '--index', indexPath, '-m', crossEncoder,
                                  '-m', classifier]);
try {
  await openaiCheck(server.port);
  await retrievalLoadTest(server.port);
  await rerankLoadTest(server.port);
  const misbehaving = [disconnectingClient(server.port), slowClient(server.port)];
  await loadTest(server.port, 'load test, batching on (--max-batch-tokens 8192)');
  const [, slow] = await Promise.all(misbehaving);
  check(/^HTTP\/1\.1 200/.test(slow), 'a client sending a byte at a time got no answer: ' + slow.slice(0, 80));
  if (!args['no-chromium']) await pageCheck(server.port);
} finally {
  server.child.kill('SIGTERM');
  const code = await exited(server.child);
  check(code === 0, `server exit code ${code}`);
}
await sigtermCheck();
console.log(failures ? `serve check: ${failures} failures` : 'serve check: all passed');
process.exit(failures ? 1 : 0);

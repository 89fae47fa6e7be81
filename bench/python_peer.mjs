// The npm peers of bench/python_bench.py: tiktoken 1.0.22 (WASM) and Hugging Face tokenizers 0.23.2 (the Rust
// core through node's native binding), on the gpt2 encoding, timed the way the Python module is timed.
//
//   node bench/python_peer.mjs NODE_MODULES VOCAB_DIR short ROUNDS CALLS
//       -> {"tiktoken_us": [...], "hf_us": [...]}  microseconds per encode("hello world"), one value per round
//          (tiktoken encode_ordinary; Hugging Face `await encode`, whose API is asynchronous)
//   RAYON_NUM_THREADS=N node bench/python_peer.mjs NODE_MODULES VOCAB_DIR batch ROUNDS LINES_FILE
//       -> {"tiktoken_ms": [...], "hf_ms": [...], "tokens": ...}  every line of LINES_FILE (split at "\n")
//          encoded on its own: tiktoken has no batch call (a loop of encode_ordinary, one thread); Hugging Face
//          encodeBatch over blocks of 4096 lines (Rust threads, RAYON_NUM_THREADS of them)
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [nodeModules, vocabDir, command, roundsText, arg] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(nodeModules), "noop.js"));
const { get_encoding } = require("tiktoken");
const hf = require("tokenizers");
const rounds = Number(roundsText);

const encoding = get_encoding("gpt2");
const model = await hf.BPE.fromFile(path.join(vocabDir, "gpt2", "vocab.json"), path.join(vocabDir, "gpt2", "merges.txt"));
const tokenizer = new hf.Tokenizer(model);
tokenizer.setPreTokenizer(hf.byteLevelPreTokenizer(false, true));
const now = () => Number(process.hrtime.bigint()) / 1e6;  // ms

if (command === "short") {
  const calls = Number(arg);
  const tiktoken_us = [], hf_us = [];
  for (let r = 0; r < rounds; ++r) {
    let start = now();
    for (let i = 0; i < calls; ++i) encoding.encode_ordinary("hello world");
    tiktoken_us.push(((now() - start) * 1000) / calls);
    const hfCalls = Math.max(1, Math.floor(calls / 10));  // ~10x slower per call; fewer keep the round short
    start = now();
    for (let i = 0; i < hfCalls; ++i) await tokenizer.encode("hello world", null, { addSpecialTokens: false });
    hf_us.push(((now() - start) * 1000) / hfCalls);
  }
  console.log(JSON.stringify({ tiktoken_us, hf_us }));
} else if (command === "batch") {
  const lines = fs.readFileSync(arg, "utf8").split("\n");
  const tiktoken_ms = [], hf_ms = [];
  let tokens = 0, hfTokens = 0;
  for (let r = 0; r < rounds; ++r) {
    let start = now();
    tokens = 0;
    for (const line of lines) tokens += encoding.encode_ordinary(line).length;
    tiktoken_ms.push(now() - start);
    start = now();
    hfTokens = 0;
    for (let i = 0; i < lines.length; i += 4096) {
      const batch = await tokenizer.encodeBatch(lines.slice(i, i + 4096), { addSpecialTokens: false });
      for (const e of batch) hfTokens += e.getIds().length;
    }
    hf_ms.push(now() - start);
  }
  if (hfTokens !== tokens) throw new Error(`token counts differ: tiktoken ${tokens}, Hugging Face ${hfTokens}`);
  console.log(JSON.stringify({ tiktoken_ms, hf_ms, tokens }));
}
encoding.free();

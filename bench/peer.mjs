// The npm peers of bench/encode.sh and bench/train.sh: tiktoken 1.0.22 and Hugging Face tokenizers 0.23.2,
// installed into ${XDG_CACHE_HOME:-$HOME/.cache}/tokvec/npm (the same folder scripts/conformance.sh uses).
//
//   node bench/peer.mjs NODE_MODULES encode ENCODING FILE     -> {"ms":..., "bytes":..., "tokens":...}
//       tiktoken encode_ordinary over FILE in ~1 MB chunks cut after a "\n"; only encoding is timed (the
//       vocabulary load and the file read are not).
//   node bench/peer.mjs NODE_MODULES train OUT.json FILE...    -> {"ms":..., "vocab_size":...}
//       Hugging Face BPE (default trainer: vocab 30000) behind the byte-level pre-tokenizer with GPT-2's regex
//       and no prefix space, like `tokvec train --type byte --pattern gpt2`; writes tokenizer.json.
//   node bench/peer.mjs NODE_MODULES count TOKENIZER.json FILE -> {"tokens":...}
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [nodeModules, command, ...rest] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(nodeModules), "noop.js"));

if (command === "encode") {
  const [encodingName, file] = rest;
  const { get_encoding } = require("tiktoken");
  const encoding = get_encoding(encodingName);
  const text = fs.readFileSync(file, "utf8");
  const chunks = [];
  for (let begin = 0; begin < text.length;) {
    let end = text.indexOf("\n", Math.min(begin + (1 << 20), text.length));
    end = end < 0 ? text.length : end + 1;
    chunks.push(text.slice(begin, end));
    begin = end;
  }
  let tokens = 0;
  const start = process.hrtime.bigint();
  for (const chunk of chunks) tokens += encoding.encode_ordinary(chunk).length;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  encoding.free();
  console.log(JSON.stringify({ ms, bytes: Buffer.byteLength(text, "utf8"), tokens }));
} else if (command === "train") {
  const [out, ...files] = rest;
  const hf = require("tokenizers");
  const tokenizer = new hf.Tokenizer(hf.BPE.empty());
  tokenizer.setPreTokenizer(hf.byteLevelPreTokenizer(false, true));
  const start = process.hrtime.bigint();
  tokenizer.train(files);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  tokenizer.save(out);
  console.log(JSON.stringify({ ms, vocab_size: tokenizer.getVocabSize() }));
} else if (command === "count") {
  const [json, file] = rest;
  const hf = require("tokenizers");
  const tokenizer = hf.Tokenizer.fromFile(json);
  const encoding = await tokenizer.encode(fs.readFileSync(file, "utf8"));
  console.log(JSON.stringify({ tokens: encoding.getIds().length }));
} else {
  console.error("usage: node bench/peer.mjs NODE_MODULES encode|train|count ...");
  process.exit(2);
}

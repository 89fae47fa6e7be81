// The npm peer of bench/wordpiece.sh: Hugging Face tokenizers 0.23.2 encoding FILE with a WordPiece
// tokenizer.json, one encode call at a time over ~1 MB chunks cut after a newline (no special tokens added),
// timed inside node (load and file read excluded). Prints "seconds ids" of the median of ROUNDS runs.
//
//   node bench/wordpiece_peer.mjs NODE_MODULES TOKENIZER_JSON FILE ROUNDS
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [modules, json, file, rounds] = process.argv.slice(2);
const hf = createRequire(path.join(path.resolve(modules), "noop.js"))("tokenizers");
const tokenizer = hf.Tokenizer.fromFile(json);
const text = fs.readFileSync(file, "utf8");
const chunks = [];
for (let pos = 0; pos < text.length;) {
  const newline = text.indexOf("\n", Math.min(text.length, pos + 1000000));
  const end = newline < 0 ? text.length : newline + 1;
  chunks.push(text.slice(pos, end));
  pos = end;
}
const times = [];
let ids = 0;
for (let r = 0; r < Number(rounds); r++) {
  const start = process.hrtime.bigint();
  ids = 0;
  for (const chunk of chunks) ids += (await tokenizer.encode(chunk, null, { addSpecialTokens: false })).getIds().length;
  times.push(Number(process.hrtime.bigint() - start) / 1e9);
}
times.sort((a, b) => a - b);
console.log(`${times[Math.floor(times.length / 2)]} ${ids}`);

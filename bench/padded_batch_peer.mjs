// The npm peer of bench/padded_batch.sh: Hugging Face tokenizers 0.23.2 encodeBatch over batches of BATCH lines with
// the tokenizer.json's truncation and padding (special tokens added), timed inside node (load and file read
// excluded). Prints "seconds checksum cells" of the median of ROUNDS runs: checksum sums ids, attention masks and
// type ids over every batch; cells counts the padded [batch, length] cells.
//
//   node bench/padded_batch_peer.mjs NODE_MODULES TOKENIZER_JSON LINES_FILE BATCH ROUNDS
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [modules, json, file, batchSize, rounds] = process.argv.slice(2);
const hf = createRequire(path.join(path.resolve(modules), "noop.js"))("tokenizers");
const tokenizer = hf.Tokenizer.fromFile(json);
const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0);
const times = [];
let checksum = 0, cells = 0;
for (let r = 0; r < Number(rounds); r++) {
  const start = process.hrtime.bigint();
  checksum = 0;
  cells = 0;
  for (let i = 0; i < lines.length; i += Number(batchSize)) {
    const batch = await tokenizer.encodeBatch(lines.slice(i, i + Number(batchSize)), { addSpecialTokens: true });
    for (const e of batch) {
      const ids = e.getIds(), mask = e.getAttentionMask(), types = e.getTypeIds();
      cells += ids.length;
      for (let k = 0; k < ids.length; k++) checksum += ids[k] + mask[k] + types[k];
    }
  }
  times.push(Number(process.hrtime.bigint() - start) / 1e9);
}
times.sort((a, b) => a - b);
console.log(`${times[Math.floor(times.length / 2)]} ${checksum} ${cells}`);

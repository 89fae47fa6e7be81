// Ids that bench/load.sh compares before it times the Llama-3-shaped file (bench/gen_llama3_shaped.mjs): Hugging
// Face tokenizers 0.23.2 encoding a text with a tokenizer.json (no post-processor tokens; added tokens in the text
// are matched, as `tokvec encode --allow-special` does), or tiktoken 1.0.22's encode_ordinary with an encoding.
// Prints the ids space-separated on one line, as `tokvec encode` does.
//
//   node bench/load_check.mjs NODE_MODULES hf tokenizer.json TEXT
//   node bench/load_check.mjs NODE_MODULES tiktoken cl100k_base TEXT
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [modules, peer, model, textFile] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), "noop.js"));
const text = fs.readFileSync(textFile, "utf8");
let ids;
if (peer === "hf") {
  const tokenizer = require("tokenizers").Tokenizer.fromFile(model);
  ids = (await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds();
} else if (peer === "tiktoken") {
  const encoding = require("tiktoken").get_encoding(model);
  ids = Array.from(encoding.encode_ordinary(text));
  encoding.free();
} else {
  console.error(`unknown peer '${peer}': hf or tiktoken`);
  process.exit(2);
}
console.log(ids.join(" "));

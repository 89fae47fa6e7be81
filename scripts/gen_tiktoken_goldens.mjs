// Regenerates tests/data/tiktoken_goldens.json: short hard strings and the ids tiktoken 1.0.22 (npm) gives
// them with gpt2, cl100k_base and o200k_base (encode_ordinary: special-token text is ordinary text).
//
//   NODE_PATH=~/.cache/tokvec/npm/node_modules node scripts/gen_tiktoken_goldens.mjs > tests/data/tiktoken_goldens.json
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.NODE_PATH ?? ".", "x.js"));
const { get_encoding } = require("tiktoken");

const texts = [
  "hello world",
  "Hello, World! It's 2024-06-01 and we'LL see what's NEW.",
  "  leading spaces and trailing   ",
  "tabs\tand\t\tnewlines\n\n\nand\r\nCRLF\r\n",
  "x = [i**2 for i in range(10)]  # squares",
  "数字 123456789 ١٢٣٤٥ ๑๒๓ ۱۲۳ ⅣⅤ ²³",
  "こんにちは世界、吾輩は猫である。",
  "مرحبا بالعالم שלום עולם",
  "ภาษาไทยไม่มีช่องว่าง",
  "👨‍👩‍👧‍👦 family 👍🏽 thumbs 🏳️‍🌈 flag",
  "e\u0301 combining a\u0308\u0304 marks ñ",
  "<|endoftext|> is ordinary text here",
  "I'M HERE, YOU'RE THERE, THEY'VE GONE, SHE'D GO, IT'S, WE'LL",
  "\u000b vertical tab \u0085 next line \u00a0 nbsp \u3000 ideographic space",
  "ſ long s and K kelvin 'ſ 'K",
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
  "path/to/file.txt\n/usr/bin//env\r\n\r\n",
  "CamelCaseWordsAndHTTPServer XMLHttpRequest",
  "",
  " ",
  "\n",
];

const encodings = ["gpt2", "cl100k_base", "o200k_base"];
const cases = [];
for (const name of encodings) {
  const encoding = get_encoding(name);
  for (const text of texts) cases.push({ encoding: name, text, ids: Array.from(encoding.encode_ordinary(text)) });
  encoding.free();
}
// One case per line, so a diff shows which case changed.
const lines = cases.map((c) => "  " + JSON.stringify(c));
process.stdout.write(`{"generator": "tiktoken@1.0.22 encode_ordinary", "cases": [\n${lines.join(",\n")}\n]}\n`);

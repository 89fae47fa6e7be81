// Writes a tokenizer.json in the shape of Llama-3's (a 9 MB file) from a .tiktoken rank file, for bench/load.sh.
// Nothing is downloaded and no Meta file is copied: the vocabulary is the .tiktoken's (cl100k_base by default),
// written the way a tiktoken -> Hugging Face conversion writes it:
//   - model.vocab: every token in GPT-2's byte alphabet ("Ġthe"), id = rank, in id order;
//   - model.merges: "left right" strings, and for every token of two or more bytes EVERY split into two
//     vocabulary tokens (not just the one BPE takes), ordered by the token's rank, then the left part's rank,
//     then the right part's: the redundancy that makes Llama-3's list 280k merges for 128k tokens;
//   - "ignore_merges": true (whole pieces in the vocabulary are taken as they are, as tiktoken does);
//   - pre_tokenizer: Sequence [Split (cl100k's regex, Isolated), ByteLevel without its own regex];
//   - added_tokens: <|begin_of_text|>, <|end_of_text|> and reserved tokens up to SPECIALS (256, as Llama-3),
//     ids right after the vocabulary; post_processor: Sequence [ByteLevel, TemplateProcessing with
//     <|begin_of_text|> before each text]; decoder ByteLevel;
//   - pretty-printed with two-space indentation, one vocab entry / merge per line, as `tokenizer.save` writes.
//
//   node bench/gen_llama3_shaped.mjs BASE.tiktoken OUT.json [EXTRA.tiktoken TOKENS] [SPECIALS]
//
// With EXTRA (o200k_base), tokens of EXTRA that BASE lacks are appended in EXTRA's rank order until the vocabulary
// holds TOKENS (Llama-3: cl100k_base's 100,256 + 27,744 = 128,000), each only once it splits into two tokens
// already present, so the ranks stay a valid BPE table: cl100k_base + o200k_base -> 128,000 gives ~9 MB and
// ~280k merges, the size of Llama-3's file. Without it the file is BASE's alone (cl100k_base: 7.1 MB, 233k merges)
// and Hugging Face's BPE with it gives tiktoken's ids. Prints "tokens N merges M bytes B".
import fs from "node:fs";

const args = process.argv.slice(2);
const [input, output] = args;
const extra = args.length >= 4 ? args[2] : null;
const wanted = extra ? Number(args[3]) : 0;
const specials = Number(args[extra ? 4 : 2] ?? 256);
if (!input || !output || (extra && !(wanted > 0)) || !(specials >= 1)) {
  console.error("usage: node bench/gen_llama3_shaped.mjs BASE.tiktoken OUT.json [EXTRA.tiktoken TOKENS] [SPECIALS]");
  process.exit(2);
}

// A .tiktoken file as [token bytes as a latin1 string (one char per byte), rank] in rank order.
const readTiktoken = (file) => {
  const entries = [];
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    const [b64, rank] = line.split(" ");
    entries.push([Buffer.from(b64, "base64").toString("latin1"), Number(rank)]);
  }
  return entries.sort((a, b) => a[1] - b[1]);
};
const ranks = new Map(readTiktoken(input));
const splits = (bytes) => {
  for (let cut = 1; cut < bytes.length; cut++) {
    if (ranks.has(bytes.slice(0, cut)) && ranks.has(bytes.slice(cut))) return true;
  }
  return false;
};
if (extra) {
  let rank = Math.max(...ranks.values()) + 1;
  for (const [bytes] of readTiktoken(extra)) {
    if (ranks.size >= wanted) break;
    if (!ranks.has(bytes) && splits(bytes)) ranks.set(bytes, rank++);
  }
}

// GPT-2's byte -> printable character table: printable bytes stay, the others take 256, 257, ... in byte order.
const byteChar = new Array(256);
let next = 256;
for (let b = 0; b < 256; b++) {
  const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  byteChar[b] = String.fromCodePoint(printable ? b : next++);
}
const spell = (bytes) => {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += byteChar[bytes.charCodeAt(i)];
  return out;
};

const tokens = [...ranks.entries()].sort((a, b) => a[1] - b[1]);
const merges = [];  // [token rank, left rank, right rank, "left right"]
for (const [bytes, rank] of tokens) {
  for (let cut = 1; cut < bytes.length; cut++) {
    const left = ranks.get(bytes.slice(0, cut));
    const right = ranks.get(bytes.slice(cut));
    if (left === undefined || right === undefined) continue;
    merges.push([rank, left, right, `${spell(bytes.slice(0, cut))} ${spell(bytes.slice(cut))}`]);
  }
}
merges.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);

const firstSpecial = tokens[tokens.length - 1][1] + 1;
const specialNames = ["<|begin_of_text|>", "<|end_of_text|>"];
for (let n = 0; specialNames.length < specials; n++) specialNames.push(`<|reserved_special_token_${n}|>`);
specialNames.length = specials;

const q = (s) => JSON.stringify(s);
const out = [];
out.push("{", '  "version": "1.0",', '  "truncation": null,', '  "padding": null,', '  "added_tokens": [');
specialNames.forEach((name, i) => {
  out.push("    {", `      "id": ${firstSpecial + i},`, `      "content": ${q(name)},`, '      "single_word": false,',
           '      "lstrip": false,', '      "rstrip": false,', '      "normalized": false,', '      "special": true',
           i + 1 < specialNames.length ? "    }," : "    }");
});
out.push("  ],", '  "normalizer": null,');
const regex = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*" +
              "|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const indent = (value, spaces) => JSON.stringify(value, null, 2).split("\n").join("\n" + " ".repeat(spaces));
const preTokenizer = {
  type: "Sequence",
  pretokenizers: [
    { type: "Split", pattern: { Regex: regex }, behavior: "Isolated", invert: false },
    { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: false },
  ],
};
const bos = specialNames[0];
const postProcessor = {
  type: "Sequence",
  processors: [
    { type: "ByteLevel", add_prefix_space: true, trim_offsets: false, use_regex: true },
    {
      type: "TemplateProcessing",
      single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
      pair: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } },
             { SpecialToken: { id: bos, type_id: 1 } }, { Sequence: { id: "B", type_id: 1 } }],
      special_tokens: { [bos]: { id: bos, ids: [firstSpecial], tokens: [bos] } },
    },
  ],
};
const decoder = { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true };
out.push(`  "pre_tokenizer": ${indent(preTokenizer, 2)},`, `  "post_processor": ${indent(postProcessor, 2)},`,
         `  "decoder": ${indent(decoder, 2)},`);
out.push('  "model": {', '    "type": "BPE",', '    "dropout": null,', '    "unk_token": null,',
         '    "continuing_subword_prefix": null,', '    "end_of_word_suffix": null,', '    "fuse_unk": false,',
         '    "byte_fallback": false,', '    "ignore_merges": true,', '    "vocab": {');
tokens.forEach(([bytes, rank], i) => out.push(`      ${q(spell(bytes))}: ${rank}${i + 1 < tokens.length ? "," : ""}`));
out.push("    },", '    "merges": [');
merges.forEach((m, i) => out.push(`      ${q(m[3])}${i + 1 < merges.length ? "," : ""}`));
out.push("    ]", "  }", "}");
const text = out.join("\n") + "\n";
fs.writeFileSync(output, text);
console.log(`tokens ${tokens.length} merges ${merges.length} bytes ${Buffer.byteLength(text)}`);

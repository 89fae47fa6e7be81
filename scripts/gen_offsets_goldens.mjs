// Writes tests/data/offsets/golden.json: Hugging Face tokenizers 0.23.2's (npm) ids and offsets for short
// non-ASCII texts on the tokenizer.json files of tests/data (one or more of each kind), for
// tests/tokenizer/offsets_golden_test.cc. Hugging Face's Node offsets count characters (code points); they are
// stored as byte offsets of the text's UTF-8, as tokvec's. The texts exercise the rules the offsets conformance
// suite (scripts/conformance.sh --only offsets) found: a byte-level or byte-fallback token holding part of a
// character covers the whole character; BertNormalizer's strip_accents removes only category Mn marks (a
// spacing vowel sign such as U+093F stays), StripAccents removes every combining mark. The texts are in NFC:
// on text that is not, normalizers that compose or strip marks align differently (docs/tokenizers.md, "Offsets and
// normalizers").
//
//   node scripts/gen_offsets_goldens.mjs [NODE_MODULES]   (default ~/.cache/tokvec/npm/node_modules)
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

const modules = process.argv[2] ?? path.join(os.homedir(), ".cache/tokvec/npm/node_modules");
const hf = createRequire(path.join(path.resolve(modules), "noop.js"))("tokenizers");
const data = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data");
const FILES = [
  "pretok/falcon.json", "added/byte-lowercase.json", "added/byte-added.json",
  "wordpiece/uncased.json", "wordpiece/strip-cased.json", "wordpiece/short-words.json", "wordpiece/whitespace-split.json",
  "spm_bpe/llama.json", "spm_bpe/ignore-merges.json",
  "unigram/nmt-always.json", "unigram/custom-legacy.json", "unigram/bytes-never.json",
];
const TEXTS = [
  "吾輩は猫である。名前はまだ無い。",
  "😀a é日本語x",
  "ｆｕｌｌ ﬁ Ä Ⅻ ㍿",
  "Việc thừa nhận nhân phẩm",
  "यदि केहु तानाशाही चाहे दमन के",
  "aिb ि x कि",
  "ба̄ридои пикпӯри sengɛɛ",
  "İstanbul ΣΑΣ Straße",
  "한국어 텍스트 ﾊﾝｶｸ",
  "\u0915\u094d\u0937 \u0915\u093f \u0924\u093e",
];
const cases = [];
for (const file of FILES) {
  const tokenizer = hf.Tokenizer.fromFile(path.join(data, file));
  for (const text of TEXTS) {
    const encoding = await tokenizer.encode(text, null, { addSpecialTokens: false });
    const bytes = [0];
    let total = 0;
    for (const ch of text) bytes.push((total += Buffer.byteLength(ch)));
    cases.push({
      file,
      text,
      ids: encoding.getIds(),
      offsets: encoding.getOffsets().map(([begin, end]) => [bytes[begin], bytes[end]]),
    });
  }
}
const out = {
  generator: "tokenizers@0.23.2 (npm) encode(text, null, {addSpecialTokens: false}); getOffsets() made bytes",
  cases,
};
const target = path.join(data, "offsets", "golden.json");
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.writeFileSync(target, JSON.stringify(out, null, 0).replace(/\{"file"/g, '\n{"file"') + "\n");
console.log(`wrote ${target}: ${cases.length} cases`);

// Builds tests/data/pairs (sentence pairs and skip_special_tokens) with Hugging Face tokenizers 0.23.2 (npm):
// the post-processor kinds tests/data lacks, set by Hugging Face on copies of existing files and saved by it,
// and golden.json, Hugging Face's pair encodings and skip_special_tokens decodes for tests/tokenizer/
// pair_encoding_test.cc on every file with a post-processor kind (one or more each):
//   byte-level.json   tests/data/added/byte-added.json with a ByteLevel post-processor (trim_offsets): a pair is
//                     A then B, type ids 0 and 1
//   reordered.json    tests/data/added/wordpiece-added.json with the TemplateProcessing pair
//                     "[CLS]:3 $B:2 [SEP]:2 $A [SEP]:1" (B first, type ids other than 0 and 1)
//
//   node scripts/gen_pairs_files.mjs [NODE_MODULES]   (default ~/.cache/tokvec/npm/node_modules)
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

const modules = process.argv[2] ?? path.join(os.homedir(), ".cache/tokvec/npm/node_modules");
const hf = createRequire(path.join(path.resolve(modules), "noop.js"))("tokenizers");
const data = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data");
const out = path.join(data, "pairs");
fs.mkdirSync(out, { recursive: true });

{
  const t = hf.Tokenizer.fromFile(path.join(data, "added", "byte-added.json"));
  t.setPostProcessor(hf.byteLevelProcessing(true));
  t.save(path.join(out, "byte-level.json"), false);
}
{
  const t = hf.Tokenizer.fromFile(path.join(data, "added", "wordpiece-added.json"));
  t.setPostProcessor(hf.templateProcessing("[CLS] $A [SEP]", "[CLS]:3 $B:2 [SEP]:2 $A [SEP]:1",
                                           [["[CLS]", t.tokenToId("[CLS]")], ["[SEP]", t.tokenToId("[SEP]")]]));
  t.save(path.join(out, "reordered.json"), false);
}

// One or more files of each kind: TemplateProcessing (and in a Sequence after ByteLevel), RobertaProcessing,
// BertProcessing, ByteLevel, none.
const FILES = [
  "added/wordpiece-added.json", "pairs/reordered.json", "added/byte-many.json",
  "added/byte-added.json", "affix_bpe/clip.json",
  "added/byte-lowercase.json", "wordpiece/uncased.json",
  "pairs/byte-level.json", "spm_bpe/llama.json",
];
const PAIRS = [
  ["How old is the moon?", "About 4.5 billion years."],
  ["Hello world", "  the  cat "],
  ["", "only b"],
  ["only a", ""],
  ["Café NAÏVE", "吾輩は猫である。"],
  ["<s> there </s>", "[CLS] x [SEP] <mask>"],
  ["I'll   go", "\tMr. HAMLET"],
];
const cases = [];
for (const file of FILES) {
  const tokenizer = hf.Tokenizer.fromFile(path.join(data, file));
  for (const [a, b] of PAIRS) {
    const bytes = (text) => {
      const at = [0];
      let total = 0;
      for (const ch of text) at.push((total += Buffer.byteLength(ch)));
      return at;
    };
    const row = { file, a, b };
    for (const add of [false, true]) {
      const e = await tokenizer.encode(a, b, { addSpecialTokens: add });
      const key = add ? "with_specials" : "plain";
      const sequences = e.getSequenceIds();
      row[key] = {
        ids: e.getIds(),
        type_ids: e.getTypeIds(),
        sequence_ids: sequences.map((s) => (s === null || s === undefined ? -1 : s)),
        offsets: e.getOffsets().map(([begin, end], i) =>
          sequences[i] === null || sequences[i] === undefined ? [begin, end] : [bytes(sequences[i] ? b : a)[begin], bytes(sequences[i] ? b : a)[end]]),
      };
      if (add) row.decoded_skip_special = await tokenizer.decode(e.getIds(), true);
    }
    cases.push(row);
  }
}
const golden = {
  generator: "tokenizers@0.23.2 (npm) encode(a, b, {addSpecialTokens}) ids, getTypeIds(), getSequenceIds() (null as -1), " +
    "getOffsets() made bytes of its sequence's text; decode(ids with specials, true)",
  cases,
};
fs.writeFileSync(path.join(out, "golden.json"), JSON.stringify(golden, null, 0).replace(/\{"file"/g, '\n{"file"') + "\n");

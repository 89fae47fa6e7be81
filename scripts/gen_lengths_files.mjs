// Writes tests/data/lengths/: tokenizer.json files with "truncation" and "padding" sections in the shapes Hugging
// Face reads (current, and older ones: truncation without "direction", padding without "pad_to_multiple_of"), each
// made from a fixture of tests/data, and golden.json: what Hugging Face (npm tokenizers, which applies a file's
// truncation and padding on every encode) gives for single texts, pairs and batches, with and without special
// tokens: ids, type ids, sequence ids, attention and special-token masks, offsets (bytes of each token's text), and
// the overflowing windows of each. tests/tokenizer/sequence_encoding_test.cc checks tokvec against it; `make
// conformance` (suite lengths/*) compares `tokvec encode` with Hugging Face's encode on the corpora.
//
//   node scripts/gen_lengths_files.mjs [--npm ~/.cache/tokvec/npm/node_modules]
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
const npm = args.npm ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "tokvec/npm/node_modules");
const hf = createRequire(path.join(path.resolve(npm), "noop.js"))("tokenizers");

const data = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data");
const out = path.join(data, "lengths");
fs.mkdirSync(out, { recursive: true });
const read = (source) => JSON.parse(fs.readFileSync(path.join(data, source), "utf8"));
const padding = (strategy, direction, multiple, padId, padTypeId, padToken) => {
  const p = { strategy, direction };
  if (multiple !== undefined) p.pad_to_multiple_of = multiple;  // absent: the older shape
  return Object.assign(p, { pad_id: padId, pad_type_id: padTypeId, pad_token: padToken });
};
const truncation = (maxLength, strategy, stride, direction) => {
  const t = {};
  if (direction !== undefined) t.direction = direction;  // absent: the older shape (Right)
  return Object.assign(t, { max_length: maxLength, strategy, stride });
};
// name: [source, truncation, padding]
const FILES = {
  // all-MiniLM-L6-v2's shape (BertProcessing): truncate at max_length, pad to a multiple of 8.
  "bert-multiple-of-8": ["wordpiece/uncased.json", truncation(16, "LongestFirst", 0, "Right"),
                         padding("BatchLongest", "Right", 8, 0, 0, "[PAD]")],
  // Left truncation with a stride (overflowing windows), fixed left padding with another type id.
  "bert-left-stride": ["wordpiece/uncased.json", truncation(12, "LongestFirst", 3, "Left"),
                       padding({ Fixed: 14 }, "Left", null, 0, 1, "[PAD]")],
  // TemplateProcessing; only the second text of a pair is cut; no padding.
  "template-only-second": ["added/wordpiece-added.json", truncation(14, "OnlySecond", 1, "Right"), null],
  // B before A in the pair template, type ids 1-3; longest first with a stride.
  "reordered-longest": ["pairs/reordered.json", truncation(11, "LongestFirst", 1, "Right"), null],
  // RobertaProcessing, byte-level; truncation without "direction" (older files); fixed padding, pad id 1.
  "roberta-fixed": ["added/byte-added.json", truncation(8, "LongestFirst", 0), padding({ Fixed: 10 }, "Right", null, 1, 0, "<pad>")],
  // Unigram without a post-processor; only the first text cut; padding without pad_to_multiple_of (older files).
  "unigram-only-first": ["unigram/nmt-always.json", truncation(9, "OnlyFirst", 0, "Right"),
                         padding("BatchLongest", "Right", undefined, 0, 0, "<pad>")],
  // Padding alone (no truncation), left, to a multiple of 5.
  "llama-pad-left": ["spm_bpe/llama.json", null, padding("BatchLongest", "Left", 5, 0, 0, "<unk>")],
  // ByteLevel post-processor trimming offsets (add_prefix_space): each window is trimmed on its own, its first token
  // keeping one leading space; added tokens (runs of spaces too) end words where the early exit does not stop.
  "byte-trim-windows": ["added/byte-trim.json", truncation(6, "LongestFirst", 2, "Right"), null],
};
const SINGLES = ["Hello world", "", "The quick brown fox jumps over the lazy dog, isn't it? 1234567 times.",
                 "Café NAÏVE 吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。", "a b c d e f g h i j k l m n o p q r s t",
                 "CHAPTER    PAGE<think> the  plan</think>    and  <s> more</s> words to cut after the added tokens",
                 "a<think>b<think>c<think>d<think>e<think>f<think>g<think>h<think>i<think>j<think>k<think>l<think>m"];
const PAIRS = [["How old is the moon?", "About 4.5 billion years, give or take a few hundred million."],
               ["short", "a b c d e f g h i j k l m n o p q r s t u v w x y z"],
               ["a b c d e f g h i j k l m n o p q r s t u v w x y z", "short"],
               ["one two three four five six seven", "eight nine ten eleven twelve thirteen fourteen"],
               ["", "only b"]];
const byteStarts = (text) => {
  const at = [0];
  let total = 0;
  for (const ch of text) at.push((total += Buffer.byteLength(ch)));
  return at;
};
const rows = (e, a, b) => {
  const sequences = e.getSequenceIds().map((s) => (s === null || s === undefined ? -1 : s));
  return {
    ids: e.getIds(), type_ids: e.getTypeIds(), sequence_ids: sequences,
    word_ids: e.getWordIds().map((w) => (w === null || w === undefined ? -1 : w)),
    attention_mask: e.getAttentionMask(), special_tokens_mask: e.getSpecialTokensMask(),
    offsets: e.getOffsets().map(([begin, end], i) => sequences[i] < 0 ? [begin, end]
      : [byteStarts(sequences[i] ? b : a)[begin], byteStarts(sequences[i] ? b : a)[end]]),
    overflowing: e.getOverflowing().map((o) => rows(o, a, b)),
  };
};
const cases = [];
for (const [name, [source, trunc, pad]] of Object.entries(FILES)) {
  const json = read(source);
  json.truncation = trunc;
  json.padding = pad;
  const file = path.join(out, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(json) + "\n");
  const tokenizer = hf.Tokenizer.fromFile(file);
  const rel = `lengths/${name}.json`;
  for (const add of [false, true]) {
    for (const a of SINGLES) {
      let e;
      try {
        e = await tokenizer.encode(a, null, { addSpecialTokens: add });
      } catch (error) {
        cases.push({ file: rel, add, a, error: String(error.message ?? error) });
        continue;
      }
      cases.push({ file: rel, add, a, ...rows(e, a, null) });
    }
    for (const [a, b] of PAIRS) {
      let e;
      try {
        e = await tokenizer.encode(a, b, { addSpecialTokens: add });
      } catch (error) {
        cases.push({ file: rel, add, a, b, error: String(error.message ?? error) });
        continue;
      }
      cases.push({ file: rel, add, a, b, ...rows(e, a, b) });
    }
    // A batch of singles: padded together.
    try {
      const batch = await tokenizer.encodeBatch(SINGLES, { addSpecialTokens: add });
      cases.push({ file: rel, add, batch: SINGLES, rows: batch.map((e, i) => rows(e, SINGLES[i], null)) });
    } catch (error) {
      cases.push({ file: rel, add, batch: SINGLES, error: String(error.message ?? error) });
    }
  }
  console.log(`${file}: Hugging Face loads it`);
}
const golden = {
  generator: "tokenizers@0.23.2 (npm) Tokenizer.fromFile (the file's truncation and padding) encode(a, b, {addSpecialTokens}) " +
    "and encodeBatch: ids, getTypeIds(), getSequenceIds() (null as -1), getAttentionMask(), getSpecialTokensMask(), " +
    "getWordIds() (null as -1), getOffsets() made bytes of its sequence's text, getOverflowing() (the same, recursively); error: the message",
  cases,
};
fs.writeFileSync(path.join(out, "golden.json"), JSON.stringify(golden).replace(/\{"file"/g, '\n{"file"') + "\n");
console.log(`${cases.length} cases`);

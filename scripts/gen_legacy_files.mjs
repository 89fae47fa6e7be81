// Writes tests/data/legacy/*.json: tokenizer.json shapes found in files on the Hugging Face Hub that the current
// tokenizers (0.23) reads but no longer writes, each made from a fixture of tests/data:
//   untyped-wordpiece-uncased  wordpiece/uncased.json, model without "type" (bert-base-uncased's file is so)
//   untyped-unigram-nmt        unigram/nmt-always.json, model without "type" (T5's file is so)
//   untyped-char-bpe-llama     spm_bpe/llama.json, model without "type"
//   untyped-byte-bpe-smollm    pretok/smollm.json, model without "type"
//   strip-metaspace-nmt        unigram/nmt-always.json with normalizer Sequence [Precompiled, Strip right] (as
//                              SentencePiece-converted translation models have): a white-space-only text
//                              normalizes to nothing, and Metaspace puts no "▁" before nothing
//   wordlevel-bert-words       a WordLevel model: the whole-word entries of wordpiece/uncased.json (their ids, so
//                              with gaps where "##" entries were), its normalizer, post-processor and added tokens,
//                              pre_tokenizer Whitespace
//   untyped-wordlevel-cased    a WordLevel model without "type" (vocab and unk_token): the same words, cased, no
//                              normalizer, pre_tokenizer WhitespaceSplit, unk_token "[UNK]"
// Hugging Face reads a model without "type" as the first kind whose fields are all there (BPE, WordPiece,
// WordLevel, Unigram; tokenizers/src/models/mod.rs). Each file is loaded by Hugging Face (npm tokenizers) here;
// the untyped ones must give the ids of their typed source. `make conformance` compares tokvec with Hugging Face
// on them (suite legacy/*).
//
//   node scripts/gen_legacy_files.mjs [--npm ~/.cache/tokvec/npm/node_modules]
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
const npm = args.npm ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "tokvec/npm/node_modules");
const hf = createRequire(path.join(path.resolve(npm), "noop.js"))("tokenizers");

const data = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data");
const out = path.join(data, "legacy");
fs.mkdirSync(out, { recursive: true });
const read = (source) => JSON.parse(fs.readFileSync(path.join(data, source), "utf8"));
const untyped = (source) => {
  const json = read(source);
  if (!("type" in json.model)) throw new Error(`${source}: its model has no type already`);
  delete json.model.type;
  return json;
};
// The whole-word entries of a WordPiece vocabulary (no "##" continuation), with their ids.
const wholeWords = (vocab) => Object.fromEntries(Object.entries(vocab).filter(([w]) => !w.startsWith("##")));
const files = {
  "untyped-wordpiece-uncased": { source: "wordpiece/uncased.json", json: untyped("wordpiece/uncased.json") },
  "untyped-unigram-nmt": { source: "unigram/nmt-always.json", json: untyped("unigram/nmt-always.json") },
  "untyped-char-bpe-llama": { source: "spm_bpe/llama.json", json: untyped("spm_bpe/llama.json") },
  "untyped-byte-bpe-smollm": { source: "pretok/smollm.json", json: untyped("pretok/smollm.json") },
  "strip-metaspace-nmt": {
    json: (() => {
      const json = read("unigram/nmt-always.json");
      json.normalizer = { type: "Sequence", normalizers: [json.normalizer, { type: "Strip", strip_left: false, strip_right: true }] };
      return json;
    })(),
  },
  "wordlevel-bert-words": {
    json: (() => {
      const json = read("wordpiece/uncased.json");
      json.model = { type: "WordLevel", vocab: wholeWords(json.model.vocab), unk_token: "[UNK]" };
      json.pre_tokenizer = { type: "Whitespace" };
      json.decoder = null;
      return json;
    })(),
  },
  "untyped-wordlevel-cased": {
    json: (() => {
      const json = read("wordpiece/uncased.json");
      json.model = { vocab: wholeWords(json.model.vocab), unk_token: "[UNK]" };
      json.normalizer = null;
      json.pre_tokenizer = { type: "WhitespaceSplit" };
      json.post_processor = null;
      json.decoder = null;
      return json;
    })(),
  },
};
const texts = ["Hello world! The quick brown fox, isn't it? 1234567 ünïcödé", "日本語のテキストと、한국어 텍스트",
               "  spaces\tand\nlines  ", "   ", " \t "];
const idsOf = async (file) => {
  const tokenizer = hf.Tokenizer.fromFile(file);
  return Promise.all(texts.map(async (t) => (await tokenizer.encode(t, null, { addSpecialTokens: false })).getIds()));
};
for (const [name, { source, json }] of Object.entries(files)) {
  const file = path.join(out, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(json) + "\n");
  const ids = await idsOf(file);
  if (source && JSON.stringify(await idsOf(path.join(data, source))) !== JSON.stringify(ids)) {
    throw new Error(`${name}: Hugging Face reads it differently from ${source}`);
  }
  console.log(`${file}: Hugging Face loads it (${ids.flat().length} ids on ${texts.length} texts)`);
}

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
// Older and stranger component shapes (each from the fixture named; "same" marks the files Hugging Face must read
// as their source: same ids with and without special tokens, same pair ids and type ids, same decode):
//   untyped-roberta-bytes      added/byte-added.json, post_processor RobertaProcessing without "type" (same)
//   untyped-bert-wordpiece     wordpiece/uncased.json, post_processor (BertProcessing), normalizer (BertNormalizer)
//                              and decoder (WordPiece) without "type", no "version" (same)
//   untyped-template-pairs     pairs/reordered.json, TemplateProcessing without "type" (same)
//   bert-typed-roberta-fields  added/byte-lowercase.json, a "BertProcessing" with trim_offsets and add_prefix_space:
//                              Hugging Face reads it as RobertaProcessing (pair <cls> A <sep><sep> B <sep>, type ids 0)
//   roberta-typed-bert-fields  added/byte-added.json, a "RobertaProcessing" without trim_offsets / add_prefix_space:
//                              read as BertProcessing (pair type ids 1 on B, no offset trimming)
//   template-typed-bert        pairs/reordered.json, a TemplateProcessing whose "type" says BertProcessing (same)
//   sequence-untyped-template  added/byte-many.json, Sequence [ByteLevel, TemplateProcessing without "type"] (same)
//   bytelevel-no-use-regex     pairs/byte-level.json, ByteLevel pre_tokenizer / post_processor / decoder without
//                              use_regex (default true) (same)
//   untyped-llama-components   spm_bpe/llama.json, normalizer Sequence [Prepend, Replace] and the decoder's Replace
//                              and Strip without "type", model fields null where false / absent (same)
//   bpe-minimal-llama          spm_bpe/llama.json, model {type, vocab, merges as pairs, unk_token, dropout 0}:
//                              fuse_unk, byte_fallback, ignore_merges absent (false); dropout 0 merges as null
//   untyped-char-suffix        affix_bpe/char-suffix.json, normalizer Replace and decoder BPEDecoder without "type"
//                              (same)
//   untyped-strip-pairs-space  spm_bpe/pairs-space.json, Prepend (in Sequence) and decoder Strip (in Sequence)
//                              without "type" (same)
//   bert-alias-cased           wordpiece/cased.json, normalizer "type": "Bert" (Hugging Face's own name) without
//                              strip_accents (null: as lowercase) (same)
//   untyped-strip-punct        wordpiece/punct-sequence.json, normalizer Sequence and its Strip without "type" (same)
//   metaspace-prefix-nmt       unigram/nmt-always.json, Metaspace pre_tokenizer and decoder {replacement, str_rep,
//                              add_prefix_space: true} (no prepend_scheme, no split), Unigram without byte_fallback
//                              (same)
//   metaspace-prefix-first     spm_bpe/mistral.json, Metaspace with add_prefix_space true and prepend_scheme "first"
//                              (same)
//   metaspace-prefix-never     unigram/bytes-never.json, Metaspace pre_tokenizer add_prefix_space true with
//                              "never" (the scheme wins), decoder add_prefix_space false with "never" (same)
//   punct-no-behavior          pretok/punct-isolated.json, Punctuation without behavior (Isolated) (same)
//   missing-sections-llama     spm_bpe/no-unk.json without the keys version, truncation, padding, pre_tokenizer,
//                              post_processor, decoder (absent reads as null) (same)
// Hugging Face reads a model without "type" as the first kind whose fields are all there (BPE, WordPiece,
// WordLevel, Unigram; tokenizers/src/models/mod.rs); a post_processor, normalizer or decoder without one as the
// first kind of its untagged fallback whose fields are there (processors/mod.rs, normalizers/mod.rs,
// decoders/mod.rs). Each file is loaded by Hugging Face (npm tokenizers) here; the "same" ones must give the ids of
// their source. `make conformance` compares tokvec with Hugging Face on them (suite legacy/*).
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
// The fixture with `change` applied to its JSON.
const edited = (source, change) => {
  const json = read(source);
  change(json);
  return json;
};
const omit = (object, ...keys) => Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));
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
  "untyped-roberta-bytes": {
    source: "added/byte-added.json",
    json: edited("added/byte-added.json", (json) => delete json.post_processor.type),
  },
  "untyped-bert-wordpiece": {
    source: "wordpiece/uncased.json",
    json: edited("wordpiece/uncased.json", (json) => {
      for (const key of ["post_processor", "normalizer", "decoder"]) delete json[key].type;
      delete json.version;
    }),
  },
  "untyped-template-pairs": {
    source: "pairs/reordered.json",
    json: edited("pairs/reordered.json", (json) => delete json.post_processor.type),
  },
  "bert-typed-roberta-fields": {
    json: edited("added/byte-lowercase.json", (json) => {
      Object.assign(json.post_processor, { trim_offsets: true, add_prefix_space: false });
    }),
  },
  "roberta-typed-bert-fields": {
    json: edited("added/byte-added.json", (json) => {
      json.post_processor = omit(json.post_processor, "trim_offsets", "add_prefix_space");
    }),
  },
  "template-typed-bert": {
    source: "pairs/reordered.json",
    json: edited("pairs/reordered.json", (json) => (json.post_processor.type = "BertProcessing")),
  },
  "sequence-untyped-template": {
    source: "added/byte-many.json",
    json: edited("added/byte-many.json", (json) => {
      for (const step of json.post_processor.processors) if (step.type === "TemplateProcessing") delete step.type;
    }),
  },
  "bytelevel-no-use-regex": {
    source: "pairs/byte-level.json",
    json: edited("pairs/byte-level.json", (json) => {
      for (const key of ["pre_tokenizer", "post_processor", "decoder"]) delete json[key].use_regex;
    }),
  },
  "untyped-llama-components": {
    source: "spm_bpe/llama.json",
    json: edited("spm_bpe/llama.json", (json) => {
      for (const step of json.normalizer.normalizers) delete step.type;
      for (const step of json.decoder.decoders) if (step.type === "Replace" || step.type === "Strip") delete step.type;
      for (const [key, value] of Object.entries(json.model)) if (value === false) json.model[key] = null;
      json.model.merges = json.model.merges.map((merge) => (Array.isArray(merge) ? merge.join(" ") : merge));
    }),
  },
  "bpe-minimal-llama": {
    json: edited("spm_bpe/llama.json", (json) => {
      const { vocab, merges, unk_token } = json.model;
      json.model = { type: "BPE", vocab, merges: merges.map((m) => (Array.isArray(m) ? m : m.split(" "))), unk_token, dropout: 0 };
    }),
  },
  "untyped-char-suffix": {
    source: "affix_bpe/char-suffix.json",
    json: edited("affix_bpe/char-suffix.json", (json) => {
      delete json.normalizer.type;
      delete json.decoder.type;
    }),
  },
  "untyped-strip-pairs-space": {
    source: "spm_bpe/pairs-space.json",
    json: edited("spm_bpe/pairs-space.json", (json) => {
      for (const step of json.normalizer.normalizers) delete step.type;
      for (const step of json.decoder.decoders) if (step.type === "Strip") delete step.type;
    }),
  },
  "bert-alias-cased": {
    source: "wordpiece/cased.json",
    json: edited("wordpiece/cased.json", (json) => {
      json.normalizer.type = "Bert";
      delete json.normalizer.strip_accents;
    }),
  },
  "untyped-strip-punct": {
    source: "wordpiece/punct-sequence.json",
    json: edited("wordpiece/punct-sequence.json", (json) => {
      delete json.normalizer.type;
      delete json.normalizer.normalizers[0].type;
    }),
  },
  "metaspace-prefix-nmt": {
    source: "unigram/nmt-always.json",
    json: edited("unigram/nmt-always.json", (json) => {
      json.pre_tokenizer = { type: "Metaspace", replacement: "▁", str_rep: "▁", add_prefix_space: true };
      json.decoder = { type: "Metaspace", replacement: "▁", str_rep: "▁", add_prefix_space: true };
      delete json.model.byte_fallback;
    }),
  },
  "metaspace-prefix-first": {
    source: "spm_bpe/mistral.json",
    json: edited("spm_bpe/mistral.json", (json) => (json.pre_tokenizer.add_prefix_space = true)),
  },
  "metaspace-prefix-never": {
    source: "unigram/bytes-never.json",
    json: edited("unigram/bytes-never.json", (json) => {
      json.pre_tokenizer.add_prefix_space = true;
      json.decoder.add_prefix_space = false;
    }),
  },
  "punct-no-behavior": {
    source: "pretok/punct-isolated.json",
    json: edited("pretok/punct-isolated.json", (json) => delete json.pre_tokenizer.pretokenizers[0].behavior),
  },
  "missing-sections-llama": {
    source: "spm_bpe/no-unk.json",
    json: edited("spm_bpe/no-unk.json", (json) => {
      for (const key of ["version", "truncation", "padding", "pre_tokenizer", "post_processor", "decoder"]) delete json[key];
    }),
  },
};
const texts = ["Hello world! The quick brown fox, isn't it? 1234567 ünïcödé", "日本語のテキストと、한국어 텍스트",
               "  spaces\tand\nlines  ", "   ", " \t "];
// What Hugging Face gives on `texts`: ids without and with special tokens, pairs (ids and type ids) and decode.
const idsOf = async (file) => {
  const tokenizer = hf.Tokenizer.fromFile(file);
  const plain = await Promise.all(texts.map(async (t) => (await tokenizer.encode(t, null, { addSpecialTokens: false })).getIds()));
  const special = await Promise.all(texts.map(async (t) => (await tokenizer.encode(t, null, { addSpecialTokens: true })).getIds()));
  const pairs = await Promise.all(texts.slice(1).map(async (t, i) => {
    const encoding = await tokenizer.encode(texts[i], t, { addSpecialTokens: true });
    return [encoding.getIds(), encoding.getTypeIds()];
  }));
  const decoded = await Promise.all(special.map((ids) => tokenizer.decode(ids, false)));
  return { plain, special, pairs, decoded };
};
for (const [name, { source, json }] of Object.entries(files)) {
  const file = path.join(out, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(json) + "\n");
  const ids = await idsOf(file);
  if (source && JSON.stringify(await idsOf(path.join(data, source))) !== JSON.stringify(ids)) {
    throw new Error(`${name}: Hugging Face reads it differently from ${source}`);
  }
  console.log(`${file}: Hugging Face loads it (${ids.plain.flat().length} ids on ${texts.length} texts)`);
}

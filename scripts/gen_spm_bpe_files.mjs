// Builds SentencePiece-style BPE tokenizer.json files (Llama-2's shape) and the goldens of the C++ tests:
// tests/data/spm_bpe/{llama,no-fallback,no-unk,pairs-space,ignore-merges,mistral,metaspace-digits,punct-metaspace,
// split-digits}.json and golden.json.
//
//   node scripts/gen_spm_bpe_files.mjs [--shared ../shared] [--npm ~/.cache/tokvec/npm/node_modules]
//
// 1. Debian's SentencePiece trains a BPE model on three corpora (needs `spm_train` and `spm_export_vocab`, package
//    sentencepiece): 3000 pieces, byte_fallback, character_coverage 0.995, so that rare characters (UDHR's
//    scripts, rare kanji) fall back to <0xNN> bytes or unk.
// 2. The pieces become a tokenizer.json as Hugging Face's converter (transformers' LlamaConverter and
//    SentencePieceExtractor) makes them: vocab = piece -> its index; merges = for every piece, every split into
//    two pieces of the vocabulary (ordered by the ids of the left, then the right piece), all of them ordered by
//    the piece's score, highest first (a stable sort: SentencePiece gives BPE pieces the score -rank, and special
//    and byte pieces 0).
// 3. Hugging Face tokenizers 0.23.2 (npm) loads each file (it must accept it) and gives golden.json: a few hard
//    sentences with Hugging Face's ids, offsets (in characters) and decode.
//
// Variants (what differs from llama):
//   llama          normalizer Sequence [Prepend "▁", Replace " " -> "▁"], pre_tokenizer null, BPE byte_fallback,
//                  fuse_unk, unk "<unk>", decoder Sequence [Replace "▁" -> " ", ByteFallback, Fuse, Strip " " 1 0]
//   no-fallback    byte_fallback false: unknown characters become one <unk> per run (fuse_unk)
//   no-unk         byte_fallback false, unk_token null, fuse_unk false: unknown characters are dropped; decoder null
//   pairs-space    tokens spelled with " " instead of "▁" (normalizer Prepend " " alone), merges as [left, right]
//                  pairs; decoder Sequence [ByteFallback, Fuse, Strip " " 1 0]
//   ignore-merges  ignore_merges true, fuse_unk false; normalizer Sequence [Strip right, NFKC, Prepend "▁",
//                  Replace Regex " {2,}" -> "▁▁", Replace " " -> "▁"]; decoder Sequence [ByteFallback, Metaspace]
//   mistral        Mistral v0.3 / Mixtral's shape: normalizer null, pre_tokenizer Metaspace {prepend_scheme "first",
//                  split false} (the text is one piece; no "▁" after a special token), decoder as llama
//   metaspace-digits  normalizer null, pre_tokenizer Sequence [Metaspace {"always", split true}, Digits
//                  {individual_digits}]: every word and digit is merged on its own; decoder Sequence [ByteFallback,
//                  Fuse, Metaspace]
//   punct-metaspace   normalizer NFKC, pre_tokenizer Sequence [WhitespaceSplit, Punctuation, Metaspace {"always",
//                  split true}]: "▁" before every word and punctuation mark; decoder Metaspace
//   split-digits   llama's normalizer, pre_tokenizer Sequence [Digits {individual_digits}, Split {String "▁",
//                  MergedWithNext}] (no Metaspace: splitters over the normalized text)
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const args = { shared: "../shared", npm: path.join(os.homedir(), ".cache/tokvec/npm/node_modules") };
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
const hf = createRequire(path.join(path.resolve(args.npm), "noop.js"))("tokenizers");
const root = path.join(path.dirname(new URL(import.meta.url).pathname), "..");
const outDir = path.join(root, "tests", "data", "spm_bpe");
fs.mkdirSync(outDir, { recursive: true });

// ---- 1. Train.
const work = fs.mkdtempSync(path.join(os.tmpdir(), "spm-bpe-"));
const training = ["botchan.txt", "tinyshakespeare.txt", "wagahaiwa_nekodearu.txt"].map((f) => path.join(args.shared, "corpora", f));
execFileSync("spm_train", [
  `--input=${training.join(",")}`, `--model_prefix=${path.join(work, "m")}`, "--model_type=bpe", "--byte_fallback=true",
  "--vocab_size=3000", "--character_coverage=0.995", "--input_sentence_size=200000", "--shuffle_input_sentence=false",
  "--num_threads=1", "--minloglevel=2",
], { stdio: ["ignore", "ignore", "inherit"] });
execFileSync("spm_export_vocab", [`--model=${path.join(work, "m.model")}`, `--output=${path.join(work, "m.vocab")}`]);
const pieces = fs.readFileSync(path.join(work, "m.vocab"), "utf8").split("\n").filter((l) => l !== "").map((line) => {
  const [piece, score] = line.split("\t");
  return { piece, score: Number(score) };
});
fs.rmSync(work, { recursive: true, force: true });

// ---- 2. Vocab and merges, as Hugging Face's converter derives them.
function vocabAndMerges(spell) {
  const vocab = {};
  pieces.forEach(({ piece }, id) => { vocab[spell(piece)] = id; });
  const merges = [];
  pieces.forEach(({ piece, score }) => {
    const chars = Array.from(spell(piece));
    const local = [];
    for (let k = 1; k < chars.length; k++) {
      const left = chars.slice(0, k).join("");
      const right = chars.slice(k).join("");
      if (left in vocab && right in vocab) local.push({ left, right, score });
    }
    local.sort((a, b) => vocab[a.left] - vocab[b.left] || vocab[a.right] - vocab[b.right]);
    merges.push(...local);
  });
  merges.sort((a, b) => b.score - a.score);  // Array.prototype.sort is stable.
  return { vocab, merges: merges.map((m) => [m.left, m.right]) };
}

const special = (id, content) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
const LLAMA_NORMALIZER = { type: "Sequence", normalizers: [{ type: "Prepend", prepend: "▁" }, { type: "Replace", pattern: { String: " " }, content: "▁" }] };
const LLAMA_DECODER = { type: "Sequence", decoders: [
  { type: "Replace", pattern: { String: "▁" }, content: " " }, { type: "ByteFallback" }, { type: "Fuse" },
  { type: "Strip", content: " ", start: 1, stop: 0 }] };
const VARIANTS = [
  { name: "llama" },
  { name: "no-fallback", model: { byte_fallback: false } },
  { name: "no-unk", model: { byte_fallback: false, unk_token: null, fuse_unk: false }, decoder: null },
  { name: "pairs-space", spell: (p) => p.replaceAll("▁", " "), pairs: true,
    normalizer: { type: "Sequence", normalizers: [{ type: "Prepend", prepend: " " }] },
    decoder: { type: "Sequence", decoders: [{ type: "ByteFallback" }, { type: "Fuse" }, { type: "Strip", content: " ", start: 1, stop: 0 }] } },
  { name: "ignore-merges", model: { ignore_merges: true, fuse_unk: false },
    normalizer: { type: "Sequence", normalizers: [
      { type: "Strip", strip_left: false, strip_right: true }, { type: "NFKC" }, { type: "Prepend", prepend: "▁" },
      { type: "Replace", pattern: { Regex: " {2,}" }, content: "▁▁" }, { type: "Replace", pattern: { String: " " }, content: "▁" }] },
    decoder: { type: "Sequence", decoders: [{ type: "ByteFallback" }, { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true }] } },
  { name: "mistral", normalizer: null, pre_tokenizer: { type: "Metaspace", replacement: "▁", prepend_scheme: "first", split: false } },
  { name: "metaspace-digits", normalizer: null,
    pre_tokenizer: { type: "Sequence", pretokenizers: [
      { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true }, { type: "Digits", individual_digits: true }] },
    decoder: { type: "Sequence", decoders: [{ type: "ByteFallback" }, { type: "Fuse" }, { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true }] } },
  { name: "punct-metaspace", normalizer: { type: "NFKC" },
    pre_tokenizer: { type: "Sequence", pretokenizers: [
      { type: "WhitespaceSplit" }, { type: "Punctuation", behavior: "Isolated" },
      { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true }] },
    decoder: { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true } },
  { name: "split-digits",
    pre_tokenizer: { type: "Sequence", pretokenizers: [
      { type: "Digits", individual_digits: true }, { type: "Split", pattern: { String: "▁" }, behavior: "MergedWithNext", invert: false }] } },
];

function build(variant) {
  const { vocab, merges } = vocabAndMerges(variant.spell ?? ((p) => p));
  const json = {
    version: "1.0", truncation: null, padding: null,
    added_tokens: [special(0, "<unk>"), special(1, "<s>"), special(2, "</s>")],
    normalizer: variant.normalizer === undefined ? LLAMA_NORMALIZER : variant.normalizer,
    pre_tokenizer: variant.pre_tokenizer ?? null,
    post_processor: null,
    decoder: variant.decoder === undefined ? LLAMA_DECODER : variant.decoder,
    model: {
      type: "BPE", dropout: null, unk_token: "<unk>", continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: true, byte_fallback: true, ignore_merges: false, ...(variant.model ?? {}),
      vocab, merges: variant.pairs ? merges : merges.map(([l, r]) => `${l} ${r}`),
    },
  };
  const file = path.join(outDir, `${variant.name}.json`);
  fs.writeFileSync(file, JSON.stringify(json) + "\n");
  return file;
}

// ---- 3. Hugging Face loads each file; goldens.
const SENTENCES = [
  "Hello world",
  " leading space,  two spaces,   three, trailing space ",
  "吾輩は猫である。名前はまだ無い。",
  "Emoji 🙂👍🏽 and rare kanji 龘 𠮷 fall back to bytes",
  "Ελληνικά Русский العربية हिन्दी ไทย 한국어",
  "tabs\tand\nnewlines\r\n\u00a0nbsp\u3000ideographic\u200bzero",
  "e\u0301 combining, ﬁ ligature, Ｆｕｌｌ width",
  "<s> special </s> tokens <unk> are ordinary text without --allow-special",
  "supercalifragilisticexpialidocious antidisestablishmentarianism",
  "   ",
  "",
  "Phone 0123 456-7890, 3.14159 and 2026-11-25",
  "<s>[INST] after a special token</s> words",
];
const golden = { generator: "tokenizers@0.23.2 (npm) encode(text, null, {addSpecialTokens: false}) (offsets in characters), decode(ids, false)", cases: [] };
for (const variant of VARIANTS) {
  const file = build(variant);
  const size = fs.statSync(file).size;
  const tokenizer = hf.Tokenizer.fromFile(file);
  for (const text of SENTENCES) {
    const encoding = await tokenizer.encode(text, null, { addSpecialTokens: false });
    const ids = encoding.getIds();
    golden.cases.push({ file: `${variant.name}.json`, text, ids, tokens: encoding.getTokens(), offsets: encoding.getOffsets(),
      decoded: await tokenizer.decode(ids, false) });
  }
  console.log(`wrote ${file} (${size} bytes, ${tokenizer.getVocabSize(true)} tokens)`);
}
// One case a line: small, and a regenerated file diffs by case.
fs.writeFileSync(path.join(outDir, "golden.json"),
  `{"generator": ${JSON.stringify(golden.generator)}, "cases": [\n${golden.cases.map((c) => JSON.stringify(c)).join(",\n")}\n]}\n`);
console.log(`wrote ${path.join(outDir, "golden.json")} (${golden.cases.length} cases)`);

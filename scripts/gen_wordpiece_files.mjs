// Builds small WordPiece tokenizer.json files with Hugging Face tokenizers 0.23.2 (npm) and the goldens of the
// C++ tests: tests/data/wordpiece/{uncased,cased,strip-cased,short-words,whitespace-split,
// compat-decomposed,digits-sequence,punct-sequence,chardelim-sequence}.json and golden.json.
//
//   node scripts/gen_wordpiece_files.mjs [--shared ../shared] [--npm ~/.cache/tokvec/npm/node_modules]
//
// The npm binding has no WordPieceTrainer, so each vocabulary is counted here, deterministically: the words
// of four corpora after the variant's own normalizer and pre-tokenizer (Hugging Face's), then
//   5 special tokens, every code point seen >= 20 times (alone and as "##" continuation), the 2500 most
//   frequent words, the 1500 most frequent word endings of 2..4 code points ("##ing") and the 600 most
//   frequent word beginnings of 2..4 code points, ties broken by spelling.
// Rarer code points are left out on purpose so that unk appears on real text (UDHR's scripts).
//
// Variants (what differs):
//   uncased           BertNormalizer (lowercase; strip_accents null = as lowercase), BertPreTokenizer, WordPiece decoder
//   cased             BertNormalizer {lowercase: false} (no accent stripping), handle_chinese_chars on
//   strip-cased       BertNormalizer {lowercase: false, strip_accents: true, handle_chinese_chars: false}
//   short-words       Sequence [NFD, Lowercase, StripAccents], max_input_chars_per_word 8
//   whitespace-split  Sequence [NFKC, Lowercase], WhitespaceSplit, decoder without cleanup
//   compat-decomposed Sequence [NFKD, Lowercase], WhitespaceSplit (the one file with NFKD)
//   digits-sequence   BertNormalizer {clean_text: false} (controls kept), Sequence [Whitespace, Digits {individual}]
//   punct-sequence    Sequence [Strip {left only}, NFC, Lowercase], Sequence [WhitespaceSplit, Punctuation], decoder
//                     without cleanup
//   chardelim-sequence BertNormalizer, Sequence [CharDelimiterSplit " ", Punctuation Removed] (tabs and newlines stay
//                     inside words)
// golden.json holds, for each variant, a few hard sentences with Hugging Face's ids and decode.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const args = { shared: "../shared", npm: path.join(os.homedir(), ".cache/tokvec/npm/node_modules") };
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
const hf = createRequire(path.join(path.resolve(args.npm), "noop.js"))("tokenizers");
const root = path.join(path.dirname(new URL(import.meta.url).pathname), "..");
const outDir = path.join(root, "tests", "data", "wordpiece");
fs.mkdirSync(outDir, { recursive: true });

const SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
const TRAINING = ["botchan.txt", "tinyshakespeare.txt", "wikitext2-valid.txt", "wagahaiwa_nekodearu.txt"];
const texts = TRAINING.map((f) => fs.readFileSync(path.join(args.shared, "corpora", f), "utf8"));

const VARIANTS = [
  { name: "uncased", normalizer: () => hf.bertNormalizer({ lowercase: true }), pre: () => hf.bertPreTokenizer(), maxChars: 100, cleanup: true },
  { name: "cased", normalizer: () => hf.bertNormalizer({ lowercase: false }), pre: () => hf.bertPreTokenizer(), maxChars: 100, cleanup: true },
  { name: "strip-cased", normalizer: () => hf.bertNormalizer({ lowercase: false, stripAccents: true, handleChineseChars: false }), pre: () => hf.bertPreTokenizer(), maxChars: 100, cleanup: true },
  { name: "short-words", normalizer: () => hf.sequenceNormalizer([hf.nfdNormalizer(), hf.lowercase(), hf.stripAccentsNormalizer()]), pre: () => hf.bertPreTokenizer(), maxChars: 8, cleanup: true },
  { name: "whitespace-split", normalizer: () => hf.sequenceNormalizer([hf.nfkcNormalizer(), hf.lowercase()]), pre: () => hf.whitespaceSplitPreTokenizer(), maxChars: 100, cleanup: false },
  { name: "compat-decomposed", normalizer: () => hf.sequenceNormalizer([hf.nfkdNormalizer(), hf.lowercase()]), pre: () => hf.whitespaceSplitPreTokenizer(), maxChars: 100, cleanup: false },
  { name: "digits-sequence", normalizer: () => hf.bertNormalizer({ cleanText: false, lowercase: true }), pre: () => hf.sequencePreTokenizer([hf.whitespacePreTokenizer(), hf.digitsPreTokenizer(true)]), maxChars: 100, cleanup: true },
  { name: "punct-sequence", normalizer: () => hf.sequenceNormalizer([hf.stripNormalizer(true, false), hf.nfcNormalizer(), hf.lowercase()]), pre: () => hf.sequencePreTokenizer([hf.whitespaceSplitPreTokenizer(), hf.punctuationPreTokenizer()]), maxChars: 100, cleanup: false },
  { name: "chardelim-sequence", normalizer: () => hf.bertNormalizer({ lowercase: true }), pre: () => hf.sequencePreTokenizer([hf.charDelimiterSplit(" "), hf.punctuationPreTokenizer("removed")]), maxChars: 100, cleanup: true },
];

// Most frequent first, ties by spelling (code unit order: deterministic).
const top = (counts, n) =>
  [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, n).map((e) => e[0]);
const bump = (counts, key, by = 1) => counts.set(key, (counts.get(key) ?? 0) + by);

function buildVocab(variant) {
  const normalizer = variant.normalizer();
  const pre = variant.pre();
  const words = new Map();
  for (const text of texts) {
    for (const line of text.split("\n")) {
      for (const [word] of pre.preTokenizeString(normalizer.normalizeString(line))) bump(words, word);
    }
  }
  const chars = new Map();
  const endings = new Map();
  const beginnings = new Map();
  for (const [word, count] of words) {
    const cps = [...word];
    for (const c of cps) bump(chars, c, count);
    for (let k = 2; k <= 4 && k < cps.length; k++) {
      bump(endings, cps.slice(cps.length - k).join(""), count);
      bump(beginnings, cps.slice(0, k).join(""), count);
    }
  }
  const vocab = {};
  let next = 0;
  const add = (token) => {
    if (!(token in vocab)) vocab[token] = next++;
  };
  SPECIALS.forEach(add);
  const alphabet = top(chars, chars.size).filter((c) => chars.get(c) >= 20).sort();
  alphabet.forEach(add);
  alphabet.forEach((c) => add(`##${c}`));
  top(words, 2500).forEach(add);
  top(endings, 1500).forEach((e) => add(`##${e}`));
  top(beginnings, 600).forEach(add);
  return vocab;
}

function build(variant) {
  const model = hf.WordPiece.init(buildVocab(variant), {
    unkToken: "[UNK]",
    continuingSubwordPrefix: "##",
    maxInputCharsPerWord: variant.maxChars,
  });
  const tokenizer = new hf.Tokenizer(model);
  tokenizer.setNormalizer(variant.normalizer());
  tokenizer.setPreTokenizer(variant.pre());
  tokenizer.setDecoder(hf.wordPieceDecoder("##", variant.cleanup));
  tokenizer.addSpecialTokens(SPECIALS);
  tokenizer.setPostProcessor(hf.bertProcessing(["[SEP]", 3], ["[CLS]", 2]));
  const file = path.join(outDir, `${variant.name}.json`);
  tokenizer.save(file);
  return file;
}

const SENTENCES = [
  "Hello, World! It's a test.",
  "unaffable UNAFFABLE Unaffable",
  "Héllo wörld, naïve café — résumé!",
  "吾輩は猫である。名前はまだ無い。",
  "I don't think they're here, do not go.",
  "supercalifragilisticexpialidocious antidisestablishmentarianism",
  "tabs\tand\nnewlines\r\n\u00a0nbsp\u3000ideographic\u200bzero\u0000nul\ufffdrepl",
  "$100.50 (approx.) 3.14159 — 'quoted' \"double\" ¿qué? ¡sí!",
  "Ελληνικά Русский العربية हिन्दी ไทย 한국어",
  "[CLS] special [SEP] tokens are ordinary text without --allow-special",
  "",
];

const golden = { generator: "tokenizers@0.23.2 (npm) encode(text, {addSpecialTokens: false}), decode(ids, false)", cases: [] };
for (const variant of VARIANTS) {
  const file = build(variant);
  const size = fs.statSync(file).size;
  if (size > 200 * 1024) throw new Error(`${file} is ${size} bytes (over 200 KB)`);
  const tokenizer = hf.Tokenizer.fromFile(file);
  for (const text of SENTENCES) {
    const encoding = await tokenizer.encode(text, null, { addSpecialTokens: false });
    const ids = encoding.getIds();
    golden.cases.push({ file: `${variant.name}.json`, text, ids, tokens: encoding.getTokens(), decoded: await tokenizer.decode(ids, false) });
  }
  console.log(`wrote ${file} (${size} bytes, ${tokenizer.getVocabSize(true)} tokens)`);
}
fs.writeFileSync(path.join(outDir, "golden.json"), JSON.stringify(golden, null, 1) + "\n");
console.log(`wrote ${path.join(outDir, "golden.json")} (${golden.cases.length} cases)`);

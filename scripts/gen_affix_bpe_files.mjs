// Builds small BPE tokenizer.json files whose model has Hugging Face's word affixes (end_of_word_suffix,
// continuing_subword_prefix; tokenizer/models/bpe/bpe_affixes.h) and the goldens of the C++ tests:
// tests/data/affix_bpe/{clip,prefix,char-suffix}.json and golden.json.
//
//   node scripts/gen_affix_bpe_files.mjs [--shared ../shared] [--npm ~/.cache/tokvec/npm/node_modules]
//
// The npm binding cannot train with affixes (its default trainer has none), so the merges are learned here,
// deterministically, the way Hugging Face's BpeTrainer does: the words of three corpora after each variant's own
// normalizer and pre-tokenizer (Hugging Face's, through the npm binding), the 20000 most frequent of them, each
// split into its units with the affixes (prefix before every unit but the first, suffix after the last); then
// the most frequent adjacent pair merges (ties: the smaller pair by code units), a merge of "x" and "##y" making
// "xy", until the vocabulary has its size. Hugging Face tokenizers 0.23.2 (npm) then loads each file (it must
// accept it) and gives golden.json: a few hard sentences with Hugging Face's ids and decode.
//
// Variants:
//   clip         CLIP's shape: normalizer Sequence [NFC, Replace Regex \s+ -> " ", Lowercase]; pre_tokenizer
//                Sequence [Split (CLIP's pattern, Removed, invert), ByteLevel {add_prefix_space false, use_regex
//                false}]; BPE end_of_word_suffix "</w>", continuing_subword_prefix "", unk "<|endoftext|>", the
//                256 byte symbols alone and with "</w>"; decoder ByteLevel; RobertaProcessing with
//                <|startoftext|> / <|endoftext|>; 3000 tokens
//   prefix       byte-level, continuing_subword_prefix "##": normalizer NFKC; pre_tokenizer Sequence [Whitespace,
//                ByteLevel {use_regex false}]; only bytes seen >= 5 times (alone and "##"-prefixed) are symbols,
//                so rarer bytes become unk (fuse_unk false); decoder Sequence [Replace "##" -> "", ByteLevel];
//                2500 tokens
//   char-suffix  BPE over code points (pre_tokenizer null: the text is one word), end_of_word_suffix "</w>",
//                byte_fallback with the 256 "<0xNN>" tokens, unk "<unk>", fuse_unk; normalizer Replace " " -> "▁";
//                code points seen >= 20 times are symbols; decoder BPEDecoder {suffix "</w>"}; 2500 tokens
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const args = { shared: "../shared", npm: path.join(os.homedir(), ".cache/tokvec/npm/node_modules") };
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
const hf = createRequire(path.join(path.resolve(args.npm), "noop.js"))("tokenizers");
const root = path.join(path.dirname(new URL(import.meta.url).pathname), "..");
const outDir = path.join(root, "tests", "data", "affix_bpe");
fs.mkdirSync(outDir, { recursive: true });

const TRAINING = ["botchan.txt", "tinyshakespeare.txt", "wikitext2-valid.txt"];
const texts = TRAINING.map((f) => fs.readFileSync(path.join(args.shared, "corpora", f), "utf8"));

// GPT-2's byte-to-unicode alphabet: byte -> one character.
const BYTE_CHAR = (() => {
  const keep = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const map = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) map[b] = String.fromCodePoint(keep.includes(b) ? b : 256 + extra++);
  return map;
})();
const byteLevel = (s) => [...Buffer.from(s, "utf8")].map((b) => BYTE_CHAR[b]).join("");

const CLIP_PATTERN = "<\\|startoftext\\|>|<\\|endoftext\\|>|'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+";
const VARIANTS = [
  {
    name: "clip", size: 3000, prefix: "", suffix: "</w>", byteLevel: true, minCount: 0,
    specials: ["<|startoftext|>", "<|endoftext|>"], unk: "<|endoftext|>", fuseUnk: false, byteFallback: false,
    normalizer: { type: "Sequence", normalizers: [{ type: "NFC" }, { type: "Replace", pattern: { Regex: "\\s+" }, content: " " }, { type: "Lowercase" }] },
    pre_tokenizer: { type: "Sequence", pretokenizers: [
      { type: "Split", pattern: { Regex: CLIP_PATTERN }, behavior: "Removed", invert: true },
      { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: false }] },
    decoder: { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true },
    post_processor: { type: "RobertaProcessing", sep: ["<|endoftext|>", 0], cls: ["<|startoftext|>", 0], trim_offsets: false, add_prefix_space: false },
  },
  {
    name: "prefix", size: 2500, prefix: "##", suffix: "", byteLevel: true, minCount: 5,
    specials: ["[UNK]"], unk: "[UNK]", fuseUnk: false, byteFallback: false,
    normalizer: { type: "NFKC" },
    pre_tokenizer: { type: "Sequence", pretokenizers: [
      { type: "Whitespace" }, { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: false }] },
    decoder: { type: "Sequence", decoders: [{ type: "Replace", pattern: { String: "##" }, content: "" }, { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true }] },
    post_processor: null,
  },
  {
    name: "char-suffix", size: 2500, prefix: "", suffix: "</w>", byteLevel: false, minCount: 20,
    specials: ["<unk>"], unk: "<unk>", fuseUnk: true, byteFallback: true,
    normalizer: { type: "Replace", pattern: { String: " " }, content: "▁" },
    pre_tokenizer: null,
    decoder: { type: "BPEDecoder", suffix: "</w>" },
    post_processor: null,
  },
];

const bump = (counts, key, by = 1) => counts.set(key, (counts.get(key) ?? 0) + by);
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

// The words of the training texts as `variant` pre-tokenizes them (Hugging Face's own steps).
function countWords(variant) {
  const probe = hf.Tokenizer.fromString(JSON.stringify(tokenizerJson(variant, { a: 0 }, [])));
  const normalizer = probe.getNormalizer();
  const pre = probe.getPreTokenizer();
  const words = new Map();
  for (const text of texts) {
    for (const line of text.split("\n")) {
      const normalized = normalizer ? normalizer.normalizeString(line) : line;
      if (variant.pre_tokenizer === null) {
        // One word per line for the counts (the text is one word at encode time).
        for (const w of normalized.split("▁")) if (w) bump(words, w);
      } else {
        for (const [word] of pre.preTokenizeString(normalized)) bump(words, word);
      }
    }
  }
  return words;
}

function learn(variant) {
  const all = countWords(variant);
  const words = [...all.entries()].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0])).slice(0, 20000);
  const unitCounts = new Map();
  for (const [word, count] of words) for (const u of word) bump(unitCounts, u, count);
  const vocab = {};
  let next = 0;
  const add = (t) => {
    if (!(t in vocab)) vocab[t] = next++;
  };
  let units;
  if (variant.name === "clip") {
    units = BYTE_CHAR.slice();
  } else {
    units = [...unitCounts.keys()].filter((u) => unitCounts.get(u) >= variant.minCount).sort(cmp);
  }
  if (variant.byteFallback) for (let b = 0; b < 256; b++) add(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
  for (const u of units) add(u);
  if (variant.suffix) for (const u of units) add(u + variant.suffix);
  if (variant.prefix) for (const u of units) add(variant.prefix + u);
  const reserve = variant.specials.length;
  // Each word as symbols; units without a token are kept (they merge with nothing).
  const seqs = words.map(([word, count]) => {
    const us = [...word];
    return { count, syms: us.map((u, i) => (i > 0 ? variant.prefix : "") + u + (i === us.length - 1 ? variant.suffix : "")) };
  });
  const pairs = new Map();
  const key = (a, b) => a + "\u0000" + b;
  const addPairs = (s, sign) => {
    for (let i = 0; i + 1 < s.syms.length; i++) {
      if (s.syms[i] in vocab && s.syms[i + 1] in vocab) bump(pairs, key(s.syms[i], s.syms[i + 1]), sign * s.count);
    }
  };
  seqs.forEach((s) => addPairs(s, 1));
  const merges = [];
  while (next + reserve < variant.size) {
    let best = null;
    let bestCount = 0;
    for (const [k, c] of pairs) {
      if (c > bestCount || (c === bestCount && c > 0 && cmp(k, best) < 0)) {
        best = k;
        bestCount = c;
      }
    }
    if (best === null || bestCount < 2) break;
    const [a, b] = best.split("\u0000");
    const made = a + b.slice(variant.prefix.length);
    merges.push([a, b]);
    add(made);
    for (const s of seqs) {
      if (!s.syms.includes(a)) continue;
      let has = false;
      for (let i = 0; i + 1 < s.syms.length; i++) if (s.syms[i] === a && s.syms[i + 1] === b) has = true;
      if (!has) continue;
      addPairs(s, -1);
      const out = [];
      for (let i = 0; i < s.syms.length; i++) {
        if (i + 1 < s.syms.length && s.syms[i] === a && s.syms[i + 1] === b) {
          out.push(made);
          i++;
        } else {
          out.push(s.syms[i]);
        }
      }
      s.syms = out;
      addPairs(s, 1);
    }
    for (const [k, c] of pairs) if (c === 0) pairs.delete(k);
  }
  for (const t of variant.specials) add(t);
  return { vocab, merges };
}

function tokenizerJson(variant, vocab, merges) {
  const post = variant.post_processor
    ? { ...variant.post_processor, sep: [variant.post_processor.sep[0], vocab[variant.post_processor.sep[0]] ?? 0], cls: [variant.post_processor.cls[0], vocab[variant.post_processor.cls[0]] ?? 0] }
    : null;
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: variant.specials.filter((t) => t in vocab).map((t) => ({ id: vocab[t], content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: variant.normalizer,
    pre_tokenizer: variant.pre_tokenizer,
    post_processor: post,
    decoder: variant.decoder,
    model: {
      type: "BPE", dropout: null, unk_token: variant.unk, continuing_subword_prefix: variant.prefix,
      end_of_word_suffix: variant.suffix, fuse_unk: variant.fuseUnk, byte_fallback: variant.byteFallback,
      ignore_merges: false, vocab, merges,
    },
  };
}

const SENTENCES = [
  "A photo of a cat.",
  "Hello,   world!\tIt's a   DOG's life; naïve café — 東京 2024?",
  "unbelievable preprocessing tokenization",
  "Ünïcödé ☃ emoji 🎉🎉 and Ωmega",
  "x",
  "",
  "   leading and trailing   ",
];

const golden = {};
for (const variant of VARIANTS) {
  const started = Date.now();
  const { vocab, merges } = learn(variant);
  const json = tokenizerJson(variant, vocab, merges);
  const file = path.join(outDir, `${variant.name}.json`);
  fs.writeFileSync(file, JSON.stringify(json) + "\n");
  const tokenizer = hf.Tokenizer.fromFile(file);
  golden[variant.name] = [];
  for (const text of SENTENCES) {
    const ids = [...(await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds()];
    const withSpecial = [...(await tokenizer.encode(text, null, { addSpecialTokens: true })).getIds()];
    golden[variant.name].push({ text, ids, with_special: withSpecial, decoded: await tokenizer.decode(ids, false) });
  }
  console.log(`${variant.name}: ${Object.keys(vocab).length} tokens, ${merges.length} merges (${Date.now() - started} ms)`);
}
fs.writeFileSync(path.join(outDir, "golden.json"), JSON.stringify(golden, null, 1) + "\n");

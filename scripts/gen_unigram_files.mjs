// Builds small Unigram tokenizer.json files (T5 / XLM-R shaped) from SentencePiece models trained here, and the
// goldens of the C++ tests: tests/data/unigram/{nmt-always,custom-first,bytes-never,custom-legacy,bytes-llama,
// punct-metaspace,digits-replacement,scripts-metaspace}.json and golden.json.
//
//   node scripts/gen_unigram_files.mjs [--shared ../shared] [--npm ~/.cache/tokvec/npm/node_modules]
//
// Needs Debian's sentencepiece (spm_train, spm_encode, spm_export_vocab). Each model is trained with
// `spm_train --model_type=unigram --num_threads=1` on three corpora (English, Shakespeare, Japanese) with a small
// vocabulary and character_coverage 0.995, so rare kanji and UDHR's scripts are unknown. The pieces and scores
// (float32, exact) and the precompiled charsmap (field normalizer_spec(3).precompiled_charsmap(2)) are read from the
// .model protobuf here; the piece list is checked against spm_export_vocab.
//
// Variants (what differs):
//   nmt-always     rule nmt_nfkc: normalizer Precompiled (SentencePiece's real charsmap); Metaspace prepend "always",
//                  split; T5's ids (<pad> 0, </s> 1, <unk> 2)
//   custom-first   a small rule TSV of our own (fullwidth ASCII, ligatures, e + U+0301 -> é, ...): Precompiled;
//                  Sequence [WhitespaceSplit, Metaspace prepend "first"]; XLM-R's ids (<s> 0, <pad> 1, </s> 2, <unk> 3)
//   bytes-never    byte_fallback (<0x00>..<0xFF> pieces), rule identity: normalizer NFKC (Hugging Face's, not
//                  SentencePiece's); Metaspace prepend "never", split false; unk 0
//   custom-legacy  the custom rules then Lowercase (Sequence [Precompiled, Lowercase]); legacy Metaspace
//                  {add_prefix_space: true} without prepend_scheme; unk_id null is NOT used (Hugging Face fails on an
//                  unknown character then), unk 3
//   bytes-llama    bytes-never's model (not trained again) as newer conversions write it: Metaspace prepend "first",
//                  split false; decoder Sequence [Replace "▁" -> " ", ByteFallback, Fuse, Strip " " 1 0]
//   punct-metaspace nmt-always's model: pre-tokenizer Sequence [Punctuation, Metaspace "always", split]
//   digits-replacement custom-first's model with every "▁" of the pieces spelled "▂": Sequence [Digits {individual},
//                  Metaspace {replacement "▂", prepend "first", split}], decoder Metaspace "▂"
//   scripts-metaspace bytes-never's model: Sequence [BertPreTokenizer, UnicodeScripts, Metaspace "always", split]
// The decoder is Metaspace with the pre-tokenizer's settings (legacy add_prefix_space for custom-legacy), as Hugging
// Face's converters write it, except bytes-llama's.
// Every file is loaded back by Hugging Face (npm). golden.json holds hard sentences with Hugging Face's ids and
// decode(ids, skip_special_tokens=false) of them ("cases"), and "decode_cases": id lists chosen here (control tokens
// between words, lone and doubled "▁", byte tokens that are and are not valid UTF-8) with Hugging Face's decode, also
// with the file's decoder replaced by null ("decoder": null in the case: spellings joined by spaces).
// As a sanity check, Hugging Face's ids are compared with spm_encode's on corpus lines (they may differ: SentencePiece
// also collapses white space, which these files do not ask for); the agreement is printed, not asserted. Only
// nmt-always is set up as SentencePiece runs (dummy prefix on each line, same rules): 500/500 lines agree; the
// others differ by design (prepend "first"/"never", Lowercase after the rules).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const args = { shared: "../shared", npm: path.join(os.homedir(), ".cache/tokvec/npm/node_modules") };
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
const hf = createRequire(path.join(path.resolve(args.npm), "noop.js"))("tokenizers");
const root = path.join(path.dirname(new URL(import.meta.url).pathname), "..");
const outDir = path.join(root, "tests", "data", "unigram");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "tokvec-unigram-"));
fs.mkdirSync(outDir, { recursive: true });
const TRAINING = ["botchan.txt", "tinyshakespeare.txt", "wagahaiwa_nekodearu.txt"].map((f) => path.join(args.shared, "corpora", f));

// Our own normalization rules (SentencePiece's TSV: source code points, tab, target code points, hex).
const rules = [];
for (let c = 0xff01; c <= 0xff5e; c++) rules.push(`${c.toString(16).toUpperCase()}\t${(c - 0xfee0).toString(16).toUpperCase()}`);
rules.push("FB01\t66 69", "FB02\t66 6C", "2460\t31", "2461\t32", "3000\t20", "2026\t2E 2E 2E", "65 301\tE9", "41 30A\tC5",
  "2126\t3A9", "212B\tC5", "FF61\t3002");
const rulesPath = path.join(work, "rules.tsv");
fs.writeFileSync(rulesPath, rules.join("\n") + "\n");

// ---- The .model protobuf (sentencepiece_model.proto): varints and length-delimited fields only.
function readVarint(buf, pos) {
  let value = 0n;
  let shift = 0n;
  for (;;) {
    const b = buf[pos++];
    value |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return [value, pos];
    shift += 7n;
  }
}
function fields(buf) {
  const out = [];
  for (let pos = 0; pos < buf.length;) {
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      let v;
      [v, pos] = readVarint(buf, pos);
      out.push({ field, wire, value: v });
    } else if (wire === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      out.push({ field, wire, bytes: buf.subarray(pos, pos + Number(len)) });
      pos += Number(len);
    } else if (wire === 5) {
      out.push({ field, wire, float: buf.readFloatLE(pos) });
      pos += 4;
    } else if (wire === 1) {
      pos += 8;
    } else {
      throw new Error(`unexpected wire type ${wire}`);
    }
  }
  return out;
}
function readModel(file) {
  const top = fields(fs.readFileSync(file));
  const pieces = top.filter((f) => f.field === 1).map((f) => {
    const p = fields(f.bytes);
    const piece = p.find((x) => x.field === 1).bytes.toString("utf8");
    const score = p.find((x) => x.field === 2)?.float ?? 0;
    const type = Number(p.find((x) => x.field === 3)?.value ?? 1n);  // 1 normal, 2 unknown, 3 control, 6 byte
    return { piece, score, type };
  });
  const normalizerSpec = top.find((f) => f.field === 3);
  const charsmap = normalizerSpec ? fields(normalizerSpec.bytes).find((f) => f.field === 2)?.bytes : undefined;
  return { pieces, charsmap: charsmap && charsmap.length > 0 ? Buffer.from(charsmap) : null };
}

function train(name, extra) {
  const prefix = path.join(work, name);
  execFileSync("spm_train", [`--input=${TRAINING.join(",")}`, `--model_prefix=${prefix}`, "--model_type=unigram",
    "--num_threads=1", "--character_coverage=0.995", "--input_sentence_size=200000", "--shuffle_input_sentence=false",
    ...extra], { stdio: ["ignore", "ignore", "ignore"] });
  const model = readModel(`${prefix}.model`);
  const exported = execFileSync("spm_export_vocab", [`--model=${prefix}.model`], { encoding: "utf8" })
    .split("\n").filter((l) => l !== "").map((l) => l.split("\t")[0]);
  if (exported.length !== model.pieces.length || exported.some((p, i) => p !== model.pieces[i].piece)) {
    throw new Error(`${name}: the protobuf's pieces differ from spm_export_vocab's`);
  }
  return { ...model, prefix };
}

const metaspace = (extra) => ({ type: "Metaspace", replacement: "\u2581", ...extra });
const precompiled = (charsmap) => ({ type: "Precompiled", precompiled_charsmap: charsmap.toString("base64") });
const VARIANTS = [
  {
    name: "nmt-always",
    spm: ["--vocab_size=4000", "--pad_id=0", "--eos_id=1", "--unk_id=2", "--bos_id=-1"],
    normalizer: (m) => precompiled(m.charsmap),
    pre: () => metaspace({ prepend_scheme: "always", split: true }),
    decoder: () => metaspace({ prepend_scheme: "always", split: true }),
    byteFallback: false,
  },
  {
    name: "custom-first",
    spm: ["--vocab_size=3000", "--bos_id=0", "--pad_id=1", "--eos_id=2", "--unk_id=3", `--normalization_rule_tsv=${rulesPath}`],
    normalizer: (m) => precompiled(m.charsmap),
    pre: () => ({ type: "Sequence", pretokenizers: [{ type: "WhitespaceSplit" }, metaspace({ prepend_scheme: "first", split: true })] }),
    decoder: () => metaspace({ prepend_scheme: "first", split: true }),
    byteFallback: false,
  },
  {
    name: "bytes-never",
    spm: ["--vocab_size=3000", "--byte_fallback=true", "--normalization_rule_name=identity"],
    normalizer: () => ({ type: "NFKC" }),
    pre: () => metaspace({ prepend_scheme: "never", split: false }),
    decoder: () => metaspace({ prepend_scheme: "never", split: false }),
    byteFallback: true,
  },
  {
    name: "custom-legacy",
    spm: ["--vocab_size=3000", "--bos_id=0", "--pad_id=1", "--eos_id=2", "--unk_id=3", `--normalization_rule_tsv=${rulesPath}`],
    normalizer: (m) => ({ type: "Sequence", normalizers: [precompiled(m.charsmap), { type: "Lowercase" }] }),
    pre: () => ({ type: "Metaspace", replacement: "\u2581", add_prefix_space: true }),
    decoder: () => ({ type: "Metaspace", replacement: "\u2581", add_prefix_space: true }),
    byteFallback: false,
  },
  {
    name: "bytes-llama",
    sameModelAs: "bytes-never",
    normalizer: () => ({ type: "NFKC" }),
    pre: () => metaspace({ prepend_scheme: "first", split: false }),
    decoder: () => ({ type: "Sequence", decoders: [
      { type: "Replace", pattern: { String: "\u2581" }, content: " " },
      { type: "ByteFallback" },
      { type: "Fuse" },
      { type: "Strip", content: " ", start: 1, stop: 0 },
    ] }),
    byteFallback: true,
  },
  {
    name: "punct-metaspace",
    sameModelAs: "nmt-always",
    normalizer: (m) => precompiled(m.charsmap),
    pre: () => ({ type: "Sequence", pretokenizers: [{ type: "Punctuation", behavior: "Isolated" }, metaspace({ prepend_scheme: "always", split: true })] }),
    decoder: () => metaspace({ prepend_scheme: "always", split: true }),
    byteFallback: false,
  },
  {
    name: "digits-replacement",
    sameModelAs: "custom-first",
    replacement: "\u2582",
    normalizer: (m) => precompiled(m.charsmap),
    pre: () => ({ type: "Sequence", pretokenizers: [{ type: "Digits", individual_digits: true },
      { type: "Metaspace", replacement: "\u2582", prepend_scheme: "first", split: true }] }),
    decoder: () => ({ type: "Metaspace", replacement: "\u2582", prepend_scheme: "first", split: true }),
    byteFallback: false,
  },
  {
    name: "scripts-metaspace",
    sameModelAs: "bytes-never",
    normalizer: () => ({ type: "NFKC" }),
    pre: () => ({ type: "Sequence", pretokenizers: [{ type: "BertPreTokenizer" }, { type: "UnicodeScripts" },
      metaspace({ prepend_scheme: "always", split: true })] }),
    decoder: () => metaspace({ prepend_scheme: "always", split: true }),
    byteFallback: true,
  },
];

const trained = {};
function build(variant) {
  const model = trained[variant.sameModelAs] ?? train(variant.name, variant.spm);
  trained[variant.name] = model;
  const unkId = model.pieces.findIndex((p) => p.type === 2);
  // Pieces spelled with the variant's Metaspace replacement instead of "▁" (none may hold it already).
  const respell = (piece) => (variant.replacement ? piece.replaceAll("\u2581", variant.replacement) : piece);
  if (variant.replacement && model.pieces.some((p) => p.piece.includes(variant.replacement))) {
    throw new Error(`${variant.name}: a piece already holds ${variant.replacement}`);
  }
  const added = [];
  model.pieces.forEach((p, id) => {
    if (p.type === 2 || p.type === 3) {
      added.push({ id, content: p.piece, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
    }
  });
  const json = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: variant.normalizer(model),
    pre_tokenizer: variant.pre(),
    post_processor: null,
    decoder: variant.decoder(),
    model: { type: "Unigram", unk_id: unkId, vocab: model.pieces.map((p) => [respell(p.piece), p.score]), byte_fallback: variant.byteFallback },
  };
  const file = path.join(outDir, `${variant.name}.json`);
  fs.writeFileSync(file, JSON.stringify(json) + "\n");
  return { file, model };
}

const SENTENCES = [
  "Hello, World! It's a test.",
  "  leading spaces, two  inside,   three and trailing  ",
  "吾輩は猫である。名前はまだ無い。",
  "Ｈｅｌｌｏ　ｆｕｌｌｗｉｄｔｈ ﬁne ﬂow ①② … Å Ω",
  "e\u0301te\u0301 cafe\u0301 A\u030a Ａ\u0301",
  "Ελληνικά Русский العربية हिन्दी ไทย 한국어 😀😀🎉",
  "unknown runs: ☃☃☃ ⚙⚙ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
  "tabs\tand\nnewlines\r\n\u00a0nbsp\u200bzero",
  "<unk> <s> </s> <pad> <0x41> are text here",
  "$100.50 (approx.) 3.14159 — 'quoted' \"double\" ¿qué? ¡sí!",
  " ",
  "",
];

// Id lists whose decode is hard; each piece must be in the vocabulary.
async function decodeIdLists(file, tokenizer, space) {
  const json = JSON.parse(fs.readFileSync(file, "utf8"));
  const ids = async (text) => (await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds();
  const piece = (p) => {
    const id = tokenizer.tokenToId(p);
    if (id === undefined || id === null) throw new Error(`${file}: no piece ${p}`);
    return id;
  };
  const controls = json.added_tokens.map((t) => t.id);
  const lists = [
    [],
    [controls[0], ...(await ids("Hello world")), ...controls.slice(1), ...(await ids(" again, twice"))],
    [piece(space)],
    [piece(space), piece(space), ...(await ids("x y")), piece(space)],
  ];
  if (json.model.byte_fallback) {
    const bytes = (...hex) => hex.map((h) => piece(`<0x${h}>`));
    lists.push([...bytes("20", "E2", "98"), ...(await ids("a")), ...bytes("FF", "E2", "98", "83", "41"), piece(space)]);
    lists.push([...bytes("E2", "98", "83"), controls[0], ...bytes("C3")]);
  }
  return lists;
}

async function addDecodeCases(variant, file, tokenizer) {
  const lists = await decodeIdLists(file, tokenizer, variant.replacement ?? "\u2581");
  for (const ids of lists) {
    golden.decode_cases.push({ file: `${variant.name}.json`, ids, decoded: await tokenizer.decode(ids, false) });
  }
  // The same ids without a decoder (nmt-always and bytes-llama only).
  if (variant.name !== "nmt-always" && variant.name !== "bytes-llama") return;
  const json = JSON.parse(fs.readFileSync(file, "utf8"));
  json.decoder = null;
  const bare = path.join(work, `${variant.name}-no-decoder.json`);
  fs.writeFileSync(bare, JSON.stringify(json));
  const plain = hf.Tokenizer.fromFile(bare);
  for (const ids of lists) {
    golden.decode_cases.push({ file: `${variant.name}.json`, decoder: null, ids, decoded: await plain.decode(ids, false) });
  }
}

const golden = { generator: "tokenizers@0.23.2 (npm) encode(text, {addSpecialTokens: false}), decode(ids, false)", cases: [], decode_cases: [] };
for (const variant of VARIANTS) {
  const { file, model } = build(variant);
  const size = fs.statSync(file).size;
  if (size > 450 * 1024) throw new Error(`${file} is ${size} bytes (over 450 KB)`);
  const tokenizer = hf.Tokenizer.fromFile(file);
  for (const text of SENTENCES) {
    const encoding = await tokenizer.encode(text, null, { addSpecialTokens: false });
    golden.cases.push({ file: `${variant.name}.json`, text, ids: encoding.getIds(), tokens: encoding.getTokens(),
      decoded: await tokenizer.decode(encoding.getIds(), false) });
  }
  await addDecodeCases(variant, file, tokenizer);
  // Sanity: SentencePiece's own ids on the single-spaced lines of botchan.txt.
  const lines = fs.readFileSync(TRAINING[0], "utf8").split(/\r?\n/).filter((l) => l.trim() !== "" && !/\s\s|^\s|\s$/.test(l)).slice(0, 500);
  const spm = execFileSync("spm_encode", [`--model=${model.prefix}.model`, "--output_format=id"], { input: lines.join("\n") + "\n", encoding: "utf8" })
    .split("\n").slice(0, lines.length);
  let same = 0;
  for (let i = 0; i < lines.length; i++) {
    const ours = (await tokenizer.encode(lines[i], null, { addSpecialTokens: false })).getIds().join(" ");
    if (ours === spm[i].trim()) same += 1;
  }
  console.log(`wrote ${file} (${size} bytes, ${model.pieces.length} pieces); Hugging Face = spm_encode on ${same}/${lines.length} botchan lines`);
}
fs.writeFileSync(path.join(outDir, "golden.json"), JSON.stringify(golden, null, 1) + "\n");
console.log(`wrote ${path.join(outDir, "golden.json")} (${golden.cases.length} cases)`);
fs.rmSync(work, { recursive: true, force: true });

// Conformance of tokvec's byte-level BPE with its peers: tiktoken 1.0.22 and Hugging Face tokenizers 0.23.2
// (npm). Run by scripts/conformance.sh, which installs the peers and builds the arguments:
//
//   node scripts/conformance_peer.mjs --tokvec build/tokvec --shared ../shared --vocab ../shared/vocab \
//        --npm ~/.cache/tokvec/npm/node_modules --work /tmp/tokvec-conformance
//
// Suites (each prints cases, ids compared, differing cases and differing ids; any difference exits 1):
//   tiktoken/<enc>/whole    every file of <shared>/corpora, encoded whole (`tokvec encode FILE`)
//   tiktoken/<enc>/lines    every line of every corpus file (`tokvec encode --lines`), lines cut as tokvec cuts
//                           them: at "\n", a "\r" right before the "\n" belongs to the line end, and a last line
//                           without "\n" counts
//   tiktoken/<enc>/random   seeded random strings of hard pieces (single-line ones via --lines, multi-line whole)
//   llamacpp/<model>        llama.cpp's GPT-2 cases (.inp/.out) for tiktoken, tokvec (gpt2.tiktoken and
//                           gpt2/vocab.json) and Hugging Face (vocab.json + merges.txt)
//   hf/vocab.json           Hugging Face on gpt2/vocab.json + merges.txt against tiktoken's gpt2
//   hf/convert/<enc>        Hugging Face on `tokvec convert`'s tokenizer.json against tiktoken
//   hf/trained/<pattern>    a byte model trained by `tokvec train --type byte`, exported to tokenizer.json:
//                           Hugging Face against tokvec on every corpus file
//   hf/trained-spbpe/<vocab> `tokvec train --type spbpe` (SentencePiece-style BPE, byte fallback) at 4,000 ids
//                           (coverage 0.9995) and 8,000 (0.98, --split-digits): Hugging Face against tokvec on every corpus file and
//                           the random lines
//   hf/trained-wordpiece/<criterion> `tokvec train --type wordpiece` by likelihood (8,000 ids, uncased) and by count
//                           (8,000, --cased --limit-alphabet 400): Hugging Face against tokvec on every corpus file
//                           and the random lines
//   hf/trained-unigram/8000 `tokvec train --type unigram` at 8,000 ids with --byte-fallback --split-digits
//                           --character-coverage 0.98 and two --user-defined symbols: Hugging Face against tokvec on
//                           every corpus file and the random lines
//   wordpiece/<file>/whole  the WordPiece tokenizer.json files of tests/data/wordpiece (BERT-style, made by
//   wordpiece/<file>/lines  scripts/gen_wordpiece_files.mjs): Hugging Face against tokvec on every line of every
//   wordpiece/<file>/decode corpus file, on whole texts (each large corpus file, and UDHR's files joined into
//                           one text; uncased and cased only, as Hugging Face is slow on them; botchan.txt for the
//                           *-sequence files), and `tokvec decode` of the whole-text ids against Hugging Face's
//                           decode (text; "ids" counts characters)
//   wordpiece/<file>/add-special  --add-special-tokens (BertProcessing) on every 25th corpus line
//   pretok/<file>/whole     the byte-level tokenizer.json files of tests/data/pretok (one per Hugging Face
//   pretok/<file>/lines     pre-tokenizer shape: Falcon, SmolLM, CLIP's Split, Split behaviours, Digits,
//   pretok/<file>/decode    Punctuation, Whitespace, UnicodeScripts, ...; made by scripts/gen_pretok_files.mjs):
//                           Hugging Face against tokvec on whole texts (botchan.txt, and every code point of
//                           planes 0-1 between letters; encoded with --threads 2), on every 8th line of the corpus
//                           files, and `tokvec decode` of the whole-text ids
//   spm_bpe/<file>/whole    the SentencePiece-style BPE tokenizer.json files of tests/data/spm_bpe (Llama-2's
//   spm_bpe/<file>/lines    and Mistral's shapes and other pre-tokenizers, made by scripts/gen_spm_bpe_files.mjs):
//   spm_bpe/<file>/decode   as wordpiece/*, on every line and on whole texts (llama, and the files whose
//   spm_bpe/<file>/offsets  pre-tokenizer cuts words; elsewhere a whole text is one slow BPE piece for Hugging
//                           Face); offsets on 2000 ASCII lines for the files with a pre-tokenizer
//   unigram/<file>/whole    the Unigram tokenizer.json files of tests/data/unigram (T5 / XLM-R shaped, made by
//   unigram/<file>/lines    scripts/gen_unigram_files.mjs from spm_train models): Hugging Face against tokvec on
//   unigram/<file>/decode   every line of every corpus file and on whole texts (botchan, Japanese, UDHR joined),
//                           and `tokvec decode` of the whole-text ids against Hugging Face's decode (the file's
//                           decoder: Metaspace, or Replace/ByteFallback/Fuse/Strip)
//   added/<file>/...        tokenizer.json files with added tokens and post-processors (tests/data/added, made by
//                           scripts/gen_added_files.mjs): two whole texts, every 4th line, random lines of added tokens (allowed,
//                           not allowed, offsets), and --add-special-tokens against add_special_tokens=True
//   affix_bpe/<file>/whole  BPE tokenizer.json files with end_of_word_suffix / continuing_subword_prefix
//   affix_bpe/<file>/lines  (tests/data/affix_bpe: CLIP's shape, "##", code points with "</w>"; made by
//   affix_bpe/<file>/decode scripts/gen_affix_bpe_files.mjs): whole texts, every 4th corpus line, decode
//   affix_bpe/<file>/add-special  files with a post_processor (clip: RobertaProcessing, trim_offsets false):
//                           --add-special-tokens on every 16th corpus line
//   offsets/<kind>/<file>    byte offsets (`encode --format json`) of a tokenizer.json of each kind (byte-level,
//   offsets/<kind>/<file>/ids WordPiece, spm_bpe, Unigram, added tokens; normalizers NFKC, NFD, Lowercase,
//                           BertNormalizer, StripAccents, Precompiled, Replace, Prepend, Strip) against Hugging Face's
//                           (characters, made bytes) on non-ASCII lines: Japanese, 40 UDHR languages, Wikipedia
//   pairs/<kind>/<file>      sentence pairs (`encode --pairs --format json`) against Hugging Face's encode(a, b): ids
//   pairs/<kind>/<file>/types and type ids, with --add-special-tokens (the post-processor's pair template) and
//   pairs/<kind>/<file>/plain without (ids and type ids); pairs are 2,000 consecutive corpus lines (a, b) with
//                           neither holding a tab, on files of each post-processor kind (TemplateProcessing,
//                           RobertaProcessing, BertProcessing, ByteLevel, none)
//   skip-special/<file>      `decode --skip-special` against decode(ids, skip_special_tokens=true) on every
//                           tokenizer.json of tests/data with special tokens: the --add-special-tokens ids of corpus
//                           lines, each after one of the file's added tokens (special or not), decoded in 10 parts
//   legacy/<file>/whole     tokenizer.json shapes Hugging Face reads but no longer writes (tests/data/legacy, made
//   legacy/<file>/lines     by scripts/gen_legacy_files.mjs: models, post-processors, normalizers and decoders
//   legacy/<file>/add-special without "type", a post-processor's fields deciding its kind over its "type", old
//   legacy/<file>/pairs     Metaspace / ByteLevel / BPE fields, absent sections, Strip before Metaspace): botchan
//   legacy/<file>/decode    whole, white-space-only lines and every 8th corpus line; with a post_processor also
//                           --add-special-tokens on those lines and 1,000 pairs of them (ids and type ids); with a
//                           decoder, decode of the whole-text ids
//   lengths/<file>/whole    tokenizer.json files with "truncation" and "padding" sections (tests/data/lengths, from
//   lengths/<file>/lines    scripts/gen_lengths_files.mjs), which Hugging Face applies on every encode and so does
//   lengths/<file>/special  `tokvec encode` by default: botchan whole (cut), every 8th corpus line, with and without
//   lengths/<file>/off      --add-special-tokens (the post-processor's tokens budgeted); off: --no-truncation
//   lengths/<file>/pairs    --no-padding against the same file with both sections null; pairs: consecutive lines
//                           as --pairs --add-special-tokens, those Hugging Face encodes (OnlyFirst / OnlySecond refuse
//                           a text too short to cut; tests/tokenizer/sequence_encoding_test.cc has those errors), on
//                           the files with stride 0 (with a stride, some pairs abort Hugging Face's process: a
//                           window no longer than the stride panics; the goldens cover strided pairs). A file that
//                           truncates OnlySecond has no single-text suites (Hugging Face refuses them)
//   written/<file>           `tokvec convert --to json` of every tokenizer.json of tests/data loaded in Hugging Face:
//                           its ids (special tokens added, the file's truncation and padding) equal the original's
//                           on every 64th corpus line; BPE with word affixes must be refused by name
//   extended/<name>          `tokvec extend --add-tokens` of gpt2.tiktoken and tokenizer.json files of each kind,
//                           with tokens of every flag, loaded in Hugging Face: its ids on every 32nd line and lines
//                           using the new tokens
//   extended-merges/<name>   `tokvec extend --more-merges 2000` on Japanese text of gpt2.tiktoken, cl100k_base.tiktoken
//                           and a byte-level tokenizer.json, loaded in Hugging Face: its ids on every 32nd corpus line
//                           and every 4th Japanese line
//   py-tokenizers/<file>/<run>  not here: the Python drop-in tokvec.tokenizers against encodeBatch on every
//                           tokenizer.json of tests/data (runs own, off, trunc16, fixed40), which scripts/conformance.sh
//                           runs after this script on request (--only py-tokenizers; opt-in while differences are open) (scripts/py_tokenizers_conformance.py, scripts/py_tokenizers_peer.mjs)
// --only PREFIX runs only the suites whose name starts with PREFIX (e.g. --only wordpiece); --shard I/N only the Ith
// of N parts of them (the others run in other processes).
// Text special tokens spell (<|endoftext|>) is ordinary text on both sides (tiktoken's encode_ordinary).
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

// ---- Arguments and peers.
const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
for (const key of ["tokvec", "shared", "vocab", "npm", "work"]) {
  if (!args[key]) {
    console.error(`usage: conformance_peer.mjs --tokvec BIN --shared DIR --vocab DIR --npm NODE_MODULES --work DIR`);
    process.exit(2);
  }
}
const require = createRequire(path.join(path.resolve(args.npm), "noop.js"));
const { get_encoding } = require("tiktoken");
const hf = require("tokenizers");
fs.mkdirSync(args.work, { recursive: true });
const ENCODINGS = ["gpt2", "cl100k_base", "o200k_base"];
// --shard I/N (scripts/conformance.sh runs N processes at once): this process runs the suites whose name hashes to
// I. A group name that gates per-file suites (wordpiece, unigram, ...) passes in every shard; its files are split.
const GROUPS = new Set(["wordpiece", "pretok", "spm_bpe", "unigram", "added", "affix_bpe", "skip-special", "legacy",
                        "lengths", "written"]);
const [shardIndex, shardCount] = (args.shard ?? "0/1").split("/").map(Number);
const inShard = (suite) => {
  if (shardCount <= 1 || GROUPS.has(suite)) return true;
  let hash = 0;
  for (const c of suite) hash = (hash * 31 + c.codePointAt(0)) >>> 0;
  return hash % shardCount === shardIndex;
};
const wanted = (suite) => !args.only || suite.startsWith(args.only) || args.only.startsWith(suite);
const want = (suite) => wanted(suite) && inShard(suite);
// The ith file of a group's sorted files, dealt out in turn rather than by hash: for groups of few, costly files
// (spm_bpe: 9 files at 20-50 s each, which hashing put 7 to 2).
const wantFile = (suite, i) => wanted(suite) && (shardCount <= 1 || i % shardCount === shardIndex);
const decoder = new TextDecoder("utf-8");

// ---- Running tokvec (two at a time: the machine has two cores).
function runTokvec(argv, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(args.tokvec, argv, { stdio: ["pipe", "pipe", "pipe"] });
    const out = [];
    const err = [];
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => err.push(d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`tokvec ${argv.join(" ")} exited ${code}: ${Buffer.concat(err).toString()}`));
      else resolve(Buffer.concat(out).toString());
    });
    child.stdin.on("error", () => {});
    child.stdin.end(input ?? "");
  });
}
async function pool(items, worker, concurrency = 2) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await worker(items[i], i);
      }
    }),
  );
  return results;
}
const parseIds = (line) => (line.trim() === "" ? [] : line.trim().split(/\s+/).map(Number));
const outputLines = (stdout) => {
  const lines = stdout.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
};
// tokvec's --lines cut (see the header).
function splitLines(text) {
  if (text === "") return [];
  const lines = text.split("\n");
  const endsWithNewline = lines[lines.length - 1] === "";
  if (endsWithNewline) lines.pop();
  return lines.map((line, i) => ((i < lines.length - 1 || endsWithNewline) && line.endsWith("\r") ? line.slice(0, -1) : line));
}

// ---- Comparing and reporting.
const suites = new Map();
let failed = false;
function compare(suite, label, expected, actual, spell) {
  let s = suites.get(suite);
  if (!s) suites.set(suite, (s = { cases: 0, ids: 0, diffCases: 0, diffIds: 0, shown: 0 }));
  s.cases += 1;
  s.ids += expected.length;
  let first = -1;
  let differing = Math.abs(expected.length - actual.length);
  for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
    if (expected[i] !== actual[i]) {
      differing += 1;
      if (first < 0) first = i;
    }
  }
  if (first < 0 && expected.length !== actual.length) first = Math.min(expected.length, actual.length);
  if (first < 0) return;
  failed = true;
  s.diffCases += 1;
  s.diffIds += differing;
  if (s.shown++ >= 3) return;
  const around = (ids) =>
    ids
      .slice(Math.max(0, first - 3), first + 6)
      .map((id, k) => `${k + Math.max(0, first - 3) === first ? ">" : ""}${id}${JSON.stringify(spell(id))}`)
      .join(" ");
  console.log(`MISMATCH ${suite} ${label}: first difference at index ${first} (expected ${expected.length} ids, got ${actual.length})`);
  console.log(`  expected: ${around(expected)}`);
  console.log(`  actual:   ${around(actual)}`);
}
const tiktokenSpell = (encoding) => (id) => {
  try {
    return decoder.decode(encoding.decode_single_token_bytes(id));
  } catch {
    return "?";
  }
};
const hfSpell = (tokenizer) => (id) => tokenizer.idToToken(id) ?? "?";

// ---- Inputs.
function listFiles(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? listFiles(path.join(dir, entry.name)) : entry.isFile() ? [path.join(dir, entry.name)] : [],
    )
    .sort();
}
const corpusFiles = listFiles(path.join(args.shared, "corpora"));
const corpusTexts = corpusFiles.map((file) => fs.readFileSync(file, "utf8"));
// All corpus lines in one stream for --lines (a file without a final newline gets one).
const linesStream = corpusTexts.map((text) => (text.endsWith("\n") || text === "" ? text : text + "\n")).join("");
const linesPath = path.join(args.work, "corpus-lines.txt");
fs.writeFileSync(linesPath, linesStream);
const corpusLines = splitLines(linesStream);

// Seeded random strings from hard pieces (mulberry32).
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const HARD_PIECES = [
  "👨‍👩‍👧‍👦", "👍🏽", "🏳️‍🌈", "🧑🏿‍💻", "❤️", "😀", "e\u0301", "a\u0308\u0304", "\u0915\u094d\u0937", "ñ",
  "中文", "漢字テスト", "한국어", "吾輩は猫", "مرحبا", "العالم", "שלום", "עולם", "ภาษาไทย", "ไม่มี",
  "0123", "٠١٢٣٤", "۴۵۶", "०१२३", "๐๑๒", "০১২", "１２３", "²³", "Ⅻ", "9999999",
  " ", "  ", "    ", "\t", "\t\t", "\r\n", "\n", "\n\n", "\r", "\u00a0", "\u3000", "\u2028", "\u0085", "\u000b",
  "'s", "'S", "'LL", "'ll", "'ve", "'RE", "'d", "'M", "'t", "'ſ", "K",
  "hello", "World", "HTTPServer", "camelCase", "don't", "I'M", "x", "foo_bar", "a.b", "//", "/", "...", "!!!",
  "<|endoftext|>", "<|fim_prefix|>", "{}", "()", "[]", "#", "@-@", "$", "%", "&amp;", "\\", "\"", "'",
  "Ελληνικά", "Русский", "ǅ", "ǈ", "ß", "İ", "ﬁ", "Ω", "𝕳𝖊𝖑𝖑𝖔", "\u200d", "\u200b", "\ufeff",
];
function randomString(random, maxPieces, allowNewline) {
  const count = 1 + Math.floor(random() * maxPieces);
  let text = "";
  for (let i = 0; i < count; i++) {
    const piece = HARD_PIECES[Math.floor(random() * HARD_PIECES.length)];
    if (!allowNewline && (piece.includes("\n") || piece.includes("\r"))) continue;
    text += piece;
  }
  return text;
}
const random = rng(20240601);
const randomLines = Array.from({ length: 3000 }, () => randomString(random, 24, false)).filter((s) => s !== "");
const randomMultiline = Array.from({ length: 24 }, () => randomString(random, 60, true));
const randomLinesPath = path.join(args.work, "random-lines.txt");
fs.writeFileSync(randomLinesPath, randomLines.join("\n") + "\n");

// llama.cpp cases.
const llamaInput = fs.readFileSync(path.join(args.shared, "conformance", "llamacpp-gpt2.inp"), "utf8");
const llamaCases = llamaInput.split("\n__ggml_vocab_test__\n");
llamaCases.pop();  // After the last separator.
const llamaExpected = fs.readFileSync(path.join(args.shared, "conformance", "llamacpp-gpt2.out"), "utf8").split("\n").map(parseIds);

// ---- Suites.
const started = Date.now();
const log = (message) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
const vocabPath = (name) => path.join(args.vocab, name);

for (const name of ENCODINGS) {
  const model = vocabPath(`${name}.tiktoken`);
  if (!want(`tiktoken/${name}`) && !(name === "gpt2" && want("llamacpp"))) continue;
  if (!fs.existsSync(model)) {
    console.log(`SKIP tiktoken/${name}: ${model} not found`);
    continue;
  }
  const encoding = get_encoding(name);
  const spell = tiktokenSpell(encoding);
  const peer = (text) => Array.from(encoding.encode_ordinary(text));
  // gpt2 comes here for llama.cpp's cases too: its own suites only in the shard they hash to (they ran in both).
  if (want(`tiktoken/${name}`)) {
    log(`tiktoken/${name}: whole files`);
    const wholes = await pool(corpusFiles, (file) => runTokvec(["encode", "-m", model, file]));
    corpusFiles.forEach((file, i) => compare(`tiktoken/${name}/whole`, file, peer(corpusTexts[i]), parseIds(wholes[i]), spell));
    log(`tiktoken/${name}: lines`);
    const lineOut = outputLines(await runTokvec(["encode", "-m", model, "--lines", "--threads", "2", linesPath]));
    if (lineOut.length !== corpusLines.length) {
      failed = true;
      console.log(`MISMATCH tiktoken/${name}/lines: ${corpusLines.length} lines in, ${lineOut.length} lines out`);
    }
    corpusLines.forEach((line, i) => compare(`tiktoken/${name}/lines`, `line ${i + 1}`, peer(line), parseIds(lineOut[i] ?? ""), spell));
    log(`tiktoken/${name}: random strings`);
    const randomOut = outputLines(await runTokvec(["encode", "-m", model, "--lines", randomLinesPath]));
    randomLines.forEach((text, i) => compare(`tiktoken/${name}/random`, JSON.stringify(text), peer(text), parseIds(randomOut[i] ?? ""), spell));
    const multi = await pool(randomMultiline, (text) => runTokvec(["encode", "-m", model], text));
    randomMultiline.forEach((text, i) => compare(`tiktoken/${name}/random`, JSON.stringify(text), peer(text), parseIds(multi[i]), spell));
  }
  if (name === "gpt2" && want("llamacpp")) {
    log("llamacpp: tiktoken and tokvec");
    llamaCases.forEach((text, i) => compare("llamacpp/tiktoken-gpt2", `case ${i + 1}`, llamaExpected[i], peer(text), spell));
    const gpt2Models = [["llamacpp/tokvec-gpt2.tiktoken", model], ["llamacpp/tokvec-vocab.json", vocabPath("gpt2/vocab.json")]];
    for (const [suite, file] of gpt2Models) {
      if (!fs.existsSync(file)) continue;
      const outs = await pool(llamaCases, (text) => runTokvec(["encode", "-m", file], text));
      llamaCases.forEach((text, i) => compare(suite, `case ${i + 1}`, llamaExpected[i], parseIds(outs[i]), spell));
    }
  }
  encoding.free();
}

// Hugging Face: ids of a tokenizer on texts (no special tokens added, as tiktoken's encode_ordinary).
async function hfIds(tokenizer, texts) {
  const out = [];
  for (let i = 0; i < texts.length; i += 256) {
    const batch = await tokenizer.encodeBatch(texts.slice(i, i + 256), { addSpecialTokens: false });
    for (const encoding of batch) out.push(encoding.getIds());
  }
  return out;
}
// allSpecial: the tokenizer has added tokens, which Hugging Face always matches: compare with tiktoken's
// encode(text, "all"), where special-token text becomes the special id.
async function compareHfWithTiktoken(suite, tokenizer, name, allSpecial) {
  const encoding = get_encoding(name);
  const peer = (text) => Array.from(allSpecial ? encoding.encode(text, "all") : encoding.encode_ordinary(text));
  const spell = hfSpell(tokenizer);
  const texts = [...corpusTexts, ...randomLines, ...randomMultiline, ...llamaCases];
  const labels = [...corpusFiles, ...randomLines.map((t) => JSON.stringify(t)), ...randomMultiline.map((t) => JSON.stringify(t)), ...llamaCases.map((_, i) => `llama.cpp case ${i + 1}`)];
  const ids = await hfIds(tokenizer, texts);
  texts.forEach((text, i) => compare(suite, labels[i], peer(text), ids[i], spell));
  encoding.free();
}

if (want("hf/vocab.json") && fs.existsSync(vocabPath("gpt2/vocab.json"))) {
  log("hf/vocab.json: Hugging Face on vocab.json + merges.txt");
  const model = await hf.BPE.fromFile(vocabPath("gpt2/vocab.json"), vocabPath("gpt2/merges.txt"));
  const tokenizer = new hf.Tokenizer(model);
  tokenizer.setPreTokenizer(hf.byteLevelPreTokenizer(false, true));
  await compareHfWithTiktoken("hf/vocab.json", tokenizer, "gpt2", false);
  const llamaIds = await hfIds(tokenizer, llamaCases);
  llamaCases.forEach((_, i) => compare("llamacpp/hf-vocab.json", `case ${i + 1}`, llamaExpected[i], llamaIds[i], hfSpell(tokenizer)));
}

for (const name of ENCODINGS) {
  const model = vocabPath(`${name}.tiktoken`);
  if (!want("hf/convert") || !fs.existsSync(model)) continue;
  log(`hf/convert/${name}: tokvec convert, then Hugging Face`);
  const stem = path.join(args.work, `converted-${name}`);
  await runTokvec(["convert", "-m", model, "-o", stem, "--to", "json"]);
  await compareHfWithTiktoken(`hf/convert/${name}`, hf.Tokenizer.fromFile(`${stem}.json`), name, true);
}

// A byte-level model trained by tokvec, exported: Hugging Face must give tokvec's ids. Its special token is
// an added token that Hugging Face always matches, so tokvec encodes with --allow-special.
for (const pattern of want("hf/trained") ? ["gpt2", "cl100k"] : []) {
  log(`hf/trained/${pattern}: tokvec train --type byte, convert, Hugging Face`);
  const stem = path.join(args.work, `trained-${pattern}`);
  const training = ["botchan.txt", "tinyshakespeare.txt", "wagahaiwa_nekodearu.txt"].map((f) => path.join(args.shared, "corpora", f));
  await runTokvec(["train", "--type", "byte", "--pattern", pattern, "--vocab-size", "4000", "--special", "<|endoftext|>", "-o", `${stem}.tokvec`, ...training]);
  await runTokvec(["convert", "-m", `${stem}.tokvec`, "-o", stem, "--to", "json"]);
  const tokenizer = hf.Tokenizer.fromFile(`${stem}.json`);
  const spell = hfSpell(tokenizer);
  const ours = await pool(corpusFiles, (file) => runTokvec(["encode", "-m", `${stem}.tokvec`, "--allow-special", file]));
  const theirs = await hfIds(tokenizer, corpusTexts);
  corpusFiles.forEach((file, i) => compare(`hf/trained/${pattern}`, file, theirs[i], parseIds(ours[i]), spell));
  const ourLines = outputLines(await runTokvec(["encode", "-m", `${stem}.tokvec`, "--allow-special", "--lines", randomLinesPath]));
  const theirLines = await hfIds(tokenizer, randomLines);
  randomLines.forEach((text, i) => compare(`hf/trained/${pattern}`, JSON.stringify(text), theirLines[i], parseIds(ourLines[i] ?? ""), spell));
}

// A tokenizer.json tokvec trained: Hugging Face against tokvec on every corpus file and the random lines (and, with
// `addSpecialStep`, with the post-processor's special tokens on every that-many-th corpus line).
async function compareTrainedJson(suite, out, addSpecialStep = 0) {
  const tokenizer = hf.Tokenizer.fromFile(out);
  const spell = hfSpell(tokenizer);
  const ours = await pool(corpusFiles, (file) => runTokvec(["encode", "-m", out, "--allow-special", file]));
  const theirs = await hfIds(tokenizer, corpusTexts);
  corpusFiles.forEach((file, i) => compare(suite, file, theirs[i], parseIds(ours[i]), spell));
  const ourLines = outputLines(await runTokvec(["encode", "-m", out, "--allow-special", "--lines", randomLinesPath]));
  const theirLines = await hfIds(tokenizer, randomLines);
  randomLines.forEach((text, i) => compare(suite, JSON.stringify(text), theirLines[i], parseIds(ourLines[i] ?? ""), spell));
  if (addSpecialStep > 0) await compareAddSpecialOnSampledLines(suite, out, tokenizer, spell, addSpecialStep);
}

// SentencePiece-style BPE trained by tokvec (`train --type spbpe`, tokenizer.json written directly): Hugging Face
// must give tokvec's ids on every corpus file and the random lines (byte fallback for the characters left out).
for (const [vocab, coverage, extra] of want("hf/trained-spbpe") ? [["4000", "0.9995", []], ["8000", "0.98", ["--split-digits"]]] : []) {
  const suite = `hf/trained-spbpe/${vocab}`;
  log(`${suite}: tokvec train --type spbpe --character-coverage ${coverage} ${extra.join(" ")}, Hugging Face`);
  const out = path.join(args.work, `trained-spbpe-${vocab}.json`);
  const training = ["botchan.txt", "tinyshakespeare.txt", "wagahaiwa_nekodearu.txt"].map((f) => path.join(args.shared, "corpora", f));
  await runTokvec(["train", "--type", "spbpe", "--vocab-size", vocab, "--character-coverage", coverage, ...extra, "-o", out, ...training]);
  await compareTrainedJson(suite, out);
}

// WordPiece vocabularies trained by tokvec (`train --type wordpiece`, tokenizer.json written directly), by the
// likelihood criterion and by count (Hugging Face's own trainer's rule): Hugging Face must give tokvec's ids on
// every corpus file and the random lines ([UNK] for words with characters outside the alphabet).
for (const [criterion, vocab, extra] of [["likelihood", "8000", []], ["bpe", "8000", ["--cased", "--limit-alphabet", "400"]]]) {
  const suite = `hf/trained-wordpiece/${criterion}`;
  if (!want(suite)) continue;
  log(`${suite}: tokvec train --type wordpiece --criterion ${criterion} --vocab-size ${vocab} ${extra.join(" ")}, Hugging Face`);
  const out = path.join(args.work, `trained-wordpiece-${criterion}.json`);
  const training = ["botchan.txt", "tinyshakespeare.txt", "wagahaiwa_nekodearu.txt"].map((f) => path.join(args.shared, "corpora", f));
  await runTokvec(["train", "--type", "wordpiece", "--criterion", criterion, "--vocab-size", vocab, ...extra, "-o", out, ...training]);
  await compareTrainedJson(suite, out, 25);  // [CLS] ... [SEP] from the template
}

// Unigram vocabularies trained by tokvec (`train --type unigram`, SentencePiece's EM, tokenizer.json written
// directly): Hugging Face must give tokvec's ids on every corpus file and the random lines (NFKC and white space
// in the normalizer, <unk> or byte fallback for the characters left out).
// One configuration keeps CI short: byte fallback and digit splitting on (the <unk> path of Unigram files is
// checked on SentencePiece's own files, unigram/*).
// User-defined symbols (non-special added tokens) that the corpora hold: "@-@" in wikitext, "。" in Japanese.
for (const [name, vocab, extra] of [["8000", "8000", ["--byte-fallback", "--split-digits", "--character-coverage", "0.98",
                                                      "--user-defined", "@-@", "--user-defined", "。"]]]) {
  const suite = `hf/trained-unigram/${name}`;
  if (!want(suite)) continue;
  log(`${suite}: tokvec train --type unigram --vocab-size ${vocab} ${extra.join(" ")}, Hugging Face`);
  const out = path.join(args.work, `trained-unigram-${name}.json`);
  const training = ["botchan.txt", "tinyshakespeare.txt", "wagahaiwa_nekodearu.txt"].map((f) => path.join(args.shared, "corpora", f));
  await runTokvec(["train", "--type", "unigram", "--vocab-size", vocab, ...extra, "-o", out, ...training]);
  await compareTrainedJson(suite, out);
}

// WordPiece tokenizer.json files (BERT-style; tests/data/wordpiece, from scripts/gen_wordpiece_files.mjs). Their
// special tokens ([CLS], ...) are added tokens that Hugging Face always matches: tokvec encodes with
// --allow-special. Hugging Face adds no [CLS]/[SEP] here (addSpecialTokens: false), as tokvec.
function compareText(suite, label, expected, actual) {
  let s = suites.get(suite);
  if (!s) suites.set(suite, (s = { cases: 0, ids: 0, diffCases: 0, diffIds: 0, shown: 0 }));
  s.cases += 1;
  s.ids += expected.length;
  if (expected === actual) return;
  failed = true;
  s.diffCases += 1;
  s.diffIds += 1;
  if (s.shown++ >= 3) return;
  let first = 0;
  while (first < Math.min(expected.length, actual.length) && expected[first] === actual[first]) first++;
  console.log(`MISMATCH ${suite} ${label}: first difference at character ${first}`);
  console.log(`  expected: ${JSON.stringify(expected.slice(Math.max(0, first - 20), first + 40))}`);
  console.log(`  actual:   ${JSON.stringify(actual.slice(Math.max(0, first - 20), first + 40))}`);
}
const wordpieceDir = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data", "wordpiece");
const wordpieceFiles = want("wordpiece") && fs.existsSync(wordpieceDir)
  ? fs.readdirSync(wordpieceDir).filter((f) => f.endsWith(".json") && f !== "golden.json" && want(`wordpiece/${f.replace(/\.json$/, "")}`)).sort()
  : [];
// Whole texts: the six large corpora, and UDHR's 532 files as one text (one tokvec process each, not 540).
const wholeLabels = [];
const wholeTexts = [];
let udhrText = "";
corpusFiles.forEach((file, i) => {
  if (file.includes(`${path.sep}udhr${path.sep}`)) {
    udhrText += corpusTexts[i].endsWith("\n") || corpusTexts[i] === "" ? corpusTexts[i] : corpusTexts[i] + "\n";
  } else {
    wholeLabels.push(file);
    wholeTexts.push(corpusTexts[i]);
  }
});
if (udhrText !== "") {
  wholeLabels.push("udhr/*.txt (joined)");
  wholeTexts.push(udhrText);
}
const wholePaths = wholeTexts.map((text, i) => {
  const file = path.join(args.work, `whole-${i}.txt`);
  fs.writeFileSync(file, text);
  return file;
});
for (const name of wordpieceFiles) {
  const file = path.join(wordpieceDir, name);
  const suite = `wordpiece/${name.replace(/\.json$/, "")}`;
  log(`${suite}: Hugging Face against tokvec (whole texts, lines, decode)`);
  const tokenizer = hf.Tokenizer.fromFile(file);
  const spell = hfSpell(tokenizer);
  const ours = (await pool(wholePaths, (f) => runTokvec(["encode", "-m", file, "--allow-special", f]))).map(parseIds);
  // Hugging Face encodes a whole text on one thread (~1.5 MB/s here): only the two BERT configurations compare
  // whole texts; the other files compare every line, and decode tokvec's whole-text ids.
  const full = name === "uncased.json" || name === "cased.json";
  const theirs = full ? await hfIds(tokenizer, wholeTexts) : ours;
  if (full) wholeLabels.forEach((label, i) => compare(`${suite}/whole`, label, theirs[i], ours[i], spell));
  // A general pre-tokenizer Sequence (encoded in one piece, no cuts): botchan.txt whole too.
  const botchanWhole = wholeLabels.findIndex((label) => label.endsWith("botchan.txt"));
  if (!full && name.endsWith("-sequence.json") && botchanWhole >= 0) {
    compare(`${suite}/whole`, wholeLabels[botchanWhole], (await hfIds(tokenizer, [wholeTexts[botchanWhole]]))[0], ours[botchanWhole], spell);
  }
  const ourLines = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--lines", "--threads", "2", linesPath]));
  if (ourLines.length !== corpusLines.length) {
    failed = true;
    console.log(`MISMATCH ${suite}/lines: ${corpusLines.length} lines in, ${ourLines.length} lines out`);
  }
  const theirLines = await hfIds(tokenizer, corpusLines);
  corpusLines.forEach((line, i) => compare(`${suite}/lines`, `line ${i + 1}`, theirLines[i], parseIds(ourLines[i] ?? ""), spell));
  const decoded = await pool(theirs, (ids) => runTokvec(["decode", "-m", file], ids.join(" ")));
  for (let i = 0; i < theirs.length; i++) {
    compareText(`${suite}/decode`, wholeLabels[i], await tokenizer.decode(theirs[i], false), decoded[i]);
  }
  await compareAddSpecialOnSampledLines(suite, file, tokenizer, spell, 25);  // BertProcessing
}

// Byte-level files with Hugging Face pre-tokenizers (tests/data/pretok, from scripts/gen_pretok_files.mjs).
const pretokDir = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data", "pretok");
const pretokFiles = want("pretok") && fs.existsSync(pretokDir)
  ? fs.readdirSync(pretokDir).filter((f) => f.endsWith(".json") && f !== "golden.json").sort()
  : [];
if (pretokFiles.length > 0) {
  // Hugging Face encodes ~0.2-1 MB/s here, so each file is compared on a subset: whole texts botchan.txt and
  // every code point of planes 0-1 (a 16th of planes 2-3 and the tag/variation range) between letters, which
  // checks the classes (digits, punctuation, \w, scripts) against Hugging Face's; and every 8th line of all
  // corpus files.
  let every = "";
  const addCodePoint = (c, i) => (every += `a${String.fromCodePoint(c)}b${i % 64 === 63 ? "\n" : " "}`);
  for (let c = 0, i = 0; c < 0x40000; c += c < 0x20000 ? 1 : 16) {
    if (c < 0xd800 || c >= 0xe000) addCodePoint(c, i++);
  }
  for (let c = 0xe0000; c < 0xe0200; c++) addCodePoint(c, c);
  const everyPath = path.join(args.work, "every-code-point.txt");
  fs.writeFileSync(everyPath, every);
  const botchan = corpusFiles.findIndex((file) => file.endsWith("botchan.txt"));
  const labels = [corpusFiles[botchan], "every code point"];
  const texts = [corpusTexts[botchan], every];
  const paths = [corpusFiles[botchan], everyPath];
  const sampledStream = corpusLines.filter((_, i) => i % 8 === 0).map((line) => line + "\n").join("");
  const sampledPath = path.join(args.work, "sampled-lines.txt");
  fs.writeFileSync(sampledPath, sampledStream);
  const sampledLines = splitLines(sampledStream);
  for (const name of pretokFiles) {
    const file = path.join(pretokDir, name);
    const suite = `pretok/${name.replace(/\.json$/, "")}`;
    if (!want(suite)) continue;
    log(`${suite}: Hugging Face against tokvec (whole texts, lines, decode)`);
    const tokenizer = hf.Tokenizer.fromFile(file);
    const spell = hfSpell(tokenizer);
    // --threads 2: a chunked encode must give the ids of the whole.
    const ours = (await pool(paths, (f) => runTokvec(["encode", "-m", file, "--allow-special", "--threads", "2", f]), 1)).map(parseIds);
    const theirs = await hfIds(tokenizer, texts);
    labels.forEach((label, i) => compare(`${suite}/whole`, label, theirs[i], ours[i], spell));
    const ourLines = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--lines", "--threads", "2", sampledPath]));
    if (ourLines.length !== sampledLines.length) {
      failed = true;
      console.log(`MISMATCH ${suite}/lines: ${sampledLines.length} lines in, ${ourLines.length} lines out`);
    }
    const theirLines = await hfIds(tokenizer, sampledLines);
    sampledLines.forEach((line, i) => compare(`${suite}/lines`, `sampled line ${i + 1}`, theirLines[i], parseIds(ourLines[i] ?? ""), spell));
    const decoded = await pool(theirs, (ids) => runTokvec(["decode", "-m", file], ids.join(" ")));
    for (let i = 0; i < theirs.length; i++) {
      compareText(`${suite}/decode`, labels[i], await tokenizer.decode(theirs[i], false), decoded[i]);
    }
  }
}

// SentencePiece-style BPE tokenizer.json files (tests/data/spm_bpe, from scripts/gen_spm_bpe_files.mjs): no
// pre-tokenizer (each whole text is one piece on both sides), Metaspace, or splitters around a Metaspace. Added
// tokens (<unk>, <s>, </s>) as for WordPiece.
const spmDir = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data", "spm_bpe");
const spmFiles = want("spm_bpe") && fs.existsSync(spmDir)
  ? fs.readdirSync(spmDir).filter((f) => f.endsWith(".json") && f !== "golden.json").sort()
    .filter((f, i) => wantFile(`spm_bpe/${f.replace(/\.json$/, "")}`, i))
  : [];
for (const name of spmFiles) {
  const file = path.join(spmDir, name);
  const suite = `spm_bpe/${name.replace(/\.json$/, "")}`;
  log(`${suite}: Hugging Face against tokvec (whole texts, lines, decode)`);
  const tokenizer = hf.Tokenizer.fromFile(file);
  const spell = hfSpell(tokenizer);
  const ours = (await pool(wholePaths, (f) => runTokvec(["encode", "-m", file, "--allow-special", f]))).map(parseIds);
  // Hugging Face takes ~9 s for one 2.8 MB piece here: llama.json and the files whose pre-tokenizer cuts the
  // text into words compare whole texts; the other files compare every line, and decode tokvec's whole-text ids.
  const pre = JSON.parse(fs.readFileSync(file, "utf8")).pre_tokenizer;
  const full = name === "llama.json" || (pre !== null && !(pre.type === "Metaspace" && pre.split === false));
  const theirs = full ? await hfIds(tokenizer, wholeTexts) : ours;
  if (full) wholeLabels.forEach((label, i) => compare(`${suite}/whole`, label, theirs[i], ours[i], spell));
  const ourLines = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--lines", "--threads", "2", linesPath]));
  if (ourLines.length !== corpusLines.length) {
    failed = true;
    console.log(`MISMATCH ${suite}/lines: ${corpusLines.length} lines in, ${ourLines.length} lines out`);
  }
  const theirLines = await hfIds(tokenizer, corpusLines);
  corpusLines.forEach((line, i) => compare(`${suite}/lines`, `line ${i + 1}`, theirLines[i], parseIds(ourLines[i] ?? ""), spell));
  const decoded = await pool(theirs, (ids) => runTokvec(["decode", "-m", file], ids.join(" ")));
  for (let i = 0; i < theirs.length; i++) {
    compareText(`${suite}/decode`, wholeLabels[i], await tokenizer.decode(theirs[i], false), decoded[i]);
  }
  // Offsets through the pre-tokenizer's rewrite (Hugging Face's are in characters: ASCII lines only).
  if (pre !== null) {
    const ascii = corpusLines.filter((line) => line !== "" && /^[\x00-\x7f]*$/.test(line)).slice(0, 2000);
    const asciiPath = path.join(args.work, `spm-ascii-${name}.txt`);
    fs.writeFileSync(asciiPath, ascii.join("\n") + "\n");
    const theirEncodings = await hfEncodings(tokenizer, ascii, false);
    const ourJson = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--lines", "--format", "json", asciiPath]));
    ascii.forEach((line, i) => compare(`${suite}/offsets`, JSON.stringify(line), theirEncodings[i].getOffsets().flat(),
      JSON.parse(ourJson[i] ?? "{\"offsets\": []}").offsets.flat(), () => ""));
  }
}

// Unigram tokenizer.json files (tests/data/unigram, from scripts/gen_unigram_files.mjs). Their control tokens
// (<unk>, </s>, ...) are added tokens that Hugging Face always matches: tokvec encodes with --allow-special.
const unigramDir = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data", "unigram");
const unigramFiles = want("unigram") && fs.existsSync(unigramDir)
  ? fs.readdirSync(unigramDir).filter((f) => f.endsWith(".json") && f !== "golden.json" && want(`unigram/${f.replace(/\.json$/, "")}`)).sort()
  : [];
const unigramWhole = wholeLabels
  .map((label, i) => ({ label, path: wholePaths[i], text: wholeTexts[i] }))
  .filter((w) => /botchan|wagahaiwa|udhr/.test(w.label));
for (const name of unigramFiles) {
  const file = path.join(unigramDir, name);
  const suite = `unigram/${name.replace(/\.json$/, "")}`;
  log(`${suite}: Hugging Face against tokvec (whole texts, lines, decode)`);
  const tokenizer = hf.Tokenizer.fromFile(file);
  const spell = hfSpell(tokenizer);
  const ours = (await pool(unigramWhole, (w) => runTokvec(["encode", "-m", file, "--allow-special", w.path]))).map(parseIds);
  const theirs = await hfIds(tokenizer, unigramWhole.map((w) => w.text));
  unigramWhole.forEach((w, i) => compare(`${suite}/whole`, w.label, theirs[i], ours[i], spell));
  const ourLines = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--lines", "--threads", "2", linesPath]));
  if (ourLines.length !== corpusLines.length) {
    failed = true;
    console.log(`MISMATCH ${suite}/lines: ${corpusLines.length} lines in, ${ourLines.length} lines out`);
  }
  const theirLines = await hfIds(tokenizer, corpusLines);
  corpusLines.forEach((line, i) => compare(`${suite}/lines`, `line ${i + 1}`, theirLines[i], parseIds(ourLines[i] ?? ""), spell));
  const decoded = await pool(theirs, (ids) => runTokvec(["decode", "-m", file], ids.join(" ")));
  for (let i = 0; i < theirs.length; i++) {
    compareText(`${suite}/decode`, unigramWhole[i].label, await tokenizer.decode(theirs[i], false), decoded[i]);
  }
}

// Added tokens and post-processors (tests/data/added, from scripts/gen_added_files.mjs): Hugging Face against
// tokvec on whole texts and every corpus line (--allow-special: Hugging Face matches special tokens too), on
// seeded random lines built from the file's added tokens, white space and word characters (with --allow-special;
// without it on the lines holding no special token; and their offsets, on ASCII lines), and with
// --add-special-tokens against add_special_tokens=True (random lines, 3000 corpus lines, one whole text).
const addedDir = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data", "added");
const addedFiles = want("added") && fs.existsSync(addedDir)
  ? fs.readdirSync(addedDir).filter((f) => f.endsWith(".json") && f !== "golden.json" && want(`added/${f.replace(/\.json$/, "")}`)).sort()
  : [];
async function hfEncodings(tokenizer, texts, addSpecialTokens) {
  const out = [];
  for (let i = 0; i < texts.length; i += 256) out.push(...(await tokenizer.encodeBatch(texts.slice(i, i + 256), { addSpecialTokens })));
  return out;
}
// --add-special-tokens against add_special_tokens=True on every `step`th corpus line, for the suites of files whose
// post_processor is not under test in added/* (wordpiece/*, affix_bpe/clip).
async function compareAddSpecialOnSampledLines(suite, file, tokenizer, spell, step) {
  const sample = corpusLines.filter((_, i) => i % step === 0);
  const samplePath = path.join(args.work, `add-special-${suite.replace(/[^A-Za-z0-9-]/g, "_")}.txt`);
  fs.writeFileSync(samplePath, sample.map((line) => line + "\n").join(""));
  const theirs = await hfEncodings(tokenizer, sample, true);
  const ours = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--add-special-tokens", "--lines", samplePath]));
  sample.forEach((line, i) => compare(`${suite}/add-special`, `line ${i * step + 1}`, theirs[i].getIds(), parseIds(ours[i] ?? ""), spell));
}
function addedRandomLines(contents, count, seed) {
  let state = seed >>> 0;
  const next = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const words = ["the", "there", "Chapter", "hello", "Hello", "x", "_", "1", "é", "日本", "Mr.", "I'll", "a", "café", "NAÏVE", "it's"];
  const glue = ["", "", " ", "  ", "   ", "\t", "\u3000", "-", ".", "x", "_", "1"];
  const lines = [];
  for (let i = 0; i < count; i++) {
    let line = "";
    const n = 2 + Math.floor(next() * 10);
    for (let k = 0; k < n; k++) {
      const r = next();
      const piece = r < 0.45 ? pick(contents) : r < 0.55 ? pick(contents).toUpperCase() : pick(words);
      line += pick(glue) + piece;
    }
    lines.push(line + pick(["", " ", "  "]));
  }
  return lines;
}
for (const name of addedFiles) {
  const file = path.join(addedDir, name);
  const suite = `added/${name.replace(/\.json$/, "")}`;
  log(`${suite}: Hugging Face against tokvec (whole texts, lines, random lines, offsets, --add-special-tokens, decode)`);
  const tokenizer = hf.Tokenizer.fromFile(file);
  const spell = hfSpell(tokenizer);
  const json = JSON.parse(fs.readFileSync(file, "utf8"));
  const contents = json.added_tokens.map((t) => t.content);
  const specials = json.added_tokens.filter((t) => t.special).map((t) => t.content);
  const wordpiece = json.model.type === "WordPiece";
  // 1. Whole texts: two of them (English; WordPiece: two English ones), Hugging Face is slow there. The base
  //    models' own suites compare every whole text; here the added tokens are what is tested.
  const whole = wholePaths.map((f, i) => [f, i])
    .filter(([f, i]) => (wordpiece ? /botchan|wikitext2-valid/ : /botchan|wagahaiwa/).test(wholeLabels[i]));
  const ours = (await pool(whole, ([f]) => runTokvec(["encode", "-m", file, "--allow-special", f]))).map(parseIds);
  const theirs = await hfIds(tokenizer, whole.map(([, i]) => wholeTexts[i]));
  whole.forEach(([, i], k) => compare(`${suite}/whole`, wholeLabels[i], theirs[k], ours[k], spell));
  // 2. Every 4th corpus line (37,451 lines).
  const everyFourth = corpusLines.filter((_, i) => i % 4 === 0);
  const everyFourthPath = path.join(args.work, "added-every-fourth-line.txt");
  if (!fs.existsSync(everyFourthPath)) fs.writeFileSync(everyFourthPath, everyFourth.map((l) => l + "\n").join(""));
  const ourLines = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--lines", "--threads", "2", everyFourthPath]));
  const theirLines = await hfIds(tokenizer, everyFourth);
  everyFourth.forEach((line, i) => compare(`${suite}/lines`, `line ${4 * i + 1}`, theirLines[i], parseIds(ourLines[i] ?? ""), spell));
  // 3. Random lines of added tokens: allowed, not allowed (lines without special tokens), offsets.
  const random = addedRandomLines(contents, 3000, 1234 + name.length);
  const randomPath = path.join(args.work, `added-random-${name}.txt`);
  fs.writeFileSync(randomPath, random.join("\n") + "\n");
  const theirRandom = await hfEncodings(tokenizer, random, false);
  const ourRandom = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--lines", randomPath]));
  random.forEach((line, i) => compare(`${suite}/random`, JSON.stringify(line), theirRandom[i].getIds(), parseIds(ourRandom[i] ?? ""), spell));
  const ourDefault = outputLines(await runTokvec(["encode", "-m", file, "--lines", randomPath]));
  random.forEach((line, i) => {
    if (!specials.some((s) => line.includes(s))) compare(`${suite}/not-allowed`, JSON.stringify(line), theirRandom[i].getIds(), parseIds(ourDefault[i] ?? ""), spell);
  });
  const ourJson = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--lines", "--format", "json", randomPath]));
  random.forEach((line, i) => {
    if (!/^[\x00-\x7f]*$/.test(line)) return;
    const flat = (offsets) => offsets.flat();
    compare(`${suite}/offsets`, JSON.stringify(line), flat(theirRandom[i].getOffsets()), flat(JSON.parse(ourJson[i]).offsets), () => "");
  });
  // 4. --add-special-tokens: random lines, corpus lines, a whole text.
  const withSpecials = [...random, ...corpusLines.slice(0, 3000)];
  const specialsPath = path.join(args.work, `added-specials-${name}.txt`);
  fs.writeFileSync(specialsPath, withSpecials.join("\n") + "\n");
  const theirSpecials = await hfEncodings(tokenizer, withSpecials, true);
  const ourSpecials = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--add-special-tokens", "--lines", specialsPath]));
  withSpecials.forEach((line, i) => compare(`${suite}/add-special`, JSON.stringify(line), theirSpecials[i].getIds(), parseIds(ourSpecials[i] ?? ""), spell));
  const botchan = wholePaths.findIndex((f, i) => wholeLabels[i].includes("botchan"));
  if (botchan >= 0) {
    const [theirWhole] = await hfEncodings(tokenizer, [wholeTexts[botchan]], true);
    const ourWhole = parseIds(await runTokvec(["encode", "-m", file, "--allow-special", "--add-special-tokens", "--threads", "2", wholePaths[botchan]]));
    compare(`${suite}/add-special`, wholeLabels[botchan], theirWhole.getIds(), ourWhole, spell);
  }
  // 5. Decode (skip_special_tokens false) of Hugging Face's ids of 300 random lines with their special tokens:
  //    added tokens spell as Hugging Face keeps them (a `normalized` one as its normalization).
  const decodeIds = theirSpecials.slice(0, 300).map((e) => e.getIds());
  const ourDecoded = await pool(decodeIds, (ids) => runTokvec(["decode", "-m", file], ids.join(" ")));
  for (let k = 0; k < decodeIds.length; k++) {
    compareText(`${suite}/decode`, JSON.stringify(withSpecials[k]), await tokenizer.decode(decodeIds[k], false), ourDecoded[k]);
  }
}

// BPE with word affixes (tests/data/affix_bpe, from scripts/gen_affix_bpe_files.mjs): CLIP's end_of_word_suffix
// "</w>", a "##" continuing_subword_prefix, and a model over code points with "</w>" and byte_fallback. Hugging
// Face against tokvec on whole texts (botchan and Japanese; botchan alone for char-suffix, whose whole
// text is one word), on every 4th corpus line, and `tokvec decode` of the whole-text ids (BPEDecoder for
// char-suffix). Special tokens are added tokens Hugging Face always matches: tokvec encodes with --allow-special.
const affixDir = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data", "affix_bpe");
const affixFiles = want("affix_bpe") && fs.existsSync(affixDir)
  ? fs.readdirSync(affixDir).filter((f) => f.endsWith(".json") && f !== "golden.json").sort()
  : [];
if (affixFiles.length > 0) {
  const sampledStream = corpusLines.filter((_, i) => i % 4 === 0).map((line) => line + "\n").join("");
  const sampledPath = path.join(args.work, "affix-sampled-lines.txt");
  fs.writeFileSync(sampledPath, sampledStream);
  const sampledLines = splitLines(sampledStream);
  for (const name of affixFiles) {
    const file = path.join(affixDir, name);
    const suite = `affix_bpe/${name.replace(/\.json$/, "")}`;
    if (!want(suite)) continue;
    log(`${suite}: Hugging Face against tokvec (whole texts, lines, decode)`);
    const tokenizer = hf.Tokenizer.fromFile(file);
    const spell = hfSpell(tokenizer);
    const picked = wholeLabels.map((label, i) => i)
      .filter((i) => /botchan/.test(wholeLabels[i]) || (name !== "char-suffix.json" && /wagahaiwa/.test(wholeLabels[i])));
    const ours = (await pool(picked, (i) => runTokvec(["encode", "-m", file, "--allow-special", "--threads", "2", wholePaths[i]]), 1)).map(parseIds);
    const theirs = await hfIds(tokenizer, picked.map((i) => wholeTexts[i]));
    picked.forEach((w, k) => compare(`${suite}/whole`, wholeLabels[w], theirs[k], ours[k], spell));
    const ourLines = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--lines", "--threads", "2", sampledPath]));
    if (ourLines.length !== sampledLines.length) {
      failed = true;
      console.log(`MISMATCH ${suite}/lines: ${sampledLines.length} lines in, ${ourLines.length} lines out`);
    }
    const theirLines = await hfIds(tokenizer, sampledLines);
    sampledLines.forEach((line, i) => compare(`${suite}/lines`, `sampled line ${i + 1}`, theirLines[i], parseIds(ourLines[i] ?? ""), spell));
    const decoded = await pool(theirs, (ids) => runTokvec(["decode", "-m", file], ids.join(" ")));
    for (let k = 0; k < theirs.length; k++) {
      compareText(`${suite}/decode`, wholeLabels[picked[k]], await tokenizer.decode(theirs[k], false), decoded[k]);
    }
    // RobertaProcessing with trim_offsets false (clip).
    if (JSON.parse(fs.readFileSync(file, "utf8")).post_processor) {
      await compareAddSpecialOnSampledLines(suite, file, tokenizer, spell, 16);
    }
  }
}

// Offsets on non-ASCII text (offsets/<kind>/<file>): a tokenizer.json of each kind, encoded by Hugging Face and by
// `tokvec encode --format json --lines`. Hugging Face's Node offsets count characters (code points) of the input;
// both sides become byte offsets of its UTF-8 before comparing (Hugging Face's own offsets are bytes: a token that
// holds part of a multi-byte character covers the whole character, as tokvec's do for tokenizer.json files). The
// lines: every 8th line of wagahaiwa_nekodearu.txt, three lines of each of 40 UDHR files, the non-ASCII lines of
// wikitext2-valid.txt (every 2nd), and for files with added tokens 400 random lines of them (accented and CJK
// words).
const offsetFiles = [
  ["bytelevel", "pretok/falcon.json"], ["bytelevel", "pretok/smollm.json"], ["bytelevel", "added/byte-lowercase.json"],
  ["bytelevel", "added/byte-trim.json"],
  ["wordpiece", "wordpiece/uncased.json"], ["wordpiece", "wordpiece/cased.json"], ["wordpiece", "wordpiece/strip-cased.json"],
  ["wordpiece", "wordpiece/short-words.json"], ["wordpiece", "wordpiece/whitespace-split.json"],
  ["spm_bpe", "spm_bpe/llama.json"], ["spm_bpe", "spm_bpe/ignore-merges.json"], ["spm_bpe", "spm_bpe/pairs-space.json"],
  ["unigram", "unigram/nmt-always.json"], ["unigram", "unigram/custom-legacy.json"], ["unigram", "unigram/custom-first.json"],
  ["unigram", "unigram/bytes-never.json"],
  ["added", "added/byte-added.json"], ["added", "added/byte-many.json"], ["added", "added/wordpiece-added.json"],
  ["added", "added/wordpiece-normalized.json"],
].map(([kind, rel]) => ({ kind, rel, suite: `offsets/${kind}/${path.basename(rel, ".json")}` })).filter((f) => want(f.suite));
// Byte offset of each code point boundary of `text` (index: code points).
function codePointBytes(text) {
  const bytes = [0];
  let total = 0;
  for (const ch of text) bytes.push((total += Buffer.byteLength(ch)));
  return bytes;
}
if (offsetFiles.length > 0) {
  const dataDir = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data");
  const nonAscii = (line) => /[^\x00-\x7f]/.test(line);
  const fileLines = (name) => {
    const i = corpusFiles.findIndex((file) => file.endsWith(name));
    return i < 0 ? [] : splitLines(corpusTexts[i]);
  };
  const udhr = corpusFiles.map((file, i) => [file, i]).filter(([file]) => file.includes(`${path.sep}udhr${path.sep}`));
  const udhrSample = udhr.filter((_, k) => k % Math.max(1, Math.floor(udhr.length / 40)) === 0).slice(0, 40);
  const baseLines = [
    ...fileLines("wagahaiwa_nekodearu.txt").filter((line, i) => i % 8 === 0 && nonAscii(line)),
    ...udhrSample.flatMap(([, i]) => splitLines(corpusTexts[i]).filter(nonAscii).slice(3, 6)),
    ...fileLines("wikitext2-valid.txt").filter(nonAscii).filter((_, i) => i % 2 === 0),
  ];
  for (const { rel, suite } of offsetFiles) {
    const file = path.join(dataDir, rel);
    if (!fs.existsSync(file)) continue;
    log(`${suite}: Hugging Face against tokvec (offsets, non-ASCII lines)`);
    const tokenizer = hf.Tokenizer.fromFile(file);
    const json = JSON.parse(fs.readFileSync(file, "utf8"));
    const contents = (json.added_tokens ?? []).map((t) => t.content);
    const all = rel.startsWith("added/") ? [...baseLines, ...addedRandomLines(contents, 400, 77 + rel.length)] : baseLines;
    // A normalizer that composes, reorders or strips combining marks aligns differently (docs/tokenizers.md, "Offsets and
    // normalizers"): Hugging Face gives a composed character the range of its first input character and no token
    // the marks it removed; tokvec's token covers them. Lines not in NFC are where this shows: left out here.
    const lines = json.normalizer == null ? all : all.filter((line) => line === line.normalize("NFC"));
    if (lines.length < all.length) log(`${suite}: ${all.length - lines.length} of ${all.length} lines not in NFC left out`);
    const linesFile = path.join(args.work, `offsets-${path.basename(rel)}.txt`);
    fs.writeFileSync(linesFile, lines.join("\n") + "\n");
    const theirs = await hfEncodings(tokenizer, lines, false);
    const ours = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--lines", "--format", "json", linesFile]));
    lines.forEach((line, i) => {
      const bytes = codePointBytes(line);
      const their = theirs[i].getOffsets().flatMap(([b, e]) => [bytes[b], bytes[e]]);
      const our = JSON.parse(ours[i] ?? '{"offsets": []}');
      compare(`${suite}`, JSON.stringify(line.slice(0, 60)), their, our.offsets.flat(), () => "");
      // The ids too: an offset difference must not hide an id difference.
      compare(`${suite}/ids`, JSON.stringify(line.slice(0, 60)), theirs[i].getIds(), our.ids ?? [], hfSpell(tokenizer));
    });
  }
}

// ---- Sentence pairs and skip_special_tokens (tests/data/pairs from scripts/gen_pairs_files.mjs, and the files
// above of each post-processor kind).
const pairsData = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data");
const pairFiles = [
  ["template", "added/wordpiece-added.json"], ["template", "pairs/reordered.json"], ["template", "added/byte-many.json"],
  ["roberta", "added/byte-added.json"], ["roberta", "affix_bpe/clip.json"],
  ["bert", "added/byte-lowercase.json"], ["bert", "wordpiece/uncased.json"], ["bert", "added/wordpiece-normalized.json"],
  ["bytelevel", "pairs/byte-level.json"], ["none", "spm_bpe/llama.json"], ["none", "unigram/nmt-always.json"],
].map(([kind, rel]) => ({ kind, rel, suite: `pairs/${kind}/${path.basename(rel, ".json")}` })).filter((f) => want(f.suite));
if (pairFiles.length > 0) {
  // 2,000 pairs of consecutive non-empty corpus lines, spread over the corpora; no tabs (the column separator).
  const candidates = [];
  for (let i = 0; i + 1 < corpusLines.length; i++) {
    const [a, b] = [corpusLines[i], corpusLines[i + 1]];
    if (a.trim() !== "" && b.trim() !== "" && !a.includes("\t") && !b.includes("\t")) candidates.push([a, b]);
  }
  const step = Math.max(1, Math.floor(candidates.length / 2000));
  const pairs = candidates.filter((_, i) => i % step === 0).slice(0, 2000);
  const pairsPath = path.join(args.work, "pairs.tsv");
  fs.writeFileSync(pairsPath, pairs.map(([a, b]) => `${a}\t${b}`).join("\n") + "\n");
  for (const { rel, suite } of pairFiles) {
    const file = path.join(pairsData, rel);
    if (!fs.existsSync(file)) continue;
    log(`${suite}: Hugging Face encode(a, b) against tokvec encode --pairs (${pairs.length} pairs, ids and type ids)`);
    const tokenizer = hf.Tokenizer.fromFile(file);
    const spell = hfSpell(tokenizer);
    for (const add of [true, false]) {
      const name = add ? suite : `${suite}/plain`;
      const argv = ["encode", "-m", file, "--allow-special", "--pairs", "--format", "json", pairsPath];
      const ours = outputLines(await runTokvec(add ? [...argv, "--add-special-tokens"] : argv)).map((line) => JSON.parse(line));
      const theirs = [];
      for (let i = 0; i < pairs.length; i += 256) {
        // encodeBatch takes single texts only (npm 0.23.2): encode(a, b) per pair, 256 at a time.
        theirs.push(...(await Promise.all(pairs.slice(i, i + 256).map(([a, b]) => tokenizer.encode(a, b, { addSpecialTokens: add })))));
      }
      pairs.forEach(([a], i) => {
        const label = `pair ${i + 1} ${JSON.stringify(a.slice(0, 40))}`;
        compare(name, label, theirs[i].getIds(), ours[i]?.ids ?? [], spell);
        compare(`${name}/types`, label, theirs[i].getTypeIds(), ours[i]?.type_ids ?? [], String);
      });
    }
  }
}
const skipFiles = want("skip-special")
  ? fs.readdirSync(pairsData, { withFileTypes: true }).filter((d) => d.isDirectory()).flatMap((d) =>
      fs.readdirSync(path.join(pairsData, d.name)).filter((f) => f.endsWith(".json") && f !== "golden.json").map((f) => `${d.name}/${f}`))
    .filter((rel) => {
      const json = JSON.parse(fs.readFileSync(path.join(pairsData, rel), "utf8"));
      return json.model !== undefined && (json.added_tokens ?? []).some((t) => t.special);
    })
    .map((rel) => ({ rel, suite: `skip-special/${rel.replace(/\.json$/, "")}` })).filter((f) => want(f.suite)).sort((x, y) => (x.rel < y.rel ? -1 : 1))
  : [];
for (const { rel, suite } of skipFiles) {
  const file = path.join(pairsData, rel);
  const json = JSON.parse(fs.readFileSync(file, "utf8"));
  // The ids to decode come from Hugging Face's encode: without the file's truncation and padding (the lengths/*
  // suites test those; OnlySecond would refuse single texts), the same vocabulary and decoder.
  let hfFile = file;
  if (json.truncation || json.padding) {
    hfFile = path.join(args.work, `skip-special-${rel.replace(/\//g, "-")}`);
    fs.writeFileSync(hfFile, JSON.stringify({ ...json, truncation: null, padding: null }));
  }
  const tokenizer = hf.Tokenizer.fromFile(hfFile);
  const added = json.added_tokens.map((t) => t.id);
  // 1,000 corpus lines (every k-th), with special tokens, each after an added token; decoded in 10 parts.
  const step = Math.max(1, Math.floor(corpusLines.length / 1000));
  const lines = corpusLines.filter((_, i) => i % step === 0).slice(0, 1000);
  log(`${suite}: Hugging Face decode(ids, skip_special_tokens=true) against tokvec decode --skip-special (${lines.length} lines in 10 parts)`);
  const encodings = await hfEncodings(tokenizer, lines, true);
  const parts = Array.from({ length: 10 }, () => []);
  encodings.forEach((e, i) => parts[i % 10].push(added[i % added.length], ...e.getIds()));
  const ours = await pool(parts, (ids) => runTokvec(["decode", "-m", file, "--skip-special"], ids.join(" ")));
  for (let k = 0; k < parts.length; k++) {
    compareText(suite, `part ${k + 1} (${parts[k].length} ids)`, await tokenizer.decode(parts[k], true), ours[k]);
  }
}

// tokenizer.json shapes the Hub has and Hugging Face still reads (tests/data/legacy, from
// scripts/gen_legacy_files.mjs): models and components without "type" (Hugging Face infers the kind from the
// fields), a Strip before Metaspace, older fields. Hugging Face against tokvec on botchan.txt whole, every 8th
// corpus line and white-space-only lines; files with a post_processor also with special tokens added and as pairs,
// files with a decoder also decode. Special tokens are matched on both sides (--allow-special).
const legacyDir = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data", "legacy");
const legacyFiles = want("legacy") && fs.existsSync(legacyDir)
  ? fs.readdirSync(legacyDir).filter((f) => f.endsWith(".json") && want(`legacy/${f.replace(/\.json$/, "")}`)).sort()
  : [];
if (legacyFiles.length > 0) {
  const botchan = corpusFiles.findIndex((file) => file.endsWith("botchan.txt"));
  const blank = ["   ", " \t ", "\u3000", " a ", "\t"];
  const sampled = [...blank, ...corpusLines.filter((_, i) => i % 8 === 0)].map((line) => line + "\n").join("");
  const sampledPath = path.join(args.work, "legacy-lines.txt");
  fs.writeFileSync(sampledPath, sampled);
  const lines = splitLines(sampled);
  for (const name of legacyFiles) {
    const file = path.join(legacyDir, name);
    const suite = `legacy/${name.replace(/\.json$/, "")}`;
    log(`${suite}: Hugging Face against tokvec (botchan whole, white space, every 8th corpus line)`);
    const tokenizer = hf.Tokenizer.fromFile(file);
    const spell = hfSpell(tokenizer);
    const ours = parseIds(await runTokvec(["encode", "-m", file, "--allow-special", corpusFiles[botchan]]));
    compare(`${suite}/whole`, corpusFiles[botchan], (await hfIds(tokenizer, [corpusTexts[botchan]]))[0], ours, spell);
    const ourLines = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--lines", "--threads", "2", sampledPath]));
    if (ourLines.length !== lines.length) {
      failed = true;
      console.log(`MISMATCH ${suite}/lines: ${lines.length} lines in, ${ourLines.length} lines out`);
    }
    const theirLines = await hfIds(tokenizer, lines);
    lines.forEach((line, i) => compare(`${suite}/lines`, `line ${i + 1} ${JSON.stringify(line.slice(0, 20))}`, theirLines[i],
                                       parseIds(ourLines[i] ?? ""), spell));
    const json = JSON.parse(fs.readFileSync(file, "utf8"));
    if (json.post_processor) {
      // The post-processor's kind as Hugging Face reads it: its tokens on single texts, its pair layout and type ids.
      const ourSpecial = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--add-special-tokens", "--lines", sampledPath]));
      const theirSpecial = await hfEncodings(tokenizer, lines, true);
      lines.forEach((line, i) => compare(`${suite}/add-special`, `line ${i + 1} ${JSON.stringify(line.slice(0, 20))}`,
                                         theirSpecial[i].getIds(), parseIds(ourSpecial[i] ?? ""), spell));
      const pairs = [];
      for (let i = 0; i + 1 < lines.length && pairs.length < 1000; i += 2) {
        if (!lines[i].includes("\t") && !lines[i + 1].includes("\t")) pairs.push([lines[i], lines[i + 1]]);
      }
      const pairsPath = path.join(args.work, "legacy-pairs.tsv");
      fs.writeFileSync(pairsPath, pairs.map(([a, b]) => `${a}\t${b}\n`).join(""));
      const ourPairs = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--pairs", "--add-special-tokens",
                                                    "--format", "json", pairsPath])).map((line) => JSON.parse(line));
      const theirPairs = await Promise.all(pairs.map(([a, b]) => tokenizer.encode(a, b, { addSpecialTokens: true })));
      pairs.forEach(([a], i) => {
        const label = `pair ${i + 1} ${JSON.stringify(a.slice(0, 20))}`;
        compare(`${suite}/pairs`, label, theirPairs[i].getIds(), ourPairs[i]?.ids ?? [], spell);
        compare(`${suite}/pairs/types`, label, theirPairs[i].getTypeIds(), ourPairs[i]?.type_ids ?? [], String);
      });
    }
    if (json.decoder) {
      const theirs = (await hfIds(tokenizer, [corpusTexts[botchan]]))[0];
      compareText(`${suite}/decode`, corpusFiles[botchan], await tokenizer.decode(theirs, false),
                  await runTokvec(["decode", "-m", file], theirs.join(" ")));
    }
  }
}

// Truncation and padding as Hugging Face applies them (tests/data/lengths): each line through encode() (not
// encodeBatch, which pads a batch together), as `tokvec encode --lines` encodes each line on its own.
const lengthsDir = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data", "lengths");
const lengthsFiles = want("lengths") && fs.existsSync(lengthsDir)
  ? fs.readdirSync(lengthsDir).filter((f) => f.endsWith(".json") && f !== "golden.json" &&
                                         want(`lengths/${f.replace(/\.json$/, "")}`)).sort()
  : [];
if (lengthsFiles.length > 0) {
  const botchan = corpusFiles.findIndex((file) => file.endsWith("botchan.txt"));
  const sampled = corpusLines.filter((_, i) => i % 8 === 0 && !corpusLines[i].includes("\t")).map((line) => line + "\n").join("");
  const sampledPath = path.join(args.work, "lengths-lines.txt");
  fs.writeFileSync(sampledPath, sampled);
  const lines = splitLines(sampled);
  const encodeEach = async (tokenizer, texts, addSpecialTokens, pairs) => {
    const out = [];
    for (let i = 0; i < texts.length; i += 256) {
      const batch = await Promise.all(texts.slice(i, i + 256).map((t, k) =>
        tokenizer.encode(t, pairs ? pairs[i + k] : null, { addSpecialTokens }).then((e) => e.getIds(), () => null)));
      out.push(...batch);
    }
    return out;
  };
  const pairA = lines.slice(0, 2000).filter((_, i) => i % 2 === 0);
  const pairB = lines.slice(0, 2000).filter((_, i) => i % 2 === 1).slice(0, pairA.length);
  pairA.length = pairB.length;
  for (const name of lengthsFiles) {
    const file = path.join(lengthsDir, name);
    const suite = `lengths/${name.replace(/\.json$/, "")}`;
    log(`${suite}: Hugging Face against tokvec with the file's truncation and padding (botchan whole, every 8th line)`);
    const tokenizer = hf.Tokenizer.fromFile(file);
    const spell = hfSpell(tokenizer);
    // Pairs Hugging Face encodes, through --pairs.
    const section = JSON.parse(fs.readFileSync(file, "utf8")).truncation;
    const theirPairs = section && section.stride > 0 ? [] : await encodeEach(tokenizer, pairA, true, pairB);
    const kept = theirPairs.map((ids, i) => (ids === null ? -1 : i)).filter((i) => i >= 0);
    const pairsPath = path.join(args.work, `lengths-pairs-${name}.tsv`);
    fs.writeFileSync(pairsPath, kept.map((i) => `${pairA[i]}\t${pairB[i]}\n`).join(""));
    const ourPairs = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--pairs", "--add-special-tokens", pairsPath]));
    kept.forEach((i, k) => compare(`${suite}/pairs`, `pair ${i + 1}`, theirPairs[i], parseIds(ourPairs[k] ?? ""), spell));
    if (theirPairs.length > 0 && kept.length < pairA.length) log(`${suite}/pairs: ${pairA.length - kept.length} of ${pairA.length} pairs Hugging Face refuses (left out)`);
    if (section?.strategy === "OnlySecond") continue;
    const whole = parseIds(await runTokvec(["encode", "-m", file, "--allow-special", corpusFiles[botchan]]));
    compare(`${suite}/whole`, corpusFiles[botchan], (await encodeEach(tokenizer, [corpusTexts[botchan]], false))[0], whole, spell);
    for (const [key, flags, add] of [["lines", [], false], ["special", ["--add-special-tokens"], true]]) {
      const ours = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--lines", "--threads", "2", ...flags, sampledPath]));
      const theirs = await encodeEach(tokenizer, lines, add);
      if (ours.length !== lines.length) {
        failed = true;
        console.log(`MISMATCH ${suite}/${key}: ${lines.length} lines in, ${ours.length} lines out`);
      }
      lines.forEach((line, i) => compare(`${suite}/${key}`, `line ${i + 1}`, theirs[i], parseIds(ours[i] ?? ""), spell));
    }
    // --no-truncation --no-padding: the ids of the file without both sections.
    const plain = JSON.parse(fs.readFileSync(file, "utf8"));
    plain.truncation = null;
    plain.padding = null;
    const plainPath = path.join(args.work, `lengths-off-${name}`);
    fs.writeFileSync(plainPath, JSON.stringify(plain));
    const off = outputLines(await runTokvec(["encode", "-m", file, "--allow-special", "--lines", "--no-truncation", "--no-padding", sampledPath]));
    const theirsOff = await encodeEach(hf.Tokenizer.fromFile(plainPath), lines, false);
    lines.forEach((line, i) => compare(`${suite}/off`, `line ${i + 1}`, theirsOff[i], parseIds(off[i] ?? ""), spell));
  }
}

// tokvec convert --to json of every tokenizer.json in tests/data (each kind: byte-level and code-point BPE,
// WordPiece, WordLevel, Unigram; legacy shapes come back in the current one), loaded in Hugging Face: the written
// file's ids equal the original's on every 64th corpus line, with special tokens added (the post-processor) and the
// file's truncation and padding. tokvec refuses to write BPE with word affixes: those must be refused by name.
const dataDir = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data");
const writtenFiles = want("written") && fs.existsSync(dataDir)
  ? listFiles(dataDir).filter((f) => f.endsWith(".json") && !path.basename(f).startsWith("golden") &&
                                     want(`written/${path.relative(dataDir, f).replace(/\.json$/, "")}`)).sort()
  : [];
if (writtenFiles.length > 0) {
  log(`written: tokvec convert of ${writtenFiles.length} tokenizer.json files, loaded in Hugging Face`);
  const lines = corpusLines.filter((_, i) => i % 64 === 0);
  const encodeAll = async (tokenizer) => {
    const out = [];
    for (const text of lines) {
      out.push(await tokenizer.encode(text, null, { addSpecialTokens: true }).then((e) => e.getIds(), () => null));
    }
    return out;
  };
  for (const file of writtenFiles) {
    let json = null;
    try {
      json = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch {
      continue;
    }
    if (!json || typeof json !== "object" || Array.isArray(json) || !("model" in json)) continue;
    const name = path.relative(dataDir, file).replace(/\.json$/, "");
    const suite = `written/${name}`;
    const out = path.join(args.work, `written-${name.replace(/\//g, "-")}.json`);
    const model = json.model;
    const affixed = Boolean(model.continuing_subword_prefix || model.end_of_word_suffix) &&
                    (model.type ?? ("merges" in model ? "BPE" : "")) === "BPE";
    let refusal = null;
    try {
      await runTokvec(["convert", "-m", file, "--to", "json", "-o", out]);
    } catch (error) {
      refusal = String(error.message ?? error);
    }
    if (affixed) {
      if (refusal === null || !refusal.includes("continuing_subword_prefix or end_of_word_suffix")) {
        failed = true;
        console.log(`MISMATCH ${suite}: a BPE with word affixes must be refused by name, got ${refusal ?? "a file"}`);
      }
      continue;
    }
    if (refusal !== null) {
      failed = true;
      console.log(`MISMATCH ${suite}: tokvec convert refuses it: ${refusal.split("\n")[0]}`);
      continue;
    }
    const original = hf.Tokenizer.fromFile(file);
    let written;
    try {
      written = hf.Tokenizer.fromFile(out);
    } catch (error) {
      failed = true;
      console.log(`MISMATCH ${suite}: Hugging Face cannot load the written file: ${error.message ?? error}`);
      continue;
    }
    const [theirs, ours] = [await encodeAll(original), await encodeAll(written)];
    const spell = hfSpell(original);
    lines.forEach((line, i) => compare(suite, `line ${i + 1}`, theirs[i] ?? [], ours[i] ?? [], spell));
  }
}

// Runs `tokvec extend EXTEND_ARGS -o OUT`, loads OUT in Hugging Face and compares its ids on `lines` (written at
// linesPath) with tokvec's (`encode ENCODE_ARGS --lines`).
async function checkExtended(suite, out, extendArgs, encodeArgs, lines, linesPath) {
  try {
    await runTokvec(["extend", ...extendArgs, "-o", out]);
  } catch (error) {
    failed = true;
    console.log(`MISMATCH ${suite}: tokvec extend failed: ${String(error.message ?? error).split("\n")[0]}`);
    return;
  }
  let tokenizer;
  try {
    tokenizer = hf.Tokenizer.fromFile(out);
  } catch (error) {
    failed = true;
    console.log(`MISMATCH ${suite}: Hugging Face cannot load the extended file: ${error.message ?? error}`);
    return;
  }
  const ours = outputLines(await runTokvec(["encode", "-m", out, ...encodeArgs, "--lines", linesPath]));
  const spell = hfSpell(tokenizer);
  for (let i = 0; i < lines.length; i++) {
    const theirs = await tokenizer.encode(lines[i], null, { addSpecialTokens: false }).then((e) => e.getIds());
    compare(suite, `line ${i + 1}`, theirs, parseIds(ours[i] ?? ""), spell);
  }
}

// tokvec extend --add-tokens on tokenizers of each kind (gpt2's ranks, WordPiece, Unigram, code-point BPE with
// byte fallback), with tokens of every flag: new words, a word already in the vocabulary, special markers, single_word,
// lstrip / rstrip, normalized false. Hugging Face loads the extended file and encodes every 32nd corpus line and
// lines that use the new tokens with the ids tokvec gives. The Llama-shaped file (a Prepend + Replace normalizer)
// gets its tokens with normalized false: tokvec matches a normalized added token there in the input, where Hugging
// Face matches its normalization ("▁the"), a known difference (docs/tokenizers.md, "Added tokens").
const extendSources = [
  ["gpt2", vocabPath("gpt2.tiktoken"), ""],
  ["wordpiece-uncased", path.join(dataDir, "wordpiece", "uncased.json"), ""],
  ["unigram-nmt-always", path.join(dataDir, "unigram", "nmt-always.json"), ""],
  ["spm-bpe-llama", path.join(dataDir, "spm_bpe", "llama.json"), "false"],
].filter(([name, file]) => want(`extended/${name}`) && fs.existsSync(file));
if (extendSources.length > 0) {
  log(`extended: tokvec extend --add-tokens of ${extendSources.length} tokenizers, loaded in Hugging Face`);
  const tokensPath = path.join(args.work, "extend-tokens.txt");
  const tokenLines = (normalized) => [
    "tokvec", "the", "Kubernetes", "ünïcode",
    JSON.stringify({ content: "<|tool|>", special: true }),
    JSON.stringify({ content: "<|end_tool|>", special: true, lstrip: true, rstrip: true }),
    JSON.stringify({ content: "cat", single_word: true, ...(normalized === "false" ? { normalized: false } : {}) }),
    JSON.stringify({ content: "MiXeD", normalized: false }),
  ].join("\n") + "\n";
  const uses = ["the tokvec cat sat on Kubernetes", "concatenate <|tool|>tokvec<|end_tool|> done", "a cat, cats",
                "  <|end_tool|>  x", "MiXeD mixed MIXED ünïcode", "thethe tokvectokvec"];
  const lines = corpusLines.filter((_, i) => i % 32 === 0 && !corpusLines[i].includes("\t")).concat(uses);
  const linesPath = path.join(args.work, "extend-lines.txt");
  fs.writeFileSync(linesPath, lines.map((l) => l + "\n").join(""));
  for (const [name, source, normalized] of extendSources) {
    const suite = `extended/${name}`;
    const out = path.join(args.work, `extended-${name}.json`);
    fs.writeFileSync(tokensPath, tokenLines(normalized));
    await checkExtended(suite, out, ["-m", source, "--add-tokens", tokensPath,
                                     ...(normalized ? ["--normalized", normalized] : [])],
                        ["--allow-special"], lines, linesPath);
  }
}

// tokvec extend --more-merges: BPE training continued on Japanese text (wagahaiwa_nekodearu.txt) from gpt2's and
// cl100k's ranks (their merges recovered) and from a byte-level tokenizer.json merge list, 2,000 new merges each.
// Hugging Face loads the extended file and encodes every 32nd corpus line and every 4th Japanese line with the ids
// tokvec gives (where the new merges apply).
const mergeSources = [
  ["gpt2", vocabPath("gpt2.tiktoken")],
  ["cl100k", vocabPath("cl100k_base.tiktoken")],
  ["smollm-json", path.join(dataDir, "legacy", "untyped-byte-bpe-smollm.json")],
].filter(([name, file]) => want(`extended-merges/${name}`) && fs.existsSync(file));
const japanesePath = path.join(args.shared, "corpora", "wagahaiwa_nekodearu.txt");
if (mergeSources.length > 0 && fs.existsSync(japanesePath)) {
  log(`extended-merges: tokvec extend --more-merges of ${mergeSources.length} tokenizers, loaded in Hugging Face`);
  const japanese = splitLines(fs.readFileSync(japanesePath, "utf8")).filter((_, i) => i % 4 === 0);
  const lines = corpusLines.filter((_, i) => i % 32 === 0 && !corpusLines[i].includes("\t")).concat(japanese);
  const linesPath = path.join(args.work, "extend-merges-lines.txt");
  fs.writeFileSync(linesPath, lines.map((l) => l + "\n").join(""));
  for (const [name, source] of mergeSources) {
    const suite = `extended-merges/${name}`;
    const out = path.join(args.work, `extended-merges-${name}.json`);
    await checkExtended(suite, out, ["-m", source, "--more-merges", "2000", japanesePath], [], lines, linesPath);
  }
}

// ---- Summary.
console.log("");
console.log("suite                               cases        ids  diff-cases  diff-ids");
for (const [suite, s] of suites) {
  console.log(`${suite.padEnd(32)} ${String(s.cases).padStart(8)} ${String(s.ids).padStart(10)} ${String(s.diffCases).padStart(11)} ${String(s.diffIds).padStart(9)}`);
}
log(failed ? "FAIL: ids differ (see MISMATCH lines above)" : "PASS: no differing ids");
process.exit(failed ? 1 : 0);

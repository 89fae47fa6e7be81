// Builds the byte-level BPE tokenizer.json files of tests/data/pretok (one per pre-tokenizer shape real models
// use) and their goldens, checked by Hugging Face tokenizers 0.23.2 (npm):
//
//   node scripts/gen_pretok_files.mjs --tokvec build/tokvec [--shared ../shared] [--npm ~/.cache/tokvec/npm/node_modules]
//
// The vocabulary is tokvec's own: `tokvec train --type byte --pattern gpt2 --vocab-size 1500` on three corpora,
// written by `tokvec convert` as tokenizer.json (base). Each variant is that file with another pre_tokenizer;
// Hugging Face loads every file (fromFile) before it is written. golden.json holds, per variant, hard sentences
// with Hugging Face's ids and decode (addSpecialTokens false), for tests/tokenizer/pre_tokenizers/pre_tokenizer_json_test.cc.
//
// Variants (the shapes come from the models' published tokenizer.json files):
//   falcon             Sequence [Punctuation Contiguous, ByteLevel (regex), Digits, Split [0-9][0-9][0-9] Isolated]
//   smollm             Sequence [Digits individual, ByteLevel (regex)]  (SmolLM, StarCoder)
//   clip-split         Sequence [Split CLIP's regex Removed invert, ByteLevel no regex]  (CLIP without its suffix)
//   neox-removed       Sequence [Split \s+ Removed, ByteLevel (regex) ]
//   merged-previous    Sequence [Split String " " MergedWithPrevious, ByteLevel no regex]
//   merged-next        Sequence [Split \p{P} MergedWithNext, ByteLevel (regex)]
//   contiguous-invert  Sequence [Split \p{L}+ Contiguous invert, ByteLevel no regex]
//   isolated-invert    Sequence [Split [aeiou] Isolated invert, ByteLevel (regex)]
//   chardelim          Sequence [CharDelimiterSplit " ", ByteLevel no regex]
//   scripts            Sequence [UnicodeScripts, ByteLevel (regex)]
//   whitespace         Sequence [Whitespace, ByteLevel no regex]
//   whitespace-split   Sequence [WhitespaceSplit, ByteLevel no regex]
//   punct-<behavior>   Sequence [Punctuation <behavior>, ByteLevel no regex] for the five behaviours
//   bert               Sequence [BertPreTokenizer, ByteLevel no regex]
//   after-bytelevel    Sequence [ByteLevel no regex add_prefix_space, Digits, Split " ?[^ ]+" Isolated]: steps
//                      after the ByteLevel see the byte alphabet (Ġ for a space, "Â²" for "²")
//   bytelevel-noregex  ByteLevel {use_regex: false} alone (one piece per text)
//   unreachable        base's pre-tokenizer, plus vocabulary entries no input reaches (a raw-Unicode spelling
//                      outside the byte alphabet, an empty token), as Whisper, Cohere, OLMo-1.7 files have
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";

const args = { shared: "../shared", npm: path.join(os.homedir(), ".cache/tokvec/npm/node_modules") };
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
if (!args.tokvec) {
  console.error("usage: gen_pretok_files.mjs --tokvec BIN [--shared DIR] [--npm NODE_MODULES]");
  process.exit(2);
}
const hf = createRequire(path.join(path.resolve(args.npm), "noop.js"))("tokenizers");
const root = path.join(path.dirname(new URL(import.meta.url).pathname), "..");
const outDir = path.join(root, "tests", "data", "pretok");
fs.mkdirSync(outDir, { recursive: true });
const work = fs.mkdtempSync(path.join(os.tmpdir(), "tokvec-pretok-"));

// 1. The base vocabulary.
const training = ["botchan.txt", "tinyshakespeare.txt", "wagahaiwa_nekodearu.txt"].map((f) => path.join(args.shared, "corpora", f));
execFileSync(args.tokvec, ["train", "--type", "byte", "--pattern", "gpt2", "--vocab-size", "1500", "--special", "<|endoftext|>",
  "-o", path.join(work, "base.tokvec"), ...training], { stdio: "inherit" });
execFileSync(args.tokvec, ["convert", "-m", path.join(work, "base.tokvec"), "-o", path.join(work, "base"), "--to", "json"], { stdio: "inherit" });
const base = JSON.parse(fs.readFileSync(path.join(work, "base.json"), "utf8"));

// 2. The variants.
const byteLevel = (useRegex, addPrefixSpace = false) => ({ type: "ByteLevel", add_prefix_space: addPrefixSpace, trim_offsets: true, use_regex: useRegex });
const split = (pattern, behavior, invert = false) => ({ type: "Split", pattern, behavior, invert });
const seq = (...steps) => ({ type: "Sequence", pretokenizers: steps });
const CLIP = "<\\|startoftext\\|>|<\\|endoftext\\|>|'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+";
const BEHAVIORS = ["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"];
const kebab = (s) => s.replace(/([a-z])([A-Z])/g, "$1-$2").toLowerCase();
const VARIANTS = {
  falcon: seq({ type: "Punctuation", behavior: "Contiguous" }, byteLevel(true), { type: "Digits", individual_digits: false },
    split({ Regex: "[0-9][0-9][0-9]" }, "Isolated")),
  smollm: seq({ type: "Digits", individual_digits: true }, byteLevel(true)),
  "clip-split": seq(split({ Regex: CLIP }, "Removed", true), byteLevel(false)),
  "neox-removed": seq(split({ Regex: "\\s+" }, "Removed"), byteLevel(true)),
  "merged-previous": seq(split({ String: " " }, "MergedWithPrevious"), byteLevel(false)),
  "merged-next": seq(split({ Regex: "\\p{P}" }, "MergedWithNext"), byteLevel(true)),
  "contiguous-invert": seq(split({ Regex: "\\p{L}+" }, "Contiguous", true), byteLevel(false)),
  "isolated-invert": seq(split({ Regex: "[aeiou]" }, "Isolated", true), byteLevel(true)),
  chardelim: seq({ type: "CharDelimiterSplit", delimiter: " " }, byteLevel(false)),
  scripts: seq({ type: "UnicodeScripts" }, byteLevel(true)),
  whitespace: seq({ type: "Whitespace" }, byteLevel(false)),
  "whitespace-split": seq({ type: "WhitespaceSplit" }, byteLevel(false)),
  bert: seq({ type: "BertPreTokenizer" }, byteLevel(false)),
  "after-bytelevel": seq(byteLevel(false, true), { type: "Digits", individual_digits: false }, split({ Regex: "Ġ?[^Ġ]+" }, "Isolated")),
  "bytelevel-noregex": byteLevel(false),
};
for (const behavior of BEHAVIORS) VARIANTS[`punct-${kebab(behavior)}`] = seq({ type: "Punctuation", behavior }, byteLevel(false));

const files = {};
for (const [name, pre] of Object.entries(VARIANTS)) files[name] = { ...base, pre_tokenizer: pre };
// Unreachable entries: a raw-Unicode spelling ("日本" is not in the byte alphabet) and an empty token, at new ids.
const unreachable = structuredClone(base);
const next = Math.max(...Object.values(unreachable.model.vocab)) + 1;
unreachable.model.vocab["日本"] = next;
unreachable.model.vocab[""] = next + 1;
files.unreachable = unreachable;

// 3. Hard sentences and goldens.
const SENTENCES = [
  "Hello, world!! How are you doing?",
  "  leading and  multiple   spaces, trailing 12   ",
  "price: 12,345.67 (555) 123-4567 ext. 89 1234567",
  "x²y ½6789 м and мир 999 ٣٤٥ Ⅻ",
  "Don't stop at 3.14159265! It's 'quoted' -- dashes—and…ellipsis",
  "日本語のテキスト、カタカナとひらがな。Mixed with English and 中文.",
  "tabs\there\nnewline 42\r\nwindows\u00a0nbsp\u3000ideographic",
  "emoji 😀👍🏽 and combining é (e\u0301) Ελληνικά Русский العربية हिन्दी",
  "<|endoftext|> spelled as text, <|startoftext|> too",
  "",
];
const golden = {};
for (const [name, json] of Object.entries(files)) {
  const file = path.join(outDir, `${name}.json`);
  const text = JSON.stringify(json);
  const tokenizer = hf.Tokenizer.fromString(text);  // Hugging Face must accept it.
  fs.writeFileSync(file, text + "\n");
  golden[name] = [];
  for (const sentence of SENTENCES) {
    const encoding = await tokenizer.encode(sentence, null, { addSpecialTokens: false });
    const ids = encoding.getIds();
    golden[name].push({ text: sentence, ids, decode: await tokenizer.decode(ids, false) });
  }
}
fs.writeFileSync(path.join(outDir, "golden.json"), JSON.stringify(golden, null, 1) + "\n");
fs.rmSync(work, { recursive: true, force: true });
console.log(`wrote ${Object.keys(files).length} files and golden.json to ${outDir}`);

// Builds the tokenizer.json files of tests/data/added (added tokens and post-processors) with Hugging Face
// tokenizers 0.23.2 (npm), and golden.json, Hugging Face's ids and offsets on hard sentences for the C++ tests.
//
//   node scripts/gen_added_files.mjs --tokvec build/tokvec [--shared ../shared] [--npm ~/.cache/tokvec/npm/node_modules]
//
// Bases: a byte-level BPE of 1000 tokens trained by `tokvec train --type byte` on botchan.txt and
// tinyshakespeare.txt (lowercase variant: --normalize lowercase), exported with `tokvec convert --to json`; and
// tests/data/wordpiece/{cased,uncased}.json. Hugging Face adds the tokens (addAddedTokens, so it picks the ids:
// a token already in the vocabulary keeps its id) and the post-processor, and saves the file.
//   byte-added        non-special: runs of 2..4 spaces (GPT-NeoX), <tool_call> </tool_call> <think> </think>,
//                     "there" single_word, "[[" rstrip, "]]" lstrip; special: <s> </s> <mask> (lstrip, RoBERTa);
//                     RobertaProcessing (trim_offsets, add_prefix_space false)
//   byte-many         1000 non-special tokens (frequent words of wikitext2-valid, every 7th single_word, every 11th
//                     with a leading space, every 13th rstrip); Sequence [ByteLevel trim_offsets, Template
//                     "<s> $A </s>"]
//   byte-lowercase    Lowercase normalizer; "Chapter" "I'll" normalized (match "CHAPTER", "i'll"), "Mr." and
//                     "HAMLET" not normalized (exact case only); BertProcessing with <cls>/<sep> specials
//   wordpiece-added   cased BERT: "qqz" single_word, "Hello" normalized, "wxyz" rstrip, [MASK] re-added lstrip;
//                     TemplateProcessing "[CLS] $A [SEP]" (pair "[CLS] $A [SEP] $B:1 [SEP]:1")
//   wordpiece-normalized  uncased BERT: "Café" and "NAÏVE" normalized (lowercased, accents stripped), "ZZtop"
//                     not normalized; BertProcessing
//   byte-trim         byte's base with <s> </s> special and "<think>" non-special; the ByteLevel pre-tokenizer has
//                     trim_offsets false (Hugging Face reads it only in a post-processor), and the post_processor is
//                     a standalone ByteLevel {trim_offsets: true}: offsets leave out the spaces, no tokens added
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const args = { shared: "../shared", npm: path.join(os.homedir(), ".cache/tokvec/npm/node_modules") };
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
if (!args.tokvec) {
  console.error("usage: gen_added_files.mjs --tokvec BIN [--shared DIR] [--npm NODE_MODULES]");
  process.exit(2);
}
const hf = createRequire(path.join(path.resolve(args.npm), "noop.js"))("tokenizers");
const root = path.join(path.dirname(new URL(import.meta.url).pathname), "..");
const outDir = path.join(root, "tests", "data", "added");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "tokvec-added-"));
fs.mkdirSync(outDir, { recursive: true });
const corpus = (f) => path.join(args.shared, "corpora", f);

function byteBase(name, normalize) {
  const stem = path.join(work, name);
  execFileSync(args.tokvec, ["train", "--type", "byte", "--vocab-size", "1000", "--normalize", normalize, "-o", `${stem}.tokvec`,
    corpus("botchan.txt"), corpus("tinyshakespeare.txt")]);
  execFileSync(args.tokvec, ["convert", "-m", `${stem}.tokvec`, "-o", stem, "--to", "json"]);
  return `${stem}.json`;
}
const tok = (content, special, options = {}) => new hf.AddedToken(content, special, { normalized: false, ...options });
const idOf = (t, content) => {
  const id = t.tokenToId(content);
  if (id === null || id === undefined) throw new Error(`no id for ${content}`);
  return id;
};

const variants = {};
{
  const t = hf.Tokenizer.fromFile(byteBase("byte", "none"));
  t.addAddedTokens([tok("<s>", true), tok("</s>", true), tok("<mask>", true, { leftStrip: true })]);
  t.addAddedTokens([tok("  ", false), tok("   ", false), tok("    ", false), tok("<tool_call>", false), tok("</tool_call>", false),
    tok("<think>", false), tok("</think>", false), tok("there", false, { singleWord: true }), tok("[[", false, { rightStrip: true }),
    tok("]]", false, { leftStrip: true })]);
  t.setPostProcessor(hf.robertaProcessing(["</s>", idOf(t, "</s>")], ["<s>", idOf(t, "<s>")], true, false));
  variants["byte-added"] = t;
}
{
  const t = hf.Tokenizer.fromFile(byteBase("byte", "none"));
  t.addAddedTokens([tok("<s>", true), tok("</s>", true)]);
  const counts = new Map();
  for (const w of fs.readFileSync(corpus("wikitext2-valid.txt"), "utf8").match(/[A-Za-z][a-z]{3,}/g)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const words = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 1000).map((e) => e[0]);
  t.addAddedTokens(words.map((w, i) => tok(i % 11 === 5 ? ` ${w}` : w, false, { singleWord: i % 7 === 3, rightStrip: i % 13 === 4 })));
  t.setPostProcessor(hf.sequenceProcessing([hf.byteLevelProcessing(true),
    hf.templateProcessing("<s> $A </s>", "<s> $A </s> </s> $B </s>", [["<s>", idOf(t, "<s>")], ["</s>", idOf(t, "</s>")]])]));
  variants["byte-many"] = t;
}
{
  const t = hf.Tokenizer.fromFile(byteBase("byte-lower", "lowercase"));
  t.addAddedTokens([tok("<cls>", true), tok("<sep>", true)]);
  t.addAddedTokens([tok("Chapter", false, { normalized: true }), tok("I'll", false, { normalized: true }), tok("Mr.", false),
    tok("HAMLET", false)]);
  t.setPostProcessor(hf.bertProcessing(["<sep>", idOf(t, "<sep>")], ["<cls>", idOf(t, "<cls>")]));
  variants["byte-lowercase"] = t;
}
{
  const t = hf.Tokenizer.fromFile(path.join(root, "tests", "data", "wordpiece", "cased.json"));
  t.addAddedTokens([tok("qqz", false, { singleWord: true }), tok("Hello", false, { normalized: true }), tok("wxyz", false, { rightStrip: true }),
    tok("[MASK]", true, { leftStrip: true })]);
  t.setPostProcessor(hf.templateProcessing("[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1", [["[CLS]", idOf(t, "[CLS]")], ["[SEP]", idOf(t, "[SEP]")]]));
  variants["wordpiece-added"] = t;
}
{
  const t = hf.Tokenizer.fromFile(path.join(root, "tests", "data", "wordpiece", "uncased.json"));
  t.addAddedTokens([tok("Café", false, { normalized: true }), tok("NAÏVE", false, { normalized: true }), tok("ZZtop", false)]);
  t.setPostProcessor(hf.bertProcessing(["[SEP]", idOf(t, "[SEP]")], ["[CLS]", idOf(t, "[CLS]")]));
  variants["wordpiece-normalized"] = t;
}
{
  const t = hf.Tokenizer.fromFile(byteBase("byte", "none"));
  t.addAddedTokens([tok("<s>", true), tok("</s>", true)]);
  t.addAddedTokens([tok("<think>", false)]);
  t.setPostProcessor(hf.byteLevelProcessing(true));
  // The npm binding cannot set a ByteLevel pre-tokenizer's trim_offsets: written into the JSON, read back below.
  const file = path.join(work, "byte-trim.json");
  t.save(file, false);
  const json = JSON.parse(fs.readFileSync(file, "utf8"));
  if (json.pre_tokenizer.type !== "ByteLevel") throw new Error(`byte-trim: pre_tokenizer ${JSON.stringify(json.pre_tokenizer)}`);
  json.pre_tokenizer.trim_offsets = false;
  fs.writeFileSync(file, JSON.stringify(json));
  variants["byte-trim"] = hf.Tokenizer.fromFile(file);
}

const SENTENCES = [
  "",
  "Hello  world   <think>reasoning</think> done",
  "a <mask> b  <mask>c<mask> [MASK] x  [MASK]",
  "<tool_call>{\"name\": 1}</tool_call>\n",
  "there theory therein xthere there_ there1 there. éthere",
  "    four spaces\tand\ttabs  \n  two",
  "[[  spaced ]] [[x   ]]y",
  "Chapter ONE. CHAPTER two, chapter I'll i'll I'LL",
  "Mr. MR. mr. Mrs. HAMLET Hamlet hamlet",
  "<s>text</s><cls>more<sep>",
  "qqz xqqz qqz_ qqz. qqz1 Hello HELLO wxyz   next",
  "Café cafe CAFE naïve NAIVE ZZtop zztop",
  "The history of the government, which would become national",
  " leading space and trailing space ",
  "naïve café 日本語 <think>思考</think>",
];
const golden = {};
for (const [name, t] of Object.entries(variants)) {
  const file = path.join(outDir, `${name}.json`);
  t.save(file, false);
  const loaded = hf.Tokenizer.fromFile(file);
  golden[name] = [];
  for (const text of SENTENCES) {
    const plain = await loaded.encode(text, null, { addSpecialTokens: false });
    const withSpecials = await loaded.encode(text, null, { addSpecialTokens: true });
    const row = { text, ids: plain.getIds(), ids_with_specials: withSpecials.getIds(),
                  decoded_with_specials: await loaded.decode(withSpecials.getIds(), false) };
    // Hugging Face's npm offsets count characters: comparable with tokvec's bytes on ASCII text only.
    if (/^[\x00-\x7f]*$/.test(text)) {
      row.offsets = plain.getOffsets();
      row.offsets_with_specials = withSpecials.getOffsets();
    }
    golden[name].push(row);
  }
  console.log(`${file}: ${fs.statSync(file).size} bytes`);
}
fs.writeFileSync(path.join(outDir, "golden.json"), JSON.stringify(golden, null, 1) + "\n");
fs.rmSync(work, { recursive: true, force: true });

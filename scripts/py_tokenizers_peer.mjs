// The Hugging Face half of the py-tokenizers/* conformance suites (scripts/py_tokenizers_conformance.py, which
// builds the cases, runs this once per tokenizer.json and compares the output with tokvec.tokenizers):
// Hugging Face tokenizers 0.23.2 (npm) encodes batches of texts or pairs with given truncation and padding.
//
//   node scripts/py_tokenizers_peer.mjs --npm ~/.cache/tokvec/npm/node_modules --file tokenizer.json \
//        --input cases.json --output out.json [--self-check 1]
//
// cases.json: a list of runs {name, texts: [...], pairs: [...] | null, add_special_tokens, truncation, padding,
// max_windows (optional)}; pairs, when given, holds the second texts: the run encodes the inputs (texts[i], pairs[i]).
//   truncation: "file" (the file's own section, as loaded), null (disableTruncation()) or
//               {max_length, stride, strategy: "longest_first" | "only_first" | "only_second", direction: "left" | "right"}
//   padding:    "file", null (disablePadding()) or
//               {direction: "left" | "right", pad_id, pad_type_id, pad_token, length (null: the batch's longest),
//                pad_to_multiple_of}
// out.json: a list, one entry per run: {name, encodings: [...]}, each encoding {ids, type_ids, attention_mask,
// offsets, word_ids (null for none), sequence_ids (null for none; which text an offset counts in), overflowing:
// [encodings]}; and, when it applies:
//   error, refused   Hugging Face throws on the batch (its message), and the indices of the inputs it refuses one by
//                    one (OnlySecond on a single text, a text too short to cut); encodings are then those of the
//                    batch without them (rest_error: that batch threw too)
//   skipped          inputs left out before encoding because Hugging Face would panic on them: Encoding::truncate
//                    asserts that a window is longer than the stride, and the panic aborts the whole process (pairs
//                    cut by a strided truncation; predicted from truncate_encodings' lengths)
//   capped           with max_windows (runs of pairs): the pairs whose encoding has more overflowing windows than that
//                    (nested ones counted), left out of the batch before its padding. A pair's windows are each
//                    window of one text with each of the other's: with a stride, a text that Hugging Face's early
//                    exit cannot shorten (no pre-tokenizer, one long word) makes thousands
//   config_error     setTruncation refused the run's settings (a stride past the effective length; checked here, as
//                    the binding's unwrap would abort)
// The indices are into the run's texts; the other side leaves out skipped, refused and capped inputs the same way.
//
// Offsets: the npm binding encodes with encode_char_offsets / encode_batch_char_offsets, as the Python package
// does: offsets count Unicode code points (a character outside the BMP is 1, not 2 UTF-16 units), the same unit as
// tokvec.tokenizers and Python's str indices; they are written as the binding gives them, no conversion (checked:
// "😀 héllo" gives [0,1] for the emoji and [2,6] for "hell" on a WordPiece file). Offsets of a pair's second text
// count from the start of that text.
//
// Pairs: encodeBatch of tokenizers 0.23.2 takes single texts only (its inputs are converted to String). A batch of
// pairs is encoded as the Rust encode_batch_char_offsets does it: each pair through encode(a, b) (truncation,
// post-processor and padding of that one encoding, as encode_char_offsets), then the batch padded as
// pad_encodings does (the longest top-level encoding or the fixed length, rounded up to pad_to_multiple_of; each
// encoding and its overflowing padded with Encoding.pad). --self-check 1 encodes the single-text runs both ways too
// and exits 3 when they differ.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
for (const key of ["npm", "file", "input", "output"]) {
  if (!args[key]) {
    console.error("usage: py_tokenizers_peer.mjs --npm NODE_MODULES --file TOKENIZER_JSON --input CASES --output OUT");
    process.exit(2);
  }
}
const require = createRequire(path.join(path.resolve(args.npm), "noop.js"));
const hf = require("tokenizers");
const fileJson = JSON.parse(fs.readFileSync(args.file, "utf8"));
const runs = JSON.parse(fs.readFileSync(args.input, "utf8"));

const STRATEGY = { longest_first: "LongestFirst", only_first: "OnlyFirst", only_second: "OnlySecond" };
const FROM_FILE_STRATEGY = { LongestFirst: "longest_first", OnlyFirst: "only_first", OnlySecond: "only_second" };

// The settings in force, in the cases' spelling: {max_length, stride, strategy, direction} and {direction, pad_id,
// pad_type_id, pad_token, length, pad_to_multiple_of}, or null.
function truncationOf(setting) {
  if (setting !== "file") return setting;
  const t = fileJson.truncation;
  if (!t) return null;
  return { max_length: t.max_length, stride: t.stride ?? 0, strategy: FROM_FILE_STRATEGY[t.strategy ?? "LongestFirst"],
           direction: (t.direction ?? "Right").toLowerCase() };
}
function paddingOf(setting) {
  if (setting !== "file") return setting;
  const p = fileJson.padding;
  if (!p) return null;
  return { direction: (p.direction ?? "Right").toLowerCase(), pad_id: p.pad_id ?? 0, pad_type_id: p.pad_type_id ?? 0,
           pad_token: p.pad_token ?? "[PAD]", length: p.strategy?.Fixed ?? null, pad_to_multiple_of: p.pad_to_multiple_of ?? null };
}
const paddingOptions = (p) => ({ direction: p.direction ?? "right", padId: p.pad_id ?? 0, padTypeId: p.pad_type_id ?? 0,
                                 padToken: p.pad_token ?? "[PAD]", padToMultipleOf: p.pad_to_multiple_of ?? undefined,
                                 maxLength: p.length ?? undefined });

// One tokenizer per (truncation, padding) setting, loaded from the file so that "file" is the file's own section.
const tokenizers = new Map();
async function tokenizerFor(run) {
  const key = JSON.stringify([run.truncation, run.padding]);
  if (tokenizers.has(key)) return tokenizers.get(key);
  let entry;
  try {
    const tokenizer = hf.Tokenizer.fromFile(args.file);
    const t = run.truncation;
    if (t === null) tokenizer.disableTruncation();
    else if (t !== "file") {
      // setTruncation unwraps with_truncation's error (a stride past the effective length): a panic that aborts
      // node. Refuse those settings here, with Hugging Face's check (the single-text post-processor's tokens).
      const added = await countAdded(plain(), false);
      if (t.max_length - added < (t.stride ?? 0)) throw new Error(`stride ${t.stride} past the effective max length ${t.max_length - added}`);
      tokenizer.setTruncation(t.max_length, { stride: t.stride ?? 0, strategy: STRATEGY[t.strategy ?? "longest_first"],
                                              direction: t.direction ?? "right" });
    }
    const p = run.padding;
    if (p === null) tokenizer.disablePadding();
    else if (p !== "file") tokenizer.setPadding(paddingOptions(p));
    entry = { tokenizer };
  } catch (error) {
    entry = { configError: String(error?.message ?? error) };
  }
  tokenizers.set(key, entry);
  return entry;
}

// The number of tokens the post-processor adds (Hugging Face's get_n_added_tokens), from an encoding without
// truncation and padding: its tokens of no sequence.
const addedCache = new Map();
async function countAdded(tokenizer, isPair) {
  if (!addedCache.has(isPair)) {
    const e = await tokenizer.encode("a", isPair ? "b" : null, { addSpecialTokens: true });
    addedCache.set(isPair, e.getSequenceIds().filter((s) => s === null || s === undefined).length);
  }
  return addedCache.get(isPair);
}

// The cuts truncate_encodings (utils/truncation.rs) makes for sequences of these lengths: [target, length] per
// sequence Encoding::truncate is called on; null when it refuses (an error, not a panic). maxLength: the budget.
function cutsOf(t, len1, len2, maxLength) {
  const total = len1 + (len2 ?? 0);
  if (maxLength === 0) return len2 === null ? [[0, len1]] : [[0, len1], [0, len2]];
  if (total <= maxLength) return [];
  const toRemove = total - maxLength;
  const strategy = t.strategy ?? "longest_first";
  if (strategy === "longest_first") {
    if (len2 === null) return [[total - toRemove, len1]];
    let [n1, n2] = len1 > len2 ? [len2, len1] : [len1, len2];
    const swap = len1 > len2;
    n2 = n1 > maxLength ? n1 : Math.max(n1, maxLength - n1);
    if (n1 + n2 > maxLength) {
      n1 = Math.floor(maxLength / 2);
      n2 = n1 + (maxLength % 2);
    }
    if (swap) [n1, n2] = [n2, n1];
    return [[n1, len1], [n2, len2]];
  }
  const targetLen = strategy === "only_first" ? len1 : len2;
  if (targetLen === null || targetLen <= toRemove) return null;
  return [[targetLen - toRemove, targetLen]];
}
// Encoding::truncate asserts stride < max_len when it cuts (max_len > 0 and shorter than the encoding).
const panics = (t, cuts) => (cuts ?? []).some(([target, length]) => target > 0 && target < length && (t.stride ?? 0) >= target);
// The encodings a truncated input becomes (itself and its windows, nested ones counted): the windows of one text
// times those of the other.
const encodingsOf = (t, cuts) => (cuts ?? []).reduce((product, [target, length]) =>
  product * (target === 0 || length <= target ? 1 : Math.ceil((length - target) / (target - (t.stride ?? 0))) + 1), 1);

// The file without truncation and padding: the lengths Hugging Face's truncation sees.
let plainTokenizer = null;
function plain() {
  if (!plainTokenizer) {
    plainTokenizer = hf.Tokenizer.fromFile(args.file);
    plainTokenizer.disableTruncation();
    plainTokenizer.disablePadding();
  }
  return plainTokenizer;
}
const addedIds = new Set((fileJson.added_tokens ?? []).map((t) => t.id));
// The tokens Hugging Face's early exit (tokenizers 0.23.1, do_tokenize) leaves of a sequence: it tokenizes word by
// word and stops once the model has given max_length tokens (an estimate: added tokens matched in the text do not
// count, known by their ids).
function earlyExit(ids, words, limit) {
  let kept = 0;
  let counted = 0;
  while (kept < ids.length && counted < limit) {
    const word = words[kept];
    do {
      if (!addedIds.has(ids[kept])) counted += 1;
      kept += 1;
    } while (kept < ids.length && word !== null && word !== undefined && words[kept] === word);
  }
  return kept;
}
// Per input of the run (under truncation t): {panic, encodings (estimated; null when not needed)}. A panic is
// predicted from the whole sequences' lengths and from their lengths after the early exit (either predicting one
// is enough: a panic aborts the process); the encodings from the lengths after the early exit.
async function truncationPlan(run, t, wantCount) {
  const isPair = run.pairs !== null && run.pairs !== undefined;
  const none = run.texts.map(() => ({ panic: false, encodings: null }));
  if (!t) return none;
  const added = run.add_special_tokens ? await countAdded(plain(), isPair) : 0;
  const maxLength = t.max_length - added;
  // Without a cut shorter than the stride nothing can panic: LongestFirst cuts a pair to at least half the budget.
  const least = (t.strategy ?? "longest_first") === "longest_first" ? (isPair ? Math.floor(maxLength / 2) : maxLength) : 0;
  const mayPanic = (t.stride ?? 0) > 0 && (t.stride ?? 0) >= least;
  if (!mayPanic && !wantCount) return none;
  const encodings = await Promise.all(run.texts.map((text, i) =>
    plain().encode(text, isPair ? run.pairs[i] : null, { addSpecialTokens: false })));
  return encodings.map((e) => {
    const sequences = e.getSequenceIds();
    const ids = e.getIds();
    const words = e.getWordIds();
    const of = (s) => ids.map((_, k) => k).filter((k) => sequences[k] === s);
    const [first, second] = [of(0), isPair ? of(1) : null];
    const whole = cutsOf(t, first.length, second ? second.length : null, maxLength);
    const cut = (ks) => earlyExit(ks.map((k) => ids[k]), ks.map((k) => words[k]), t.max_length);
    const onlySecond = (t.strategy ?? "longest_first") === "only_second";
    const exited = cutsOf(t, onlySecond ? first.length : cut(first), second ? cut(second) : null, maxLength);
    return { panic: mayPanic && (panics(t, whole) || panics(t, exited)), encodings: wantCount ? encodingsOf(t, exited) : null };
  });
}

function fields(e) {
  return {
    ids: e.getIds(),
    type_ids: e.getTypeIds(),
    attention_mask: e.getAttentionMask(),
    offsets: e.getOffsets(),
    word_ids: e.getWordIds().map((w) => (w === undefined ? null : w)),
    sequence_ids: e.getSequenceIds().map((s) => (s === undefined ? null : s)),
    overflowing: e.getOverflowing().map(fields),
  };
}

// encode_batch_char_offsets for pairs (see the header): per pair encode(a, b), then the batch's padding. With
// maxWindows, the pairs whose encoding has more overflowing windows (nested ones counted) are left out before the
// batch is padded: {encodings, capped (their indices)}.
const windowCount = (e) => e.getOverflowing().reduce((n, w) => n + 1 + windowCount(w), 0);
async function encodePairs(tokenizer, texts, pairs, add, padding, maxWindows) {
  const settled = await Promise.allSettled(texts.map((text, i) => tokenizer.encode(text, pairs[i], { addSpecialTokens: add })));
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
  let encodings = settled.map((s) => s.value);
  const capped = [];
  if (maxWindows !== null && maxWindows !== undefined) {
    encodings.forEach((e, i) => {
      if (windowCount(e) > maxWindows) capped.push(i);
    });
    encodings = encodings.filter((_, i) => !capped.includes(i));
  }
  batchPad(encodings, padding);
  return { encodings, capped };
}
function batchPad(encodings, padding) {
  if (!padding || encodings.length === 0) return;
  let length = padding.length ?? Math.max(...encodings.map((e) => e.getLength()));
  const multiple = padding.pad_to_multiple_of ?? 0;
  if (multiple > 0 && length % multiple > 0) length += multiple - (length % multiple);
  const options = paddingOptions(padding);
  delete options.maxLength;
  delete options.padToMultipleOf;
  for (const e of encodings) e.pad(length, options);
}
// The batch of inputs `indices` (into the run's texts): {encodings, capped (run indices)}.
async function encodeBatch(tokenizer, run, indices, padding) {
  const add = run.add_special_tokens ?? true;
  const texts = indices.map((i) => run.texts[i]);
  if (run.pairs) {
    const { encodings, capped } = await encodePairs(tokenizer, texts, indices.map((i) => run.pairs[i]), add, padding,
                                                    run.max_windows);
    return { encodings, capped: capped.map((k) => indices[k]) };
  }
  return { encodings: await tokenizer.encodeBatch(texts, { addSpecialTokens: add }), capped: [] };
}

const message = (error) => String(error?.message ?? error);
const output = [];
let selfCheckFailed = false;
for (const run of runs) {
  const entry = { name: run.name };
  output.push(entry);
  const { tokenizer, configError } = await tokenizerFor(run);
  if (configError) {
    entry.config_error = configError;
    entry.encodings = [];
    continue;
  }
  const truncation = truncationOf(run.truncation);
  const padding = paddingOf(run.padding);
  const isPair = run.pairs !== null && run.pairs !== undefined;
  const add = run.add_special_tokens ?? true;
  // Inputs Hugging Face would panic on, and pairs far past max_windows (their windows would fill the memory), are
  // left out before encoding; the rest is capped on the windows Hugging Face gives.
  const maxWindows = isPair ? run.max_windows ?? null : null;
  const plan = await truncationPlan(run, truncation, maxWindows !== null);
  const skipped = plan.map((p, i) => (p.panic ? i : -1)).filter((i) => i >= 0);
  if (skipped.length > 0) entry.skipped = skipped;
  const precapped = plan.map((p, i) => (!p.panic && p.encodings !== null && p.encodings - 1 > 4 * maxWindows ? i : -1)).filter((i) => i >= 0);
  let indices = run.texts.map((_, i) => i).filter((i) => !skipped.includes(i) && !precapped.includes(i));
  let result;
  try {
    result = await encodeBatch(tokenizer, run, indices, padding);
    if (args["self-check"] && !isPair && indices.length > 0) {
      const emulated = await Promise.all(indices.map((i) => tokenizer.encode(run.texts[i], null, { addSpecialTokens: add })));
      batchPad(emulated, padding);
      if (JSON.stringify(emulated.map(fields)) !== JSON.stringify(result.encodings.map(fields))) {
        selfCheckFailed = true;
        console.error(`self-check: ${run.name}: encode + pad differs from encodeBatch`);
      }
    }
  } catch (error) {
    entry.error = message(error);
    // Which inputs Hugging Face refuses on their own; the batch of the others is encoded (and compared) too.
    const alone = await Promise.allSettled(indices.map((i) =>
      tokenizer.encode(run.texts[i], isPair ? run.pairs[i] : null, { addSpecialTokens: add })));
    entry.refused = indices.filter((_, k) => alone[k].status === "rejected");
    indices = indices.filter((i) => !entry.refused.includes(i));
    try {
      result = await encodeBatch(tokenizer, run, indices, padding);
    } catch (again) {
      entry.rest_error = message(again);
      result = { encodings: [], capped: [] };
    }
  }
  const capped = [...precapped, ...result.capped].sort((x, y) => x - y);
  if (capped.length > 0) entry.capped = capped;
  entry.encodings = result.encodings.map(fields);
}
fs.writeFileSync(args.output, JSON.stringify(output));
process.exit(selfCheckFailed ? 3 : 0);

// The npm peer of bench/train_wordpiece.sh: Hugging Face tokenizers 0.23.2 trains a WordPiece vocabulary on FILE
// with the tokenizer TEMPLATE's normalizer and pre-tokenizer (BertNormalizer, BertPreTokenizer) and the binding's
// only trainer, the model's default WordPieceTrainer (30,000 ids, no special tokens, min_frequency 0). Writes OUT
// with "[UNK]" appended to the vocabulary (the trainer adds none, and WordPiece needs it to encode unseen
// characters), and prints the training seconds (timed inside node, load excluded).
//
//   RAYON_NUM_THREADS=2 node bench/train_wordpiece_peer.mjs NODE_MODULES TEMPLATE OUT FILE...
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [modules, template, out, ...files] = process.argv.slice(2);
const hf = createRequire(path.join(path.resolve(modules), "noop.js"))("tokenizers");
const json = JSON.parse(fs.readFileSync(template, "utf8"));
json.model.vocab = { "[UNK]": 0 };
json.added_tokens = [];
json.post_processor = null;
const tokenizer = hf.Tokenizer.fromString(JSON.stringify(json));
const start = performance.now();
tokenizer.train(files);
const seconds = (performance.now() - start) / 1000;
tokenizer.save(out, false);
const trained = JSON.parse(fs.readFileSync(out, "utf8"));
const vocab = trained.model.vocab;
if (!("[UNK]" in vocab)) vocab["[UNK]"] = Object.keys(vocab).length;
fs.writeFileSync(out, JSON.stringify(trained));
console.log(seconds.toFixed(3));

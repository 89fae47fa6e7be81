// The npm peer of bench/load.sh: Hugging Face tokenizers 0.23.2 loading a tokenizer file and encoding one word,
// timed inside node (node's own start excluded). Prints "WALL CPU": the median wall seconds and the median CPU
// seconds (user + system of the node process, all its threads) of ROUNDS loads, each a new tokenizer.
//
//   node bench/load_peer.mjs NODE_MODULES ROUNDS tokenizer.json
//   node bench/load_peer.mjs NODE_MODULES ROUNDS vocab.json merges.txt     (GPT-2's two files: BPE.fromFile)
import path from "node:path";
import { createRequire } from "node:module";

const [modules, rounds, file, merges] = process.argv.slice(2);
const hf = createRequire(path.join(path.resolve(modules), "noop.js"))("tokenizers");

async function loadOnce() {
  let tokenizer;
  if (merges) {
    tokenizer = new hf.Tokenizer(await hf.BPE.fromFile(file, merges));
    tokenizer.setPreTokenizer(hf.byteLevelPreTokenizer(false, true));
  } else {
    tokenizer = hf.Tokenizer.fromFile(file);
  }
  return (await tokenizer.encode("hello", null, { addSpecialTokens: false })).getIds().length;
}

await loadOnce();  // Warm-up: the first call also loads the native module.
const walls = [];
const cpus = [];
for (let r = 0; r < Number(rounds); r++) {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  await loadOnce();
  const used = process.cpuUsage(cpu);
  walls.push(Number(process.hrtime.bigint() - start) / 1e9);
  cpus.push((used.user + used.system) / 1e6);
}
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`${median(walls)} ${median(cpus)}`);

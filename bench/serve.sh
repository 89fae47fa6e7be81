#!/usr/bin/env bash
# `tokvec serve` throughput and latency (bench/serve_bench.mjs) for the small test model (hf_roberta_f32: 2 layers,
# 32 wide) and a GPT-2-small-shaped model (12 layers, 768 wide, 12 heads, random weights via init, mean pooling):
# embeddings/s and tokens/s with batching on and off in the same run, p50/p99 latency under 16 concurrent
# clients, and the HTTP overhead against the in-process call. Only 127.0.0.1. Prints the load average first.
#
#   bash bench/serve.sh [build/tokvec] [THREADS]
set -euo pipefail
TOKVEC=$(realpath "${1:-build/tokvec}")
THREADS=${2:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(dirname "$TOKVEC")/bench_serve
mkdir -p "$WORK"
if [ ! -f "$WORK/gpt2_768/model.safetensors" ]; then
  rm -rf "$WORK/gpt2_768"
  "$TOKVEC" init --tokenizer "$ROOT/tests/attention/testdata/hf_gpt2_f32/vocab.json" --arch gpt2 --d-model 768 \
    --heads 12 --layers 12 --max-len 1024 --seed 1 -o "$WORK/gpt2_768" >/dev/null
fi
# 400 seeded texts of 3 to 8 words (10-40 tokens with the test vocabulary).
node -e "
const w = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'dog', 'ran', 'far', 'away', 'is', 'lovely', 'your', 'and'];
let s = 7; const r = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
const out = [];
for (let i = 0; i < 400; i++) out.push(Array.from({length: 3 + Math.floor(r() * 6)}, () => w[Math.floor(r() * w.length)]).join(' '));
require('fs').writeFileSync('$WORK/texts.txt', out.join('\n') + '\n');"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); --threads $THREADS"
node "$ROOT/bench/serve_bench.mjs" --tokvec "$TOKVEC" --model "$ROOT/tests/attention/testdata/hf_roberta_f32" \
  --texts "$WORK/texts.txt" --clients 16 --requests 100 --threads "$THREADS"
node "$ROOT/bench/serve_bench.mjs" --tokvec "$TOKVEC" --model "$WORK/gpt2_768" --pooling mean \
  --texts "$WORK/texts.txt" --clients 16 --requests 8 --threads "$THREADS"

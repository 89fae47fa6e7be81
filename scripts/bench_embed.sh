#!/usr/bin/env bash
# Embedding throughput of a GPT-2-small-shaped model (12 layers, 768 wide, 12 heads, random weights via init):
# 32 lines of exactly 128 tokens, mean pooling, with 1 and 2 threads. Prints tokens per second of wall time and per
# CPU-second (the latter is what to compare on a shared, loaded machine).
#
#   bash scripts/bench_embed.sh build/tokvec [WORK_DIR]
set -euo pipefail
TOKVEC=${1:-build/tokvec}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${2:-$(dirname "$TOKVEC")/bench_embed}
TOKENIZER="$ROOT/tests/attention/testdata/hf_gpt2_f32/vocab.json"  # 297 tokens; the vocabulary size barely matters
mkdir -p "$WORK"
if [ ! -f "$WORK/gpt2_768/model.safetensors" ]; then
  rm -rf "$WORK/gpt2_768"
  "$TOKVEC" init --tokenizer "$TOKENIZER" --arch gpt2 --d-model 768 --heads 12 --layers 12 --max-len 1024 --seed 1 \
    -o "$WORK/gpt2_768"
fi
# With this tokenizer the line below is exactly 128 tokens (checked: the json "ids" length).
LINE="The quick brown fox jumps over the lazy dog and your cat is a lovely cat. The quick brown fox jumps over the lazy dog and your cat is a lovely cat. The quick brown fox jumps over the lazy dog and!!!"
: > "$WORK/lines.txt"
for _ in $(seq 32); do echo "$LINE" >> "$WORK/lines.txt"; done
TOKENS=$(echo "$LINE" | "$TOKVEC" embed -m "$WORK/gpt2_768" --format json | sed 's/.*"ids": \[\([^]]*\)\].*/\1/' | tr ',' '\n' | wc -l)
echo "tokens per line: $TOKENS, lines: 32, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for threads in 1 2; do
  start=$(date +%s.%N)
  cpu=$( { /usr/bin/time -f '%U %S' "$TOKVEC" embed -m "$WORK/gpt2_768" --lines --pooling mean --format npy \
           -o "$WORK/out$threads.npy" --threads "$threads" "$WORK/lines.txt"; } 2>&1 | tail -1)
  end=$(date +%s.%N)
  awk -v t="$threads" -v n=$((TOKENS * 32)) -v s="$start" -v e="$end" -v cpu="$cpu" 'BEGIN {
    split(cpu, c, " "); wall = e - s; used = c[1] + c[2];
    printf "threads %d: %d tokens in %.2f s wall = %.0f tokens/s; %.2f CPU-s = %.0f tokens per CPU-second\n",
           t, n, wall, n / wall, used, n / used }'
done
cmp -s "$WORK/out1.npy" "$WORK/out2.npy" && echo "outputs identical for 1 and 2 threads"

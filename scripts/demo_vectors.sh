#!/usr/bin/env bash
# Contextual vectors and an attention heatmap for "Your cat is a lovely cat", from a small random model built
# around a trained tokenizer. Called by scripts/demo.sh after the tokenizers are trained:
#
#   bash scripts/demo_vectors.sh build/tokvec build/demo/byte.tokvec build/demo
#
# Writes OUT/model/ (init), OUT/cat_vectors.json (embed), OUT/cat_attention.svg and .html (attend).
# The weights are random (GPT-2's initialisation, seed 42), so the attention is close to uniform: the demo shows
# the plumbing, not a trained model. See docs/models.md for Hugging Face checkpoints.
set -euo pipefail
TOKVEC=${1:-build/tokvec}
TOKENIZER=${2:?usage: demo_vectors.sh TOKVEC TOKENIZER_MODEL [OUT_DIR]}
OUT=${3:-build/demo}
TEXT="Your cat is a lovely cat"
mkdir -p "$OUT"

step() { printf '\n== %s\n$ %s\n' "$1" "$2"; }

step "init: a 2-layer, 4-head, 64-wide GPT-2-style model around the byte-level tokenizer, seeded random weights" \
  "tokvec init --tokenizer $TOKENIZER --arch gpt2 --d-model 64 --heads 4 --layers 2 --max-len 128 --seed 42 -o $OUT/model"
rm -rf "$OUT/model"
"$TOKVEC" init --tokenizer "$TOKENIZER" --arch gpt2 --d-model 64 --heads 4 --layers 2 --max-len 128 --seed 42 \
  -o "$OUT/model" 2>&1

step "embed: one contextual vector per token (first 6 of 64 dimensions shown; all in $OUT/cat_vectors.json)" \
  "echo '$TEXT' | tokvec embed -m $OUT/model --format json -o $OUT/cat_vectors.json"
printf '%s\n' "$TEXT" | "$TOKVEC" embed -m "$OUT/model" --format json -o "$OUT/cat_vectors.json"
printf '%s\n' "$TEXT" | "$TOKVEC" attend -m "$OUT/model" --format json | sed -e 's/.*"tokens": *\[//' -e 's/\], *"weights".*//' \
  | tr ',' '\n' | sed -e 's/^"//' -e 's/"$//' > "$OUT/cat_tokens.txt"
printf '%s\n' "$TEXT" | "$TOKVEC" embed -m "$OUT/model" --format tsv | cut -f1-6 | paste "$OUT/cat_tokens.txt" - \
  | awk -F'\t' '{ printf "%-10s", $1; for (i = 2; i <= NF; i++) printf " %10.5f", $i; printf "\n" }'
rm -f "$OUT/cat_tokens.txt"

step "embed --pooling mean --normalize: one unit vector for the whole text (first 6 dimensions)" \
  "echo '$TEXT' | tokvec embed -m $OUT/model --pooling mean --normalize --format tsv"
printf '%s\n' "$TEXT" | "$TOKVEC" embed -m "$OUT/model" --pooling mean --normalize --format tsv | cut -f1-6

step "attend: layer 1, head 0 (causal: each token attends to itself and earlier tokens)" \
  "echo '$TEXT' | tokvec attend -m $OUT/model --layer 1 --head 0 --svg $OUT/cat_attention.svg --html $OUT/cat_attention.html"
printf '%s\n' "$TEXT" | "$TOKVEC" attend -m "$OUT/model" --layer 1 --head 0 \
  --svg "$OUT/cat_attention.svg" --html "$OUT/cat_attention.html"
echo "heatmap: $OUT/cat_attention.svg (hover the cells in $OUT/cat_attention.html)"

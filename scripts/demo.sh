#!/usr/bin/env bash
# make demo: train tokenizers on the embedded corpus (data/corpus.txt), show the merges, tokenize a sentence, decode
# it back; then train a small model on the same corpus and show what it learned (scripts/demo_vectors.sh): the falling
# loss, held-out perplexity, attention that is not uniform, nearest words. Uses data/ only; under 3 minutes on 2 cores.
#
#   bash scripts/demo.sh build/tokvec        # models go to build/demo/ (or $DEMO_DIR)
set -euo pipefail
TOKVEC=${1:-build/tokvec}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS="$ROOT/data/corpus.txt"
DEMO_DIR=${DEMO_DIR:-$(dirname "$TOKVEC")/demo}
mkdir -p "$DEMO_DIR"
SENTENCE="The cat watched the gardener walk to the city market."

step() { printf '\n== %s\n$ %s\n' "$1" "$2"; }

# 1. Classic (word) BPE: words at whitespace, </w> ends each word.
step "train a word model (classic BPE, 400 merges)" \
  "tokvec train --type word --merges 400 -o $DEMO_DIR/word.tokvec data/corpus.txt"
"$TOKVEC" train --type word --merges 400 -o "$DEMO_DIR/word.tokvec" "$CORPUS"
step "its summary" "tokvec inspect $DEMO_DIR/word.tokvec"
"$TOKVEC" inspect "$DEMO_DIR/word.tokvec"
step "its first merges" "tokvec inspect $DEMO_DIR/word.tokvec --merges | head"
"$TOKVEC" inspect "$DEMO_DIR/word.tokvec" --merges | head
step "tokens of a sentence" "echo '$SENTENCE' | tokvec encode -m $DEMO_DIR/word.tokvec --tokens"
echo "$SENTENCE" | "$TOKVEC" encode -m "$DEMO_DIR/word.tokvec" --tokens
step "their ids" "echo '$SENTENCE' | tokvec encode -m $DEMO_DIR/word.tokvec"
IDS=$(echo "$SENTENCE" | "$TOKVEC" encode -m "$DEMO_DIR/word.tokvec")
echo "$IDS"
step "decoded back (each </w> becomes one space)" "echo '$IDS' | tokvec decode -m $DEMO_DIR/word.tokvec"
echo "$IDS" | "$TOKVEC" decode -m "$DEMO_DIR/word.tokvec"
echo

# 2. Byte-level BPE (GPT-2 style): any bytes encode; merges print in GPT-2's byte-to-unicode spelling.
step "train a byte-level model (GPT-2 split pattern, 600 ids, one special token)" \
  "tokvec train --type byte --pattern gpt2 --vocab-size 600 --special '<|endoftext|>' -o $DEMO_DIR/byte.tokvec data/corpus.txt"
"$TOKVEC" train --type byte --pattern gpt2 --vocab-size 600 --special '<|endoftext|>' -o "$DEMO_DIR/byte.tokvec" "$CORPUS"
step "its first merges (Ġ is a space)" "tokvec inspect $DEMO_DIR/byte.tokvec --merges | head"
"$TOKVEC" inspect "$DEMO_DIR/byte.tokvec" --merges | head
step "tokens of the sentence and a special token" \
  "echo '$SENTENCE<|endoftext|>' | tokvec encode -m $DEMO_DIR/byte.tokvec --tokens --allow-special"
echo "$SENTENCE<|endoftext|>" | "$TOKVEC" encode -m "$DEMO_DIR/byte.tokvec" --tokens --allow-special
step "ids with byte offsets" "echo '$SENTENCE' | tokvec encode -m $DEMO_DIR/byte.tokvec --format json"
echo "$SENTENCE" | "$TOKVEC" encode -m "$DEMO_DIR/byte.tokvec" --format json
step "decoded back, byte for byte" "tokvec encode ... | tokvec decode -m $DEMO_DIR/byte.tokvec"
echo "$SENTENCE" | "$TOKVEC" encode -m "$DEMO_DIR/byte.tokvec" | "$TOKVEC" decode -m "$DEMO_DIR/byte.tokvec"

# 3. A model that has learned: init / fit / eval / attend / embed around the byte-level tokenizer.
bash "$ROOT/scripts/demo_vectors.sh" "$TOKVEC" "$DEMO_DIR/byte.tokvec" "$DEMO_DIR"

#!/usr/bin/env bash
# Records md5 sums of outputs that a change of structure must leave byte-identical: ids and offsets from the three
# tiktoken encodings and from Hugging Face tokenizer.json files, trained model files (tokvec text, tokenizer.json),
# and embed vectors (npy) of the checkpoints under tests/attention/testdata, f32/bf16/int8, plus a short `fit`.
#
#   bash scripts/record_outputs.sh build/tokvec > before.txt   # on the old tree
#   bash scripts/record_outputs.sh build/tokvec > after.txt    # on the new one
#   diff before.txt after.txt                                  # no output: nothing moved
#
# Needs ../shared (or TOKVEC_SHARED_DIR); about 2 minutes on 2 cores.
set -euo pipefail
TOKVEC=$(realpath "${1:-build/tokvec}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=$(realpath -m "${TOKVEC_SHARED_DIR:-$ROOT/../shared}")
if [[ ! -d "$SHARED/vocab" ]]; then echo "SKIP: no shared data at $SHARED" >&2; exit 77; fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$ROOT"
sum() { printf '%s  %s\n' "$(md5sum | cut -d' ' -f1)" "${1//$WORK/WORK}"; }
# out NAME CMD...: the md5 of CMD's standard output and error, and its exit code.
out() {
  local name=$1 rc=0
  shift
  "$@" >"$WORK/out" 2>&1 || rc=$?
  # The temporary directory's name differs from run to run: messages name it WORK.
  printf '%s  %s (exit %d)\n' "$(sed "s|$WORK|WORK|g" "$WORK/out" | md5sum | cut -d' ' -f1)" "${name//$WORK/WORK}" "$rc"
}
# The tokenizer files of the tests (tokenizer.json shapes of every model kind; goldens load as errors).
tokenizer_files() { find tests/data -name '*.json' ! -path '*/training/*' ! -path '*/attention/*' | sort; }
C=$SHARED/corpora
head -c 2000000 "$C/wikitext2-test.txt" > "$WORK/wiki.txt"
head -n 400 "$C/botchan.txt" > "$WORK/botchan.txt"
head -c 300000 "$C/wagahaiwa_nekodearu.txt" > "$WORK/ja.txt"

# 1. Encoding with the tiktoken files: ids, --lines, offsets.
for enc in gpt2 cl100k_base o200k_base; do
  for f in wiki botchan ja; do
    "$TOKVEC" encode -m "$SHARED/vocab/$enc.tiktoken" "$WORK/$f.txt" | sum "encode $enc $f"
  done
  "$TOKVEC" encode -m "$SHARED/vocab/$enc.tiktoken" --lines "$WORK/botchan.txt" | sum "encode --lines $enc botchan"
  "$TOKVEC" encode -m "$SHARED/vocab/$enc.tiktoken" --format json --lines "$WORK/botchan.txt" | sum "encode json $enc"
done
"$TOKVEC" encode -m "$SHARED/vocab/gpt2/vocab.json" "$WORK/wiki.txt" | sum "encode vocab.json+merges wiki"

# 2. Hugging Face tokenizer.json files of every model kind (the test checkpoints and generated fixtures).
for tj in tests/attention/testdata/hf_*_f32/tokenizer.json $(tokenizer_files); do
  out "encode json $tj" "$TOKVEC" encode -m "$tj" --format json --lines "$WORK/botchan.txt"
  out "encode $tj ja" "$TOKVEC" encode -m "$tj" "$WORK/ja.txt"
  "$TOKVEC" encode -m "$tj" "$WORK/botchan.txt" >"$WORK/ids.txt" 2>/dev/null || true
  out "decode $tj" "$TOKVEC" decode -m "$tj" "$WORK/ids.txt"
done

# 3. Training: word and byte models, text and tokenizer.json outputs.
"$TOKVEC" train --type word --merges 1500 -o "$WORK/word.tokvec" "$WORK/wiki.txt" 2>/dev/null
sum "train word" < "$WORK/word.tokvec"
"$TOKVEC" train --type byte --pattern gpt2 --vocab-size 1500 --special '<|endoftext|>' -o "$WORK/byte.tokvec" \
  "$WORK/wiki.txt" "$WORK/ja.txt" 2>/dev/null
sum "train byte" < "$WORK/byte.tokvec"
"$TOKVEC" train --type byte --pattern cl100k --vocab-size 1200 -o "$WORK/byte.json" "$WORK/wiki.txt" 2>/dev/null
sum "train byte tokenizer.json" < "$WORK/byte.json"
"$TOKVEC" count --type byte --pattern gpt2 -o "$WORK/counts.txt" "$WORK/botchan.txt" 2>/dev/null
sum "count byte" < "$WORK/counts.txt"

# 4. Embedding the test checkpoints: f32, and bf16/int8 where the model takes them.
head -n 24 "$WORK/botchan.txt" | grep -v '^\s*$' | cut -c1-24 > "$WORK/lines.txt"  # within the tiny models' 40 tokens
for dir in tests/attention/testdata/hf_*_f32; do
  for dtype in f32 bf16 int8; do
    if "$TOKVEC" embed -m "$dir" --lines --pooling mean --format npy --dtype "$dtype" -o "$WORK/v.npy" "$WORK/lines.txt" \
        2>"$WORK/err.txt"; then
      sum "embed $dir $dtype" < "$WORK/v.npy"
    else
      sum "embed $dir $dtype (error)" < "$WORK/err.txt"
    fi
  done
done

# 5. A small model made by `init`, trained by `fit` for a few steps (both models and the loss log).
"$TOKVEC" init --tokenizer "$WORK/byte.tokvec" --arch gpt2 --d-model 32 --heads 2 --layers 2 --max-len 32 --seed 7 \
  -o "$WORK/init" >/dev/null 2>&1
find "$WORK/init" -type f | sort | while read -r f; do sum "init $(basename "$f")" < "$f"; done
"$TOKVEC" fit -m "$WORK/init" --data "$WORK/botchan.txt" --seq-len 32 --batch 4 --steps 6 --threads 2 \
  -o "$WORK/fit" >/dev/null 2>&1 || echo "fit failed"
# metrics.jsonl and trainer_state.json hold timings; the weights and the optimizer state must match.
find "$WORK/fit" -type f ! -name metrics.jsonl ! -name trainer_state.json | sort | while read -r f; do
  sum "fit $(basename "$f")" < "$f"
done
head -n 1 "$WORK/lines.txt" > "$WORK/line.txt"
out "attend fit" "$TOKVEC" attend -m "$WORK/fit" --format json "$WORK/line.txt"
for dir in tests/attention/testdata/hf_bert_f32 tests/attention/testdata/hf_gpt2_f32; do
  out "attend $dir" "$TOKVEC" attend -m "$dir" --layer 1 --head 1 --format json "$WORK/line.txt"
done

# What inspect says and what convert writes, for every kind of file (convert's refusals are outputs too).
for m in "$SHARED/vocab/gpt2.tiktoken" "$SHARED/vocab/cl100k_base.tiktoken" "$SHARED/vocab/gpt2/vocab.json" \
    "$WORK/word.tokvec" "$WORK/byte.tokvec" "$WORK/byte.json" \
    tests/attention/testdata/hf_*_f32/tokenizer.json $(tokenizer_files); do
  out "inspect $m" "$TOKVEC" inspect "$m"
  out "inspect --merges $m" "$TOKVEC" inspect "$m" --merges
  for to in json tiktoken; do
    rm -f "$WORK"/converted*
    out "convert $to $m" "$TOKVEC" convert -m "$m" --to "$to" -o "$WORK/converted"
    for f in "$WORK"/converted*; do [[ -f "$f" ]] && sum "converted $to $m" < "$f"; done
  done
done

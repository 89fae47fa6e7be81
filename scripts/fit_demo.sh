#!/usr/bin/env bash
# It learns, shown: train a vocabulary, then a small GPT-2 on it, and print the falling loss, the validation
# perplexity against the unigram baseline, an attention heatmap of the trained model, and the contextual vectors
# of "bank" in held-out sentences (data/bank_senses.tsv): same-sense against cross-sense cosines, before and
# after training.
#
#   bash scripts/fit_demo.sh build/tokvec         # work goes to build/fit_demo/ (or $DEMO_DIR)
#
# Data: data/corpus.txt and, when ../shared is present, tinyshakespeare, gutenberg-big and wikitext2-test (5.2 MB;
# "bank" in both senses), the last 10% of the lines held out for validation. Sizes via the environment: LAYERS (4),
# D_MODEL (128), HEADS (4), SEQ_LEN (128), BATCH (16), STEPS (300), VOCAB (4000), THREADS (2). The defaults take
# about 2 minutes on 2 idle cores (training ~1.7, the perplexity evaluations of 1.5 MB of held-out text most of
# the rest). CHECK=1 exits 1 unless the trained model's same-sense cosine exceeds its cross-sense cosine and its
# margin exceeds the untrained model's (the slow test fit_demo_senses_slow).
set -euo pipefail
TOKVEC=$(realpath "${1:-build/tokvec}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=$(realpath -m "${TOKVEC_SHARED_DIR:-$ROOT/../shared}")
DEMO_DIR=${DEMO_DIR:-$(dirname "$TOKVEC")/fit_demo}
LAYERS=${LAYERS:-4} D_MODEL=${D_MODEL:-128} HEADS=${HEADS:-4} SEQ_LEN=${SEQ_LEN:-128} BATCH=${BATCH:-16}
STEPS=${STEPS:-300} VOCAB=${VOCAB:-4000} THREADS=${THREADS:-2} CHECK=${CHECK:-0}
PYTHON=/usr/bin/python3
rm -rf "$DEMO_DIR" && mkdir -p "$DEMO_DIR"

step() { printf '\n== %s\n$ %s\n' "$1" "$2"; }

# 1. Train / validation split by lines.
sources=("$ROOT/data/corpus.txt")
for f in tinyshakespeare gutenberg-big wikitext2-test; do
  [[ -f "$SHARED/corpora/$f.txt" ]] && sources+=("$SHARED/corpora/$f.txt")
done
cat "${sources[@]}" > "$DEMO_DIR/all.txt"
lines=$(wc -l < "$DEMO_DIR/all.txt")
head -n $((lines * 9 / 10)) "$DEMO_DIR/all.txt" > "$DEMO_DIR/train.txt"
tail -n +$((lines * 9 / 10 + 1)) "$DEMO_DIR/all.txt" > "$DEMO_DIR/valid.txt"
echo "data: ${sources[*]}: $(wc -c < "$DEMO_DIR/train.txt") bytes to train on, $(wc -c < "$DEMO_DIR/valid.txt") held out"

# 2. A byte-level vocabulary, then a GPT-2 with random weights around it.
step "a vocabulary" "tokvec train --type byte --pattern gpt2 --vocab-size $VOCAB --special '<|endoftext|>' ..."
"$TOKVEC" train --type byte --pattern gpt2 --vocab-size "$VOCAB" --special '<|endoftext|>' --threads "$THREADS" \
  -o "$DEMO_DIR/tok.tokvec" "$DEMO_DIR/train.txt"
step "a model" "tokvec init --arch gpt2 --d-model $D_MODEL --heads $HEADS --layers $LAYERS --max-len $SEQ_LEN ..."
"$TOKVEC" init --tokenizer "$DEMO_DIR/tok.tokvec" --arch gpt2 --d-model "$D_MODEL" --heads "$HEADS" \
  --layers "$LAYERS" --max-len "$SEQ_LEN" --seed 1 -o "$DEMO_DIR/init"

# 3. Train.
step "train it" "tokvec fit -m init --data train.txt --eval-data valid.txt --seq-len $SEQ_LEN --batch $BATCH --steps $STEPS ..."
start=$(date +%s)
"$TOKVEC" fit -m "$DEMO_DIR/init" --objective clm --data "$DEMO_DIR/train.txt" --eval-data "$DEMO_DIR/valid.txt" \
  --seq-len "$SEQ_LEN" --batch "$BATCH" --steps "$STEPS" --lr 2e-3 --warmup $((STEPS / 20 + 1)) \
  --weight-decay 0.1 --beta2 0.99 --log-every $((STEPS / 12 + 1)) --eval-every $((STEPS / 4 + 1)) \
  --threads "$THREADS" -o "$DEMO_DIR/fit"
echo "trained in $(( $(date +%s) - start )) s"
step "the learning curve (metrics.jsonl)" "step  loss  lr  eval_ppl"
$PYTHON - "$DEMO_DIR/fit/metrics.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    ev = "  eval_loss %.3f  eval_ppl %.1f" % (m["eval_loss"], m["eval_ppl"]) if "eval_loss" in m else ""
    print("step %5d  loss %.3f  lr %.2e  %7.0f tok/s%s" % (m["step"], m["loss"], m["lr"], m["tokens_per_s"], ev))
PY

# 4. Validation perplexity: random init, trained model, and the unigram baseline (token frequencies of train.txt,
#    add-one smoothed, scored on the same validation tokens the model predicts).
step "validation perplexity" "tokvec eval -m fit --data valid.txt --seq-len $SEQ_LEN"
before=$("$TOKVEC" eval -m "$DEMO_DIR/init" --data "$DEMO_DIR/valid.txt" --seq-len "$SEQ_LEN" --threads "$THREADS")
after=$("$TOKVEC" eval -m "$DEMO_DIR/fit" --data "$DEMO_DIR/valid.txt" --seq-len "$SEQ_LEN" --threads "$THREADS")
"$TOKVEC" encode -m "$DEMO_DIR/tok.tokvec" --format ids "$DEMO_DIR/train.txt" > "$DEMO_DIR/train.ids"
"$TOKVEC" encode -m "$DEMO_DIR/tok.tokvec" --format ids "$DEMO_DIR/valid.txt" > "$DEMO_DIR/valid.ids"
$PYTHON - "$DEMO_DIR/train.ids" "$DEMO_DIR/valid.ids" "$VOCAB" "$before" "$after" <<'PY'
import collections, json, math, sys
train = open(sys.argv[1]).read().split()
valid = open(sys.argv[2]).read().split()
vocab = int(sys.argv[3]) + 1
counts = collections.Counter(train)
total = len(train)
nll = -sum(math.log((counts[t] + 1) / (total + vocab)) for t in valid[1:]) / (len(valid) - 1)
before, after = json.loads(sys.argv[4]), json.loads(sys.argv[5])
print("random init:      ppl %8.1f  (loss %.3f)" % (before["ppl"], before["loss"]))
print("unigram baseline: ppl %8.1f  (loss %.3f)" % (math.exp(nll), nll))
print("trained model:    ppl %8.1f  (loss %.3f, %d tokens)" % (after["ppl"], after["loss"], after["tokens"]))
PY

# 5. Attention of the trained model: no longer near-uniform.
SENTENCE="The king said to his son that the crown would pass to him."
step "attention, layer 0 head 0" "echo '$SENTENCE' | tokvec attend -m fit --layer 0 --head 0 --svg attend.svg"
echo "$SENTENCE" | "$TOKVEC" attend -m "$DEMO_DIR/fit" --layer 0 --head 0 --svg "$DEMO_DIR/attend.svg" | head -20
echo "heatmap: $DEMO_DIR/attend.svg"

# 6. The ambiguous word: "bank" beside river words and beside money words, in sentences the model never saw.
#    The vector of "bank" is the last token's (each sentence ends with it; a causal model's vector there has read
#    the whole sentence).
step "contextual vectors of \"bank\" (data/bank_senses.tsv, held out)" \
  "tokvec embed -m fit --lines --pooling last --format npy -o bank_fit.npy bank_sentences.txt"
grep -v '^#' "$ROOT/data/bank_senses.tsv" | cut -f2 > "$DEMO_DIR/bank_sentences.txt"
for m in init fit; do
  "$TOKVEC" embed -m "$DEMO_DIR/$m" --lines --pooling last --format npy --threads "$THREADS" \
    -o "$DEMO_DIR/bank_$m.npy" "$DEMO_DIR/bank_sentences.txt"
done
checks=()
[[ "$CHECK" == 1 ]] && checks=(--require-margin trained --require-gain trained:untrained)
$PYTHON "$ROOT/scripts/sense_cosines.py" "$ROOT/data/bank_senses.tsv" "untrained=$DEMO_DIR/bank_init.npy" \
  "trained=$DEMO_DIR/bank_fit.npy" "${checks[@]}"

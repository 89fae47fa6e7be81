#!/usr/bin/env bash
# A model that has learned: a small GPT-2 trained on data/corpus.txt around the demo's byte-level tokenizer, then
# its falling loss, its held-out perplexity, its attention (per head: how far from uniform, and a heatmap of the
# sharpest head) and what its vectors know (nearest words). Called by scripts/demo.sh after the tokenizers:
#
#   bash scripts/demo_vectors.sh build/tokvec build/demo/byte.tokvec build/demo
#
# Uses data/ only (every 10th line of data/corpus.txt is held out: the weights never see it; the tokenizer did).
# Deterministic: fixed seeds, fixed thread count (fit's results are the same for any count anyway). About 10-20 s of
# training on 2 cores. Writes OUT/init (random weights, seed 1), OUT/model (trained; metrics.jsonl is the curve),
# OUT/attention.svg and .html. Needs /usr/bin/python3 with numpy (Debian's python3-numpy, in `make deps`).
# For a bigger run on ../shared corpora, and the two senses of "bank", see scripts/fit_demo.sh.
set -euo pipefail
TOKVEC=${1:-build/tokvec}
TOKENIZER=${2:?usage: demo_vectors.sh TOKVEC TOKENIZER_MODEL [OUT_DIR]}
OUT=${3:-build/demo}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=/usr/bin/python3
THREADS=2 STEPS=120 LAYERS=2 HEADS=4 D_MODEL=128 SEQ_LEN=64
SENTENCE="The cat watched the gardener walk to the city market."
WORDS=(cat city came under)
mkdir -p "$OUT"

step() { printf '\n== %s\n$ %s\n' "$1" "$2"; }

# 1. Data: 90% of the lines to train on, every 10th line held out.
awk 'NR % 10 != 0' "$ROOT/data/corpus.txt" > "$OUT/train.txt"
awk 'NR % 10 == 0' "$ROOT/data/corpus.txt" > "$OUT/valid.txt"
step "a small GPT-2 around the byte-level tokenizer: $LAYERS layers, $HEADS heads, $D_MODEL wide, rotary positions" \
  "tokvec init --tokenizer $TOKENIZER --arch gpt2 --positions rotary --d-model $D_MODEL --heads $HEADS --layers $LAYERS --max-len $SEQ_LEN --seed 1 -o $OUT/init"
rm -rf "$OUT/init" "$OUT/model"
"$TOKVEC" init --tokenizer "$TOKENIZER" --arch gpt2 --positions rotary --d-model "$D_MODEL" --heads "$HEADS" \
  --layers "$LAYERS" --max-len "$SEQ_LEN" --seed 1 -o "$OUT/init"

# 2. Train it (causal LM, AdamW, cosine schedule, dropout 0.1: the book is small, so it would soon learn it by heart).
step "train it on data/corpus.txt: $(wc -c < "$OUT/train.txt") bytes, $(wc -c < "$OUT/valid.txt") held out (every 10th line)" \
  "tokvec fit -m $OUT/init --data train.txt --eval-data valid.txt --seq-len $SEQ_LEN --batch 16 --steps $STEPS --lr 2e-3 --dropout 0.1 --seed 0 --threads $THREADS ... -o $OUT/model"
start=$(date +%s)
"$TOKVEC" fit -m "$OUT/init" --objective clm --data "$OUT/train.txt" --eval-data "$OUT/valid.txt" \
  --seq-len "$SEQ_LEN" --batch 16 --steps "$STEPS" --lr 2e-3 --warmup 10 --beta2 0.99 --dropout 0.1 --seed 0 \
  --log-every 20 --eval-every 20 --threads "$THREADS" -o "$OUT/model"
echo "trained in $(( $(date +%s) - start )) s"
step "the loss falls (training loss of the step, and loss on the held-out lines)" "cat $OUT/model/metrics.jsonl"
$PYTHON - "$OUT/model/metrics.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
rows = rows[:1] + [m for m in rows if "eval_loss" in m]
top = rows[0]["loss"]
for m in rows:
    held = "held-out %.3f" % m["eval_loss"] if "eval_loss" in m else ""
    print("step %4d  loss %.3f  %-32s %s" % (m["step"] + 1, m["loss"], "#" * round(32 * m["loss"] / top), held))
PY

# 3. Held-out perplexity against the untrained model and a unigram model of the training tokens (add-one).
step "held-out perplexity (lower is better)" "tokvec eval -m $OUT/model --data valid.txt --seq-len $SEQ_LEN"
before=$("$TOKVEC" eval -m "$OUT/init" --data "$OUT/valid.txt" --seq-len "$SEQ_LEN" --threads "$THREADS")
after=$("$TOKVEC" eval -m "$OUT/model" --data "$OUT/valid.txt" --seq-len "$SEQ_LEN" --threads "$THREADS")
"$TOKVEC" encode -m "$TOKENIZER" "$OUT/train.txt" > "$OUT/train.ids"
"$TOKVEC" encode -m "$TOKENIZER" "$OUT/valid.txt" > "$OUT/valid.ids"
$PYTHON - "$OUT/train.ids" "$OUT/valid.ids" "$before" "$after" "$OUT/model/config.json" <<'PY'
import collections, json, math, sys
train, valid = open(sys.argv[1]).read().split(), open(sys.argv[2]).read().split()
counts, vocab = collections.Counter(train), json.load(open(sys.argv[5]))["vocab_size"]
nll = -sum(math.log((counts[t] + 1) / (len(train) + vocab)) for t in valid[1:]) / (len(valid) - 1)
before, after = json.loads(sys.argv[3]), json.loads(sys.argv[4])
print("untrained model:  ppl %6.1f  (loss %.3f)" % (before["ppl"], before["loss"]))
print("unigram baseline: ppl %6.1f  (loss %.3f)" % (math.exp(nll), nll))
print("trained model:    ppl %6.1f  (loss %.3f, %d held-out tokens)" % (after["ppl"], after["loss"], after["tokens"]))
PY

# 4. Attention. Per head, over the sentence's queries (the first token has only itself to attend to, so it is left
#    out): the mean of each query's largest weight, and the mean entropy, each beside what uniform attention over
#    the visible tokens would give; and the head's strongest link. Then the sharpest head as a heatmap.
step "attention: where each head looks in \"$SENTENCE\"" \
  "echo '$SENTENCE' | tokvec attend -m $OUT/model --layer L --head H --format json"
for m in init model; do
  for ((l = 0; l < LAYERS; l++)); do
    for ((h = 0; h < HEADS; h++)); do
      echo "$SENTENCE" | "$TOKVEC" attend -m "$OUT/$m" --layer "$l" --head "$h" --format json > "$OUT/attention_${m}_$l$h.json"
    done
  done
done
$PYTHON - "$OUT" "$LAYERS" "$HEADS" <<'PY'
import json, math, sys
out, layers, heads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def stats(model, l, h):
    d = json.load(open("%s/attention_%s_%d%d.json" % (out, model, l, h)))
    w, rows = d["weights"], range(1, len(d["weights"]))
    top = sum(max(w[i][:i + 1]) for i in rows) / len(rows)
    bits = sum(-sum(p * math.log2(p) for p in w[i][:i + 1] if p > 0) for i in rows) / len(rows)
    i, j = max(((i, j) for i in rows for j in range(i + 1)), key=lambda ij: w[ij[0]][ij[1]])
    tokens = [t.replace("Ġ", "␣") for t in d["tokens"]]
    return tokens, top, bits, (tokens[i], tokens[j], w[i][j])
tokens = json.load(open("%s/attention_model_00.json" % out))["tokens"]
n = len(tokens) - 1
uniform_top = sum(1 / (i + 1) for i in range(1, n + 1)) / n
uniform_bits = sum(math.log2(i + 1) for i in range(1, n + 1)) / n
print("head    largest weight     entropy       strongest link (query -> key)")
print("        (uniform %.2f)  (uniform %.2f bits)" % (uniform_top, uniform_bits))
best = None
for l in range(layers):
    for h in range(heads):
        _, top, bits, (q, k, p) = stats("model", l, h)
        print("L%d H%d       %.2f           %.2f bits      %s -> %s  %.2f" % (l, h, top, bits, q, k, p))
        if best is None or bits < best[0]:
            best = (bits, l, h)
untrained = [stats("init", l, h) for l in range(layers) for h in range(heads)]
print("untrained, for comparison: largest weight %.2f-%.2f, entropy %.2f-%.2f bits (every head about uniform)" % (
    min(s[1] for s in untrained), max(s[1] for s in untrained), min(s[2] for s in untrained),
    max(s[2] for s in untrained)))
open("%s/sharpest_head.txt" % out, "w").write("%d %d\n" % (best[1], best[2]))
PY
read -r L H < "$OUT/sharpest_head.txt"
step "the sharpest head, L$L H$H (rows: queries, columns: the keys they attend to)" \
  "echo '$SENTENCE' | tokvec attend -m $OUT/model --layer $L --head $H --svg $OUT/attention.svg --html $OUT/attention.html"
echo "$SENTENCE" | "$TOKVEC" attend -m "$OUT/model" --layer "$L" --head "$H" --svg "$OUT/attention.svg" \
  --html "$OUT/attention.html" --format json > /dev/null
$PYTHON - "$OUT/attention_model_$L$H.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tokens, w = [t.replace("Ġ", "␣") for t in d["tokens"]], d["weights"]
shade = lambda p: "██" if p >= 0.6 else "▓▓" if p >= 0.4 else "▒▒" if p >= 0.2 else "░░" if p >= 0.1 else "··" if p >= 0.02 else "  "
print(" " * 14 + " ".join("%2d" % j for j in range(len(tokens))))
for i, t in enumerate(tokens):
    print(("%2d %-10s " % (i, t) + " ".join(shade(w[i][j]) for j in range(i + 1))).rstrip())
print("██ >= 0.6   ▓▓ >= 0.4   ▒▒ >= 0.2   ░░ >= 0.1   ·· >= 0.02")
PY
echo "heatmap with the numbers: $OUT/attention.svg (hover the cells in $OUT/attention.html)"

# 5. What the vectors know: each word of the corpus (one token, 3 times or more) embedded on its own, mean-pooled;
#    cosines after removing the mean vector of the set (contextual vectors share one large direction).
step "what its vectors know: nearest words (cosine), trained and untrained" \
  "tokvec embed -m $OUT/model --lines --pooling mean --format npy -o words_model.npy words.txt"
"$TOKVEC" encode -m "$TOKENIZER" --format json "$OUT/train.txt" > "$OUT/train_tokens.json"
$PYTHON - "$OUT/train_tokens.json" "$OUT/train.txt" > "$OUT/words.txt" <<'PY'
import collections, json, re, sys
enc = json.load(open(sys.argv[1]))
words = collections.Counter(re.findall(r"[a-z]+", open(sys.argv[2]).read()))
counts = collections.Counter(enc["tokens"])
for t in sorted(set(enc["tokens"])):
    if t.startswith("Ġ") and len(t) >= 4 and words[t[1:]] >= 3 and counts[t] >= 3:
        print(" " + t[1:])
PY
for m in init model; do
  "$TOKVEC" embed -m "$OUT/$m" --lines --pooling mean --format npy --threads "$THREADS" -o "$OUT/words_$m.npy" \
    "$OUT/words.txt"
done
$PYTHON - "$OUT/words.txt" "$OUT/words_model.npy" "$OUT/words_init.npy" "${WORDS[@]}" <<'PY'
import sys
import numpy as np
words = [w.strip() for w in open(sys.argv[1])]
def unit(path):
    v = np.load(path).astype(np.float64)
    v -= v.mean(axis=0)
    return v / np.linalg.norm(v, axis=1, keepdims=True)
trained, untrained = unit(sys.argv[2]), unit(sys.argv[3])
print("%d words; trained model:" % len(words))
def near(v, q):
    i = words.index(q)
    s = v @ v[i]
    s[i] = -2
    return "  ".join("%s %.2f" % (words[j], s[j]) for j in np.argsort(-s)[:5])
for q in sys.argv[4:]:
    print("  %-8s %s" % (q, near(trained, q)))
print("(words used in the same places end up close: nouns by nouns, verbs by verbs, prepositions by prepositions)")
print("untrained model (random neighbours):")
print("  %-8s %s" % (sys.argv[4], near(untrained, sys.argv[4])))
PY

# 6. CHECK=1 (the ctest demo_learns): exit 1 unless the model learned: the last logged training loss below 60% of
#    the first, held-out perplexity below the untrained model's and the unigram baseline's, and some head whose
#    mean largest weight is at least 1.5 times what uniform attention gives.
if [[ "${CHECK:-0}" == 1 ]]; then
  $PYTHON - "$OUT" "$LAYERS" "$HEADS" "$before" "$after" "$OUT/train.ids" "$OUT/valid.ids" <<'PY'
import collections, json, math, sys
out, layers, heads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
before, after = json.loads(sys.argv[4]), json.loads(sys.argv[5])
rows = [json.loads(line) for line in open("%s/model/metrics.jsonl" % out)]
train, valid = open(sys.argv[6]).read().split(), open(sys.argv[7]).read().split()
counts, vocab = collections.Counter(train), json.load(open("%s/model/config.json" % out))["vocab_size"]
unigram = math.exp(-sum(math.log((counts[t] + 1) / (len(train) + vocab)) for t in valid[1:]) / (len(valid) - 1))
tops = []
for l in range(layers):
    for h in range(heads):
        w = json.load(open("%s/attention_model_%d%d.json" % (out, l, h)))["weights"]
        tops.append(sum(max(w[i][:i + 1]) for i in range(1, len(w))) / (len(w) - 1))
n = len(w) - 1
uniform = sum(1 / (i + 1) for i in range(1, n + 1)) / n
failures = []
if not rows[-1]["loss"] < 0.6 * rows[0]["loss"]:
    failures.append("loss %.3f -> %.3f did not fall below 60%%" % (rows[0]["loss"], rows[-1]["loss"]))
if not after["ppl"] < min(before["ppl"], unigram):
    failures.append("held-out ppl %.1f not below untrained %.1f and unigram %.1f" % (after["ppl"], before["ppl"], unigram))
if not max(tops) >= 1.5 * uniform:
    failures.append("no head focuses: largest mean weight %.2f, uniform %.2f" % (max(tops), uniform))
if failures:
    print("demo check FAILED: " + "; ".join(failures))
    sys.exit(1)
print("demo check: loss %.3f -> %.3f, held-out ppl %.1f (untrained %.1f, unigram %.1f), sharpest head %.2f vs uniform %.2f"
      % (rows[0]["loss"], rows[-1]["loss"], after["ppl"], before["ppl"], unigram, max(tops), uniform))
PY
fi

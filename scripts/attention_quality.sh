#!/usr/bin/env bash
# What each kind of attention costs in quality: the same small model trained once per kind of attention
# (docs/attention_kinds.md) from the same initial weights, on the same data in the same batch order, then its loss
# and perplexity on held-out text, its training time and throughput, as markdown tables.
#
#   bash scripts/attention_quality.sh build/tokvec [OUT_DIR]     # OUT_DIR: default a new mktemp -d directory
#
# Design: two tables, each a fair comparison on its own; never compare a number of one with the other.
#   1. Causal LM (`--arch gpt2`, `--objective clm`): full, window:32, longformer:32,4, bigbird:16,1,1, performer:64,
#      linear — every kind a causal model can use. Causal LM is what tokvec's gpt2 trains, every token is a target
#      (MLM supervises 15% of them, so 300 steps of MLM separate the kinds far less), and its perplexity is exact.
#      bigbird is valid here: its blocks are intersected with the causal mask (query block a sees a-1, a, the G
#      global blocks and R random earlier blocks), as docs/attention_kinds.md defines.
#   2. Masked LM (`--arch encoder`, `--objective mlm`): full against linformer:32. Linformer is bidirectional only
#      (`init --attention linformer:K` refuses gpt2: the projection along the sequence mixes in future tokens), so it
#      cannot join table 1; it gets its own baseline, a full-attention encoder with the same weights.
#      MLM_KINDS="full window:32 …" puts more kinds in this table (every kind runs bidirectionally in an encoder).
# Same start: every model of a table is `tokvec init` with the same --seed, and the weights they share are then
# copied from the table's full-attention model, so they start from identical bytes. (Needed for linformer: init
# draws its E and F from the same generator stream inside layer 0, which shifts every later layer's weights.)
# Same data: the same vocabulary, the same --seed (window shuffle, MLM masks), steps, lr schedule and threads.
#
# Data (scripts/fit_demo.sh's recipe): data/corpus.txt, tinyshakespeare, gutenberg-big and wikitext2-test from
# ../shared/corpora (or $TOKVEC_SHARED_DIR), the last 10% of the lines of EACH source held out (fit_demo holds out
# the last 10% of their concatenation, which is mostly wikitext and so off the training distribution), a 4000-token
# byte-level vocabulary (with <|endoftext|> and the <mask> that mlm needs) trained on the training part.
# Without the shared corpora the script prints a SKIP line and exits 0: data/corpus.txt alone (14 KB, ~4k tokens)
# would be seen ~150 times in 300 steps, a memorisation test rather than a comparison.
#
# Columns: train loss at end = mean of the per-step batch losses over the last 10% of the steps (metrics.jsonl,
# --log-every 1); validation loss / perplexity = `tokvec eval` on the held-out text in windows of SEQ_LEN (mlm: the
# masked tokens of eval's fixed masks, so an MLM perplexity is not a next-token perplexity); training time = wall
# time of `tokvec fit` (process start, corpus encoding and saving included); tokens/s = tokens trained on / the
# summed step times of metrics.jsonl (training steps only).
#
# Sizes (environment): LAYERS 4, D_MODEL 128, HEADS 4, SEQ_LEN 256 (window:32 sees an eighth of it), BATCH 8,
# STEPS 300, LR 1e-3, WARMUP 30, THREADS 2, SEED 1, VOCAB 4000; CLM_KINDS / MLM_KINDS (space-separated; full first).
# Time: a full-attention run of the defaults takes ~44 s of training and ~3 s of evaluation on 2 idle cores, and
# the other kinds train as fast at T = 256: the 8 runs took 6 minutes (2026-11-25; bench/RESULTS.md).
# `STEPS=1000 WARMUP=50 LR=2e-3` gave RESULTS.md's main table (~150 s per run idle). Each other run is stopped after
# RUN_TIMEOUT seconds (default twice its table's full run, at least 60) so that a slow kernel cannot blow the
# budget by much.
#
# A tokvec whose fit refuses non-full attention ("... can be embedded and attended but not trained yet", the state
# before training of the other kinds lands) gives those rows "not trainable by this tokvec" and still exits 0;
# STRICT=1 makes that an error. Exit 1 with "error: ..." when a step fails (data, vocabulary, init, a full run:
# at once; another kind's fit or eval fails or times out: after the tables, naming the runs). Progress on stderr.
set -euo pipefail

usage() { echo "usage: bash scripts/attention_quality.sh TOKVEC [OUT_DIR]" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || usage
die() { echo "error: $*" >&2; exit 1; }
[[ -x "$1" ]] || die "TOKVEC '$1' is not an executable file"
TOKVEC=$(realpath "$1")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=$(realpath -m "${TOKVEC_SHARED_DIR:-$ROOT/../shared}")
PYTHON=/usr/bin/python3
LAYERS=${LAYERS:-4} D_MODEL=${D_MODEL:-128} HEADS=${HEADS:-4} SEQ_LEN=${SEQ_LEN:-256} BATCH=${BATCH:-8}
STEPS=${STEPS:-300} LR=${LR:-1e-3} WARMUP=${WARMUP:-30} THREADS=${THREADS:-2} SEED=${SEED:-1} VOCAB=${VOCAB:-4000}
CLM_KINDS=${CLM_KINDS:-"full window:32 longformer:32,4 bigbird:16,1,1 performer:64 linear"}
MLM_KINDS=${MLM_KINDS:-"full linformer:32"}
STRICT=${STRICT:-0}

log() { printf '[%4d s] %s\n' "$SECONDS" "$*" >&2; }
now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# 0. Data, or skip.
sources=("$ROOT/data/corpus.txt")
for f in tinyshakespeare gutenberg-big wikitext2-test; do
  [[ -f "$SHARED/corpora/$f.txt" ]] || { echo "SKIP attention_quality: $SHARED/corpora/$f.txt not found (set" \
    "TOKVEC_SHARED_DIR to the folder holding corpora/); data/corpus.txt alone is too small to compare kinds"; exit 0; }
  sources+=("$SHARED/corpora/$f.txt")
done
OUT=${2:-$(mktemp -d "${TMPDIR:-/tmp}/attention_quality.XXXXXX")}
mkdir -p "$OUT" || die "cannot create OUT_DIR '$OUT'"
OUT=$(realpath "$OUT")
log "work directory $OUT; tokvec $TOKVEC"

# 1. Train / validation split: the last 10% of the lines of each source held out.
: > "$OUT/train.txt"; : > "$OUT/valid.txt"
for f in "${sources[@]}"; do
  lines=$(wc -l < "$f")
  head -n $((lines * 9 / 10)) "$f" >> "$OUT/train.txt"
  tail -n +$((lines * 9 / 10 + 1)) "$f" >> "$OUT/valid.txt"
done
log "data: $(wc -c < "$OUT/train.txt") bytes to train on, $(wc -c < "$OUT/valid.txt") held out (${#sources[@]} sources)"

# 2. One vocabulary for both tables.
"$TOKVEC" train --type byte --pattern gpt2 --vocab-size "$VOCAB" --special '<|endoftext|>' --special '<mask>' \
  --threads "$THREADS" -o "$OUT/tok.tokvec" "$OUT/train.txt" > "$OUT/train_vocab.log" 2>&1 \
  || die "tokvec train failed: $(tail -n 3 "$OUT/train_vocab.log")"
log "vocabulary: $VOCAB tokens"

slug() { echo "${1//[:,]/_}"; }

# Copies into DIR/model.safetensors every tensor that REF/model.safetensors has under the same name, dtype and
# shape (byte ranges patched in place); prints how many tensors changed.
share_weights() {
  $PYTHON - "$1/model.safetensors" "$2/model.safetensors" <<'PY'
import json, struct, sys
def read(path):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = {k: v for k, v in json.loads(data[8:8 + n]).items() if k != "__metadata__"}
    return bytearray(data), header, 8 + n
ref, ref_h, ref_base = read(sys.argv[1])
out, out_h, out_base = read(sys.argv[2])
changed = 0
for name, t in out_h.items():
    r = ref_h.get(name)
    if r is None or r["dtype"] != t["dtype"] or r["shape"] != t["shape"]:
        continue
    src = ref[ref_base + r["data_offsets"][0]: ref_base + r["data_offsets"][1]]
    a, b = out_base + t["data_offsets"][0], out_base + t["data_offsets"][1]
    if out[a:b] != src:
        out[a:b] = src
        changed += 1
if changed:
    open(sys.argv[2], "wb").write(out)
print(changed)
PY
}

RESULTS="$OUT/results.tsv"
printf 'table\tkind\tstatus\ttrain_loss\tval_loss\tval_ppl\tseconds\ttokens_per_s\n' > "$RESULTS"
failures=()
not_trainable=()

# run_table OBJECTIVE ARCH KINDS...: init, fit and eval each kind; one results.tsv row per kind.
run_table() {
  local objective=$1 arch=$2; shift 2
  local table_dir="$OUT/$objective" ref_seconds="" timeout_s kind dir status
  mkdir -p "$table_dir"
  [[ "$1" == full ]] || die "$objective: the first kind must be full (the table's baseline and reference weights)"
  for kind in "$@"; do
    dir="$table_dir/$(slug "$kind")"
    rm -rf "$dir"; mkdir -p "$dir"
    # a. The initial model: same seed, then the reference's shared weights.
    "$TOKVEC" init --tokenizer "$OUT/tok.tokvec" --arch "$arch" --d-model "$D_MODEL" --heads "$HEADS" \
      --layers "$LAYERS" --max-len "$SEQ_LEN" --seed "$SEED" --attention "$kind" -o "$dir/init" > "$dir/init.log" 2>&1 \
      || die "$objective $kind: tokvec init failed: $(tail -n 3 "$dir/init.log")"
    if [[ "$kind" != full ]]; then
      changed=$(share_weights "$table_dir/full/init" "$dir/init") || die "$objective $kind: copying the shared weights failed"
      [[ "$changed" == 0 ]] || log "$objective $kind: $changed tensors differed from full's init (same seed); copied full's"
    fi
    # b. Train.
    timeout_s=0
    if [[ -n "$ref_seconds" ]]; then
      timeout_s=${RUN_TIMEOUT:-$(awk -v s="$ref_seconds" 'BEGIN { t = int(2 * s + 1); print (t < 60 ? 60 : t) }')}
    fi
    log "$objective $kind: fit ($STEPS steps of $BATCH x $SEQ_LEN tokens${ref_seconds:+, stopped after $timeout_s s})"
    local start; start=$(now)
    status=ok
    timeout "$timeout_s" "$TOKVEC" fit -m "$dir/init" --objective "$objective" --data "$OUT/train.txt" \
      --seq-len "$SEQ_LEN" --batch "$BATCH" --steps "$STEPS" --lr "$LR" --warmup "$WARMUP" --schedule cosine \
      --seed "$SEED" --threads "$THREADS" --log-every 1 -o "$dir/fit" > "$dir/fit.log" 2>&1 || status=$?
    local seconds; seconds=$(elapsed "$start" "$(now)")
    if [[ "$status" != ok ]]; then
      if grep -q "not trained yet" "$dir/fit.log"; then
        [[ "$kind" == full ]] && die "$objective full: fit refuses full attention: $(tail -n 1 "$dir/fit.log")"
        log "$objective $kind: not trainable by this tokvec ($(tail -n 1 "$dir/fit.log" | cut -c1-90)...)"
        printf '%s\t%s\tnot trainable by this tokvec\t\t\t\t\t\n' "$objective" "$kind" >> "$RESULTS"
        not_trainable+=("$objective $kind")
        continue
      fi
      [[ "$status" == 124 ]] && status="timed out after $timeout_s s" || status="fit failed (exit $status)"
      [[ "$kind" == full ]] && die "$objective full: $status: $(tail -n 3 "$dir/fit.log")"
      log "$objective $kind: $status: $(tail -n 1 "$dir/fit.log")"
      printf '%s\t%s\t%s\t\t\t\t%s\t\n' "$objective" "$kind" "$status" "$seconds" >> "$RESULTS"
      failures+=("$objective $kind: $status (log: $dir/fit.log)")
      continue
    fi
    [[ -n "$ref_seconds" ]] || ref_seconds=$seconds
    # c. Held-out loss.
    if ! "$TOKVEC" eval -m "$dir/fit" --objective "$objective" --data "$OUT/valid.txt" --seq-len "$SEQ_LEN" \
        --batch "$BATCH" --threads "$THREADS" > "$dir/eval.json" 2> "$dir/eval.log"; then
      [[ "$kind" == full ]] && die "$objective full: tokvec eval failed: $(tail -n 3 "$dir/eval.log")"
      log "$objective $kind: eval failed: $(tail -n 1 "$dir/eval.log")"
      printf '%s\t%s\teval failed\t\t\t\t%s\t\n' "$objective" "$kind" "$seconds" >> "$RESULTS"
      failures+=("$objective $kind: eval failed (log: $dir/eval.log)")
      continue
    fi
    $PYTHON - "$dir/fit/metrics.jsonl" "$dir/eval.json" "$objective" "$kind" "$seconds" "$STEPS" >> "$RESULTS" <<'PY' \
      || die "$objective $kind: cannot read $dir/fit/metrics.jsonl or $dir/eval.json"
import json, sys
metrics_path, eval_path, objective, kind, seconds, steps = sys.argv[1:]
rows = [json.loads(line) for line in open(metrics_path)]
steps = int(steps)
if len(rows) != steps:
    sys.exit("%s: %d lines, expected one per step (%d)" % (metrics_path, len(rows), steps))
tail = rows[-max(1, steps // 10):]
train_loss = sum(r["loss"] for r in tail) / len(tail)
tokens_per_row_step = [r["tokens_per_s"] for r in rows]
# tokens/s over the run = total tokens / total step time; every step trains the same number of tokens, so that is
# the harmonic mean of the per-step rates.
tokens_per_s = len(rows) / sum(1.0 / t for t in tokens_per_row_step)
ev = json.load(open(eval_path))
print("\t".join([objective, kind, "ok", "%.3f" % train_loss, "%.3f" % ev["loss"], "%.1f" % ev["ppl"], seconds,
                 "%.0f" % tokens_per_s]))
PY
    log "$objective $kind: done in $seconds s; $(tail -n 1 "$RESULTS" | cut -f4-6 | tr '\t' ' ') (train loss, val loss, ppl)"
  done
}

# 3. The two tables.
# shellcheck disable=SC2086  # the kind lists are space-separated on purpose
run_table clm gpt2 $CLM_KINDS
# shellcheck disable=SC2086
run_table mlm encoder $MLM_KINDS

# 4. Report.
$PYTHON - "$RESULTS" "$LAYERS" "$D_MODEL" "$HEADS" "$SEQ_LEN" "$BATCH" "$STEPS" "$LR" "$WARMUP" "$THREADS" "$SEED" \
  "$(wc -c < "$OUT/valid.txt")" <<'PY'
import csv, sys
path, layers, d_model, heads, seq_len, batch, steps, lr, warmup, threads, seed, valid_bytes = sys.argv[1:]
rows = list(csv.DictReader(open(path), delimiter="\t"))
titles = {
    "clm": "Causal LM (gpt2, --objective clm; validation = next-token loss)",
    "mlm": "Masked LM (encoder, --objective mlm; validation = loss on eval's fixed 15% masks)",
}
print("%s layers, d_model %s, %s heads, seq-len %s, batch %s, %s steps, lr %s (warmup %s, cosine), %s threads, "
      "seed %s; validation: %s bytes held out." % (layers, d_model, heads, seq_len, batch, steps, lr, warmup, threads,
                                                     seed, valid_bytes))
for table in ("clm", "mlm"):
    part = [r for r in rows if r["table"] == table]
    if not part:
        continue
    print("\n### %s\n" % titles[table])
    print("| kind | train loss at end | validation loss | validation perplexity | training time (s) | tokens/s |")
    print("|---|---|---|---|---|---|")
    for r in part:
        if r["status"] == "ok":
            print("| %s | %s | %s | %s | %s | %s |" % (r["kind"], r["train_loss"], r["val_loss"], r["val_ppl"],
                                                     r["seconds"], r["tokens_per_s"]))
        else:
            print("| %s | %s | | | %s | |" % (r["kind"], r["status"], r["seconds"]))
PY
echo "work directory: $OUT (results.tsv, each run's init/, fit/metrics.jsonl, eval.json and logs)"
if [[ ${#not_trainable[@]} -gt 0 ]]; then
  log "note: this tokvec's fit refuses ${#not_trainable[@]} kinds (${not_trainable[*]}); rerun with a tokvec that trains them"
  [[ "$STRICT" == 1 ]] && die "STRICT=1: ${#not_trainable[@]} kinds not trainable by $TOKVEC: ${not_trainable[*]}"
fi
if [[ ${#failures[@]} -gt 0 ]]; then
  printf '  %s\n' "${failures[@]}" >&2
  die "${#failures[@]} runs failed (above)"
fi
log "done"

#!/usr/bin/env bash
# A few-second run of the attention-quality scripts (ctest `attention_quality_scripts`), so they keep working:
# scripts/attention_quality.sh on a tiny model (1 layer, d16, 4 steps per kind; STRICT=1: every kind must train),
# then scripts/attention_approx_error.py on its full-attention model. The figures mean nothing at this size; the
# real runs and their tables are in bench/RESULTS.md ("Kinds of attention: quality").
#
#   bash scripts/attention_quality_check.sh build/tokvec     exit 0 ok, 1 failure, 77 skipped (no corpora or torch)
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: bash scripts/attention_quality_check.sh TOKVEC" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/attention_quality_check.XXXXXX")
trap 'rm -rf "$out"' EXIT
STEPS=4 WARMUP=1 LAYERS=1 D_MODEL=16 HEADS=2 SEQ_LEN=128 BATCH=2 VOCAB=300 STRICT=1 \
  bash "$root/scripts/attention_quality.sh" "$1" "$out/q" > "$out/tables.md" 2> "$out/log"
if grep -q '^SKIP' "$out/tables.md"; then cat "$out/tables.md"; exit 77; fi
for kind in full window:32 longformer:32,4 bigbird:16,1,1 performer:64 linear linformer:32; do
  grep -q "^| $kind | [0-9]" "$out/tables.md" || { cat "$out/log" "$out/tables.md" >&2; echo "error: no row for $kind" >&2; exit 1; }
done
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then echo "SKIP: /usr/bin/python3 has no torch"; exit 77; fi
/usr/bin/python3 "$root/scripts/attention_approx_error.py" --model "$out/q/clm/full/fit" --text "$out/q/valid.txt" \
  --tokvec "$1" --seq-len 128 --sequences 1 --seeds 1 --no-random-init --threads 1 > "$out/approx.md"
grep -q '^| \*\*mean\*\* | \*\*[0-9]' "$out/approx.md" || { cat "$out/approx.md" >&2; echo "error: no error table" >&2; exit 1; }
echo "attention quality scripts: every kind trained and evaluated; approximation table made"

#!/usr/bin/env bash
# Padded batch encoding for other runtimes: tokvec's Python encode_batch(return_tensors="np") and the drop-in
# tokvec.tokenizers encode_batch (Encoding objects) against Hugging Face
# tokenizers 0.23.2's encodeBatch (npm), same tokenizer.json, same lines, same run, one thread each.
#
#   bench/padded_batch.sh [TOKVEC_BINARY]          (default build/tokvec; the Python module in build/python; ROUNDS=3)
#
# Tokenizer: tests/data/wordpiece/uncased.json with all-MiniLM-L6-v2's sections (truncation at 128, padding to a
# multiple of 8, BatchLongest) and BertProcessing ([CLS] ... [SEP]). Input: every non-empty line of the English
# corpora (gutenberg-big, tinyshakespeare, wikitext2-test), in batches of 256. Both sides must give the same
# checksum (ids + attention masks + type ids) and the same number of padded cells.
# Prints ROW lines as the other scripts: ROW <metric> <tokvec> <peer> <ratio> <target> <met>
set -euo pipefail
cd "$(dirname "$0")/.."

tokvec=$(realpath -m "${1:-build/tokvec}")
shared=$(realpath -m "${TOKVEC_SHARED_DIR:-../shared}")
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tokvec/npm"
rounds="${ROUNDS:-3}"
python=/usr/bin/python3
pythonpath="$(dirname "$tokvec")/python"

[[ -d "$shared/corpora" ]] || { echo "SKIP padded batch bench: $shared/corpora not found (set TOKVEC_SHARED_DIR)"; exit 0; }
[[ -d "$pythonpath/tokvec" ]] || { echo "error: the Python module is not built (cmake --build build --target _tokvec)" >&2; exit 1; }
[[ -d "$cache/node_modules/tokenizers" ]] ||
  { echo "SKIP padded batch bench: $cache/node_modules/tokenizers not installed (make deps)"; exit 0; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tokvec-bench-padded.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat "$shared/corpora/gutenberg-big.txt" "$shared/corpora/tinyshakespeare.txt" "$shared/corpora/wikitext2-test.txt" |
  grep -v '^[[:space:]]*$' > "$work/lines.txt" || true
"$python" - "$work/minilm.json" <<'PY'
import json, sys
spec = json.load(open("tests/data/wordpiece/uncased.json"))
spec["truncation"] = {"direction": "Right", "max_length": 128, "strategy": "LongestFirst", "stride": 0}
spec["padding"] = {"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": 8, "pad_id": 0,
                   "pad_type_id": 0, "pad_token": "[PAD]"}
json.dump(spec, open(sys.argv[1], "w"))
PY
lines=$(wc -l < "$work/lines.txt")
read -r ours_s ours_sum ours_cells < <(PYTHONPATH="$pythonpath" "$python" bench/padded_batch.py "$work/minilm.json" \
  "$work/lines.txt" 256 "$rounds")
read -r dropin_s dropin_sum dropin_cells < <(PYTHONPATH="$pythonpath" "$python" bench/padded_batch.py \
  "$work/minilm.json" "$work/lines.txt" 256 "$rounds" dropin)
read -r peer_s peer_sum peer_cells < <(RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false \
  node bench/padded_batch_peer.mjs "$cache/node_modules" "$work/minilm.json" "$work/lines.txt" 256 "$rounds")
[[ "$ours_sum $ours_cells" == "$peer_sum $peer_cells" ]] ||
  { echo "error: tokvec gives checksum $ours_sum over $ours_cells cells, Hugging Face $peer_sum over $peer_cells" >&2; exit 1; }
[[ "$dropin_sum $dropin_cells" == "$peer_sum $peer_cells" ]] ||
  { echo "error: tokvec.tokenizers gives checksum $dropin_sum over $dropin_cells cells, Hugging Face $peer_sum" >&2; exit 1; }
rate() { echo "$lines / 1000 / ($1)" | bc -l | xargs printf '%.1f'; }
echo "input: $lines lines, $ours_cells padded cells (checksums equal)"
echo "tokvec encode_batch(return_tensors=np): $(rate "$ours_s") k lines/s; tokvec.tokenizers encode_batch (Encoding" \
  "objects): $(rate "$dropin_s") k lines/s; Hugging Face encodeBatch: $(rate "$peer_s") k lines/s"
printf 'ROW\tpadded batch encode k lines/s, 1 thread, MiniLM sections (tokvec np vs HF encodeBatch)\t%s\t%s\t%.2f\t-\t-\n' \
  "$(rate "$ours_s")" "$(rate "$peer_s")" "$(echo "$peer_s / $ours_s" | bc -l)"
printf 'ROW\tpadded batch encode k lines/s, 1 thread, tokvec.tokenizers Encoding objects vs HF encodeBatch\t%s\t%s\t%.2f\t-\t-\n' \
  "$(rate "$dropin_s")" "$(rate "$peer_s")" "$(echo "$peer_s / $dropin_s" | bc -l)"

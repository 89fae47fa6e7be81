#!/usr/bin/env bash
# WordPiece encoding throughput: `tokvec encode` against Hugging Face tokenizers 0.23.2 (npm), same tokenizer.json
# (tests/data/wordpiece/uncased.json, BERT-style uncased), same input, same run.
#
#   bench/wordpiece.sh [TOKVEC_BINARY]          (default build/tokvec; ROUNDS=3)
#
# Input: the English corpora of ../shared/corpora (gutenberg-big, tinyshakespeare, wikitext2-test), 5.2 MB.
# tokvec: wall time of `tokvec encode -m uncased.json --threads N FILE > /dev/null` minus that of an empty file,
# N = 1 and 2, median of ROUNDS. Hugging Face: bench/wordpiece_peer.mjs (one encode call at a time, ~1 MB
# chunks, RAYON_NUM_THREADS=1). The id counts of both must agree. Not in run_all.sh (yet).
# Prints ROW lines as the other scripts: ROW <metric> <tokvec> <peer> <ratio> <target> <met>
set -euo pipefail
cd "$(dirname "$0")/.."

tokvec=$(realpath -m "${1:-build/tokvec}")
shared=$(realpath -m "${TOKVEC_SHARED_DIR:-../shared}")
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tokvec/npm"
rounds="${ROUNDS:-3}"
model=tests/data/wordpiece/uncased.json

[[ -x "$tokvec" ]] || { echo "error: $tokvec is not built (cmake --build build --target tokvec)" >&2; exit 1; }
[[ -d "$shared/corpora" ]] || { echo "SKIP wordpiece bench: $shared/corpora not found (set TOKVEC_SHARED_DIR)"; exit 0; }
if [[ ! -d "$cache/node_modules/tokenizers" ]]; then
  mkdir -p "$cache"
  (cd "$cache" && npm install --no-audit --no-fund --silent tiktoken@1.0.22 tokenizers@0.23.2 >/dev/null 2>&1) ||
    { echo "SKIP wordpiece bench: npm could not install tokenizers@0.23.2 into $cache"; exit 0; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tokvec-bench-wordpiece.XXXXXX")
trap 'rm -rf "$work"' EXIT
text="$work/text.txt"
cat "$shared/corpora/gutenberg-big.txt" "$shared/corpora/tinyshakespeare.txt" "$shared/corpora/wikitext2-test.txt" > "$text"
: > "$work/empty.txt"
bytes=$(stat -c %s "$text")

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
wall() {  # seconds of one run of "$@" with its output discarded
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}
load=$(for _ in $(seq "$rounds"); do wall "$tokvec" encode -m "$model" --threads 1 "$work/empty.txt"; done | median)
t1=$(for _ in $(seq "$rounds"); do wall "$tokvec" encode -m "$model" --threads 1 "$text"; done | median)
t2=$(for _ in $(seq "$rounds"); do wall "$tokvec" encode -m "$model" --threads 2 "$text"; done | median)
ours=$("$tokvec" encode -m "$model" "$text" | wc -w)
read -r peer_seconds theirs < <(RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false \
  node bench/wordpiece_peer.mjs "$cache/node_modules" "$model" "$text" "$rounds")
[[ "$ours" == "$theirs" ]] || { echo "error: tokvec gives $ours ids, Hugging Face $theirs" >&2; exit 1; }

mbs() { echo "$bytes / 1000000 / ($1)" | bc -l | xargs printf '%.2f'; }
tok1=$(mbs "$t1 - $load")
tok2=$(mbs "$t2 - $load")
peer=$(mbs "$peer_seconds")
echo "input: $bytes bytes, $ours ids; tokvec load + start $(printf '%.3f' "$load") s"
echo "tokvec 1 thread: $tok1 MB/s; 2 threads: $tok2 MB/s; Hugging Face tokenizers (npm, 1 thread): $peer MB/s"
printf 'ROW\twordpiece encode MB/s, 1 thread, whole file (tokvec vs HF tokenizers)\t%s\t%s\t%.2f\t-\t-\n' \
  "$tok1" "$peer" "$(echo "$tok1 / $peer" | bc -l)"
printf 'ROW\twordpiece encode MB/s, 2 threads vs 1 thread\t%s\t%s\t%.2f\t-\t-\n' \
  "$tok2" "$tok1" "$(echo "$tok2 / $tok1" | bc -l)"

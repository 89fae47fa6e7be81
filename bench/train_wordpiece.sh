#!/usr/bin/env bash
# WordPiece training: `tokvec train --type wordpiece` (by likelihood, and by count) against Hugging Face tokenizers
# 0.23.2's WordPieceTrainer (npm), same corpus, same run, at 30,000 ids (the only size the npm binding trains):
# wall time and peak RSS at 1 and 2 threads (RAYON_NUM_THREADS for the peer), and what a user looks at: tokens per
# byte on held-out text (wikitext-2 valid, the Japanese UDHR) and the share of [UNK].
#
#   bash bench/train_wordpiece.sh build/tokvec [--repeat N]
#
# Training text: every shared corpus file but wikitext2-valid (6.6 MB), repeated N times (default 3: ~20 MB). Both
# use BertNormalizer (lowercase) and BertPreTokenizer; Hugging Face's vocabulary has no special tokens and only the
# character forms it saw, tokvec's has 5 special tokens and both forms of every letter, so Hugging Face has ~100
# more ids for merged pieces. Held-out text is encoded line by line by tokvec on every file (`make conformance`
# shows Hugging Face gives the same ids on tokvec's files). Seconds and peak RSS are each whole process's (the peer's
# include Node's start and the file it writes; its training alone is in $work/hf_seconds). Prints a markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
tokvec=$(realpath -m "${1:?usage: bench/train_wordpiece.sh path/to/tokvec [--repeat N]}")
shift
repeat=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --repeat) repeat=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
shared=$(realpath -m "${TOKVEC_SHARED_DIR:-../shared}")
corpora=$shared/corpora
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tokvec/npm"
[[ -d $corpora ]] || { echo "SKIP: $corpora is absent"; exit 0; }
if [[ ! -d "$cache/node_modules/tokenizers" ]]; then
  mkdir -p "$cache"
  (cd "$cache" && npm install --no-audit --no-fund --silent tiktoken@1.0.22 tokenizers@0.23.2 >/dev/null 2>&1) ||
    { echo "SKIP: npm could not install tokenizers@0.23.2 into $cache"; exit 0; }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/tokvec-bench-wordpiece.XXXXXX")
trap 'rm -rf "$work"' EXIT
for ((i = 0; i < repeat; i++)); do
  cat "$corpora"/botchan.txt "$corpora"/tinyshakespeare.txt "$corpora"/gutenberg-big.txt \
      "$corpora"/wagahaiwa_nekodearu.txt "$corpora"/wikitext2-test.txt
done > "$work/train.txt"
held_en=$corpora/wikitext2-valid.txt
held_ja=$corpora/udhr/jpn.txt
bytes_en=$(wc -c < "$held_en")
bytes_ja=$(wc -c < "$held_ja")
echo "training text: $(($(wc -c < "$work/train.txt") / 1000000)) MB; held-out: wikitext2-valid ($bytes_en bytes)," \
     "udhr/jpn ($bytes_ja bytes)" >&2

# tokens, then [UNK]s, of FILE line by line under tokenizer JSON
count() {
  "$tokvec" encode -m "$1" --lines "$2" > "$work/ids"
  local unk
  unk=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"]["vocab"]["[UNK]"])' "$1")
  echo "$(wc -w < "$work/ids") $(tr ' ' '\n' < "$work/ids" | grep -cx "$unk" || true)"
}

echo "| trainer | threads | seconds | peak MB | tokens/byte en | [UNK] en | tokens/byte ja | [UNK] ja |"
echo "|---|---|---|---|---|---|---|---|"
for threads in 1 2; do
  rows=()
  for criterion in likelihood ratio bpe; do
    /usr/bin/time -f "%e %M" -o "$work/time" "$tokvec" train --type wordpiece --criterion "$criterion" \
      --vocab-size 30000 --threads "$threads" -o "$work/$criterion.json" "$work/train.txt" 2>/dev/null
    read -r seconds kb < "$work/time"
    rows+=("tokvec --criterion $criterion|$seconds|$kb|$work/$criterion.json")
  done
  RAYON_NUM_THREADS=$threads /usr/bin/time -f "%e %M" -o "$work/time" \
    node bench/train_wordpiece_peer.mjs "$cache/node_modules" "$work/bpe.json" "$work/hf.json" "$work/train.txt" \
    > "$work/hf_seconds"
  read -r seconds kb < "$work/time"
  rows+=("Hugging Face WordPieceTrainer|$seconds|$kb|$work/hf.json")
  for row in "${rows[@]}"; do
    IFS='|' read -r name seconds kb json <<< "$row"
    read -r en en_unk < <(count "$json" "$held_en")
    read -r ja ja_unk < <(count "$json" "$held_ja")
    awk -v n="$name" -v th="$threads" -v s="$seconds" -v kb="$kb" -v en="$en" -v eu="$en_unk" -v ja="$ja" \
        -v ju="$ja_unk" -v be="$bytes_en" -v bj="$bytes_ja" \
        'BEGIN { printf "| %s | %d | %.2f | %.0f | %.4f | %.3f%% | %.4f | %.3f%% |\n",
                 n, th, s, kb / 1024, en / be, 100 * eu / en, ja / bj, 100 * ju / ja }'
  done
done

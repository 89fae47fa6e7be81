#!/usr/bin/env bash
# Training: `tokvec train --type byte --pattern gpt2 --vocab-size 30000 --threads 2` against Hugging Face
# tokenizers 0.23.2 (npm; BPE trainer, byte-level pre-tokenizer with GPT-2's regex, vocab 30000), and Debian's
# sentencepiece (`spm_train --model_type=bpe --vocab_size=30000`) as an extra peer, on every file of
# ../shared/corpora (udhr included), same run.
#
#   bench/train.sh [TOKVEC_BINARY]    (default build/tokvec; SPM=0 skips sentencepiece, SPM_TIMEOUT=150 caps it)
#
# Wall time and peak RSS of each process come from /usr/bin/time -v (tokvec includes writing its model file;
# Hugging Face includes node start, which is about 50 ms). Quality: tokens each model produces on unseen text
# (/usr/share/common-licenses GPL-3 and Apache-2.0; not in the corpora), tokvec's by `tokvec encode`, Hugging
# Face's by its own encoder (bench/peer.mjs count). The two runs alternate: tokvec, peer, tokvec, peer (ROUNDS).
# Targets: wall >= 4x faster, peak RSS <= the peer's, tokens on unseen text <= 1.02x the peer's; the classic
# (word) trainer, `tokvec train --type word --vocab-size 30000 --threads 2`, at least as fast (also >= 4x).
#
# Prints human-readable lines and, for bench/run_all.sh, tab-separated lines:
#   ROW <metric> <tokvec> <peer> <ratio> <target> <met>
set -euo pipefail
cd "$(dirname "$0")/.."

tokvec=$(realpath -m "${1:-build/tokvec}")
shared=$(realpath -m "${TOKVEC_SHARED_DIR:-../shared}")
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tokvec/npm"
rounds="${ROUNDS:-2}"

[[ -x "$tokvec" ]] || { echo "error: $tokvec is not built (cmake --build build --target tokvec)" >&2; exit 1; }
[[ -d "$shared/corpora" ]] || { echo "SKIP train bench: $shared/corpora not found (set TOKVEC_SHARED_DIR)"; exit 0; }
if [[ ! -d "$cache/node_modules/tokenizers" ]]; then
  mkdir -p "$cache"
  (cd "$cache" && npm install --no-audit --no-fund --silent tiktoken@1.0.22 tokenizers@0.23.2 >/dev/null 2>&1) ||
    { echo "SKIP train bench: npm could not install tokenizers@0.23.2 into $cache"; exit 0; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tokvec-bench-train.XXXXXX")
trap 'rm -rf "$work"' EXIT
mapfile -t corpus < <(find "$shared/corpora" -type f -name '*.txt' | sort)
bytes=$(cat "${corpus[@]}" | wc -c)
cat /usr/share/common-licenses/GPL-3 /usr/share/common-licenses/Apache-2.0 > "$work/unseen.txt"
echo "corpus: ${#corpus[@]} files, $bytes bytes; unseen text: $(wc -c < "$work/unseen.txt") bytes"

# Runs a command under /usr/bin/time -v; prints "<wall seconds> <peak RSS MB>".
measure() {
  /usr/bin/time -v -o "$work/time.txt" "$@" > "$work/stdout.txt" 2> "$work/stderr.txt" ||
    { cat "$work/stderr.txt" >&2; return 1; }
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i] }
              /Maximum resident set size/ { rss = $2 / 1024 }
              END { printf "%.2f %.0f\n", s, rss }' "$work/time.txt"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: > "$work/ours.txt"; : > "$work/peer.txt"
for ((r = 0; r < rounds; r++)); do
  measure "$tokvec" train --type byte --pattern gpt2 --vocab-size 30000 --threads 2 -o "$work/tokvec.model" \
    "${corpus[@]}" >> "$work/ours.txt"
  RAYON_NUM_THREADS=2 measure node bench/peer.mjs "$cache/node_modules" train "$work/hf.json" "${corpus[@]}" \
    >> "$work/peer.txt"
  echo "round $r: tokvec $(tail -1 "$work/ours.txt") | hugging face $(tail -1 "$work/peer.txt")  (s MB)"
done
ours_s=$(cut -d' ' -f1 "$work/ours.txt" | median); ours_mb=$(cut -d' ' -f2 "$work/ours.txt" | median)
peer_s=$(cut -d' ' -f1 "$work/peer.txt" | median); peer_mb=$(cut -d' ' -f2 "$work/peer.txt" | median)
ours_tokens=$("$tokvec" encode -m "$work/tokvec.model" "$work/unseen.txt" | wc -w)
peer_tokens=$(node bench/peer.mjs "$cache/node_modules" count "$work/hf.json" "$work/unseen.txt" |
              sed 's/.*"tokens":\([0-9]*\).*/\1/')
speedup=$(echo "scale=2; $peer_s / $ours_s" | bc -l)
rss_ratio=$(echo "scale=2; $ours_mb / $peer_mb" | bc -l)
token_ratio=$(echo "scale=4; $ours_tokens / $peer_tokens" | bc -l)
yes_no() { if (( $(echo "$1" | bc -l) )); then echo yes; else echo NO; fi; }
echo "train byte/gpt2/30000, 2 threads: tokvec ${ours_s} s ${ours_mb} MB, hugging face ${peer_s} s ${peer_mb} MB;" \
     "unseen-text tokens: tokvec $ours_tokens, hugging face $peer_tokens"
printf 'ROW\ttrain byte gpt2 30000, 2 threads: wall s (peer/tokvec = speed-up)\t%s\t%s\t%s\t>= 4x\t%s\n' \
  "$ours_s" "$peer_s" "$speedup" "$(yes_no "$speedup >= 4")"
printf 'ROW\ttrain peak RSS MB\t%s\t%s\t%s\t<= 1x\t%s\n' "$ours_mb" "$peer_mb" "$rss_ratio" \
  "$(yes_no "$ours_mb <= $peer_mb")"
printf 'ROW\ttrain: tokens on unseen text (GPL-3 + Apache-2.0)\t%s\t%s\t%s\t<= 1.02x\t%s\n' "$ours_tokens" \
  "$peer_tokens" "$token_ratio" "$(yes_no "$token_ratio <= 1.02")"

# The classic trainer (word BPE, `</w>` end-of-word symbol) on the same corpus must be at least as fast: the same
# >= 4x against the Hugging Face trainer timed above, and no more memory.
: > "$work/word.txt"
for ((r = 0; r < rounds; r++)); do
  measure "$tokvec" train --type word --vocab-size 30000 --threads 2 -o "$work/word.model" "${corpus[@]}" >> "$work/word.txt"
done
word_s=$(cut -d' ' -f1 "$work/word.txt" | median); word_mb=$(cut -d' ' -f2 "$work/word.txt" | median)
word_speedup=$(echo "scale=2; $peer_s / $word_s" | bc -l)
echo "train word 30000, 2 threads: tokvec ${word_s} s ${word_mb} MB (rounds: $(cut -d' ' -f1 "$work/word.txt" | tr '\n' ' '))"
printf 'ROW\ttrain word (classic) 30000, 2 threads: wall s vs the Hugging Face run above (speed-up)\t%s\t%s\t%s\t>= 4x\t%s\n' \
  "$word_s" "$peer_s" "$word_speedup" "$(yes_no "$word_speedup >= 4")"
printf 'ROW\ttrain word (classic) peak RSS MB\t%s\t%s\t%s\t<= 1x\t%s\n' "$word_mb" "$peer_mb" \
  "$(echo "scale=2; $word_mb / $peer_mb" | bc -l)" "$(yes_no "$word_mb <= $peer_mb")"

if [[ "${SPM:-1}" != 0 ]] && command -v spm_train >/dev/null 2>&1; then
  # spm_train's BPE took 376 s on this corpus in a trial run; it gets SPM_TIMEOUT seconds (default 150).
  spm_timeout="${SPM_TIMEOUT:-150}"
  spm=$(measure timeout "$spm_timeout" spm_train --input="$(IFS=,; echo "${corpus[*]}")" --model_prefix="$work/spm" \
        --model_type=bpe --vocab_size=30000 --character_coverage=0.9995 --num_threads=2 --minloglevel=2) || spm=""
  if [[ -z "$spm" ]]; then
    echo "sentencepiece bpe 30000 (2 threads): stopped after ${spm_timeout} s"
    printf 'ROW\ttrain vs sentencepiece spm_train bpe 30000: wall s\t%s\t> %s (stopped)\t> %s\t-\t-\n' "$ours_s" \
      "$spm_timeout" "$(echo "scale=1; $spm_timeout / $ours_s" | bc -l)"
  else
    spm_s=${spm% *}; spm_mb=${spm#* }
    spm_tokens=$(spm_encode --model="$work/spm.model" --output_format=id < "$work/unseen.txt" | wc -w)
    echo "sentencepiece bpe 30000 (2 threads): ${spm_s} s ${spm_mb} MB; unseen-text tokens $spm_tokens"
    printf 'ROW\ttrain vs sentencepiece spm_train bpe 30000: wall s\t%s\t%s\t%s\t-\t-\n' "$ours_s" "$spm_s" \
      "$(echo "scale=2; $spm_s / $ours_s" | bc -l)"
    printf 'ROW\ttokens on unseen text vs sentencepiece (not byte-level: different unit)\t%s\t%s\t%s\t-\t-\n' \
      "$ours_tokens" "$spm_tokens" "$(echo "scale=4; $ours_tokens / $spm_tokens" | bc -l)"
  fi
fi

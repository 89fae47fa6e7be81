#!/usr/bin/env bash
# SentencePiece-style BPE training: `tokvec train --type spbpe` against Debian's `spm_train --model_type=bpe`, same
# corpus, same run: wall time and peak RSS at 1 and 2 threads, and the quality a user looks at, tokens per byte on
# held-out text (wikitext-2 valid, and the last tenth of wagahaiwa, left out of training).
#
#   bash bench/spbpe.sh build/tokvec [--vocab 8000,32000] [--repeat N]
#
# Training text: every shared corpus file but wikitext2-valid and the last tenth of wagahaiwa (6.5 MB; not udhr/),
# repeated N times (default 3: ~20 MB); both trainers read it as is (spm_train: one sentence per line,
# --max_sentence_length raised so no line is dropped). Options as equal as the tools allow: character coverage 0.9995,
# byte fallback, no normalization (spm: --normalization_rule_name=identity; --remove_extra_whitespaces=false, as
# Llama-2: every space a ▁, as in the file tokvec writes), no digit splitting, spm's default max piece length 16
# (tokvec has none). Held-out text is encoded line by line by both (spm_encode's way: no line-end tokens). Prints a
# markdown table; the speed-up is spm's time over tokvec's.
set -euo pipefail
tokvec=${1:?usage: bench/spbpe.sh path/to/tokvec [--vocab 8000,32000] [--repeat N]}
shift
vocabs=8000,32000
repeat=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --vocab) vocabs=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
source "$(dirname "$0")/spm_corpus.sh"

echo "| vocab | threads | tokvec s | spm_train s | speed-up | tokvec MB | spm MB | tokens/byte en tokvec / spm | tokens/byte ja tokvec / spm |"
echo "|---|---|---|---|---|---|---|---|---|"
for vocab in ${vocabs//,/ }; do
  for threads in 1 2; do
    read -r t_s t_kb < <(timed "$tokvec" train --type spbpe --vocab-size "$vocab" --character-coverage 0.9995 \
                              --threads "$threads" -o "$work/tv.json" "$work/train.txt")
    read -r s_s s_kb < <(timed spm_train --input="$work/train.txt" --model_prefix="$work/spm" --model_type=bpe \
                              --vocab_size="$vocab" --character_coverage=0.9995 --byte_fallback=true \
                              --normalization_rule_name=identity --remove_extra_whitespaces=false \
                              --num_threads="$threads" \
                              --max_sentence_length=100000 --input_sentence_size=0 --minloglevel=2)
    tv_en=$("$tokvec" encode -m "$work/tv.json" --lines "$held_en" | wc -w)
    tv_ja=$("$tokvec" encode -m "$work/tv.json" --lines "$held_ja" | wc -w)
    spm_en=$(spm_encode --model="$work/spm.model" < "$held_en" | wc -w)
    spm_ja=$(spm_encode --model="$work/spm.model" < "$held_ja" | wc -w)
    awk -v v="$vocab" -v th="$threads" -v ts="$t_s" -v ss="$s_s" -v tk="$t_kb" -v sk="$s_kb" \
        -v te="$tv_en" -v se="$spm_en" -v tj="$tv_ja" -v sj="$spm_ja" -v be="$bytes_en" -v bj="$bytes_ja" \
        'BEGIN { printf "| %d | %d | %.2f | %.2f | %.1fx | %.0f | %.0f | %.4f / %.4f | %.4f / %.4f |\n",
                 v, th, ts, ss, ss / ts, tk / 1024, sk / 1024, te / be, se / be, tj / bj, sj / bj }'
  done
done

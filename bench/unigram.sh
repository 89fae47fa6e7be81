#!/usr/bin/env bash
# Unigram training: `tokvec train --type unigram` against Debian's `spm_train --model_type=unigram`, same corpus, same
# run: wall time and peak RSS at 1 and 2 threads, and the quality a user looks at: tokens per byte on held-out text
# (wikitext-2 valid, and the last tenth of wagahaiwa, left out of training) and the log-likelihood per token of the
# held-out English under each model.
#
#   bash bench/unigram.sh build/tokvec [--vocab 8000,32000] [--repeat N]
#
# Training text: every shared corpus file but wikitext2-valid and the last tenth of wagahaiwa (6.5 MB; not udhr/),
# repeated N times (default 3: ~20 MB); both trainers read it as is (spm_train: one sentence per line,
# --max_sentence_length raised so no line is dropped, every sentence loaded). Options are both tools' defaults, which
# agree: character coverage 0.9995, seed size 1,000,000, shrinking factor 0.75, max piece length 16, 2 EM
# sub-iterations, no byte fallback, pieces split by Unicode script; normalization NFKC with white space collapsed
# (spm: nmt_nfkc). Held-out text is encoded line by line by both (spm_encode's way), with wikitext's literal "<unk>"
# taken out: tokvec's file has <unk> as a special token, which Hugging Face and tokvec match in text as one token
# where spm_encode spells it in 3-5 pieces. Log-likelihood: bench/unigram_ll.py scores both vocabularies with the same
# Viterbi. Prints a markdown table; the speed-up is spm's time over tokvec's.
set -euo pipefail
tokvec=${1:?usage: bench/unigram.sh path/to/tokvec [--vocab 8000,32000] [--repeat N]}
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
ll() { /usr/bin/python3 "$here/unigram_ll.py" "$1" "$held_en" | awk '{ print $3 }'; }

echo "| vocab | threads | tokvec s | spm_train s | speed-up | tokvec MB | spm MB | tokens/byte en tokvec / spm | tokens/byte ja tokvec / spm | log-lik/token en tokvec / spm |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for vocab in ${vocabs//,/ }; do
  for threads in 1 2; do
    read -r t_s t_kb < <(timed "$tokvec" train --type unigram --vocab-size "$vocab" --threads "$threads" \
                              -o "$work/tv.json" "$work/train.txt")
    read -r s_s s_kb < <(timed spm_train --input="$work/train.txt" --model_prefix="$work/spm" --model_type=unigram \
                              --vocab_size="$vocab" --num_threads="$threads" --max_sentence_length=100000 \
                              --input_sentence_size=0 --minloglevel=2)
    tv_en=$("$tokvec" encode -m "$work/tv.json" --lines "$held_en" | wc -w)
    tv_ja=$("$tokvec" encode -m "$work/tv.json" --lines "$held_ja" | wc -w)
    spm_en=$(spm_encode --model="$work/spm.model" < "$held_en" | wc -w)
    spm_ja=$(spm_encode --model="$work/spm.model" < "$held_ja" | wc -w)
    tv_ll=$(ll "$work/tv.json")
    spm_ll=$(ll "$work/spm.vocab")
    awk -v v="$vocab" -v th="$threads" -v ts="$t_s" -v ss="$s_s" -v tk="$t_kb" -v sk="$s_kb" \
        -v te="$tv_en" -v se="$spm_en" -v tj="$tv_ja" -v sj="$spm_ja" -v be="$bytes_en" -v bj="$bytes_ja" \
        -v tl="$tv_ll" -v sl="$spm_ll" \
        'BEGIN { printf "| %d | %d | %.2f | %.2f | %.1fx | %.0f | %.0f | %.4f / %.4f | %.4f / %.4f | %s / %s |\n",
                 v, th, ts, ss, ss / ts, tk / 1024, sk / 1024, te / be, se / be, tj / bj, sj / bj, tl, sl }'
  done
done

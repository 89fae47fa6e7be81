# Sourced by bench/spbpe.sh and bench/unigram.sh (set `repeat` first): the SentencePiece comparisons' shared set-up.
# Skips (exit 0) without spm_train or ../shared/corpora. Sets `here`, `work` (removed on exit), `$work/train.txt`
# (every shared corpus file but wikitext2-valid and the last tenth of wagahaiwa, `repeat` times over; not udhr/),
# `held_en` (wikitext2-valid without its literal " <unk>": tokvec's files have <unk> as a special token, which
# Hugging Face and tokvec match in text as one token where spm_encode spells it in pieces), `held_ja` (the last
# tenth of wagahaiwa's lines, 68 kB, left out of training), `bytes_en`, `bytes_ja`, and `timed CMD...`, which
# prints "seconds peak_kb" of the command.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
shared=${TOKVEC_SHARED_DIR:-$here/../../shared}
corpora=$shared/corpora
command -v spm_train >/dev/null || { echo "SKIP: spm_train is not installed (make deps: sentencepiece)"; exit 0; }
[[ -d $corpora ]] || { echo "SKIP: $corpora is absent"; exit 0; }
unset OPENBLAS_CORETYPE
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ja_lines=$(wc -l < "$corpora"/wagahaiwa_nekodearu.txt)
head -n $((ja_lines * 9 / 10)) "$corpora"/wagahaiwa_nekodearu.txt > "$work/ja_train.txt"
tail -n +$((ja_lines * 9 / 10 + 1)) "$corpora"/wagahaiwa_nekodearu.txt > "$work/held_ja.txt"
for ((i = 0; i < repeat; i++)); do
  cat "$corpora"/botchan.txt "$corpora"/tinyshakespeare.txt "$corpora"/gutenberg-big.txt \
      "$work/ja_train.txt" "$corpora"/wikitext2-test.txt
done > "$work/train.txt"
sed 's/ <unk>//g' "$corpora"/wikitext2-valid.txt > "$work/held_en.txt"
held_en=$work/held_en.txt
held_ja=$work/held_ja.txt
bytes_en=$(wc -c < "$held_en")
bytes_ja=$(wc -c < "$held_ja")
echo "training text: $(($(wc -c < "$work/train.txt") / 1000000)) MB; held-out: wikitext2-valid without <unk>" \
     "($bytes_en bytes), the last tenth of wagahaiwa ($bytes_ja bytes)" >&2

timed() {
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; return 1; }
  cat "$work/time"
}

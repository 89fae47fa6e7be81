#!/usr/bin/env bash
# Training at scale on one machine (issue 15, item 5; docs/scale.md): a generated corpus of several GB
# (scripts/make_scale_corpus.py), `tokvec train` as one process against `mpirun -np 2` (wall time, peak RSS per
# rank, bytes exchanged; the same model bytes), and unique pieces against corpus size (for Heaps' law) with the
# memory of counting per unique piece.
#
#   bash scripts/scale_bench.sh build/tokvec /work/scale/corpus.*     (OMPI_ALLOW_RUN_AS_ROOT set inside)
set -euo pipefail
tokvec=$(realpath "$1"); shift
files=("$@")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d "${TMPDIR:-/tmp}/tokvec-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
bytes=$(cat "${files[@]}" | wc -c)
echo "corpus: ${#files[@]} files, $bytes bytes"
echo "== unique pieces (byte-level, gpt2 pattern) against corpus size: tokvec count, 2 threads"
for n in 1 2 4; do
  [[ $n -le ${#files[@]} ]] || continue
  part=("${files[@]:0:$n}")
  size=$(cat "${part[@]}" | wc -c)
  /usr/bin/time -f "%e %M" -o "$work/time" "$tokvec" count --type byte --threads 2 -o "$work/c.tsv" "${part[@]}"
  read -r seconds rss < "$work/time"
  unique=$(($(wc -l < "$work/c.tsv") - 1))
  echo "COUNT bytes=$size unique=$unique seconds=$seconds peak_rss_kb=$rss bytes_per_unique=$((rss * 1024 / unique))"
done
for frac in 100000000 500000000; do  # prefixes of the first file
  head -c "$frac" "${files[0]}" > "$work/prefix.txt"
  "$tokvec" count --type byte --threads 2 -o "$work/c.tsv" "$work/prefix.txt"
  echo "COUNT bytes=$frac unique=$(($(wc -l < "$work/c.tsv") - 1))"
done
rm -f "$work/prefix.txt"
echo "== train --type byte --vocab-size 30000: one process (2 threads) against mpirun -np 2 (1 thread each)"
/usr/bin/time -f "%e %M" -o "$work/time" "$tokvec" train --type byte --vocab-size 30000 --threads 2 \
  -o "$work/single.tokvec" "${files[@]}"
read -r seconds rss < "$work/time"
echo "TRAIN processes=1 threads=2 seconds=$seconds peak_rss_kb=$rss"
start=$(date +%s.%N)
mpirun -np 2 /usr/bin/time -f "RANK_TIME %e %M" "$tokvec" train --type byte --vocab-size 30000 --threads 1 \
  -o "$work/mpi.tokvec" "${files[@]}" 2> "$work/mpi.err"
end=$(date +%s.%N)
grep -E "^rank|RANK_TIME" "$work/mpi.err" | sed 's/^/  /'
echo "TRAIN processes=2 threads=1 seconds=$(echo "$end - $start" | bc)"
cmp "$work/single.tokvec" "$work/mpi.tokvec" && echo "models: the same bytes"

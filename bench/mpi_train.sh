#!/usr/bin/env bash
# `mpirun` training against one process: `tokvec train --merges 100 --threads 1` as one process and as
# `mpirun -np 2` (one thread per rank), word and byte models, on >= 300 MB made of the shared corpora (every file,
# udhr included, repeated end to end), same run. The model files must be byte-identical.
#
#   bench/mpi_train.sh [TOKVEC_BINARY]     (default build/tokvec, built with MPI; ROUNDS=3, MB=300)
#
# Rounds alternate one process and mpirun; medians are compared. Each rank's own line (counting, waiting for the
# others, the exchange: cli/train_command.cc) is kept from the last round, as the profile of where ranks spend
# their time. Target (issue 39): mpirun -np 2 <= 0.65x the wall time of one process, for both models.
# Prints ROW lines as the other scripts: ROW <metric> <tokvec> <peer> <ratio> <target> <met>
set -euo pipefail
cd "$(dirname "$0")/.."

tokvec=$(realpath -m "${1:-build/tokvec}")
shared=$(realpath -m "${TOKVEC_SHARED_DIR:-../shared}")
rounds="${ROUNDS:-3}"
megabytes="${MB:-300}"

[[ -x "$tokvec" ]] || { echo "error: $tokvec is not built (cmake --build build --target tokvec)" >&2; exit 1; }
[[ -d "$shared/corpora" ]] || { echo "SKIP mpi train bench: $shared/corpora not found (set TOKVEC_SHARED_DIR)"; exit 0; }
command -v mpirun >/dev/null || { echo "SKIP mpi train bench: mpirun not installed (make deps)"; exit 0; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

work=$(mktemp -d "${TMPDIR:-/tmp}/tokvec-bench-mpi.XXXXXX")
trap 'rm -rf "$work"' EXIT
find "$shared/corpora" -type f -name '*.txt' | sort | xargs cat > "$work/one.txt"
while (( $(stat -c %s "$work/corpus.txt" 2>/dev/null || echo 0) < megabytes * 1000000 )); do
  cat "$work/one.txt" >> "$work/corpus.txt"
done
echo "corpus: $(stat -c %s "$work/corpus.txt") bytes ($(stat -c %s "$work/one.txt") bytes of the shared corpora, repeated)"

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
wall() {  # wall seconds of a command (its stderr kept in $work/err)
  local start end
  start=$(date +%s.%N)
  "$@" 2> "$work/err" > /dev/null || { echo "error: $* failed: $(tail -3 "$work/err")" >&2; return 1; }
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

for type in word byte; do
  : > "$work/one.times"
  : > "$work/mpi.times"
  for ((r = 0; r < rounds; r++)); do
    rm -f "$work/one.tokvec" "$work/mpi.tokvec"
    wall "$tokvec" train --type "$type" --merges 100 --threads 1 -o "$work/one.tokvec" "$work/corpus.txt" \
      >> "$work/one.times"
    wall mpirun --oversubscribe -np 2 "$tokvec" train --type "$type" --merges 100 --threads 1 \
      -o "$work/mpi.tokvec" "$work/corpus.txt" >> "$work/mpi.times"
    [[ -s "$work/mpi.tokvec" ]] || { echo "error: mpirun wrote no model: $(cat "$work/err")" >&2; exit 1; }
    cmp -s "$work/one.tokvec" "$work/mpi.tokvec" ||
      { echo "error: the $type models of one process and of mpirun differ" >&2; exit 1; }
  done
  one=$(median < "$work/one.times")
  mpi=$(median < "$work/mpi.times")
  ratio=$(echo "$mpi / $one" | bc -l)
  met=$(echo "$ratio <= 0.65" | bc -l | sed 's/1/yes/; s/0/no/')
  echo "$type: one process $(printf '%.2f' "$one") s, mpirun -np 2 $(printf '%.2f' "$mpi") s, ratio $(printf '%.2f' "$ratio")" \
    "(medians of $rounds; models identical)"
  sed 's/^/  /' "$work/err"
  printf 'ROW\tmpirun -np 2 train --type %s wall / one process (1 thread each, %s MB)\t%.2f s\t%.2f s\t%.2fx\t<= 0.65x\t%s\n' \
    "$type" "$megabytes" "$mpi" "$one" "$ratio" "$met"
done

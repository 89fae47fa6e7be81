#!/usr/bin/env bash
# `mpirun -np P tokvec train` gives the bytes of `tokvec train` (issue 15): word and byte models, P = 1, 2, 3, 4
# and 7 ranks (oversubscribed on this machine), over files of mixed sizes: the shared corpora (English, Japanese),
# data/corpus.txt, a CRLF file, a file without a final newline, an empty file and a two-line file (fewer lines
# than ranks); share boundaries fall mid-line and mid-character and move to cut points (line starts with
# --split-lines, also checked). Unigram and SentencePiece-style BPE (2 and 3 ranks): counts gathered on rank 0,
# which trains; the same file as one process. One run exchanges its
# counts in rounds of 1000 bytes (TOKVEC_MPI_CHUNK_BYTES). A missing file and invalid UTF-8 in one rank's share
# stop every rank with an error and no model file, without hanging. `mpirun tokvec embed` writes one part per
# rank, and `embed --gather` joins them into the bytes of one process; `encode --lines` likewise.
#
#   bash scripts/mpi_check.sh build/tokvec        (TOKVEC_SHARED_DIR: ../shared by default)
#
# Exit 0 when all agree, 1 otherwise, 77 (ctest's skip) without mpirun.
set -uo pipefail
tokvec=$(realpath "${1:-build/tokvec}")
cd "$(dirname "$0")/.."
shared=${TOKVEC_SHARED_DIR:-../shared}
command -v mpirun > /dev/null || { echo "SKIP: mpirun not found (make deps installs openmpi-bin)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d "${TMPDIR:-/tmp}/tokvec-mpi.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

files=(data/corpus.txt)
for name in tinyshakespeare.txt wagahaiwa_nekodearu.txt wikitext2-test.txt; do
  [[ -f "$shared/corpora/$name" ]] && files+=("$shared/corpora/$name")
done
[[ ${#files[@]} -gt 1 ]] || echo "note: $shared/corpora is absent; data/ and generated files only"
head -c 200000 data/corpus.txt | sed 's/$/\r/' > "$work/crlf.txt"
printf 'the last line has no newline\nbut this one does not end' > "$work/no_newline.txt"
: > "$work/empty.txt"
printf 'two lines\nonly here\n' > "$work/two_lines.txt"
files+=("$work/crlf.txt" "$work/empty.txt" "$work/no_newline.txt" "$work/two_lines.txt")

run_mpi() {  # run_mpi NP ARGS...: mpirun with a time limit; prints stderr on failure
  local np=$1; shift
  timeout 300 mpirun -np "$np" "$tokvec" "$@" > "$work/mpi.out" 2> "$work/mpi.err"
}

# Byte models count whole texts (share boundaries move to cut points) or, with --split-lines, lines; the plain
# byte model goes last: the 1000-byte rounds below compare with its single-process model.
for type in word "byte --split-lines" byte; do
  # shellcheck disable=SC2086  # "$type" may hold two options
  "$tokvec" train --type $type --vocab-size 6000 --special '<|endoftext|>' --threads 2 -o "$work/single.tokvec" \
    "${files[@]}" 2> "$work/single.err" || fail "$type: single-process training failed: $(cat "$work/single.err")"
  for np in 1 2 3 4 7; do
    rm -f "$work/mpi.tokvec"
    # shellcheck disable=SC2086
    run_mpi "$np" train --type $type --vocab-size 6000 --special '<|endoftext|>' --threads 1 \
      -o "$work/mpi.tokvec" "${files[@]}"
    status=$?
    if [[ $status -ne 0 ]]; then
      fail "$type, $np ranks: exit $status: $(grep -m2 'error' "$work/mpi.err")"
    elif cmp -s "$work/single.tokvec" "$work/mpi.tokvec"; then
      echo "ok: $type model, $np ranks: the same bytes as one process ($(grep -c 'counted its share' "$work/mpi.err")" \
        "ranks reported$(grep -o -m1 ': [0-9]* merges together.*' "$work/mpi.err" | sed 's/^:/;/'))"
    else
      fail "$type, $np ranks: the model differs from one process's"
    fi
  done
done

# 300 merges: too few left for the hand-over, so every merge is learned by all ranks together (bpe_trainer.h).
for type in word byte; do
  "$tokvec" train --type $type --merges 300 --threads 1 -o "$work/single300.tokvec" "${files[@]}" 2> /dev/null
  for np in 2 3; do
    rm -f "$work/mpi.tokvec"
    if run_mpi "$np" train --type $type --merges 300 --threads 1 -o "$work/mpi.tokvec" "${files[@]}" &&
        cmp -s "$work/single300.tokvec" "$work/mpi.tokvec" && grep -q '300 merges together$' "$work/mpi.err"; then
      echo "ok: $type model, 300 merges, $np ranks, all learned together: the same bytes as one process"
    else
      fail "$type, 300 merges together on $np ranks: $(grep -m2 -E 'error|trained' "$work/mpi.err")"
    fi
  done
done

# Unigram and SentencePiece-style BPE: the ranks count their shares, rank 0 gathers the sums and trains alone; the
# file is the single process's (a user-defined symbol and a special token cut the text for Unigram).
for type in unigram spbpe; do
  extra=()
  [[ $type == unigram ]] && extra=(--user-defined '@-@' --special '<mask>')
  "$tokvec" train --type "$type" --vocab-size 3000 "${extra[@]}" --threads 2 -o "$work/single.json" "${files[@]}" \
    2> "$work/single.err" || fail "$type: single-process training failed: $(cat "$work/single.err")"
  for np in 2 3; do
    rm -f "$work/mpi.json"
    if run_mpi "$np" train --type "$type" --vocab-size 3000 "${extra[@]}" --threads 1 -o "$work/mpi.json" \
        "${files[@]}" && cmp -s "$work/single.json" "$work/mpi.json" &&
        [[ $(grep -c 'counted its share' "$work/mpi.err") -eq $np ]]; then
      echo "ok: $type, $np ranks (counts gathered on rank 0): the same bytes as one process"
    else
      fail "$type on $np ranks: $(grep -m2 -E 'error|wrote' "$work/mpi.err")"
    fi
  done
done

# Rounds of 1000 bytes: hundreds of rounds, the same model.
rm -f "$work/mpi.tokvec"
if TOKVEC_MPI_CHUNK_BYTES=1000 run_mpi 3 train --type byte --vocab-size 6000 --special '<|endoftext|>' \
    -o "$work/mpi.tokvec" "${files[@]}" && cmp -s "$work/single.tokvec" "$work/mpi.tokvec"; then
  echo "ok: byte model, 3 ranks, 1000-byte rounds ($(grep -o 'in [0-9]* round' "$work/mpi.err" | head -1)): the same bytes"
else
  fail "1000-byte rounds: $(tail -3 "$work/mpi.err")"
fi

# embed under mpirun: each rank writes its part; --gather joins them into the bytes of one process.
"$tokvec" train --type byte --merges 200 -o "$work/tok.tokvec" data/corpus.txt 2> /dev/null
"$tokvec" init --tokenizer "$work/tok.tokvec" --d-model 32 --heads 2 --layers 2 --max-len 512 --seed 1 \
  -o "$work/model" 2> /dev/null
grep -v '^[[:space:]]*$' data/corpus.txt > "$work/lines.txt"
"$tokvec" embed -m "$work/model" --lines --pooling mean --format npy -o "$work/single.npy" "$work/lines.txt" \
  "$work/lines.txt" || fail "single-process embed failed"
for np in 2 3; do
  rm -rf "$work/parts"
  if run_mpi "$np" embed -m "$work/model" --lines --pooling mean --format npy -o "$work/parts" "$work/lines.txt" \
       "$work/lines.txt" && "$tokvec" embed --gather "$work/parts" -o "$work/gathered.npy" &&
     cmp -s "$work/single.npy" "$work/gathered.npy"; then
    echo "ok: embed on $np ranks, parts gathered: the same bytes as one process"
  else
    fail "embed on $np ranks: $(grep -m2 'error' "$work/mpi.err")"
  fi
done

# encode --lines under mpirun: one .ids part per rank; --gather gives the lines of one process.
"$tokvec" encode -m "$work/tok.tokvec" --lines "$work/lines.txt" > "$work/single.ids"
rm -rf "$work/ids"
if run_mpi 3 encode -m "$work/tok.tokvec" --lines -o "$work/ids" "$work/lines.txt" &&
   "$tokvec" encode --gather "$work/ids" -o "$work/gathered.ids" && cmp -s "$work/single.ids" "$work/gathered.ids"; then
  echo "ok: encode on 3 ranks, parts gathered: the same lines as one process"
else
  fail "encode on 3 ranks: $(grep -m2 'error' "$work/mpi.err")"
fi

# Errors: every rank stops, exit status non-zero (EXPECT_STATUS when set), no output file (OUT, by default
# $work/bad.tokvec), no hang.
expect_error() {  # [OUT=path] [EXPECT_STATUS=n] expect_error WHAT PATTERN NP ARGS...
  local what=$1 pattern=$2 out=${OUT:-$work/bad.tokvec} status; shift 2
  rm -f "$out"
  run_mpi "$@"
  status=$?
  if [[ $status -eq 0 ]]; then
    fail "$what: mpirun exited 0"
  elif [[ -n ${EXPECT_STATUS:-} && $status -ne $EXPECT_STATUS ]]; then
    fail "$what: exit $status, not $EXPECT_STATUS"
  elif [[ -e "$out" ]] || ! grep -q "$pattern" "$work/mpi.err"; then
    fail "$what: $(head -5 "$work/mpi.err")"
  else
    echo "ok: $what stops every rank with: $(grep -m1 'error:' "$work/mpi.err")"
  fi
}
expect_error "a missing file" "error: .*missing.txt" 3 train --type word --merges 10 -o "$work/bad.tokvec" \
  data/corpus.txt "$work/missing.txt"
{ head -c 100000 data/corpus.txt; printf 'bad \xff byte\n'; head -c 100000 data/corpus.txt; } > "$work/bad_utf8.txt"
expect_error "invalid UTF-8 in one rank's share" "invalid UTF-8" 4 train --type word --merges 10 \
  -o "$work/bad.tokvec" data/corpus.txt "$work/bad_utf8.txt"
OUT=$work/bad.json expect_error "invalid UTF-8 in one rank's share (unigram)" "invalid UTF-8" 3 train \
  --type unigram --vocab-size 500 -o "$work/bad.json" data/corpus.txt "$work/bad_utf8.txt"
OUT=$work/bad.json EXPECT_STATUS=2 expect_error "standard input (unigram)" "standard input runs in one process" 2 \
  train --type unigram --vocab-size 500 -o "$work/bad.json" - < data/corpus.txt
OUT=$work/no_such_dir/out.json expect_error "an unwritable output (spbpe)" "error: .*no_such_dir" 2 train \
  --type spbpe --vocab-size 500 -o "$work/no_such_dir/out.json" data/corpus.txt
exit $failed

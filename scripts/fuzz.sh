#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS each (default 30) on its seed corpus, one job at a time.
#
#   scripts/fuzz.sh 30                 # builds build-fuzz (clang, -DTOKVEC_FUZZ=ON) then runs each target 30 s
#   scripts/fuzz.sh 600 fuzz_bpe_merge # one target, 10 minutes
#
# Seeds come from tests/fuzz/corpus/<target>/ (read-only); new inputs go to a scratch corpus under
# $FUZZ_WORK (default build-fuzz/corpus), so the repository's seeds stay small. A finding (crash, leak,
# sanitizer report, timeout) is saved as build-fuzz/artifacts/<target>/crash-*; the script then exits 1.
# The last libFuzzer status line of each target (execs, cov, ft) is printed in a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-30}
shift || true
BUILD=${FUZZ_BUILD:-build-fuzz}
WORK=${FUZZ_WORK:-$BUILD/corpus}

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOKVEC_FUZZ=ON -DTOKVEC_MPI=OFF \
    -DTOKVEC_BUILD_TESTS=OFF >/dev/null
else
  cmake "$BUILD" >/dev/null  # Picks up new fuzz_*.cc files.
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for src in tests/fuzz/fuzz_*.cc; do targets+=("$(basename "$src" .cc)"); done
fi
if ! cmake --build "$BUILD" -j"${FUZZ_JOBS:-2}" --target "${targets[@]}" >"$BUILD/fuzz-build.log" 2>&1; then
  tail -30 "$BUILD/fuzz-build.log"
  exit 1
fi

failed=0
summary=""
for target in "${targets[@]}"; do
  name=${target#fuzz_}
  seeds=()
  [ -d "tests/fuzz/corpus/$name" ] && seeds=("tests/fuzz/corpus/$name")
  mkdir -p "$WORK/$name" "$BUILD/artifacts/$name"
  log="$BUILD/artifacts/$name/last.log"
  echo "=== $target: ${SECONDS_EACH}s"
  dict=()
  [ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
  if ! "$BUILD/$target" "$WORK/$name" "${seeds[@]}" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 "${dict[@]}" -artifact_prefix="$BUILD/artifacts/$name/" >"$log" 2>&1; then
    echo "FINDING in $target (see $log):"
    grep -E "ERROR|FUZZ_CHECK|SUMMARY|Test unit written" "$log" | head -20 || tail -20 "$log"
    failed=1
  fi
  line=$(grep -E "^#[0-9]+" "$log" | tail -1 || true)
  execs=$(grep -E "stat::number_of_executed_units" "$log" | awk '{print $2}' || true)
  summary+="$target: execs=${execs:-?} last: ${line}"$'\n'
done
echo "=== summary"
printf '%s' "$summary"
exit $failed

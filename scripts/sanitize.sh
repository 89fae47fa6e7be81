#!/usr/bin/env bash
# Builds tokvec with sanitizers and runs the tests under them.
#
#   scripts/sanitize.sh                      # address,undefined: the whole ctest suite (build-asan)
#   scripts/sanitize.sh thread               # ThreadSanitizer: the concurrency tests (build-tsan)
#   scripts/sanitize.sh address,undefined 'cli'   # a ctest -R filter of your own
#
# Environment: JOBS (build and ctest parallelism, default nproc), SHARED (the shared data folder), BUILD_ASAN /
# BUILD_TSAN (build folders). Exits non-zero when a build fails, a test fails, or a sanitizer reports.
set -euo pipefail
cd "$(dirname "$0")/.."
SANITIZERS=${1:-address,undefined}
JOBS=${JOBS:-$(nproc)}
SHARED=${SHARED:-$(cd .. && pwd)/shared}

if [ "$SANITIZERS" = thread ]; then
  BUILD=${BUILD_TSAN:-build-tsan}
  FILTER=${2:-^tsan\.}
  # One binary of the tests that share a tokenizer, the trainer's workers or a model between threads
  # (tests/*/*concurrency_test.cc; see tests/CMakeLists.txt), so the CLI need not be built under tsan.
  TARGETS=(concurrency_test)
  export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
else
  BUILD=${BUILD_ASAN:-build-asan}
  FILTER=${2:-}
  TARGETS=(all)
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1 ${ASAN_OPTIONS:-}"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1 ${UBSAN_OPTIONS:-}"
fi

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOKVEC_SANITIZE="$SANITIZERS" -DTOKVEC_MPI=OFF \
  -DTOKVEC_SHARED_DIR="$SHARED" >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target "${TARGETS[@]}"
cd "$BUILD"
args=(--output-on-failure -j"$JOBS" --timeout 1800 -LE slow)
[ -n "$FILTER" ] && args+=(-R "$FILTER")
ctest "${args[@]}"

#!/usr/bin/env bash
# Whole-model embedding throughput: tokvec (library and `tokvec embed --lines`) against PyTorch eager and ONNX
# Runtime (onnxruntime-node 1.30.0), GPT-2 small and BERT-base shapes, 32 wikitext lines of ~128 tokens, mean
# pooling, 1 and 2 threads, same weights and token ids. What is measured and how: bench/embed_model.py.
#
#   bench/embed_model.sh [TOKVEC_BINARY] [embed_model.py options, e.g. --rounds 3 --threads 2]
#   bench/embed_model.sh [TOKVEC_BINARY] --startup [startup.py options]   start-up to the first vector instead
#                                                                          (bench/startup.py), same models and peers
#
# Needs the Python module next to the binary (cmake --build build --target tokvec _tokvec), Debian's python3
# (torch), node and npm. onnxruntime-node@1.30.0 is installed once with --ignore-scripts (its install script only
# fetches GPU providers; the CPU binaries ship in the package) into ${XDG_CACHE_HOME:-~/.cache}/tokvec/npm, where
# the other npm peers live. The random-weight checkpoints (~1 GB) are written once into
# ${XDG_CACHE_HOME:-~/.cache}/tokvec/bench_embed_model. Takes ~10 minutes per round on 2 idle cores.
#
# Prints a table and, for bench/run_all.sh, tab-separated lines: ROW <metric> <tokvec> <peer> <ratio> <target> <met>
set -euo pipefail
cd "$(dirname "$0")/.."

tokvec=$(realpath -m "${1:-build/tokvec}")
shared=$(realpath -m "${TOKVEC_SHARED_DIR:-../shared}")
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tokvec/npm"
module_dir="$(dirname "$tokvec")/python"

[[ -x "$tokvec" ]] || { echo "error: $tokvec is not built (cmake --build build --target tokvec)" >&2; exit 1; }
[[ -d "$module_dir/tokvec" ]] ||
  { echo "error: $module_dir/tokvec not found (cmake --build build --target _tokvec)" >&2; exit 1; }
[[ -d "$shared/corpora" && -d "$shared/vocab/gpt2" ]] ||
  { echo "SKIP embed model bench: $shared/corpora or $shared/vocab/gpt2 not found (set TOKVEC_SHARED_DIR)"; exit 0; }
command -v node >/dev/null 2>&1 || { echo "SKIP embed model bench: node is not installed (make deps)"; exit 0; }

ort_ok() {
  node -e "const p = '$cache/node_modules/onnxruntime-node/package.json';
    if (JSON.parse(require('fs').readFileSync(p)).version !== '1.30.0') process.exit(1)" 2>/dev/null
}
if ! ort_ok; then
  echo "installing onnxruntime-node@1.30.0 (--ignore-scripts) into $cache"
  mkdir -p "$cache"
  if ! (cd "$cache" && npm install --no-audit --no-fund --silent --ignore-scripts --save-exact \
          onnxruntime-node@1.30.0 >/dev/null 2>&1) || ! ort_ok; then
    echo "SKIP embed model bench: npm could not install onnxruntime-node@1.30.0 into $cache (offline?)"
    exit 0
  fi
fi

script=bench/embed_model.py
if [[ "${2:-}" == --startup ]]; then
  script=bench/startup.py
  set -- "$1" "${@:3}"
fi
TOKVEC_SHARED_DIR="$shared" PYTHONPATH="$module_dir${PYTHONPATH:+:$PYTHONPATH}" \
  /usr/bin/python3 "$script" --tokvec "$tokvec" --npm "$cache" "${@:2}"

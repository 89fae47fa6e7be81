#!/usr/bin/env bash
# Reranking throughput: tokvec against PyTorch eager and ONNX Runtime (onnxruntime-node 1.30.0) on a
# MiniLM-L6-shaped cross-encoder, one query and 100 passages of wikitext-2, 1 and 2 threads, same weights and token
# ids. What is measured and how: bench/rerank.py.
#
#   bench/rerank.sh [TOKVEC_BINARY] [rerank.py options, e.g. --rounds 3 --threads 2]
#
# Needs the Python module next to the binary (cmake --build build --target tokvec _tokvec), Debian's python3
# (torch), node and npm; onnxruntime-node is installed as bench/embed_model.sh installs it. The checkpoint (~50 MB)
# is written once into ${XDG_CACHE_HOME:-~/.cache}/tokvec/bench_rerank. Takes ~3 minutes on 2 idle cores.
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
[[ -d "$shared/corpora" ]] ||
  { echo "SKIP rerank bench: $shared/corpora not found (set TOKVEC_SHARED_DIR)"; exit 0; }
command -v node >/dev/null 2>&1 || { echo "SKIP rerank bench: node is not installed (make deps)"; exit 0; }
[[ -f "$cache/node_modules/onnxruntime-node/package.json" ]] ||
  { echo "SKIP rerank bench: onnxruntime-node is not installed (bench/embed_model.sh installs it)"; exit 0; }

TOKVEC_SHARED_DIR="$shared" PYTHONPATH="$module_dir${PYTHONPATH:+:$PYTHONPATH}" \
  /usr/bin/python3 bench/rerank.py --tokvec "$tokvec" --npm "$cache" "${@:2}"

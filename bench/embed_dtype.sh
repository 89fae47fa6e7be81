#!/usr/bin/env bash
# `tokvec embed --dtype f32|bf16|int8`: tokens/s at 1 and 2 threads, speed-up, weight memory and accuracy against
# f32 (pooled-vector cosines on wikitext and the shared corpora), GPT-2 small and BERT-base shapes, random weights;
# PyTorch 1.13's f32 and quantize_dynamic int8 (onednn) on the same texts in the same run.
# What is measured and how: bench/embed_dtype.py. Needs Debian's python3 (torch, numpy: the checkpoints are those
# of bench/embed_model.py, written once into ${XDG_CACHE_HOME:-~/.cache}/tokvec/bench_embed_model) and a CPU with
# AVX-512 BF16 and VNNI.
#
#   bench/embed_dtype.sh [TOKVEC_BINARY] [embed_dtype.py options, e.g. --rounds 1 --threads 2]
set -euo pipefail
cd "$(dirname "$0")/.."

tokvec=$(realpath -m "${1:-build/tokvec}")
shared=$(realpath -m "${TOKVEC_SHARED_DIR:-../shared}")
[[ -x "$tokvec" ]] || { echo "error: $tokvec is not built (cmake --build build --target tokvec)" >&2; exit 1; }
[[ -d "$shared/corpora" && -d "$shared/vocab/gpt2" ]] ||
  { echo "SKIP embed dtype bench: $shared/corpora or $shared/vocab/gpt2 not found (set TOKVEC_SHARED_DIR)"; exit 0; }
grep -qw avx512_bf16 /proc/cpuinfo && grep -qw avx512_vnni /proc/cpuinfo ||
  { echo "SKIP embed dtype bench: this CPU lacks AVX-512 BF16 or VNNI"; exit 0; }
module_dir="$(dirname "$tokvec")/python"  # the Python module: PyTorch's rows take tokvec's ids
[[ -d "$module_dir/tokvec" ]] ||
  { echo "error: $module_dir/tokvec not found (cmake --build build --target _tokvec)" >&2; exit 1; }
TOKVEC_SHARED_DIR="$shared" PYTHONPATH="$module_dir${PYTHONPATH:+:$PYTHONPATH}" \
  /usr/bin/python3 bench/embed_dtype.py --tokvec "$tokvec" "${@:2}"

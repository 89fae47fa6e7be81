#!/usr/bin/env bash
# Conformance of tokvec's byte-level BPE with tiktoken 1.0.22 and Hugging Face tokenizers 0.23.2 (npm):
# ids identical on every file of ../shared/corpora (whole and per line), llama.cpp's GPT-2 cases and seeded
# random strings; `tokvec convert` output and a tokvec-trained byte model loaded in Hugging Face; the WordPiece
# tokenizer.json files of tests/data/wordpiece (ids and decode); byte offsets of a tokenizer.json of each kind on
# non-ASCII lines (offsets/*); sentence pairs' ids and type ids (pairs/*) and decode with skip_special_tokens
# (skip-special/*); tokenizer.json shapes Hugging Face still reads from older files (legacy/*); the truncation and
# padding sections Hugging Face applies on every encode (lengths/*); `tokvec convert` of every tokenizer.json of
# tests/data loaded in Hugging Face (written/*). Details and the suites:
# scripts/conformance_peer.mjs. Extra arguments go to it (e.g. `--only wordpiece`).
# Then the Python drop-in tokvec.tokenizers (the build's python folder, next to TOKVEC_BINARY) against Hugging Face's
# encodeBatch on every tokenizer.json of tests/data, with the file's truncation and padding, without, and with others:
# ids, type ids, attention masks, offsets, word ids and overflowing windows (py-tokenizers/<file>/<run>; details:
# scripts/py_tokenizers_conformance.py, run with /usr/bin/python3, and its peer scripts/py_tokenizers_peer.mjs).
# --only picks the steps too: `--only py-tokenizers` runs only the Python one, `--only wordpiece` only the first;
# without --only both run (TOKVEC_PY_CONFORMANCE=0 leaves the Python step out).
#
#   scripts/conformance.sh [TOKVEC_BINARY [--only PREFIX]]   (default build/tokvec; build it first, and the _tokvec
#                                                           target for the py-tokenizers suites)
#
# Environment: TOKVEC_SHARED_DIR (default ../shared), TOKVEC_VOCAB_DIR (default $TOKVEC_SHARED_DIR/vocab),
# XDG_CACHE_HOME (peers go to ${XDG_CACHE_HOME:-$HOME/.cache}/tokvec/npm, installed once and reused).
# Exit: 0 when no id differs, or with a SKIP line when ../shared, node or npm is missing (the py-tokenizers step
# alone: when /usr/bin/python3 or the built Python module is missing); 1 on any difference.
set -euo pipefail
cd "$(dirname "$0")/.."

tokvec=$(realpath -m "${1:-build/tokvec}")
shared=$(realpath -m "${TOKVEC_SHARED_DIR:-../shared}")
vocab=$(realpath -m "${TOKVEC_VOCAB_DIR:-$shared/vocab}")
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tokvec/npm"

skip() { echo "SKIP conformance: $1"; exit 0; }
[[ -d "$shared/corpora" && -d "$shared/conformance" ]] || skip "$shared/corpora or $shared/conformance not found (set TOKVEC_SHARED_DIR)"
[[ -d "$vocab" ]] || skip "vocabulary folder $vocab not found (set TOKVEC_VOCAB_DIR)"
command -v node >/dev/null 2>&1 || skip "node is not installed (make deps)"
command -v npm >/dev/null 2>&1 || skip "npm is not installed (make deps)"
[[ -x "$tokvec" ]] || { echo "error: $tokvec is not built (cmake --build build --target tokvec)" >&2; exit 1; }

peers_ok() {
  node -e "const fs = require('fs'), v = (p) => JSON.parse(fs.readFileSync('$cache/node_modules/' + p + '/package.json')).version;
    if (v('tiktoken') !== '1.0.22' || v('tokenizers') !== '0.23.2') process.exit(1)" 2>/dev/null
}
if ! peers_ok; then
  echo "installing tiktoken@1.0.22 tokenizers@0.23.2 into $cache"
  mkdir -p "$cache"
  if ! (cd "$cache" && npm install --no-audit --no-fund --silent tiktoken@1.0.22 tokenizers@0.23.2 >/dev/null 2>&1) || ! peers_ok; then
    skip "npm could not install tiktoken@1.0.22 tokenizers@0.23.2 into $cache (offline?)"
  fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tokvec-conformance.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --only PREFIX (as conformance_peer.mjs reads it): no suite of its starts with "py", all of the Python step's do.
only=""
extra=("${@:2}")
for ((i = 0; i < ${#extra[@]}; i++)); do
  if [[ ${extra[i]} == --only ]]; then only=${extra[i + 1]:-}; fi
done
status=0
# The suites run in CONFORMANCE_SHARDS node processes at once (default 2: Hugging Face's binding keeps one core
# busy per process), each in its own work folder; each prints its own summary, and any difference fails the run.
if [[ -z $only || $only != py* ]]; then
  shards=${CONFORMANCE_SHARDS:-2}
  pids=()
  for ((s = 0; s < shards; s++)); do
    node scripts/conformance_peer.mjs --tokvec "$tokvec" --shared "$shared" --vocab "$vocab" \
      --npm "$cache/node_modules" --work "$work/shard$s" --shard "$s/$shards" "${@:2}" > "$work/shard$s.log" 2>&1 &
    pids+=($!)
  done
  for ((s = 0; s < shards; s++)); do
    wait "${pids[s]}" || status=1
    echo "--- conformance shard $s of $shards"
    cat "$work/shard$s.log"
  done
fi
# The Python step lets through only the documented offset differences (docs/tokenizers.md: combining marks a
# normalizer changed, and two places where Hugging Face's offsets leave the token's text), each counted.
if [[ -n $only && ( $only == py-tokenizers* || py-tokenizers == "$only"* ) ]] ||
   [[ -z $only && ${TOKVEC_PY_CONFORMANCE:-1} == 1 ]]; then
  python_dir=$(dirname "$tokvec")/python
  if [[ ! -x /usr/bin/python3 ]]; then
    echo "SKIP py-tokenizers: /usr/bin/python3 not found"
  elif ! compgen -G "$python_dir/tokvec/_tokvec*.so" >/dev/null || [[ ! -f $python_dir/tokvec/tokenizers.py ]]; then
    echo "SKIP py-tokenizers: the Python module is not built in $python_dir (cmake --build build --target _tokvec)"
  else
    PYTHONPATH="$python_dir" /usr/bin/python3 scripts/py_tokenizers_conformance.py --npm "$cache/node_modules" \
      --shared "$shared" --work "$work/py-tokenizers" ${only:+--only "$only"} || status=$?
  fi
fi
exit "$status"

#!/usr/bin/env bash
# The installed packages, as a user gets them (issue 16; the public C++ API: issue 33, item 6):
#   1. `cmake --install BUILD --prefix P` (BUILD: a configured, built build directory, default build); P/include
#      holds exactly the public headers (include/tokvec/*.h), none of the library's own (P/include/tokvec/tokenizer/
#      and the like must not exist)
#   2. examples/cpp, a separate CMake project, configured with find_package(tokvec) against P and using only
#      <tokvec/...> headers, built and run on real tokenizer files (../shared/vocab's tiktoken files and a trained
#      one): its ids must equal `tokvec encode`'s and its vector `tokvec embed --lines --pooling mean --normalize`'s
#   3. the same program built with pkg-config (P/lib/pkgconfig/tokvec.pc), same output; every installed header
#      compiles on its own
#   4. the Python package: a venv, `pip install --no-build-isolation --no-index ./python` (offline; the module is
#      compiled in BUILD, TOKVEC_BUILD_DIR), `import tokvec` from it, and the README's "Use from Python" example
#   5. the README's "Use from C++" block is examples/cpp/encode_and_embed.cc
#
#   scripts/install_check.sh [BUILD]        exit 0 when all hold, 1 otherwise
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shared=${TOKVEC_SHARED_DIR:-../shared}
work=$(mktemp -d "${TMPDIR:-/tmp}/tokvec-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL install_check: $*" >&2; exit 1; }

echo "== 1. cmake --install $build --prefix $work/prefix"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
prefix=$work/prefix
tokvec=$prefix/bin/tokvec
[[ -f $prefix/lib/cmake/tokvec/tokvecConfig.cmake && -f $prefix/lib/pkgconfig/tokvec.pc ]] || fail "package files missing"
# The installed headers are the public ones, no more and no fewer.
for internal in base kernels tokenizer embeddings attention models pipeline; do
  [[ ! -e $prefix/include/tokvec/$internal ]] ||
    fail "the library's own headers are installed: $prefix/include/tokvec/$internal/"
done
diff <(cd "$prefix/include" && find . -type f | sort) <(cd include && find . -name '*.h' | sort) \
  > "$work/headers.diff" ||
  { cat "$work/headers.diff"; fail "P/include differs from the public headers in include/ (< installed, > public)"; }
echo "installed headers: $(cd "$prefix/include" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')"

echo "== 2. examples/cpp against the installed prefix"
"$tokvec" train --type byte --vocab-size 400 --threads 1 -o "$work/byte.tokvec" data/corpus.txt
"$tokvec" init --tokenizer "$work/byte.tokvec" --arch gpt2 --d-model 32 --heads 4 --layers 2 --max-len 64 --seed 3 \
  -o "$work/model" > /dev/null
cmake -S examples/cpp -B "$work/example" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > "$work/example.log"
cmake --build "$work/example" -j "${JOBS:-2}" >> "$work/example.log" || { cat "$work/example.log"; fail "examples/cpp did not build"; }
grep -E '^#include' examples/cpp/encode_and_embed.cc | grep -vE '^#include <(tokvec|absl)/|^#include <[a-z_]+>$' &&
  fail "examples/cpp includes something other than <tokvec/...>, absl and the standard library"
# The same floats: the example writes each as std::to_chars's shortest text, tokvec embed as fmt's; both read back
# to the same float32 values, compared here as such.
same_floats() {
  /usr/bin/python3 -c 'import struct, sys
f32 = lambda line: [struct.unpack("f", struct.pack("f", float(x)))[0] for x in line.split("\t")]
sys.exit(f32(sys.argv[1]) != f32(sys.argv[2]))' "$1" "$2"
}
texts=("The cat watched the gardener walk to the city market."
       "naïve café, 東京 and Zürich: <|endoftext|> isn't special here!")
tokenizers=("$work/byte.tokvec" "$shared/vocab/gpt2.tiktoken" "$shared/vocab/cl100k_base.tiktoken")
for model_file in "${tokenizers[@]}"; do
  [[ -f $model_file ]] || fail "$model_file is missing (TOKVEC_SHARED_DIR=$shared)"
  for text in "${texts[@]}"; do
    "$work/example/encode_and_embed" "$model_file" "$work/model" "$text" > "$work/out.txt"
    expected_ids=$(printf '%s' "$text" | "$tokvec" encode -m "$model_file")
    [[ "$(sed -n 1p "$work/out.txt")" == "$expected_ids" ]] ||
      fail "$(basename "$model_file") on '$text': ids $(sed -n 1p "$work/out.txt") != tokvec encode's $expected_ids"
    expected_vector=$(printf '%s\n' "$text" |
      "$tokvec" embed -m "$work/model" --lines --pooling mean --normalize --format tsv)
    same_floats "$(sed -n 2p "$work/out.txt")" "$expected_vector" ||
      fail "the example's vector of '$text' differs from tokvec embed's"
    echo "$(basename "$model_file"): $(echo "$expected_ids" | wc -w) ids equal to tokvec encode's; vector of" \
      "$(echo "$expected_vector" | awk -F'\t' '{print NF}') floats equal to tokvec embed's"
  done
done

echo "== 3. the same program through pkg-config"
# shellcheck disable=SC2046
g++ -O1 examples/cpp/encode_and_embed.cc -o "$work/pc_example" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tokvec) || fail "pkg-config build failed"
# (a shared build, -DBUILD_SHARED_LIBS=ON, is found through LD_LIBRARY_PATH: pkg-config sets no run path)
LD_LIBRARY_PATH="$prefix/lib" "$work/pc_example" "$model_file" "$work/model" "$text" | cmp -s - "$work/out.txt" ||
  fail "pkg-config build's output differs"
for lib in "$prefix"/lib/libtokvec_*.so; do
  [[ -e $lib ]] || continue
  soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
  [[ $soname == "$(basename "$lib").0" ]] || fail "$lib has soname '$soname', not $(basename "$lib").0"
  echo "shared: $(basename "$lib") soname $soname"
done
echo "same output"
# Each installed header compiles on its own with only the installed prefix (and the system's packages) on the
# include path, in the form users write: #include <tokvec/...>.
cflags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags tokvec)
(cd "$prefix/include" && find . -name '*.h' | sed 's|^\./||') | sort > "$work/headers.txt"
# shellcheck disable=SC2016
xargs -P "${JOBS:-2}" -I{} sh -c 'echo "#include <{}>" | g++ -fsyntax-only -Wall -Wextra -x c++ $0 - || { echo "header {} does not compile alone"; exit 255; }' \
  "$cflags" < "$work/headers.txt" || fail "an installed header does not compile on its own"
echo "$(wc -l < "$work/headers.txt") installed headers each compile on their own"

echo "== 4. pip install ./python into a venv (offline) and import tokvec"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
TOKVEC_BUILD_DIR=$(realpath "$build") "$work/venv/bin/pip" install --no-build-isolation --no-index ./python \
  > "$work/pip.log" 2>&1 || { tail -30 "$work/pip.log"; fail "pip install ./python failed"; }
(cd "$work" && "$work/venv/bin/python" -c "import tokvec, sys; assert tokvec.__file__.startswith(sys.prefix), tokvec.__file__; print('imported', tokvec.__file__)")
/usr/bin/python3 - "$work/readme_python.py" <<'PY'
import re, sys
blocks = re.findall(r"## Use from Python\n.*?```python\n(.*?)```", open("README.md").read(), re.S)
assert blocks, "README.md has no python block under '## Use from Python'"
open(sys.argv[1], "w").write(blocks[0])
PY
(cd "$(pwd)" && TOKVEC_SHARED_DIR=${TOKVEC_SHARED_DIR:-../shared} "$work/venv/bin/python" "$work/readme_python.py") \
  || fail "the README's Python example failed"

echo "== 5. the README's C++ example is examples/cpp/encode_and_embed.cc"
/usr/bin/python3 - <<'PY' || fail "README.md's Use from C++ block differs from examples/cpp/encode_and_embed.cc"
import re
readme = open("README.md").read()
blocks = re.findall(r"## Use from C\+\+\n.*?```cpp\n(.*?)```", readme, re.S)
assert blocks and blocks[0] == open("examples/cpp/encode_and_embed.cc").read()
PY
echo "install check: all passed"

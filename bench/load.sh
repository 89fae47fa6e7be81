#!/usr/bin/env bash
# Tokenizer load time: tokvec against Hugging Face tokenizers 0.23.2 (npm) on the same files, in the same run.
#
#   bench/load.sh [TOKVEC_BINARY]          (default build/tokvec; ROUNDS=7)
#
# Files: cl100k_base and o200k_base as tokenizer.json (converted from ../shared/vocab/*.tiktoken by
# `tokvec convert` into a temp dir at bench time, 3.1 and 7.5 MB; o200k is the size class of Llama-3's 9 MB
# file), GPT-2's vocab.json + merges.txt, the .tiktoken files (tokvec only: Hugging Face does not read them),
# and tests/data/wordpiece/uncased.json.
# tokvec: wall time of a cold process `tokvec encode -m FILE` on one word ("hello") minus that of the same command
# with a missing model file (process start, dynamic linking, the failed open), median of ROUNDS, rounds
# alternating between files; CPU time (user + system of the process) the same way. Hugging Face:
# bench/load_peer.mjs, `Tokenizer.fromFile` (GPT-2: `BPE.fromFile`) then one encode of "hello", timed inside node
# after a warm-up load (wall, and CPU of the node process), median of ROUNDS. On a shared machine wall times
# grow with the load average while CPU times barely move: the CPU ratio is the one to compare then.
# Target (issue 14): a 9 MB tokenizer.json in <= 150 ms.
# Prints ROW lines as the other scripts: ROW <metric> <tokvec> <peer> <ratio> <target> <met>
set -euo pipefail
cd "$(dirname "$0")/.."

tokvec=$(realpath -m "${1:-build/tokvec}")
shared=$(realpath -m "${TOKVEC_SHARED_DIR:-../shared}")
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tokvec/npm"
rounds="${ROUNDS:-7}"

[[ -x "$tokvec" ]] || { echo "error: $tokvec is not built (cmake --build build --target tokvec)" >&2; exit 1; }
[[ -d "$shared/vocab" ]] || { echo "SKIP load bench: $shared/vocab not found (set TOKVEC_SHARED_DIR)"; exit 0; }
if [[ ! -d "$cache/node_modules/tokenizers" ]]; then
  mkdir -p "$cache"
  (cd "$cache" && npm install --no-audit --no-fund --silent tiktoken@1.0.22 tokenizers@0.23.2 >/dev/null 2>&1) ||
    { echo "SKIP load bench: npm could not install tokenizers@0.23.2 into $cache"; exit 0; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tokvec-bench-load.XXXXXX")
trap 'rm -rf "$work"' EXIT
for name in cl100k_base o200k_base; do
  "$tokvec" convert -m "$shared/vocab/$name.tiktoken" -o "$work/$name.json" > /dev/null
done

# name | tokvec model argument | peer arguments (empty: no peer)
cases=(
  "cl100k_base tokenizer.json|$work/cl100k_base.json|$work/cl100k_base.json"
  "o200k_base tokenizer.json|$work/o200k_base.json|$work/o200k_base.json"
  "gpt2 vocab.json + merges.txt|$shared/vocab/gpt2/vocab.json|$shared/vocab/gpt2/vocab.json $shared/vocab/gpt2/merges.txt"
  "WordPiece uncased.json (76 KB)|tests/data/wordpiece/uncased.json|tests/data/wordpiece/uncased.json"
  "gpt2.tiktoken|$shared/vocab/gpt2.tiktoken|"
  "cl100k_base.tiktoken|$shared/vocab/cl100k_base.tiktoken|"
  "o200k_base.tiktoken|$shared/vocab/o200k_base.tiktoken|"
)

for case in "${cases[@]}"; do  # Each model must load (the timing below ignores exit codes for the baseline).
  IFS='|' read -r name model _ <<< "$case"
  echo hello | "$tokvec" encode -m "$model" > /dev/null || { echo "error: tokvec cannot load $name" >&2; exit 1; }
done

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
measure() {  # "WALL CPU" seconds of one `tokvec encode -m MODEL` of "hello"
  local start end cpu
  start=$(date +%s.%N)
  cpu=$( { TIMEFORMAT='%3U %3S'; time (echo hello | "$tokvec" encode -m "$1" > /dev/null 2>&1 || true); } 2>&1 )
  end=$(date +%s.%N)
  echo "$(echo "$end - $start" | bc -l) $(awk '{ print $1 + $2 }' <<< "$cpu")"
}
declare -A walls cpus
for _ in $(seq "$rounds"); do
  read -r w c < <(measure "$work/missing.json")
  walls[baseline]+="$w "; cpus[baseline]+="$c "
  for i in "${!cases[@]}"; do
    IFS='|' read -r _ model _ <<< "${cases[$i]}"
    read -r w c < <(measure "$model")
    walls[$i]+="$w "; cpus[$i]+="$c "
  done
done
med() { tr ' ' '\n' <<< "$1" | grep . | median; }
base_wall=$(med "${walls[baseline]}")
base_cpu=$(med "${cpus[baseline]}")
ms() { echo "$1 * 1000" | bc -l | xargs printf '%.1f'; }
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
echo "tokvec process baseline (start, a missing model): wall $(ms "$base_wall") ms, CPU $(ms "$base_cpu") ms (median of $rounds)"
echo "load + encode \"hello\", ms, median of $rounds; tokvec: cold process minus that baseline; Hugging Face: in node"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-32s %10s %10s %7s %10s %10s %7s\n' file "tokvec" "HF" ratio "tokvec CPU" "HF CPU" ratio
for i in "${!cases[@]}"; do
  IFS='|' read -r name model peer_args <<< "${cases[$i]}"
  ours=$(echo "$(med "${walls[$i]}") - $base_wall" | bc -l)
  ours_cpu=$(echo "$(med "${cpus[$i]}") - $base_cpu" | bc -l)
  if [[ -n "$peer_args" ]]; then
    # shellcheck disable=SC2086  # peer_args is one or two paths
    read -r theirs theirs_cpu < <(node bench/load_peer.mjs "$cache/node_modules" "$rounds" $peer_args)
    printf '%-32s %10s %10s %7s %10s %10s %7s\n' "$name" "$(ms "$ours")" "$(ms "$theirs")" "$(ratio "$theirs" "$ours")x" \
      "$(ms "$ours_cpu")" "$(ms "$theirs_cpu")" "$(ratio "$theirs_cpu" "$ours_cpu")x"
    target=-; met=-
    if [[ "$name" == "o200k_base tokenizer.json" ]]; then
      target="<= 150 ms"; met=$([[ $(echo "$ours <= 0.150" | bc -l) == 1 ]] && echo yes || echo no)
    fi
    printf 'ROW\tload %s: wall ms (tokvec vs HF tokenizers, peer/tokvec)\t%s\t%s\t%s\t%s\t%s\n' \
      "$name" "$(ms "$ours")" "$(ms "$theirs")" "$(ratio "$theirs" "$ours")" "$target" "$met"
    printf 'ROW\tload %s: CPU ms (tokvec vs HF tokenizers, peer/tokvec)\t%s\t%s\t%s\t-\t-\n' \
      "$name" "$(ms "$ours_cpu")" "$(ms "$theirs_cpu")" "$(ratio "$theirs_cpu" "$ours_cpu")"
  else
    printf '%-32s %10s %10s %7s %10s %10s %7s\n' "$name" "$(ms "$ours")" - - "$(ms "$ours_cpu")" - -
    printf 'ROW\tload %s: wall ms, CPU ms (tokvec; Hugging Face reads no .tiktoken)\t%s / %s\t-\t-\t-\t-\n' \
      "$name" "$(ms "$ours")" "$(ms "$ours_cpu")"
  fi
done

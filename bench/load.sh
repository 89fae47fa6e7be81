# Tokenizer load time: tokvec against Hugging Face tokenizers 0.23.2 (npm) on the same files, in the same run.
#
#   bench/load.sh [TOKVEC_BINARY]          (default build/tokvec; ROUNDS=7)
#   WRITE_RESULTS=1 bench/load.sh          also rewrites bench/RESULTS.md's section "Tokenizer load time"
#   FIFO=1 bench/load.sh                   both sides' timed processes run under `chrt -f 10` (real-time, needs
#                                          root): on a machine other jobs load, close to what an idle one gives
#
# Files: a tokenizer.json in the shape of Llama-3's (9.2 MB: 128,000 byte-level tokens, 290k merges as
# "left right" strings with every split of every token, cl100k's Split regex + ByteLevel, 256 added special
# tokens), written at bench time by bench/gen_llama3_shaped.mjs from ../shared/vocab/cl100k_base.tiktoken plus
# 27,744 tokens of o200k_base (no Meta file is used); cl100k_base and o200k_base as tokenizer.json (converted by
# `tokvec convert` into the same temp dir, 3.1 and 7.5 MB); GPT-2's vocab.json + merges.txt; the .tiktoken files
# (tokvec only: Hugging Face does not read them); tests/data/wordpiece/uncased.json.
# Before timing, the Llama-3-shaped file is checked on a corpus sample (whole lines of wikitext-2, Botchan,
# Wagahai wa neko de aru and the UDHR translations, plus special tokens): tokvec's ids must be Hugging Face's
# (bench/load_check.mjs); and the same construction from cl100k_base alone must give tiktoken's cl100k_base ids
# under Hugging Face and tokvec (the merge list is faithful to the ranks).
# tokvec: wall time of a cold process `tokvec encode -m FILE` on one word ("hello") minus that of the same command
# with a missing model file (process start, dynamic linking, the failed open), median of ROUNDS, rounds
# alternating between files; CPU time (user + system of the process) the same way. Hugging Face:
# bench/load_peer.mjs, `Tokenizer.fromFile` (GPT-2: `BPE.fromFile`) then one encode of "hello", timed inside node
# after a warm-up load (wall, and CPU of the node process), median of ROUNDS. On a shared machine wall times
# grow with the load average while CPU times barely move: the CPU ratio is the one to compare then, and the
# 1-minute load average is printed with every row.
# Target (issue 14): the 9 MB tokenizer.json in <= 150 ms (wall), .tiktoken files as fast as before.
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
llama3="$work/llama3_shaped.json"
echo "Llama-3-shaped tokenizer.json: $(node bench/gen_llama3_shaped.mjs "$shared/vocab/cl100k_base.tiktoken" "$llama3" \
  "$shared/vocab/o200k_base.tiktoken" 128000)"
llama3_mb=$(stat -c %s "$llama3" | awk '{ printf "%.1f", $1 / 1e6 }')

# The check: tokvec's ids are Hugging Face's with the Llama-3-shaped file; with cl100k_base alone in that shape
# both give tiktoken's. Whole lines, so that no UTF-8 sequence is cut (node would read a cut one as U+FFFD).
sample="$work/sample.txt"
{
  for f in wikitext2-test.txt botchan.txt wagahaiwa_nekodearu.txt; do
    [[ -f "$shared/corpora/$f" ]] && head -c 150000 "$shared/corpora/$f" | sed '$d'
  done
  mapfile -t udhr < <(find "$shared/corpora/udhr" -name '*.txt' 2> /dev/null | sort)
  cat "${udhr[@]:0:40}" /dev/null > "$work/udhr.txt"
  head -c 150000 "$work/udhr.txt" | sed '$d'
} > "$sample"
cp "$sample" "$work/sample_special.txt"
printf 'a <|begin_of_text|> b <|reserved_special_token_7|><|end_of_text|>\n' >> "$work/sample_special.txt"
node bench/gen_llama3_shaped.mjs "$shared/vocab/cl100k_base.tiktoken" "$work/cl100k_shaped.json" > /dev/null
same_ids() {  # NAME FILE_A FILE_B: both hold the same ids, or the script stops
  cmp -s "$2" "$3" || { echo "error: $1: the ids differ (first difference: $(cmp "$2" "$3" 2>&1 | head -1))" >&2; exit 1; }
}
node bench/load_check.mjs "$cache/node_modules" hf "$llama3" "$work/sample_special.txt" > "$work/hf.ids"
"$tokvec" encode --allow-special -m "$llama3" < "$work/sample_special.txt" > "$work/tokvec.ids"
same_ids "Llama-3-shaped file, tokvec vs Hugging Face" "$work/hf.ids" "$work/tokvec.ids"
node bench/load_check.mjs "$cache/node_modules" tiktoken cl100k_base "$sample" > "$work/tiktoken.ids"
node bench/load_check.mjs "$cache/node_modules" hf "$work/cl100k_shaped.json" "$sample" > "$work/hf_cl100k.ids"
"$tokvec" encode -m "$work/cl100k_shaped.json" < "$sample" > "$work/tokvec_cl100k.ids"
same_ids "cl100k_base in Llama-3's shape, Hugging Face vs tiktoken" "$work/tiktoken.ids" "$work/hf_cl100k.ids"
same_ids "cl100k_base in Llama-3's shape, tokvec vs tiktoken" "$work/tiktoken.ids" "$work/tokvec_cl100k.ids"
check="ids checked on $(stat -c %s "$sample") bytes of corpora: tokvec = Hugging Face with the Llama-3-shaped file \
($(wc -w < "$work/hf.ids") ids, special tokens included); tiktoken cl100k_base = Hugging Face = tokvec with \
cl100k_base alone in that shape ($(wc -w < "$work/tiktoken.ids") ids)"
echo "$check"

# name | tokvec model argument | peer arguments (empty: no peer)
cases=(
  "Llama-3-shaped tokenizer.json ($llama3_mb MB)|$llama3|$llama3"
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

prio=()
if [[ "${FIFO:-0}" == 1 ]]; then
  chrt -f 10 true 2> /dev/null || { echo "error: FIFO=1 needs chrt -f (root)" >&2; exit 1; }
  prio=(chrt -f 10)
fi
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
measure() {  # "WALL CPU" seconds of one `tokvec encode -m MODEL` of "hello"
  local start end cpu
  start=$(date +%s.%N)
  cpu=$( { TIMEFORMAT='%3U %3S'; time (echo hello | "${prio[@]}" "$tokvec" encode -m "$1" > /dev/null 2>&1 || true); } 2>&1 )
  end=$(date +%s.%N)
  echo "$(echo "$end - $start" | bc -l) $(awk '{ print $1 + $2 }' <<< "$cpu")"
}
loadavg() { cut -d' ' -f1 /proc/loadavg; }
declare -A walls cpus
load_tokvec_before=$(cut -d' ' -f1-3 /proc/loadavg)
for _ in $(seq "$rounds"); do
  read -r w c < <(measure "$work/missing.json")
  walls[baseline]+="$w "; cpus[baseline]+="$c "
  for i in "${!cases[@]}"; do
    IFS='|' read -r _ model _ <<< "${cases[$i]}"
    read -r w c < <(measure "$model")
    walls[$i]+="$w "; cpus[$i]+="$c "
  done
done
load_tokvec_after=$(cut -d' ' -f1-3 /proc/loadavg)
med() { tr ' ' '\n' <<< "$1" | grep . | median; }
base_wall=$(med "${walls[baseline]}")
base_cpu=$(med "${cpus[baseline]}")
ms() { echo "$1 * 1000" | bc -l | xargs printf '%.1f'; }
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
echo "tokvec process baseline (start, a missing model): wall $(ms "$base_wall") ms, CPU $(ms "$base_cpu") ms (median of $rounds)"
echo "load + encode \"hello\", ms, median of $rounds; tokvec: cold process minus that baseline; Hugging Face: in node"
[[ ${#prio[@]} -gt 0 ]] && echo "timed processes under ${prio[*]} (real-time priority)"
echo "load average (1, 5, 15 min) over tokvec's rounds: before $load_tokvec_before, after $load_tokvec_after"
echo "HF load: the 1-minute load average when the row's Hugging Face rounds started"
printf '%-40s %9s %9s %7s %10s %9s %7s %7s\n' file "tokvec" "HF" ratio "tokvec CPU" "HF CPU" ratio "HF load"
md_rows=()
verdict="-"
for i in "${!cases[@]}"; do
  IFS='|' read -r name model peer_args <<< "${cases[$i]}"
  ours=$(echo "$(med "${walls[$i]}") - $base_wall" | bc -l)
  ours_cpu=$(echo "$(med "${cpus[$i]}") - $base_cpu" | bc -l)
  if [[ -n "$peer_args" ]]; then
    load=$(loadavg)
    # shellcheck disable=SC2086  # peer_args is one or two paths
    read -r theirs theirs_cpu < <("${prio[@]}" node bench/load_peer.mjs "$cache/node_modules" "$rounds" $peer_args)
    printf '%-40s %9s %9s %7s %10s %9s %7s %7s\n' "$name" "$(ms "$ours")" "$(ms "$theirs")" \
      "$(ratio "$theirs" "$ours")x" "$(ms "$ours_cpu")" "$(ms "$theirs_cpu")" "$(ratio "$theirs_cpu" "$ours_cpu")x" "$load"
    target=-; met=-
    if [[ "$name" == Llama-3-shaped* ]]; then
      target="<= 150 ms"; met=$([[ $(echo "$ours <= 0.150" | bc -l) == 1 ]] && echo yes || echo no)
      verdict="$met: $(ms "$ours") ms wall ($(ms "$ours_cpu") ms CPU) with the load average at $load"
    fi
    printf 'ROW\tload %s: wall ms (tokvec vs HF tokenizers, peer/tokvec)\t%s\t%s\t%s\t%s\t%s\n' \
      "$name" "$(ms "$ours")" "$(ms "$theirs")" "$(ratio "$theirs" "$ours")" "$target" "$met"
    printf 'ROW\tload %s: CPU ms (tokvec vs HF tokenizers, peer/tokvec)\t%s\t%s\t%s\t-\t-\n' \
      "$name" "$(ms "$ours_cpu")" "$(ms "$theirs_cpu")" "$(ratio "$theirs_cpu" "$ours_cpu")"
    md_rows+=("| $name | $(ms "$ours") | $(ms "$theirs") | $(ratio "$theirs" "$ours")× | $(ms "$ours_cpu") | \
$(ms "$theirs_cpu") | $(ratio "$theirs_cpu" "$ours_cpu")× | $load |")
  else
    printf '%-40s %9s %9s %7s %10s %9s %7s %7s\n' "$name" "$(ms "$ours")" - - "$(ms "$ours_cpu")" - - -
    printf 'ROW\tload %s: wall ms, CPU ms (tokvec; Hugging Face reads no .tiktoken)\t%s / %s\t-\t-\t-\t-\n' \
      "$name" "$(ms "$ours")" "$(ms "$ours_cpu")"
    md_rows+=("| $name | $(ms "$ours") | - | - | $(ms "$ours_cpu") | - | - | - |")
  fi
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average at the end: $load_end"

# WRITE_RESULTS=1: this run replaces the section below in bench/RESULTS.md (run_all.sh keeps it as it is).
[[ "${WRITE_RESULTS:-0}" == 1 ]] || exit 0
heading='## Tokenizer load time (`bench/load.sh`, a separate run)'
section="$work/section.md"
{
  echo "$heading"
  echo
  echo "Generated by \`WRITE_RESULTS=1 bench/load.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC') at $(git rev-parse --short HEAD \
2> /dev/null || echo '?')."
  echo "Load average (1, 5, 15 min) over tokvec's rounds $load_tokvec_before -> $load_tokvec_after, at the end $load_end"
  echo "($(nproc) cores). Load + encode of \"hello\", ms, median of $rounds. tokvec: a cold process minus one that"
  echo "fails on a missing model (wall $(ms "$base_wall"), CPU $(ms "$base_cpu")); Hugging Face tokenizers 0.23.2 (npm):"
  echo "\`Tokenizer.fromFile\` (GPT-2: \`BPE.fromFile\`) + one encode inside node after a warm-up load. \"HF load\": the"
  echo "1-minute load average when that row's Hugging Face rounds started. When the load average is above the core"
  echo "count, wall times grow with it and the CPU columns are the ones to compare, unless FIFO=1 was given."
  if [[ ${#prio[@]} -gt 0 ]]; then
    echo "Here it was: both sides' timed processes ran under \`${prio[*]}\` (real-time priority: other jobs wait, so"
    echo "the wall times are close to an idle machine's)."
  fi
  echo
  echo "| file | tokvec wall | HF wall | HF / tokvec | tokvec CPU | HF CPU | HF / tokvec | HF load |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${md_rows[@]}"
  echo
  echo "Target (issue 14): the 9 MB tokenizer.json in ≤ 150 ms; met in this run: $verdict."
  echo "The Llama-3-shaped file is written at bench time by"
  echo "\`bench/gen_llama3_shaped.mjs\` (cl100k_base + 27,744 o200k_base tokens = 128,000, Llama-3's count; merges as"
  echo "\"left right\" strings with every split of every token, as a tiktoken -> Hugging Face conversion writes them;"
  echo "256 added special tokens). Check before timing: $check."
  echo "Where the time goes: bench/README.md (load.sh)."
} > "$section"
results=bench/RESULTS.md
if grep -qxF "$heading" "$results"; then  # Replace the old section: from its heading to the next heading.
  awk -v heading="$heading" -v file="$section" '
    $0 == heading { while ((getline line < file) > 0) print line; skip = 1; next }
    skip && /^## / { skip = 0; print ""; }
    !skip { print }' "$results" > "$work/RESULTS.md"
else
  { cat "$results"; echo; cat "$section"; } > "$work/RESULTS.md"
fi
mv "$work/RESULTS.md" "$results"
echo "rewrote the load section of $results"

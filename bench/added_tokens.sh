#!/usr/bin/env bash
# Encode speed with many added tokens: `tokvec encode` on GPT-2's tokenizer.json (`tokvec convert` of gpt2.tiktoken)
# as is, and with 1000 non-special added tokens (`<|tool_i|>`, plus 10 that occur in the text: " Chapter", "Mr.",
# "thee", ... single_word), which are always matched (tokenizer/added_token_matcher.h: one automaton for all).
#
#   bench/added_tokens.sh [TOKVEC_BINARY]        (SIZE_MB=20, ROUNDS=3)
#
# Input: ../shared/corpora appended until SIZE_MB. Each figure: the median of ROUNDS wall times of
# `tokvec encode -m FILE --threads 1 TEXT > /dev/null` minus the same on an empty file (load and start), as MB/s.
# Prints human-readable lines and `ROW <metric> <with 1000> <with 0> <ratio> <target> <met>` (target: >= 0.9x).
set -euo pipefail
cd "$(dirname "$0")/.."
tokvec=$(realpath -m "${1:-build/tokvec}")
shared=$(realpath -m "${TOKVEC_SHARED_DIR:-../shared}")
size_mb="${SIZE_MB:-20}"
rounds="${ROUNDS:-3}"
[[ -x "$tokvec" ]] || { echo "error: $tokvec is not built" >&2; exit 1; }
[[ -f "$shared/vocab/gpt2.tiktoken" ]] || { echo "SKIP added-tokens bench: $shared/vocab/gpt2.tiktoken not found"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tokvec-bench-added.XXXXXX")
trap 'rm -rf "$work"' EXIT
mapfile -t corpus < <(find "$shared/corpora" -type f -name '*.txt' | sort)
text="$work/text.txt"
: > "$text"
while (( $(stat -c %s "$text") < size_mb * 1000000 )); do cat "${corpus[@]}" >> "$text"; done
: > "$work/empty.txt"
"$tokvec" convert -m "$shared/vocab/gpt2.tiktoken" -o "$work/plain" --to json >/dev/null
node - "$work/plain.json" "$work/many.json" <<'JS'
const fs = require("fs");
const tokenizer = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const added = tokenizer.added_tokens;
const nextId = Math.max(...added.map((t) => t.id)) + 1;
const words = [" Chapter", "Mr.", "thee", " Article", "人", "the", " said", "LORD", "été", "Hamlet"];
for (let i = 0; i < 1000; i++) {
  added.push({ id: nextId + i, content: i < words.length ? words[i] : `<|tool_${i}|>`, single_word: i === 2 || i === 5,
    lstrip: false, rstrip: false, normalized: false, special: false });
}
fs.writeFileSync(process.argv[3], JSON.stringify(tokenizer));
JS
seconds() {  # median wall seconds of `tokvec encode -m $1 $2`
  local times=()
  for ((r = 0; r < rounds; r++)); do
    local start end
    start=$(date +%s.%N)
    "$tokvec" encode -m "$1" --threads 1 "$2" > /dev/null
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n "$(( (rounds + 1) / 2 ))p"
}
bytes=$(stat -c %s "$text")
mbps() { echo "scale=2; $bytes / 1000000 / ($(seconds "$1" "$text") - $(seconds "$1" "$work/empty.txt"))" | bc; }
plain=$(mbps "$work/plain.json")
many=$(mbps "$work/many.json")
ids_plain=$("$tokvec" encode -m "$work/plain.json" "$text" | wc -w)
ids_many=$("$tokvec" encode -m "$work/many.json" "$text" | wc -w)
ratio=$(echo "scale=2; $many / $plain" | bc)
met=$(echo "$ratio >= 0.9" | bc)
echo "encode, gpt2 tokenizer.json, ${size_mb} MB, 1 thread: 0 added tokens ${plain} MB/s ($ids_plain ids), 1000 added tokens ${many} MB/s ($ids_many ids): ${ratio}x"
printf 'ROW\tencode MB/s, 1000 added tokens vs none\t%s\t%s\t%s\t>= 0.9x\t%s\n' "$many" "$plain" "$ratio" "$([[ $met == 1 ]] && echo yes || echo no)"

#!/usr/bin/env bash
# make demo: train on the embedded corpus, tokenize a sentence, show merges and tokens.
set -euo pipefail
TOKVEC=${1:-build/tokvec}
echo "(demo not built yet)"

#!/usr/bin/env bash
# `tokvec serve` end to end (issue 17), on 127.0.0.1 only: the official `openai` npm client (openai@7.57.0, cached
# in ${XDG_CACHE_HOME:-$HOME/.cache}/tokvec/npm-serve) against `tokvec embed --lines`, a load test with a
# disconnecting and a slow client, SIGTERM during load, and the viewer page in headless Chromium (screenshot saved
# to docs/serve_viewer.png with --screenshot). The checks: scripts/serve_check.mjs. About a minute.
#
#   scripts/serve_check.sh [TOKVEC_BINARY] [--screenshot]      (default build/tokvec; build it first)
#
# Environment: CLIENTS, REQUESTS (load test size, default 16 x 200).
# Exit: 0 when every check passes (SKIP lines when node, npm or chromium are missing), 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

tokvec=$(realpath -m "${1:-build/tokvec}")
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tokvec/npm-serve"
version=7.57.0

skip() { echo "SKIP serve check: $1"; exit 0; }
command -v node >/dev/null 2>&1 || skip "node is not installed (make deps)"
command -v npm >/dev/null 2>&1 || skip "npm is not installed (make deps)"
[[ -x "$tokvec" ]] || { echo "error: $tokvec is not built (cmake --build build --target tokvec)" >&2; exit 1; }

peer_ok() {
  node -e "const v = JSON.parse(require('fs').readFileSync('$cache/node_modules/openai/package.json')).version;
    if (v !== '$version') process.exit(1)" 2>/dev/null
}
if ! peer_ok; then
  echo "installing openai@$version into $cache"
  mkdir -p "$cache"
  if ! (cd "$cache" && npm install --no-audit --no-fund --silent "openai@$version" >/dev/null 2>&1) || ! peer_ok; then
    skip "npm could not install openai@$version into $cache (offline?)"
  fi
fi
extra=()
if command -v chromium >/dev/null 2>&1; then
  [[ "${2:-}" == "--screenshot" ]] && extra+=(--screenshot docs/serve_viewer.png)
else
  echo "SKIP the viewer page check: chromium is not installed (make deps)"
  extra+=(--no-chromium)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tokvec-serve.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
node scripts/serve_check.mjs --tokvec "$tokvec" --openai "$cache/node_modules/openai" --work "$work" \
  --clients "${CLIENTS:-16}" --requests "${REQUESTS:-200}" "${extra[@]}"
echo "serve check took $(( $(date +%s) - start )) s"

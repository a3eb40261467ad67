#!/usr/bin/env bash
# Builds the playground (release wasm, SIMD on) and serves it on 127.0.0.1.
# Usage: scripts/play.sh [port]   (default 8000; PORT=... works too)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh play
export PATH="$HOME/.cargo/bin:/usr/local/bin:$PATH"
echo "[play] building the wasm engine (release, two builds)…" >&2
scripts/build.sh
exec node scripts/serve.mjs "${1:-${PORT:-8000}}"

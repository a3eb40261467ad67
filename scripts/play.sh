#!/usr/bin/env bash
# Builds the playground (release wasm, SIMD on) and serves it on 127.0.0.1.
# Usage: scripts/play.sh [port]   (default 8000; PORT=... works too)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh play
export PATH="$HOME/.cargo/bin:/usr/local/bin:$PATH"
echo "[play] building the wasm engine (release)…" >&2
wasm-pack --log-level warn build --target web --release
exec node scripts/serve.mjs "${1:-${PORT:-8000}}"

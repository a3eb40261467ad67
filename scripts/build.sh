#!/usr/bin/env bash
# Builds the wasm engine twice, and the page picks one when it loads (web/wasm.js):
#   pkg/          SIMD128, which every current browser runs;
#   pkg-relaxed/  SIMD128 and relaxed SIMD (fused multiply-add), faster where the browser has it.
# Usage: scripts/build.sh [--release|--dev]   (release by default)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:/usr/local/bin:$PATH"
mode=${1:---release}
wasm-pack --log-level warn build --target web "$mode"
# Its own target folder, so the two builds do not rebuild each other's dependencies.
RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" CARGO_TARGET_DIR=target/relaxed \
  wasm-pack --log-level warn build --target web "$mode" --out-dir pkg-relaxed

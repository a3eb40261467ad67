#!/usr/bin/env bash
# Installs everything the play and test commands need, and skips what is already there:
# a second run takes about a second. Only package registries are used (apt, crates.io, npm).
# Usage: scripts/setup.sh [play|test]. `play` installs only what building and serving need;
# `test` (the default) adds the browsers, their drivers and the end-to-end test packages.
# Knobs: WITH_FIREFOX=0 skips firefox-esr and geckodriver; NPM_PREFIX moves wasm-opt.
set -euo pipefail
PURPOSE=${1:-test}
cd "$(dirname "$0")/.."

WASM_PACK_VERSION=0.15.1
GECKODRIVER_VERSION=0.37.1
BINARYEN_VERSION=132.0.0
NPM_PREFIX=${NPM_PREFIX:-/usr/local}
WITH_FIREFOX=${WITH_FIREFOX:-1}
# The CLI must match the wasm-bindgen crate in Cargo.lock exactly, or wasm-pack tries GitHub.
WASM_BINDGEN_VERSION=$(awk '$0=="name = \"wasm-bindgen\""{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)

export PATH="$HOME/.cargo/bin:$NPM_PREFIX/bin:$PATH"
export DEBIAN_FRONTEND=noninteractive
say() { printf '[setup] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Node serves the page and runs the end-to-end tests; the browsers and their WebDriver are for tests.
pkgs=()
command -v node >/dev/null && command -v npm >/dev/null || pkgs+=(nodejs npm)
if [ "$PURPOSE" = test ]; then
  # WebKitGTK's MiniBrowser and WebKitWebDriver (Safari's engine), run on an Xvfb display; and
  # fonts for every language the page speaks (Noto: Devanagari and Arabic in core, Chinese and
  # Japanese in CJK), so that the screenshots the tests keep show the real text, not boxes.
  pkgs+=(chromium chromium-driver webkit2gtk-driver xvfb xauth fonts-noto-core fonts-noto-cjk)
  [ "$WITH_FIREFOX" = 1 ] && pkgs+=(firefox-esr)
fi
missing=()
for p in "${pkgs[@]+"${pkgs[@]}"}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "apt: installing ${missing[*]}"
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Debian's binaryen 108 wasm-opt silently breaks wasm-bindgen output (a table export the
# page then rejects at load), so it must never be the wasm-opt that wasm-pack finds.
if dpkg-query -W -f='${Status}' binaryen 2>/dev/null | grep -q "install ok installed"; then
  say "apt: removing Debian's binaryen (its wasm-opt 108 breaks wasm-bindgen output)"
  as_root apt-get remove -y -qq binaryen >/dev/null
fi

rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
rustup component list --installed | grep -q '^clippy' || rustup component add clippy rustfmt

# $1 binary, $2 version, $3 crate. wasm-bindgen-cli's own lockfile names a crate version this
# registry lacks, so a --locked install that fails is retried unlocked.
cargo_tool() {
  local have
  have=$("$1" --version 2>/dev/null | awk 'NR==1{print $2}') || true
  [ "$have" = "$2" ] && return
  say "cargo: installing $3 $2 (have: ${have:-none}); this takes a few minutes"
  cargo install -q "$3" --version "$2" --locked || cargo install -q "$3" --version "$2"
}
cargo_tool wasm-pack "$WASM_PACK_VERSION" wasm-pack
cargo_tool wasm-bindgen "$WASM_BINDGEN_VERSION" wasm-bindgen-cli
[ "$PURPOSE" = test ] && [ "$WITH_FIREFOX" = 1 ] && cargo_tool geckodriver "$GECKODRIVER_VERSION" geckodriver

# wasm-opt: binaryen compiled to wasm, from npm; it runs on the machine's node.
if [ "$("$NPM_PREFIX/bin/wasm-opt" --version 2>/dev/null | awk '{print $3}')" != "${BINARYEN_VERSION%%.*}" ]; then
  say "npm: installing binaryen@$BINARYEN_VERSION (wasm-opt) into $NPM_PREFIX"
  as_root npm install -g --prefix "$NPM_PREFIX" --no-audit --no-fund --loglevel=error "binaryen@$BINARYEN_VERSION" >/dev/null
fi

# playwright-core drives Debian's chromium in the end-to-end tests; it downloads no browser.
if [ "$PURPOSE" = test ] && { [ ! -d node_modules/playwright-core ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  say "npm: installing the end-to-end test packages"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi

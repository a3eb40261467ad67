#!/usr/bin/env bash
# Runs every test: formatting, lints, native unit and golden tests, the wasm tests in headless
# Firefox and Chromium, and end-to-end tests of the served page. Stops at the first failing
# suite and always ends with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:/usr/local/bin:$PATH"
export WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-180}
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

summary() { echo "$passed passed, $failed failed"; }

# $1 name, $2 how to count (cargo | node | one), rest: the command.
suite() {
  local name=$1 kind=$2 rc p f
  shift 2
  echo "=== $name: $*" >&2
  "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  case $kind in
    cargo)
      p=$(grep -E '^test result: ' "$log" | sed -E 's/.* ([0-9]+) passed.*/\1/' | awk '{s+=$1} END {print s+0}')
      f=$(grep -E '^test result: ' "$log" | sed -E 's/.* ([0-9]+) failed.*/\1/' | awk '{s+=$1} END {print s+0}') ;;
    node)
      p=$(awk '/^# pass /{print $3}' "$log" | tail -1)
      f=$(awk '/^# fail /{print $3}' "$log" | tail -1) ;;
    one)
      if [ "$rc" = 0 ]; then p=1 f=0; else p=0 f=1; fi ;;
  esac
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  if [ "$rc" != 0 ]; then
    [ "${f:-0}" = 0 ] && failed=$((failed + 1))
    echo "FAILED: $name (exit $rc); its output is above." >&2
    summary
    exit 1
  fi
}

suite "setup" one scripts/setup.sh test
suite "cargo fmt" one cargo fmt --all -- --check
suite "clippy (native)" one cargo clippy --workspace --all-targets -- -D warnings
suite "clippy (wasm32)" one cargo clippy --target wasm32-unknown-unknown --all-targets -- -D warnings
suite "native tests" cargo cargo test --workspace
suite "nanoGPT and Transformers exports and back (Python, standard library)" one python3 -m unittest discover -s python -p 'test_*.py'
# Release mode: the tests that train run about ten times faster than in a debug wasm build.
# Each suite runs in both engine builds: SIMD128, and SIMD128 + relaxed SIMD (its own target dir).
relaxed() { RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" CARGO_TARGET_DIR=target/relaxed "$@"; }
suite "wasm tests in Firefox" cargo wasm-pack test --headless --firefox --release --test web --test worker
suite "wasm tests in Chromium" cargo wasm-pack test --headless --chrome --release --test web --test worker
suite "wasm tests in Firefox (relaxed SIMD)" cargo relaxed wasm-pack test --headless --firefox --release --test web --test worker
suite "wasm tests in Chromium (relaxed SIMD)" cargo relaxed wasm-pack test --headless --chrome --release --test web --test worker
suite "wasm builds" one scripts/build.sh
suite "page modules in Node" node node --test tests/web/
suite "end-to-end (served page)" node node --test --test-concurrency=1 tests/e2e/
summary

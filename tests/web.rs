//! The bindings in a real browser page (`wasm-pack test --headless --chrome` / `--firefox`).
#![cfg(target_arch = "wasm32")]

mod common;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

//! The bindings in a real browser page (`wasm-pack test --headless --chrome` / `--firefox`).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn reports_its_version() {
    assert_eq!(gpt_playground::version(), env!("CARGO_PKG_VERSION"));
}

//! The bindings inside a dedicated Web Worker, where the page runs training.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

#[wasm_bindgen_test]
fn reports_its_version() {
    assert_eq!(gpt_playground::version(), env!("CARGO_PKG_VERSION"));
}

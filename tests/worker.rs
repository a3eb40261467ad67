//! The bindings inside a dedicated Web Worker, where the page runs training.
#![cfg(target_arch = "wasm32")]

mod common;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

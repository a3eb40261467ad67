//! The JavaScript face of the `gpt` crate. It only converts values and maps errors; all model
//! logic lives in `crates/gpt`.

use wasm_bindgen::prelude::*;

/// The version of the playground, as the page shows it.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

//! The JavaScript face of the `gpt` crate. It only converts values and maps errors; all model
//! logic lives in `crates/gpt`.

mod convert;
mod panic;
mod playground;
mod types;

pub use playground::Trainer;

use convert::{from_js, js_error, to_js};
use gpt::CharTokenizer;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Runs when the module is instantiated.
#[wasm_bindgen(start)]
fn start() {
    panic::install_hook();
}

/// The version of the playground, as the page shows it.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The named starting points, in the order the page lists them.
#[wasm_bindgen(unchecked_return_type = "Preset[]")]
pub fn presets() -> Result<JsValue, JsError> {
    to_js(&gpt::presets::presets())
}

#[derive(Serialize)]
struct ModelSize {
    params: usize,
    training_bytes: u64,
}

/// The parameter count and training memory of `config` for a text with `text_vocab_size`
/// distinct characters, or an `Error` saying which setting is invalid.
#[wasm_bindgen(js_name = describeModel, unchecked_return_type = "ModelSize")]
pub fn describe_model(
    #[wasm_bindgen(unchecked_param_type = "PlaygroundConfig")] config: JsValue,
    text_vocab_size: usize,
) -> Result<JsValue, JsError> {
    let config: types::PlaygroundConfig = from_js(config, "config")?;
    let vocab_size = config.vocab_size(text_vocab_size);
    let (model, train) = config.resolve(vocab_size).map_err(js_error)?;
    to_js(&ModelSize { params: model.param_count(), training_bytes: model.training_bytes(train.batch_size) })
}

#[derive(Serialize)]
struct TextSummary {
    chars: usize,
    vocab_size: usize,
}

/// How many characters `text` has and how many distinct ones (its character vocabulary).
#[wasm_bindgen(js_name = summarizeText, unchecked_return_type = "TextSummary")]
pub fn summarize_text(text: &str) -> Result<JsValue, JsError> {
    let vocab_size = CharTokenizer::fit(text).map(|t| t.vocab_size()).unwrap_or(0);
    to_js(&TextSummary { chars: text.chars().count(), vocab_size })
}

//! The JavaScript face of the `gpt` crate. It only converts values and maps errors; every flow
//! and rule lives in `crates/gpt`, mostly in its `Run`.

mod convert;
mod panic;
mod replica;
mod run;
mod types;

pub use replica::Replica;
pub use run::Run;

use convert::{from_js, to_js, JsResult};
use gpt::{Budget, Settings, TextStats};
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
pub fn presets() -> JsResult<JsValue> {
    to_js(&gpt::presets::presets())
}

/// Every task, as the Corpus menu lists them.
#[wasm_bindgen(unchecked_return_type = "TaskInfo[]")]
pub fn tasks() -> JsResult<JsValue> {
    to_js(&gpt::data::tasks())
}

/// Every optimiser, as the Optimizer menu lists them, with their own settings.
#[wasm_bindgen(unchecked_return_type = "OptimizerInfo[]")]
pub fn optimizers() -> JsResult<JsValue> {
    to_js(&gpt::optim::optimizers())
}

/// What a task's settings make (what to watch for, an example, how many problems), or throws
/// their first problem.
#[wasm_bindgen(js_name = describeTask, unchecked_return_type = "TaskSummary")]
pub fn describe_task(#[wasm_bindgen(unchecked_param_type = "TaskConfig")] task: JsValue) -> JsResult<JsValue> {
    let task: gpt::TaskConfig = from_js(task, "task")?;
    to_js(&task.summary().map_err(convert::js_error)?)
}

/// Every problem of `settings` for a text of `text` (from a `TextCounter`), each with the field
/// it belongs beside, or the parameter count, training memory, vocabulary and uniform-guess
/// loss of the model they build.
#[wasm_bindgen(js_name = describeModel, unchecked_return_type = "Description")]
pub fn describe_model(
    #[wasm_bindgen(unchecked_param_type = "Settings")] settings: JsValue,
    #[wasm_bindgen(unchecked_param_type = "TextStats")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Budget")] budget: JsValue,
) -> JsResult<JsValue> {
    let settings: Settings = from_js(settings, "settings")?;
    let text: TextStats = from_js(text, "text")?;
    let budget: Budget = from_js(budget, "budget")?;
    to_js(&settings.describe(&text, &budget))
}

/// The settings that differ among `runs` (each a run's settings), each with every run's value.
#[wasm_bindgen(js_name = compareSettings, unchecked_return_type = "Difference[]")]
pub fn compare_settings(#[wasm_bindgen(unchecked_param_type = "Settings[]")] runs: JsValue) -> JsResult<JsValue> {
    let runs: Vec<Settings> = from_js(runs, "runs' settings")?;
    to_js(&gpt::differences(&runs))
}

/// Counts a text piece by piece: its characters and its distinct ones (its character vocabulary).
#[wasm_bindgen]
#[derive(Default)]
pub struct TextCounter(gpt::TextCounter);

#[wasm_bindgen]
impl TextCounter {
    #[wasm_bindgen(constructor)]
    pub fn new() -> TextCounter {
        TextCounter::default()
    }

    pub fn add(&mut self, piece: &str) {
        self.0.add(piece);
    }

    #[wasm_bindgen(unchecked_return_type = "TextStats")]
    pub fn stats(&self) -> JsResult<JsValue> {
        to_js(&self.0.stats())
    }
}

/// A run brought back from other tools' files (see `gpt::interop::import`).
#[wasm_bindgen(getter_with_clone)]
pub struct Imported {
    /// Our checkpoint file, for `Run.open`.
    pub checkpoint: Vec<u8>,
    /// The text the run trained on, when the files hold it.
    pub text: Option<String>,
    /// The tool the files came from.
    pub from: String,
}

/// The run in the files a person chose: ours, nanoGPT's, a Transformers folder's, or an export's zip.
#[wasm_bindgen(js_name = importRun)]
pub fn import_run(names: Vec<String>, files: Vec<js_sys::Uint8Array>) -> JsResult<Imported> {
    let bytes: Vec<Vec<u8>> = files.iter().map(js_sys::Uint8Array::to_vec).collect();
    let files: Vec<(String, &[u8])> = names.into_iter().zip(bytes.iter().map(Vec::as_slice)).collect();
    let imported = gpt::interop::import(&files).map_err(convert::js_error)?;
    Ok(Imported { checkpoint: imported.checkpoint, text: imported.text, from: imported.from.into() })
}

//! The JavaScript face of the `gpt` crate. It only converts values and maps errors; every flow
//! and rule lives in `crates/gpt`, mostly in its `Run`. The TypeScript types of what it takes and
//! gives are written from the Rust types (tsify).

mod convert;
mod replica;
mod run;
mod types;

pub use replica::Replica;
pub use run::Run;

use convert::{js_error, read, ts, JsResult};
use gpt::toy::{Cell, PhaseSpec, ToyJob, ToyProgress};
use gpt::{Budget, Catalog, Description, Difference, Settings, TextStats};
use tsify::Ts;
use wasm_bindgen::prelude::*;

/// A panic (only a bug can cause one) is said on the console before the instance traps.
#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&format!("gpt-playground crashed: {info}. This is a bug; reload the page.").into());
    }));
}

/// The presets, tasks and optimisers the page offers, and the version.
#[wasm_bindgen]
pub fn catalog() -> JsResult<Ts<Catalog>> {
    ts(&gpt::catalog())
}

/// Every error of `settings` for a text of `text`, or the size of the model they build.
#[wasm_bindgen(js_name = describeModel)]
pub fn describe_model(settings: Ts<Settings>, text: Ts<TextStats>, budget: Ts<Budget>) -> JsResult<Ts<Description>> {
    ts(&read::<Settings>(settings, "settings")?.describe(&read(text, "text")?, &read(budget, "budget")?))
}

/// The settings that differ among `runs` (each a run's settings), each with every run's value.
#[wasm_bindgen(js_name = compareSettings, unchecked_return_type = "Difference[]")]
pub fn compare_settings(#[wasm_bindgen(unchecked_param_type = "Settings[]")] runs: JsValue) -> JsResult<JsValue> {
    convert::to_js::<Vec<Difference>>(&gpt::differences(&convert::from_js::<Vec<Settings>>(runs, "runs' settings")?))
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

    pub fn stats(&self) -> JsResult<Ts<TextStats>> {
        ts(&self.0.stats())
    }
}

/// A run brought back from other tools' files: our checkpoint (for `Run.open`), its text if there, and their tool.
#[wasm_bindgen(getter_with_clone)]
pub struct Imported {
    pub checkpoint: Vec<u8>,
    pub text: Option<String>,
    pub from: String,
}

/// The run in the files a person chose: ours, nanoGPT's, a Transformers folder's, or an export's zip.
#[wasm_bindgen(js_name = importRun)]
pub fn import_run(names: Vec<String>, files: Vec<js_sys::Uint8Array>) -> JsResult<Imported> {
    let bytes: Vec<Vec<u8>> = files.iter().map(js_sys::Uint8Array::to_vec).collect();
    let files: Vec<(String, &[u8])> = names.into_iter().zip(bytes.iter().map(Vec::as_slice)).collect();
    let imported = gpt::interop::import(&files).map_err(js_error)?;
    Ok(Imported { checkpoint: imported.checkpoint, text: imported.text, from: imported.from.into() })
}

/// A toy worker's job ([`gpt::toy::ToyWork`]): a model of superposition, or an autoencoder on known features.
#[wasm_bindgen]
pub struct Toy(gpt::toy::ToyWork);

#[wasm_bindgen]
impl Toy {
    #[wasm_bindgen(constructor)]
    pub fn new(job: Ts<ToyJob>) -> JsResult<Toy> {
        Ok(Toy(gpt::toy::ToyWork::new(read(job, "the toy job")?).map_err(js_error)?))
    }

    /// Up to `n` more steps (an error if the loss diverged); whether every step is taken.
    pub fn train(&mut self, n: usize) -> JsResult<bool> {
        self.0.train(n, &js_sys::Date::now).map_err(js_error)
    }

    pub fn progress(&self) -> JsResult<Ts<ToyProgress>> {
        ts(&self.0.progress())
    }
}

/// Trains cell `index` of the phase diagram `spec` and says what became of its extra feature.
#[wasm_bindgen(js_name = phaseCell)]
pub fn phase_cell(spec: Ts<PhaseSpec>, index: usize) -> JsResult<Ts<Cell>> {
    ts(&read::<PhaseSpec>(spec, "the phase diagram")?.cell(index).map_err(js_error)?)
}

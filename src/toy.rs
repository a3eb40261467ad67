//! `ToyRun`: Elhage et al.'s toy model of superposition ([`gpt::toy::ToyRun`]), and one cell of a
//! phase diagram, as the page's toy workers drive them. Values and errors only.

use crate::convert::{js_error, read, ts, JsResult};
use gpt::toy::{Cell, PhaseSpec, ToySettings, ToyStatus};
use tsify::Ts;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct ToyRun(gpt::toy::ToyRun);

#[wasm_bindgen]
impl ToyRun {
    /// A fresh model of `settings`, to train `steps` steps by Elhage's recipe from `seed`.
    #[wasm_bindgen(constructor)]
    pub fn new(settings: Ts<ToySettings>, steps: usize, seed: u32) -> JsResult<ToyRun> {
        let recipe = gpt::toy::ToyRun::recipe_for(steps, seed.into());
        Ok(ToyRun(gpt::toy::ToyRun::new(read(settings, "the toy model's settings")?, recipe).map_err(js_error)?))
    }

    /// Up to `n` steps; an error if the loss diverged, the model kept as it was.
    pub fn train(&mut self, n: usize) -> JsResult<()> {
        self.0.train(n, &js_sys::Date::now).map(drop).map_err(js_error)
    }

    pub fn done(&self) -> bool {
        self.0.done()
    }

    pub fn status(&self) -> JsResult<Ts<ToyStatus>> {
        ts(&self.0.status())
    }
}

/// Trains cell `index` of the phase diagram `spec` and says what became of its extra feature.
#[wasm_bindgen(js_name = phaseCell)]
pub fn phase_cell(spec: Ts<PhaseSpec>, index: usize) -> JsResult<Ts<Cell>> {
    ts(&read::<PhaseSpec>(spec, "the phase diagram")?.cell(index).map_err(js_error)?)
}

//! `Replica`: a helper Web Worker's copy of the model, answering the run's orders.

use crate::convert::{js_error, read, ts, JsResult};
use crate::types::{Buffers, Message};
use gpt::{GPTConfig, GPT};
use js_sys::Float32Array;
use tsify::Ts;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct Replica {
    inner: gpt::train::Replica<GPT>,
    buffers: Buffers,
}

#[wasm_bindgen]
impl Replica {
    /// A replica of the model `config` (a run's `settings.model`) describes.
    #[wasm_bindgen(constructor)]
    pub fn new(config: Ts<GPTConfig>) -> JsResult<Replica> {
        let inner = gpt::train::Replica::new(GPT::new(read(config, "model config")?, 0).map_err(js_error)?);
        Ok(Replica { inner, buffers: Buffers::default() })
    }

    /// Answers one of the run's orders (its `header` and floats) with a reply for `run.accept`,
    /// its floats in a buffer an order brought when one holds them (so the memory goes back and
    /// forth).
    pub fn answer(&mut self, header: &str, data: Option<Float32Array>) -> JsResult<Ts<Message>> {
        let header = self.buffers.read(data, |len, copy| self.inner.answer(header, len, copy)).map_err(js_error)?;
        ts(&self.buffers.message(None, header, &self.inner.reply_data()))
    }
}

//! `Replica`: a helper Web Worker's copies of the model and its autoencoder or transcoders, answering the run's orders.

use crate::convert::{js_error, read, ts, JsResult};
use crate::types::{Buffers, Message};
use gpt::{run::DictionaryShape, run::HelperCopy, GPTConfig};
use js_sys::Float32Array;
use tsify::Ts;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct Replica {
    inner: HelperCopy,
    buffers: Buffers,
}

#[wasm_bindgen]
impl Replica {
    /// A replica of the model `config` (a run's `settings.model`) describes, and with `features` (a features
    /// answer's `copy`) of the autoencoder or transcoders on it.
    #[wasm_bindgen(constructor)]
    pub fn new(config: Ts<GPTConfig>, features: Option<Ts<DictionaryShape>>) -> JsResult<Replica> {
        let features = features.map(|f| read(f, "the dictionary's shape")).transpose()?;
        let inner = HelperCopy::new(read(config, "model config")?, features).map_err(js_error)?;
        Ok(Replica { inner, buffers: Buffers::default() })
    }

    /// Answers one of the run's orders (its `header` and floats; the dictionary's when `features`) for `run.accept`.
    pub fn answer(&mut self, header: &str, data: Option<Float32Array>, features: bool) -> JsResult<Ts<Message>> {
        let header =
            self.buffers.read(data, |n, copy| self.inner.answer(header, n, copy, features)).map_err(js_error)?;
        ts(&self.buffers.message(None, header, &self.inner.reply_data()))
    }
}

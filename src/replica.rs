//! `Replica`: a helper Web Worker's copy of the model, answering the run's orders.

use crate::convert::{js_error, read, ts, JsResult};
use crate::types::{floats, Message};
use gpt::GPTConfig;
use js_sys::Float32Array;
use tsify::Ts;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct Replica {
    inner: gpt::work::Replica,
}

#[wasm_bindgen]
impl Replica {
    /// A replica of the model `config` (a run's `settings.model`) describes.
    #[wasm_bindgen(constructor)]
    pub fn new(config: Ts<GPTConfig>) -> JsResult<Replica> {
        Ok(Replica { inner: gpt::work::Replica::new(read(config, "model config")?).map_err(js_error)? })
    }

    /// Answers one of the run's orders (its `header` and floats) with a reply for `run.accept`,
    /// its floats in the order's own buffer when they fit it (so the memory goes back and forth).
    pub fn answer(&mut self, header: &str, data: Option<Float32Array>) -> JsResult<Ts<Message>> {
        let (len, copy) = floats(data.as_ref());
        let answer = self.inner.answer(header, len, copy).map_err(js_error)?;
        let parts: Vec<&[f32]> = answer.data.iter().map(Vec::as_slice).collect();
        let reply = Message::new(None, answer.header.clone(), &parts, data);
        self.inner.recycle(answer);
        ts(&reply)
    }
}

//! `Replica`: a helper Web Worker's copy of the model, answering the run's orders.

use crate::convert::{from_js, js_error, object, JsResult};
use crate::run::{copy_out, message};
use js_sys::Float32Array;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct Replica {
    inner: gpt::work::Replica,
}

#[wasm_bindgen]
impl Replica {
    /// A replica of the model `config` (a run's `settings.model`) describes.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "ModelConfig")] config: JsValue) -> JsResult<Replica> {
        Ok(Replica { inner: gpt::work::Replica::new(from_js(config, "model config")?).map_err(js_error)? })
    }

    /// Answers one of the run's orders with a reply for `run.accept`, its floats in the order's
    /// own buffer when they fit it (so the same memory goes back and forth), else in a new one.
    #[wasm_bindgen(unchecked_return_type = "Message")]
    pub fn answer(&mut self, #[wasm_bindgen(unchecked_param_type = "Message")] order: JsValue) -> JsResult<JsValue> {
        let (header, data) = message(&order)?;
        let len = data.as_ref().map_or(0, |d| d.length() as usize);
        let answer = self.inner.answer(&header, len, |at, out| copy_out(data.as_ref(), at, out)).map_err(js_error)?;
        let total: usize = answer.data.iter().map(Vec::len).sum();
        let reply = if total == 0 {
            object(vec![("header", answer.header.as_str().into())])?
        } else {
            let buffer = data.filter(|d| d.length() as usize == total);
            let buffer = buffer.unwrap_or_else(|| Float32Array::new_with_length(total as u32));
            let mut at = 0;
            for part in &answer.data {
                buffer.subarray(at as u32, (at + part.len()) as u32).copy_from(part);
                at += part.len();
            }
            object(vec![("header", answer.header.as_str().into()), ("data", buffer.into())])?
        };
        self.inner.recycle(answer);
        Ok(reply)
    }
}

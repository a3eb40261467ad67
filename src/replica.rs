//! `Replica`: a training worker's copy of the model, computing the shards the run hands it.

use crate::convert::{from_js, js_error, object, JsResult};
use js_sys::{Array, Float32Array};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct Replica {
    inner: gpt::shards::Replica,
}

#[wasm_bindgen]
impl Replica {
    /// A replica of the model `config` (a run's `settings.model`) describes.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "ModelConfig")] config: JsValue) -> JsResult<Replica> {
        Ok(Replica { inner: gpt::shards::Replica::new(from_js(config, "model config")?).map_err(js_error)? })
    }

    /// The run's weights for this step (`run.copyWeights`).
    #[wasm_bindgen(js_name = setWeights)]
    pub fn set_weights(&mut self, weights: &Float32Array) -> JsResult<()> {
        let read = |at: usize, part: &mut [f32]| weights.subarray(at as u32, (at + part.len()) as u32).copy_to(part);
        self.inner.set_weights(weights.length() as usize, read).map_err(js_error)
    }

    /// Units `first..end` of `plan` (`run.beginStep()`'s or `beginEvaluation()`'s; none: the last
    /// given) as partials for `run.addPartial`, gradients in `buffers` (or new ones, or none).
    #[wasm_bindgen(unchecked_return_type = "Partial[]")]
    pub fn compute(
        &mut self,
        plan: Option<String>,
        first: usize,
        end: usize,
        buffers: Vec<Float32Array>,
    ) -> JsResult<Array> {
        let partials = self.inner.compute(plan.as_deref(), first..end).map_err(js_error)?;
        let out = Array::new();
        let mut buffers = buffers.into_iter().filter(|b| b.length() as usize == self.inner.len());
        for p in partials {
            let grads = buffers.next().filter(|_| !p.grads.is_empty());
            let grads = grads.unwrap_or_else(|| Float32Array::new_with_length(p.grads.len() as u32));
            grads.copy_from(&p.grads);
            let fields = [
                ("first", p.first.into()),
                ("count", p.count.into()),
                ("loss", p.loss.into()),
                ("exact", p.exact.into()),
            ];
            out.push(&object(fields.into_iter().chain([("grads", grads.into())]).collect())?);
            self.inner.recycle(p);
        }
        Ok(out)
    }
}

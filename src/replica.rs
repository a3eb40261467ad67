//! `Replica`: a training worker's copy of the model, computing the shards the run hands it.

use crate::convert::{fail, from_js, js_error, object, JsResult};
use gpt::shards::Work;
use js_sys::{Array, Float32Array};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct Replica {
    inner: gpt::shards::Replica,
    /// The plan last given, for the chunks of an evaluation that come without it.
    plan: Option<Work>,
}

#[wasm_bindgen]
impl Replica {
    /// A replica of the model `config` (a run's `settings.model`) describes.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "ModelConfig")] config: JsValue) -> JsResult<Replica> {
        Ok(Replica {
            inner: gpt::shards::Replica::new(from_js(config, "model config")?).map_err(js_error)?,
            plan: None,
        })
    }

    /// The run's weights for this step (`run.copyWeights`).
    #[wasm_bindgen(js_name = setWeights)]
    pub fn set_weights(&mut self, weights: &Float32Array) -> JsResult<()> {
        let read = |at: usize, part: &mut [f32]| weights.subarray(at as u32, (at + part.len()) as u32).copy_to(part);
        self.inner.set_weights(weights.length() as usize, read).map_err(js_error)
    }

    /// Computes units `first..end` of `plan` (from `run.beginStep()` or `beginEvaluation()`), or
    /// without one, of the plan last given (an evaluation's batches come a chunk at a time, and a
    /// plan of them takes a while to read); returns the partials for `run.addPartial`, their
    /// gradients copied into `buffers` (new ones past those; an evaluation's have none).
    #[wasm_bindgen(unchecked_return_type = "Partial[]")]
    pub fn compute(
        &mut self,
        plan: Option<String>,
        first: usize,
        end: usize,
        buffers: Vec<Float32Array>,
    ) -> JsResult<Array> {
        if let Some(plan) = plan {
            self.plan = Some(serde_json::from_str(&plan).map_err(|e| fail(&e.to_string()))?);
        }
        let plan = self.plan.as_ref().ok_or_else(|| fail("no plan to compute: the first chunk brings it"))?;
        let partials = self.inner.compute(plan, first..end).map_err(js_error)?;
        let out = Array::new();
        let mut buffers = buffers.into_iter().filter(|b| b.length() as usize == self.inner.len());
        for p in partials {
            let grads = buffers.next().filter(|_| !p.grads.is_empty());
            let grads = grads.unwrap_or_else(|| Float32Array::new_with_length(p.grads.len() as u32));
            grads.copy_from(&p.grads);
            let fields = [("first", p.first.into()), ("count", p.count.into()), ("loss", p.loss.into())];
            out.push(&object(fields.into_iter().chain([("grads", grads.into())]).collect())?);
            self.inner.recycle(p);
        }
        Ok(out)
    }
}

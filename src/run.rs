//! `Run`: the core's [`gpt::Run`] as the page's worker drives it. Values and errors only.

use crate::convert::{fail, from_js, js_error, object, to_js, Fields, JsResult};
use gpt::{Budget, SampleConfig, Settings};
use js_sys::{Array, Float32Array};
use wasm_bindgen::prelude::*;

impl From<gpt::Run> for Run {
    fn from(inner: gpt::Run) -> Run {
        Run { inner, buffers: vec![] }
    }
}

/// A model with its tokenizer, training state and text. A failed call throws the core's message
/// and leaves the run as it was.
#[wasm_bindgen]
pub struct Run {
    inner: gpt::Run,
    /// Buffers replies brought, kept so that orders need no new memory.
    buffers: Vec<Float32Array>,
}

#[wasm_bindgen]
impl Run {
    /// A new model for `text`, with a tokenizer fitted to it (or for `settings.task`, which needs
    /// no text), within the page's memory `budget`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Settings")] settings: JsValue,
        text: &str,
        #[wasm_bindgen(unchecked_param_type = "Budget")] budget: JsValue,
    ) -> JsResult<Run> {
        let (settings, budget): (Settings, Budget) = (from_js(settings, "settings")?, from_js(budget, "budget")?);
        Ok(Run::from(gpt::Run::create(&settings, text, &budget).map_err(js_error)?))
    }

    /// Opens a checkpoint; it samples and shows attention at once, and trains after `useText`.
    pub fn open(bytes: &[u8]) -> JsResult<Run> {
        Ok(Run::from(gpt::Run::open(bytes).map_err(js_error)?))
    }

    /// Trains on `text` from now on; it must encode with the run's tokenizer.
    #[wasm_bindgen(js_name = useText)]
    pub fn use_text(&mut self, text: &str) -> JsResult<()> {
        self.inner.use_text(text).map_err(js_error)
    }

    /// Up to `n` training steps, timed. Divergence ends it early, with the reason in `stopped`.
    #[wasm_bindgen(unchecked_return_type = "TrainReport")]
    pub fn train(&mut self, n: usize) -> JsResult<JsValue> {
        to_js(&self.inner.train(n, &js_sys::Date::now).map_err(js_error)?)
    }

    /// The mean train and validation loss over `eval_iters` (a setting) random batches of each.
    #[wasm_bindgen(unchecked_return_type = "Evaluation")]
    pub fn evaluate(&mut self) -> JsResult<JsValue> {
        to_js(&self.inner.evaluate().map_err(js_error)?)
    }

    /// Starts a generation from `options.prompt`; `sampleNext` streams it.
    #[wasm_bindgen(js_name = startSample)]
    pub fn start_sample(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "SampleOptions")] options: JsValue,
    ) -> JsResult<()> {
        let config: SampleConfig = from_js(options, "sample options")?;
        self.inner.start_sample(config).map_err(js_error)
    }

    /// The text of up to `n` more tokens of the current generation, or `undefined` once it is done.
    #[wasm_bindgen(js_name = sampleNext)]
    pub fn sample_next(&mut self, n: usize) -> JsResult<Option<String>> {
        self.inner.sample_next(n).map_err(js_error)
    }

    /// The `k` most likely next tokens after `prompt` at `temperature`, most likely first.
    #[wasm_bindgen(js_name = nextTokens, unchecked_return_type = "NextTokens")]
    pub fn next_tokens(&self, prompt: &str, temperature: f32, k: usize) -> JsResult<JsValue> {
        to_js(&self.inner.next_tokens(prompt, temperature, k).map_err(js_error)?)
    }

    /// The model's answers to `n` held-out problems of its task (the same ones each time), each
    /// marked right or wrong.
    #[wasm_bindgen(js_name = heldOutSolutions, unchecked_return_type = "Solution[]")]
    pub fn held_out_solutions(&self, n: usize) -> JsResult<JsValue> {
        to_js(&self.inner.held_out_solutions(n).map_err(js_error)?)
    }

    /// The model's answer to a problem a person typed (its prompt, as `bdca` or `12+34`).
    #[wasm_bindgen(unchecked_return_type = "Solution")]
    pub fn solve(&self, typed: &str) -> JsResult<JsValue> {
        to_js(&self.inner.solve(typed).map_err(js_error)?)
    }

    /// Every layer's and head's attention over `text` (its last `block_size` tokens).
    #[wasm_bindgen(unchecked_return_type = "AttentionMaps")]
    pub fn attention(&self, text: &str) -> JsResult<JsValue> {
        let maps = self.inner.attention(text).map_err(js_error)?;
        attention_maps(&maps.tokens, [maps.n_layer, maps.n_head, maps.t], &maps.weights, vec![])
    }

    /// The views called `views` inside the model, for `probe` (empty: held-out text) and the
    /// sampling `prompt`; only those are computed.
    #[wasm_bindgen(unchecked_return_type = "Inside")]
    pub fn inside(&self, views: Vec<String>, probe: &str, prompt: &str) -> JsResult<JsValue> {
        to_js(&self.inner.inside(&views, probe, prompt).map_err(js_error)?)
    }

    /// The attention snapshots of each evaluation, `weights` holding them one after another.
    #[wasm_bindgen(getter, unchecked_return_type = "Timelapse")]
    pub fn timelapse(&self) -> JsResult<JsValue> {
        let gpt::Timelapse { tokens, steps, maps } = self.inner.timelapse();
        let (model, weights, steps) = (&self.inner.settings().model, maps.concat(), ("steps", to_js(steps)?));
        attention_maps(tokens, [model.n_layer, model.n_head, tokens.len()], &weights, vec![steps])
    }

    /// The whole training state as a safetensors file (see `gpt::checkpoint`).
    pub fn save(&self) -> JsResult<Vec<u8>> {
        self.inner.save().map_err(js_error)
    }

    /// The run for nanoGPT and for Transformers, in one zip (see `gpt::interop::bundle`).
    pub fn export(&self, name: &str) -> JsResult<Vec<u8>> {
        gpt::interop::bundle(&self.inner, name).map_err(js_error)
    }

    /// Why a format leaves this run out of the export, one sentence each.
    #[wasm_bindgen(js_name = exportLeftOut)]
    pub fn export_left_out(&self) -> Vec<String> {
        gpt::interop::left_out(&self.inner)
    }

    /// Takes `settings`' recipe and dropout for the next steps; a change that needs a new model
    /// (architecture, tokenizer, seed) throws with its `field`.
    #[wasm_bindgen(js_name = updateSettings)]
    pub fn update_settings(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Settings")] settings: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Budget")] budget: JsValue,
    ) -> JsResult<()> {
        let (settings, budget): (Settings, Budget) = (from_js(settings, "settings")?, from_js(budget, "budget")?);
        self.inner.update_settings(&settings, &budget).map_err(js_error)
    }

    /// The characters of `text` the vocabulary lacks, each once.
    #[wasm_bindgen(js_name = missingChars)]
    pub fn missing_chars(&self, text: &str) -> Vec<String> {
        self.inner.missing_chars(text).into_iter().map(String::from).collect()
    }

    /// `text` without those characters.
    #[wasm_bindgen(js_name = keepKnown)]
    pub fn keep_known(&self, text: &str) -> String {
        self.inner.keep_known(text)
    }

    /// Its settings (as the constructor takes them), history, byte-pair merges and last sample.
    #[wasm_bindgen(getter, unchecked_return_type = "Details")]
    pub fn details(&self) -> JsResult<JsValue> {
        to_js(&self.inner.details())
    }

    /// The moments the loss chart marks: an induction head's onset; a task's accuracy reaching
    /// 100% on training problems and 95% on held-out ones.
    #[wasm_bindgen(getter, unchecked_return_type = "Milestones")]
    pub fn milestones(&self) -> JsResult<JsValue> {
        to_js(&self.inner.milestones())
    }

    /// Where the run stands: step, vocabulary, text, evaluations due, workers (see `gpt::Status`).
    #[wasm_bindgen(getter, unchecked_return_type = "Status")]
    pub fn status(&self) -> JsResult<JsValue> {
        to_js(&self.inner.status())
    }

    /// Begins a step or an evaluation (`kind`), shared with `helpers` Web Workers: the orders to
    /// send them, and what comes next (see `gpt::Progress`).
    #[wasm_bindgen(unchecked_return_type = "Progress")]
    pub fn begin(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "JobKind")] kind: &str,
        helpers: usize,
    ) -> JsResult<JsValue> {
        let kind = kind.parse().map_err(js_error)?;
        let progress = self.inner.begin(kind, helpers, js_sys::Date::now()).map_err(js_error)?;
        self.progress(progress)
    }

    /// Takes the work a step further: a share of this worker's own, or the next phase.
    #[wasm_bindgen(unchecked_return_type = "Progress")]
    pub fn advance(&mut self) -> JsResult<JsValue> {
        let progress = self.inner.advance(&js_sys::Date::now).map_err(js_error)?;
        self.progress(progress)
    }

    /// Takes a helper's reply in: the orders it frees to send.
    #[wasm_bindgen(unchecked_return_type = "Order[]")]
    pub fn accept(&mut self, #[wasm_bindgen(unchecked_param_type = "Message")] reply: JsValue) -> JsResult<Array> {
        let (header, data) = message(&reply)?;
        let len = data.as_ref().map_or(0, |d| d.length() as usize);
        let orders = self.inner.accept(&header, len, |at, out| copy_out(data.as_ref(), at, out)).map_err(js_error)?;
        if let Some(buffer) = data.filter(|d| d.length() > 0) {
            if self.buffers.len() < KEPT_BUFFERS {
                self.buffers.push(buffer); // copied in: its memory serves a later order
            }
        }
        self.orders(orders)
    }

    /// Gives up the work under way (a worker failed, or Pause came mid-evaluation).
    pub fn abort(&mut self) {
        self.inner.abort();
    }

    /// What the steps since the last report did: losses, speed, time left.
    #[wasm_bindgen(js_name = takeReport, unchecked_return_type = "TrainReport")]
    pub fn take_report(&mut self) -> JsResult<JsValue> {
        to_js(&self.inner.take_report())
    }

    /// A job's progress as the page reads it: `{orders, next, outcome}`.
    fn progress(&mut self, progress: gpt::Progress) -> JsResult<JsValue> {
        let (next, outcome) = match progress.next {
            gpt::Next::Work => ("work", JsValue::UNDEFINED),
            gpt::Next::Wait => ("wait", JsValue::UNDEFINED),
            gpt::Next::Done(outcome) => ("done", to_js(&outcome)?),
        };
        let orders = self.orders(progress.orders)?;
        object(vec![("orders", orders.into()), ("next", next.into()), ("outcome", outcome)])
    }

    /// Orders as messages, each buffer filled from the run (a buffer a reply brought, or new).
    fn orders(&mut self, orders: Vec<gpt::work::Outgoing>) -> JsResult<Array> {
        let out = Array::new();
        for order in orders {
            let parts = self.inner.order_data(&order.data);
            let len: usize = parts.iter().map(|p| p.len()).sum();
            let fields = vec![("to", order.to.into()), ("header", order.header.into())];
            let data = (len > 0).then(|| {
                let kept = self.buffers.iter().position(|b| b.length() as usize == len);
                let buffer =
                    kept.map_or_else(|| Float32Array::new_with_length(len as u32), |k| self.buffers.swap_remove(k));
                let mut at = 0;
                for part in parts {
                    buffer.subarray(at as u32, (at + part.len()) as u32).copy_from(part);
                    at += part.len();
                }
                ("data", buffer.into())
            });
            out.push(&object(fields.into_iter().chain(data).collect())?);
        }
        Ok(out)
    }
}

/// Attention over `tokens` with its `dims` (layers, heads, positions) and `more` fields; the
/// weights come as one `Float32Array`, which the worker transfers without a copy.
fn attention_maps(tokens: &[String], dims: [usize; 3], weights: &[f32], more: Fields) -> JsResult<JsValue> {
    let [layers, heads, t] = dims;
    let shape = [("n_layer", layers.into()), ("n_head", heads.into()), ("t", t.into())];
    let data = [("tokens", to_js(&tokens)?), ("weights", Float32Array::from(weights).into())];
    object(shape.into_iter().chain(data).chain(more).collect())
}

/// Buffers of replies kept for later orders: a step's weights for each helper, and one spare.
const KEPT_BUFFERS: usize = 16;

/// A message's header and buffer (`{header, data?}`).
pub(crate) fn message(value: &JsValue) -> JsResult<(String, Option<Float32Array>)> {
    let header =
        js_sys::Reflect::get(value, &"header".into())?.as_string().ok_or_else(|| fail("a message has no header"))?;
    let data = js_sys::Reflect::get(value, &"data".into())?.dyn_into::<Float32Array>().ok();
    Ok((header, data))
}

/// Copies `out.len()` floats from `data` at `at` (none: zeros).
pub(crate) fn copy_out(data: Option<&Float32Array>, at: usize, out: &mut [f32]) {
    match data {
        Some(d) => d.subarray(at as u32, (at + out.len()) as u32).copy_to(out),
        None => out.fill(0.0),
    }
}

//! `Run`: the core's [`gpt::Run`] as the page's worker drives it. Values and errors only.

use crate::convert::{js_error, read, to_js, ts, JsResult};
use crate::types::{AttentionMaps, Buffers, Message, Progress};
use gpt::inspect::{DictionaryAnswer, DictionaryRequest, ModelAnswer, ModelRequest};
use gpt::{Budget, Details, RunJob, SampleConfig, Settings, Status};
use gpt::{TextFit, TrainReport};
use js_sys::Float32Array;
use tsify::Ts;
use wasm_bindgen::prelude::*;

/// A model with its tokenizer, training state and text; a failed call leaves it as it was.
#[wasm_bindgen]
pub struct Run {
    inner: gpt::Run,
    buffers: Buffers,
}

#[wasm_bindgen]
impl Run {
    /// A new model for `text` (none for a task), within the page's memory `budget`.
    #[wasm_bindgen(constructor)]
    pub fn new(settings: Ts<Settings>, text: &str, budget: Ts<Budget>) -> JsResult<Run> {
        let inner = gpt::Run::create(&read(settings, "settings")?, text, &read(budget, "budget")?);
        Ok(Run { inner: inner.map_err(js_error)?, buffers: Buffers::default() })
    }

    /// Opens a checkpoint; it samples and shows attention at once, and trains after `useText`.
    pub fn open(bytes: &[u8]) -> JsResult<Run> {
        Ok(Run { inner: gpt::Run::open(bytes).map_err(js_error)?, buffers: Buffers::default() })
    }

    /// Trains on `text` from now on if its vocabulary holds it; either way, how it fits.
    #[wasm_bindgen(js_name = useText)]
    pub fn use_text(&mut self, text: &str) -> JsResult<Ts<TextFit>> {
        ts(&self.inner.attach_text(text).map_err(js_error)?)
    }

    /// Begins a step or an evaluation of the model, or a step of its autoencoder or transcoders, shared with the helpers `helpers` names.
    pub fn begin(&mut self, kind: Ts<RunJob>, helpers: Vec<u32>) -> JsResult<Ts<Progress>> {
        let progress = self.inner.begin(read(kind, "the work")?, &helpers, js_sys::Date::now()).map_err(js_error)?;
        self.progress(progress)
    }

    /// Takes the work a step further: a share of this worker's own, or the next phase.
    pub fn advance(&mut self) -> JsResult<Ts<Progress>> {
        let progress = self.inner.advance(&js_sys::Date::now).map_err(js_error)?;
        self.progress(progress)
    }

    /// Takes a helper's reply (its `header` and floats) in: the orders it frees to send.
    #[wasm_bindgen(unchecked_return_type = "Message[]")]
    pub fn accept(&mut self, header: &str, data: Option<Float32Array>) -> JsResult<JsValue> {
        let orders = self.buffers.read(data, |len, copy| self.inner.accept(header, len, copy)).map_err(js_error)?;
        to_js(&self.orders(orders))
    }

    /// Gives up the work under way (a worker failed, or Pause came mid-evaluation).
    pub fn abort(&mut self) {
        self.inner.abort();
    }

    /// What the steps since the last report did: losses, speed, time left.
    #[wasm_bindgen(js_name = takeReport)]
    pub fn take_report(&mut self) -> JsResult<Ts<TrainReport>> {
        ts(&self.inner.take_report())
    }

    /// Up to `n` more tokens of the generation (a new one with `options`), or none once done.
    pub fn sample(&mut self, n: usize, options: Option<Ts<SampleConfig>>) -> JsResult<Option<String>> {
        if let Some(options) = options {
            self.inner.start_sample(read(options, "sample options")?).map_err(js_error)?;
        }
        self.inner.sample_next(n).map_err(js_error)
    }

    /// What the model's current weights answer: its next tokens, its answers to problems, the views inside it.
    pub fn ask(&self, request: Ts<ModelRequest>) -> JsResult<Ts<ModelAnswer>> {
        ts(&self.inner.ask(read(request, "the question")?).map_err(js_error)?)
    }

    /// Each layer's and head's attention over `text` (its last `block_size` tokens), or without one the time-lapse's.
    pub fn attention(&self, text: Option<String>) -> JsResult<Ts<AttentionMaps>> {
        let maps = text.map_or_else(|| Ok(self.inner.timelapse_maps()), |text| self.inner.attention(&text));
        let gpt::AttentionMaps { tokens, n_layer, n_head, t, weights, steps } = maps.map_err(js_error)?;
        ts(&AttentionMaps { tokens, n_layer, n_head, t, weights: weights[..].into(), steps })
    }

    /// The whole training state as a safetensors file (see `gpt::checkpoint`).
    pub fn save(&self) -> JsResult<Vec<u8>> {
        self.inner.save().map_err(js_error)
    }

    /// The run for nanoGPT and for Transformers, in one zip (see `gpt::interop::bundle`).
    pub fn export(&self, name: &str) -> JsResult<Vec<u8>> {
        gpt::interop::bundle(&self.inner, name).map_err(js_error)
    }

    /// Why a tool's export leaves this run out, one sentence each (none: every tool holds it).
    #[wasm_bindgen(getter, js_name = leftOut)]
    pub fn left_out(&self) -> Vec<String> {
        gpt::interop::left_out(&self.inner)
    }

    /// Takes `settings`' recipe and dropout for the next steps (a new model's throw, with `field`).
    #[wasm_bindgen(js_name = updateSettings)]
    pub fn update_settings(&mut self, settings: Ts<Settings>, budget: Ts<Budget>) -> JsResult<()> {
        self.inner.update_settings(&read(settings, "settings")?, &read(budget, "budget")?).map_err(js_error)
    }

    /// Its settings, loss curve, byte-pair merges and last sample.
    #[wasm_bindgen(getter)]
    pub fn details(&self) -> JsResult<Ts<Details<'static>>> {
        Ok(Ts::new_unchecked(to_js(&self.inner.details())?))
    }

    /// An autoencoder or transcoders on the model: begin, train, measure, their features; the graph of a prediction.
    pub fn features(&mut self, request: Ts<DictionaryRequest>) -> JsResult<Ts<DictionaryAnswer>> {
        ts(&self.inner.dictionaries_do(read(request, "the features' request")?).map_err(js_error)?)
    }

    /// Where the run stands.
    #[wasm_bindgen(getter)]
    pub fn status(&self) -> JsResult<Ts<Status>> {
        ts(&self.inner.status())
    }
}

impl Run {
    /// A job's progress as the page reads it.
    fn progress(&mut self, progress: gpt::Progress) -> JsResult<Ts<Progress>> {
        ts(&Progress { orders: self.orders(progress.orders), next: progress.next, outcome: progress.outcome })
    }

    /// Orders as messages, each buffer filled from the run (one a reply brought, or new).
    fn orders(&mut self, orders: Vec<gpt::work::Outgoing>) -> Vec<Message> {
        let inner = &self.inner;
        orders.into_iter().map(|o| self.buffers.message(Some(o.to), o.header, &inner.order_data(&o.data))).collect()
    }
}

//! `Run`: the core's [`gpt::Run`] as the page's worker drives it. Values and errors only.

use crate::convert::{fail, from_js, js_error, object, to_js, Fields, JsResult};
use gpt::{Budget, SampleConfig, Settings};
use js_sys::Float32Array;
use wasm_bindgen::prelude::*;

/// A model with its tokenizer, training state and text. A failed call throws the core's message
/// and leaves the run as it was.
#[wasm_bindgen]
pub struct Run {
    inner: gpt::Run,
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
        Ok(Run { inner: gpt::Run::create(&settings, text, &budget).map_err(js_error)? })
    }

    /// Opens a checkpoint; it samples and shows attention at once, and trains after `useText`.
    pub fn open(bytes: &[u8]) -> JsResult<Run> {
        Ok(Run { inner: gpt::Run::open(bytes).map_err(js_error)? })
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

    /// Every view inside the model for `probe` (empty: held-out text) and the sampling `prompt`.
    #[wasm_bindgen(unchecked_return_type = "Inside")]
    pub fn inside(&self, probe: &str, prompt: &str) -> JsResult<JsValue> {
        to_js(&self.inner.inside(probe, prompt).map_err(js_error)?)
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

    /// How many Web Workers the page trains with (for the reports and `beginStep`'s shards).
    #[wasm_bindgen(js_name = setWorkers)]
    pub fn set_workers(&mut self, workers: usize) {
        self.inner.set_workers(workers);
    }

    /// Plans the next step: the plan (batch, dropout seed) as JSON for the replicas, and the
    /// `[first, end)` shards each worker computes (worker 0 being this run; idle ones left out).
    #[wasm_bindgen(js_name = beginStep, unchecked_return_type = "Work")]
    pub fn begin_step(&mut self) -> JsResult<JsValue> {
        self.inner.begin_step(js_sys::Date::now()).map_err(js_error)?;
        work(&self.inner)
    }

    /// Plans an evaluation, as `beginStep` plans a step: its batches are the units to share.
    #[wasm_bindgen(js_name = beginEvaluation, unchecked_return_type = "Work")]
    pub fn begin_evaluation(&mut self) -> JsResult<JsValue> {
        self.inner.begin_evaluation().map_err(js_error)?;
        work(&self.inner)
    }

    /// The evaluation from every batch's loss, once all are in.
    #[wasm_bindgen(js_name = finishEvaluation, unchecked_return_type = "Evaluation")]
    pub fn finish_evaluation(&mut self) -> JsResult<JsValue> {
        to_js(&self.inner.finish_evaluation().map_err(js_error)?)
    }

    /// Computes units `first..end` of the work in progress here.
    #[wasm_bindgen(js_name = computeShards)]
    pub fn compute_shards(&mut self, first: usize, end: usize) -> JsResult<()> {
        self.inner.compute_shards(first..end).map_err(js_error)
    }

    /// Adds a replica's partial: shards `first..first + count`, or batch `first`'s loss and its
    /// rows answered `exact`ly right.
    #[wasm_bindgen(js_name = addPartial)]
    pub fn add_partial(
        &mut self,
        first: usize,
        count: usize,
        loss: f64,
        exact: usize,
        grads: &Float32Array,
    ) -> JsResult<()> {
        let len = grads.length() as usize;
        self.inner.add_partial((first, count), (loss, exact), len, |buf| grads.copy_to(buf)).map_err(js_error)
    }

    /// Sums the planned step's shards, checks and clips them, and begins the update; returns how
    /// many matrices Muon's Newton–Schulz orthogonalises (0 with AdamW), for workers to share.
    /// Throws (the model unchanged) if the step diverged.
    #[wasm_bindgen(js_name = beginUpdate)]
    pub fn begin_update(&mut self) -> JsResult<usize> {
        self.inner.begin_update().map_err(js_error)
    }

    /// Which matrices of the update begun each of `workers` workers orthogonalises (worker 0: this
    /// run), balanced by their cost and fixed by their shapes.
    #[wasm_bindgen(js_name = newtonSchulzShares, unchecked_return_type = "number[][]")]
    pub fn newton_schulz_shares(&mut self, workers: usize) -> JsResult<JsValue> {
        to_js(&self.inner.newton_schulz_shares(workers).map_err(js_error)?)
    }

    /// Matrix `k` of the update begun, as another worker orthogonalises it: `{rows, cols, values}`.
    #[wasm_bindgen(js_name = updateMatrix, unchecked_return_type = "Matrix")]
    pub fn update_matrix(&mut self, k: usize) -> JsResult<JsValue> {
        let (rows, cols, values) = self.inner.update_matrix(k).map_err(js_error)?;
        object(vec![
            ("k", k.into()),
            ("rows", rows.into()),
            ("cols", cols.into()),
            ("values", Float32Array::from(values).into()),
        ])
    }

    /// Orthogonalises matrix `k` of the update here.
    pub fn orthogonalize(&mut self, k: usize) -> JsResult<()> {
        self.inner.orthogonalize(k).map_err(js_error)
    }

    /// Matrix `k` as another worker orthogonalised it.
    #[wasm_bindgen(js_name = setOrthogonal)]
    pub fn set_orthogonal(&mut self, k: usize, values: &Float32Array) -> JsResult<()> {
        let len = values.length() as usize;
        self.inner.set_orthogonal(k, len, |out| values.copy_to(out)).map_err(js_error)
    }

    /// Applies the update begun (beginning it, if it was not), orthogonalising here any matrix no
    /// other worker did; throws (the model unchanged) if the step diverged.
    #[wasm_bindgen(js_name = finishStep)]
    pub fn finish_step(&mut self) -> JsResult<()> {
        self.inner.finish_step(&js_sys::Date::now).map(drop).map_err(js_error)
    }

    /// Drops the work in progress (a worker failed); the run stays at its last good step.
    #[wasm_bindgen(js_name = abortStep)]
    pub fn abort_step(&mut self) {
        self.inner.abort_step();
    }

    /// What the steps since the last report did: losses, speed, time left.
    #[wasm_bindgen(js_name = takeReport, unchecked_return_type = "TrainReport")]
    pub fn take_report(&mut self) -> JsResult<JsValue> {
        to_js(&self.inner.take_report())
    }

    /// Copies every weight, flat, into `out` (`status.params` long), for the replicas.
    #[wasm_bindgen(js_name = copyWeights)]
    pub fn copy_weights(&self, out: &Float32Array) -> JsResult<()> {
        if out.length() as usize != self.inner.status().params {
            return Err(fail("the weights buffer does not fit the model"));
        }
        self.inner.weights().for_each(|(at, part)| out.subarray(at as u32, (at + part.len()) as u32).copy_from(part));
        Ok(())
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

/// The work in progress, as the page hands it out: its plan as JSON and each worker's units.
fn work(run: &gpt::Run) -> JsResult<JsValue> {
    let plan = run.work().map_err(js_error)?.to_json();
    let shards: Vec<_> = run.work_split().map_err(js_error)?.into_iter().map(|r| (r.start, r.end)).collect();
    object(vec![("plan", plan.into()), ("shards", to_js(&shards)?)])
}

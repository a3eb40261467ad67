//! `Trainer`: one model being trained on one text, as the page's worker drives it.

use crate::convert::{from_js, js_error, to_js};
use crate::types::PlaygroundConfig;
use gpt::{SampleConfig, Sampler, Tokenizer};
use js_sys::{Array, Float32Array, Object, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A GPT, its optimiser, its text and its tokenizer. Every method validates its input and
/// reports problems as a JS `Error`; a failed call leaves the model as it was.
#[wasm_bindgen]
pub struct Trainer {
    inner: gpt::Trainer,
    tokenizer: Tokenizer,
    sampler: Option<Sampler>,
    /// Bytes of a character the sampler has only partly produced (BPE).
    pending: Vec<u8>,
    /// Milliseconds spent inside `step`, over the trainer's life.
    training_ms: f64,
}

#[derive(Serialize)]
struct StepReport {
    step: usize,
    loss: f32,
    losses: Vec<f32>,
    lr: f32,
    grad_norm: f32,
    tokens_per_s: f64,
    elapsed_s: f64,
}

#[derive(Serialize)]
struct NextToken {
    token: String,
    prob: f32,
}

#[derive(Serialize)]
struct Settings<'a> {
    model: &'a gpt::GPTConfig,
    train: &'a gpt::TrainConfig,
    tokenizer: gpt::TokenizerKind,
    bpe_vocab_size: usize,
}

#[wasm_bindgen]
impl Trainer {
    /// A fresh model for `text` with a tokenizer fitted to it.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "PlaygroundConfig")] config: JsValue,
        text: &str,
    ) -> Result<Trainer, JsError> {
        let config: PlaygroundConfig = from_js(config, "config")?;
        let tokenizer = config.fit_tokenizer(text).map_err(js_error)?;
        let (model, train) = config.resolve(tokenizer.vocab_size()).map_err(js_error)?;
        let tokens = tokenizer.encode(text).map_err(js_error)?;
        let inner = gpt::Trainer::new(model, train, tokens).map_err(js_error)?;
        Ok(Trainer { inner, tokenizer, sampler: None, pending: vec![], training_ms: 0.0 })
    }

    /// Runs `n` optimisation steps. If training diverges, throws with what to change; the steps
    /// before the bad one are kept and the model holds its last good weights.
    #[wasm_bindgen(unchecked_return_type = "StepStats")]
    pub fn step(&mut self, n: usize) -> Result<JsValue, JsError> {
        let n = n.max(1);
        let start = js_sys::Date::now();
        let mut losses = Vec::with_capacity(n);
        let mut last = None;
        for _ in 0..n {
            let stats = self.inner.step().map_err(js_error)?;
            losses.push(stats.loss);
            last = Some(stats);
        }
        let ms = (js_sys::Date::now() - start).max(1e-3);
        self.training_ms += ms;
        let last = last.expect("n is at least 1");
        let tokens = (n * last.tokens) as f64;
        to_js(&StepReport {
            step: last.step,
            loss: last.loss,
            losses,
            lr: last.lr,
            grad_norm: last.grad_norm,
            tokens_per_s: tokens / (ms / 1000.0),
            elapsed_s: self.training_ms / 1000.0,
        })
    }

    /// The mean train and validation loss over `eval_iters` random batches of each.
    #[wasm_bindgen(unchecked_return_type = "Evaluation")]
    pub fn evaluate(&mut self, eval_iters: usize) -> Result<JsValue, JsError> {
        to_js(&self.inner.evaluate(eval_iters).map_err(js_error)?)
    }

    /// Starts a generation from `options.prompt`; `sampleNext` streams it.
    #[wasm_bindgen(js_name = startSample)]
    pub fn start_sample(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "SampleOptions")] options: JsValue,
    ) -> Result<(), JsError> {
        let config: SampleConfig = from_js(options, "sample options")?;
        let prompt = self.tokenizer.encode(&config.prompt).map_err(js_error)?;
        self.sampler = Some(Sampler::new(&prompt, config.clone()).map_err(js_error)?);
        self.inner.sampling = Some(config);
        self.pending.clear();
        Ok(())
    }

    /// The text of up to `n` more tokens of the current generation, or `undefined` once it is done.
    #[wasm_bindgen(js_name = sampleNext)]
    pub fn sample_next(&mut self, n: usize) -> Result<Option<String>, JsError> {
        let Some(sampler) = self.sampler.as_mut() else {
            return Err(JsError::new("no generation is running: call startSample first"));
        };
        let mut ids = Vec::with_capacity(n);
        while ids.len() < n.max(1) {
            match sampler.next_token(self.inner.model()).map_err(js_error)? {
                Some(id) => ids.push(id),
                None => break,
            }
        }
        if ids.is_empty() {
            self.sampler = None;
            return Ok(None);
        }
        Ok(Some(self.tokenizer.decode_stream(&ids, &mut self.pending)))
    }

    /// The `k` most likely next tokens after `prompt` at `temperature`, most likely first.
    #[wasm_bindgen(js_name = nextTokens, unchecked_return_type = "NextToken[]")]
    pub fn next_tokens(&self, prompt: &str, temperature: f32, k: usize) -> Result<JsValue, JsError> {
        let ids = self.tokenizer.encode(prompt).map_err(js_error)?;
        let probs = gpt::next_token_probs(self.inner.model(), &ids, temperature).map_err(js_error)?;
        let top: Vec<NextToken> = gpt::most_likely(&probs, k)
            .into_iter()
            .map(|(id, prob)| NextToken { token: self.tokenizer.token_text(id), prob })
            .collect();
        to_js(&top)
    }

    /// Every layer's and head's attention over `text` (its last `block_size` tokens).
    #[wasm_bindgen(unchecked_return_type = "AttentionMaps")]
    pub fn attention(&self, text: &str) -> Result<JsValue, JsError> {
        let ids = self.tokenizer.encode(text).map_err(js_error)?;
        if ids.is_empty() {
            return Err(JsError::new("type some text to see its attention"));
        }
        let cfg = self.inner.model().config();
        let ids: Vec<usize> = ids[ids.len().saturating_sub(cfg.block_size)..].iter().map(|&i| i as usize).collect();
        let weights = self.inner.model().attention(&ids).map_err(js_error)?;
        let tokens: Array = ids.iter().map(|&i| JsValue::from(self.tokenizer.token_text(i as u32))).collect();
        let out = Object::new();
        for (key, value) in [
            ("tokens", tokens.into()),
            ("n_layer", cfg.n_layer.into()),
            ("n_head", cfg.n_head.into()),
            ("t", ids.len().into()),
            ("weights", Float32Array::from(&weights[..]).into()),
        ] {
            Reflect::set(&out, &key.into(), &value).map_err(|_| JsError::new("could not build the attention maps"))?;
        }
        Ok(out.into())
    }

    /// The whole training state as a safetensors file (see `gpt::checkpoint`).
    pub fn save(&self) -> Result<Vec<u8>, JsError> {
        gpt::checkpoint::save(&self.inner, &self.tokenizer).map_err(js_error)
    }

    /// Resumes a saved checkpoint on `text`, which must use only the checkpoint's characters.
    pub fn load(bytes: &[u8], text: &str) -> Result<Trainer, JsError> {
        let checkpoint = gpt::checkpoint::load(bytes).map_err(js_error)?;
        let tokenizer = checkpoint.tokenizer.clone();
        let tokens = tokenizer.encode(text).map_err(|e| {
            JsError::new(&format!("{e}: train on text that uses the checkpoint's characters, or start a new model"))
        })?;
        let inner = gpt::Trainer::resume(checkpoint, tokens).map_err(js_error)?;
        Ok(Trainer { inner, tokenizer, sampler: None, pending: vec![], training_ms: 0.0 })
    }

    /// The model and training settings, as the constructor takes them.
    #[wasm_bindgen(getter, unchecked_return_type = "PlaygroundConfig")]
    pub fn settings(&self) -> Result<JsValue, JsError> {
        to_js(&Settings {
            model: self.inner.model().config(),
            train: self.inner.config(),
            tokenizer: self.tokenizer.kind(),
            bpe_vocab_size: self.tokenizer.vocab_size(),
        })
    }

    /// The last generation's prompt and settings (kept in checkpoints), or `undefined`.
    #[wasm_bindgen(getter, unchecked_return_type = "SampleOptions | undefined")]
    pub fn sampling(&self) -> Result<JsValue, JsError> {
        self.inner.sampling.as_ref().map_or(Ok(JsValue::UNDEFINED), to_js)
    }

    /// Trains for `max_iters` steps in all, so a finished run can go on (at the final learning
    /// rate: the schedule is not stretched).
    #[wasm_bindgen(js_name = setMaxIters)]
    pub fn set_max_iters(&mut self, max_iters: usize) -> Result<(), JsError> {
        self.inner.set_max_iters(max_iters).map_err(js_error)
    }

    /// The byte-pair merges in the order they were learned, as `[left, right]` token texts
    /// (empty for a character vocabulary).
    #[wasm_bindgen(getter, unchecked_return_type = "[string, string][]")]
    pub fn merges(&self) -> Result<JsValue, JsError> {
        let merges: Vec<(String, String)> = match &self.tokenizer {
            Tokenizer::Bpe(bpe) => bpe
                .merges()
                .iter()
                .map(|&(a, b)| (self.tokenizer.token_text(a), self.tokenizer.token_text(b)))
                .collect(),
            Tokenizer::Char(_) => vec![],
        };
        to_js(&merges)
    }

    /// Every step's loss and every evaluation so far.
    #[wasm_bindgen(getter, unchecked_return_type = "History")]
    pub fn history(&self) -> Result<JsValue, JsError> {
        to_js(self.inner.history())
    }

    /// Trainable parameters, tied weights counted once.
    #[wasm_bindgen(getter, js_name = paramCount)]
    pub fn param_count(&self) -> usize {
        self.inner.model().config().param_count()
    }

    #[wasm_bindgen(getter, js_name = vocabSize)]
    pub fn vocab_size(&self) -> usize {
        self.tokenizer.vocab_size()
    }

    /// Steps completed so far.
    #[wasm_bindgen(getter, js_name = stepCount)]
    pub fn step_count(&self) -> usize {
        self.inner.step_count()
    }
}

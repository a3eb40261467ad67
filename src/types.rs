//! The shapes the page passes in and gets back, with their TypeScript declarations.

use gpt::{GPTConfig, Tokenizer, TokenizerKind, TrainConfig};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

/// What the page configures: the model's shape and the training recipe. The model's
/// `vocab_size` is ignored; the tokenizer fitted to the text sets it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaygroundConfig {
    #[serde(default)]
    pub model: GPTConfig,
    #[serde(default)]
    pub train: TrainConfig,
    #[serde(default)]
    tokenizer: TokenizerKind,
    /// The vocabulary BPE learns (ignored for characters).
    #[serde(default = "default_bpe_vocab")]
    bpe_vocab_size: usize,
}

fn default_bpe_vocab() -> usize {
    512
}

impl PlaygroundConfig {
    /// The tokenizer this config asks for, fitted to `text`.
    pub fn fit_tokenizer(&self, text: &str) -> gpt::Result<Tokenizer> {
        Tokenizer::fit(self.tokenizer, text, self.bpe_vocab_size)
    }

    /// The vocabulary the model will have: the text's characters, or the BPE size asked for.
    pub fn vocab_size(&self, char_vocab: usize) -> usize {
        match self.tokenizer {
            TokenizerKind::Char => char_vocab,
            TokenizerKind::Bpe => self.bpe_vocab_size,
        }
    }

    /// The model and training settings for a vocabulary of `vocab_size`, checked together.
    pub fn resolve(self, vocab_size: usize) -> gpt::Result<(GPTConfig, TrainConfig)> {
        let bpe_range = gpt::tokenizer::MIN_BPE_VOCAB..=gpt::tokenizer::MAX_BPE_VOCAB;
        if self.tokenizer == TokenizerKind::Bpe && !bpe_range.contains(&self.bpe_vocab_size) {
            return Err(gpt::Error::Config(format!(
                "the byte-pair vocabulary must have {} to {} tokens, not {}",
                bpe_range.start(),
                bpe_range.end(),
                self.bpe_vocab_size
            )));
        }
        let model = GPTConfig { vocab_size, ..self.model };
        gpt::train::validate(&model, &self.train)?;
        Ok((model, self.train))
    }
}

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** nanoGPT's GPTConfig plus the norm, activation and weight-tying choices. */
export interface ModelConfig {
  vocab_size?: number; block_size?: number; n_layer?: number; n_head?: number; n_embd?: number;
  dropout?: number; bias?: boolean; norm?: "layernorm" | "rmsnorm";
  activation?: "gelu" | "gelu_tanh" | "relu"; tie_weights?: boolean;
}
/** Optimisation settings; missing fields take nanoGPT's CPU Shakespeare recipe. */
export interface TrainConfig {
  batch_size?: number; max_iters?: number; learning_rate?: number; min_lr?: number;
  warmup_iters?: number; lr_decay_iters?: number; decay_lr?: boolean; weight_decay?: number;
  beta1?: number; beta2?: number; grad_clip?: number; seed?: number;
}
export interface PlaygroundConfig { model?: ModelConfig; train?: TrainConfig; tokenizer?: "char" | "bpe"; bpe_vocab_size?: number; }
export interface Preset { name: string; description: string; model: Required<ModelConfig>; train: Required<TrainConfig>; }
export interface ModelSize { params: number; training_bytes: number; }
export interface TextSummary { chars: number; vocab_size: number; }
/** What `step(n)` did: `losses` holds each step's loss, the rest describe the last step. */
export interface StepStats {
  step: number; loss: number; losses: number[]; lr: number; grad_norm: number;
  tokens_per_s: number; elapsed_s: number;
}
export interface Evaluation { step: number; train_loss: number; val_loss: number; }
export interface History { losses: number[]; evals: Evaluation[]; }
export interface SampleOptions { prompt?: string; temperature?: number; top_k?: number; seed?: number; max_new_tokens?: number; }
/** One candidate next token: its text and the model's probability for it. */
export interface NextToken { token: string; prob: number; }
/** Attention probabilities of every layer and head: `weights[((l * n_head + h) * t + query) * t + key]`. */
export interface AttentionMaps { tokens: string[]; n_layer: number; n_head: number; t: number; weights: Float32Array; }
"#;

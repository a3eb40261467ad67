//! The model's shape: nanoGPT's `GPTConfig` plus the norm, activation and weight-tying choices, and the
//! budget a caller allows it.

use crate::error::{FieldError, Result};
use crate::ops::{Activation, NormKind};
use crate::words::settings as words;
use serde::{Deserialize, Serialize};

/// How large a model the caller lets a user build: a browser tab has 4 GiB of wasm memory at most,
/// a native process has the machine's. The page and the CLI each pass their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(deny_unknown_fields)]
pub struct Budget {
    pub max_params: u64,
    /// The most memory one training step may need (see [`GPTConfig::training_bytes`]).
    pub max_training_bytes: u64,
}

impl Budget {
    /// No limit but what can be counted.
    pub const UNLIMITED: Budget = Budget { max_params: u64::MAX, max_training_bytes: u64::MAX };

    /// Checks that `model`, trained `batch_size` sequences at a time, fits.
    pub fn check(&self, model: &GPTConfig, batch_size: usize) -> Result<()> {
        crate::error::first(self.errors(model, batch_size))
    }

    /// What does not fit, if anything.
    pub fn errors(&self, model: &GPTConfig, batch_size: usize) -> Vec<FieldError> {
        let params = model.param_count() as u64;
        if params > self.max_params {
            return vec![FieldError::new("model", words::too_many_params(params, self.max_params))];
        }
        let bytes = model.training_bytes(batch_size);
        if bytes > self.max_training_bytes {
            let message = words::too_much_memory(batch_size, bytes >> 20, self.max_training_bytes >> 20);
            return vec![FieldError::new("train.batch_size", message)];
        }
        vec![]
    }
}

/// More parameters than any machine could hold in f32 (16 TiB), whatever the budget.
const MAX_COUNTABLE_PARAMS: u64 = 1 << 42;

/// The architecture of a GPT (`model/`). Field names are nanoGPT's, so a config
/// round-trips through a nanoGPT checkpoint's JSON; missing fields take nanoGPT's defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(default, deny_unknown_fields)]
pub struct GPTConfig {
    pub vocab_size: usize,
    pub block_size: usize,
    pub n_layer: usize,
    pub n_head: usize,
    pub n_embd: usize,
    pub dropout: f32,
    /// Biases in the linear layers and LayerNorms.
    pub bias: bool,
    pub norm: NormKind,
    pub activation: Activation,
    /// Share the token embedding with the output projection.
    pub tie_weights: bool,
    /// Rotary position embeddings (RoPE) in place of the learned position table (`wpe`): each
    /// head's queries and keys turn by their position (see `ops/rope.rs`).
    pub rope: bool,
    /// QK-norm: each head's queries and keys divided by their root mean square before attention
    /// (see `ops/qk_norm.rs`).
    pub qk_norm: bool,
}

impl Default for GPTConfig {
    /// GPT-2 small, as nanoGPT's defaults.
    fn default() -> Self {
        GPTConfig {
            vocab_size: 50304,
            block_size: 1024,
            n_layer: 12,
            n_head: 12,
            n_embd: 768,
            dropout: 0.0,
            bias: true,
            norm: NormKind::LayerNorm,
            activation: Activation::Gelu,
            tie_weights: true,
            rope: false,
            qk_norm: false,
        }
    }
}

impl GPTConfig {
    /// A small model as the presets build them: no biases, LayerNorm, exact GELU, tied weights,
    /// learned positions; its vocabulary set later by its tokenizer.
    pub fn small(n_layer: usize, n_head: usize, n_embd: usize, block_size: usize) -> GPTConfig {
        GPTConfig { vocab_size: 0, block_size, n_layer, n_head, n_embd, bias: false, ..GPTConfig::default() }
    }

    /// Checks every field, naming the first that is wrong and what would fix it.
    pub fn validate(&self) -> Result<()> {
        crate::error::first(self.errors())
    }

    /// Every field that is wrong, each with what would fix it.
    pub fn errors(&self) -> Vec<FieldError> {
        let mut errors = Vec::new();
        let positive = [
            ("vocab_size", self.vocab_size),
            ("block_size", self.block_size),
            ("n_layer", self.n_layer),
            ("n_head", self.n_head),
            ("n_embd", self.n_embd),
        ];
        for (name, value) in positive {
            if value == 0 {
                errors.push(FieldError::new(&format!("model.{name}"), words::at_least_one(name)));
            }
        }
        if self.n_head > 0 && !self.n_embd.is_multiple_of(self.n_head) {
            errors.push(FieldError::new("model.n_head", words::heads_divide(self.n_embd, self.n_head)));
        }
        if self.rope
            && self.n_head > 0
            && self.n_embd.is_multiple_of(self.n_head)
            && !(self.n_embd / self.n_head).is_multiple_of(2)
        {
            errors.push(FieldError::new("model.rope", words::rope_even(self.n_embd / self.n_head)));
        }
        if !(0.0..1.0).contains(&self.dropout) {
            errors.push(FieldError::new("model.dropout", words::dropout(self.dropout)));
        }
        // Past what a usize counts, or what any memory holds, nothing can be built.
        if self.param_count_checked().is_none_or(|n| n as u64 > MAX_COUNTABLE_PARAMS) {
            errors.push(FieldError::new("model", words::unbuildable()));
        }
        errors
    }

    /// The number of trainable parameters (tied weights counted once).
    pub fn param_count(&self) -> usize {
        self.param_count_checked().unwrap_or(usize::MAX)
    }

    /// Bytes that training with `batch_size` sequences per step needs, roughly: the weights, their
    /// gradients, AdamW's two moments and (in wasm) the weights packed two ways for the matrix
    /// products, plus the activations one step records.
    pub fn training_bytes(&self, batch_size: usize) -> u64 {
        let (b, t, c) = (batch_size as u64, self.block_size as u64, self.n_embd as u64);
        let (v, l, h) = (self.vocab_size as u64, self.n_layer as u64, self.n_head as u64);
        let weights = (self.param_count() as u64).saturating_mul(4);
        // Per layer: about 22 values per channel and position (norms, q|k|v, MLP and its slope,
        // residuals), the attention probabilities, and as much again for the gradients in flight.
        let bt = b.saturating_mul(t);
        let per_layer = bt
            .saturating_mul(c.saturating_mul(22))
            .saturating_add(b.saturating_mul(h).saturating_mul(t.saturating_mul(t)));
        let activations =
            l.saturating_mul(per_layer).saturating_add(bt.saturating_mul(v.saturating_add(c).saturating_mul(2)));
        weights.saturating_mul(6).saturating_add(activations.saturating_mul(4 * 2))
    }

    /// `None` when the count does not fit in a `usize`, as for absurd sizes a user might type.
    fn param_count_checked(&self) -> Option<usize> {
        let c = self.n_embd;
        let (c3, c4) = (c.checked_mul(3)?, c.checked_mul(4)?);
        let b = usize::from(self.bias);
        let norm = c.checked_mul(1 + usize::from(self.bias && self.norm == NormKind::LayerNorm))?;
        let linear = |i: usize, o: usize| i.checked_mul(o)?.checked_add(b * o);
        let parts = [norm, linear(c, c3)?, linear(c, c)?, norm, linear(c, c4)?, linear(c4, c)?];
        let block = parts.iter().try_fold(0usize, |a, &x| a.checked_add(x))?;
        let positions = if self.rope { 0 } else { self.block_size.checked_mul(c)? };
        let embeddings = self.vocab_size.checked_mul(c)?.checked_add(positions)?;
        let head = if self.tie_weights { 0 } else { self.vocab_size.checked_mul(c)? };
        block.checked_mul(self.n_layer)?.checked_add(embeddings)?.checked_add(norm)?.checked_add(head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> GPTConfig {
        GPTConfig {
            vocab_size: 65,
            block_size: 64,
            n_layer: 4,
            n_head: 4,
            n_embd: 128,
            bias: false,
            ..Default::default()
        }
    }

    #[test]
    fn rejects_bad_configs_with_specific_messages() {
        let cases = [
            (GPTConfig { n_head: 3, ..small() }, "divisible by n_head"),
            (GPTConfig { n_layer: 0, ..small() }, "n_layer must be at least 1"),
            (GPTConfig { vocab_size: 0, ..small() }, "vocab_size"),
            (GPTConfig { dropout: 1.0, ..small() }, "dropout must be in [0, 1)"),
            (GPTConfig { dropout: f32::NAN, ..small() }, "dropout"),
            (GPTConfig { n_head: 128, rope: true, ..small() }, "each head needs an even number"),
            (GPTConfig { n_embd: 1 << 30, n_head: 1, ..small() }, "too many parameters"),
            (GPTConfig { n_embd: usize::MAX / 2, n_head: 1, ..small() }, "too many"),
        ];
        for (config, want) in cases {
            let err = config.validate().unwrap_err().to_string();
            assert!(err.contains(want), "{err:?} should mention {want:?}");
        }
        small().validate().unwrap();
    }

    #[test]
    fn the_budget_is_the_callers() {
        let big = GPTConfig { n_embd: 1 << 12, n_head: 1, ..small() };
        big.validate().unwrap();
        Budget::UNLIMITED.check(&big, 12).unwrap();
        let tab = Budget { max_params: 50_000_000, max_training_bytes: 2 << 30 };
        assert!(tab.check(&big, 12).unwrap_err().to_string().contains("parameters, more than the 50000000"));
        let err = tab.check(&GPTConfig { block_size: 4096, ..small() }, 4096).unwrap_err().to_string();
        assert!(err.contains("MiB, more than the 2048 MiB"), "{err}");
        tab.check(&small(), 12).unwrap();
    }

    #[test]
    fn missing_fields_take_nanogpt_defaults() {
        let c: GPTConfig = serde_json::from_str(r#"{"vocab_size": 65, "norm": "rmsnorm"}"#).unwrap();
        assert_eq!((c.n_layer, c.n_embd, c.bias, c.norm), (12, 768, true, NormKind::RmsNorm));
    }
}

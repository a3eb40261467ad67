//! Which Transformers modelling code holds a model's shape: the export writes it, the walk names
//! TransformerLens's hooks by it.

use super::GPTConfig;
use crate::ops::NormKind;

/// Which Transformers model holds a run: GPT-2 where it can (learned positions, LayerNorm, no
/// QK-norm), Starcoder2 for rotary positions with LayerNorm and no QK-norm, else our own modelling
/// code (`interop/hf_remote.rs`), loaded with `trust_remote_code=True`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Architecture {
    Gpt2,
    Starcoder2,
    Ours,
}

impl Architecture {
    pub fn of(c: &GPTConfig) -> Architecture {
        match (c.norm, c.rope, c.qk_norm) {
            (NormKind::LayerNorm, false, false) => Architecture::Gpt2,
            (NormKind::LayerNorm, true, false) => Architecture::Starcoder2,
            _ => Architecture::Ours,
        }
    }
}

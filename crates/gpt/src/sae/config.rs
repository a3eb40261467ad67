//! A sparse autoencoder's settings, checked with what would fix them.

use crate::error::{Error, Result};
use crate::model::HookPoint;
use crate::words::dictionaries;
use serde::{Deserialize, Serialize};

/// The most features per channel of the model.
pub const MAX_EXPANSION: usize = 64;
/// The longest window a feature may take to fire before it counts as dead: each copy counts in
/// `f32`, whole to 2^24.
pub const MAX_DEAD_TOKENS: usize = 1 << 24;

/// How features are chosen for each token.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Architecture {
    /// The `k` largest pre-activations, through a ReLU (Gao et al. 2024); dead features are
    /// brought back by an auxiliary loss (their top `d_in / 2` reconstruct the error).
    TopK { k: usize, aux_coefficient: f32 },
    /// Every positive pre-activation, with an L1 penalty on them (SAELens's "standard").
    Relu { l1_coefficient: f32 },
}

/// What a sparse autoencoder (or a transcoder) reads, what it writes, and how wide it is.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct SaeConfig {
    /// Where in the model its activations are read.
    pub point: HookPoint,
    /// Where its output goes, for a transcoder (the MLP's output, from what the MLP reads); an
    /// autoencoder (none) reconstructs what it reads.
    #[serde(default)]
    pub output: Option<HookPoint>,
    /// Features per channel of the model: `d_sae = expansion × d_in`.
    pub expansion: usize,
    pub architecture: Architecture,
    /// A feature that has not fired for this many training tokens counts as dead.
    pub dead_tokens: usize,
    /// A transcoder's linear skip connection from what the MLP reads to what it writes (`W_skip`,
    /// Paulo et al. 2025; SAELens's `SkipTranscoder`), so the features need not carry the MLP's
    /// linear part.
    #[serde(default)]
    pub skip: bool,
}

impl SaeConfig {
    /// A TopK autoencoder of 8 features per channel, k = 32, with SAELens's auxiliary loss weight, on the
    /// stream leaving block `layer`.
    pub fn top_k(layer: usize) -> SaeConfig {
        SaeConfig {
            point: HookPoint::ResidPost { layer },
            output: None,
            expansion: 8,
            architecture: Architecture::TopK { k: 32, aux_coefficient: 1.0 },
            dead_tokens: 200_000,
            skip: false,
        }
    }

    /// A TopK transcoder standing in for block `layer`'s MLP, 8 features per channel, k = 32.
    pub fn transcoder(layer: usize) -> SaeConfig {
        SaeConfig { point: HookPoint::MlpIn { layer }, output: Some(HookPoint::MlpOut { layer }), ..Self::top_k(layer) }
    }

    /// Where its output goes: the MLP's output for a transcoder, else the point it reads.
    pub fn writes(&self) -> HookPoint {
        self.output.unwrap_or(self.point)
    }

    /// Whether it is a transcoder: it reads one point and writes another.
    pub fn is_transcoder(&self) -> bool {
        self.output.is_some()
    }

    /// Its tensors: `W_enc`, `b_enc`, `W_dec`, `b_dec`, and `W_skip` with a skip connection.
    pub fn tensor_count(&self) -> usize {
        if self.skip {
            5
        } else {
            4
        }
    }

    /// Features for a model of `d_in` channels.
    pub fn d_sae(&self, d_in: usize) -> usize {
        self.expansion * d_in
    }

    /// Checks the settings for a model of `layers` layers and `d_in` channels.
    pub fn validate(&self, layers: usize, d_in: usize) -> Result<()> {
        self.point.check(layers)?;
        match (self.point, self.output) {
            (HookPoint::MlpIn { layer }, Some(HookPoint::MlpOut { layer: out })) if out == layer => {}
            (point, Some(output)) => {
                return Err(Error::Config(dictionaries::transcoder_points(point.hook_name(), output.hook_name())))
            }
            (HookPoint::MlpIn { layer }, None) => return Err(Error::Config(dictionaries::mlp_input(layer))),
            _ => {}
        }
        if self.skip && !self.is_transcoder() {
            return Err(Error::Config(dictionaries::skip_needs_transcoder()));
        }
        if !(1..=MAX_EXPANSION).contains(&self.expansion) {
            return Err(Error::Config(dictionaries::expansion(MAX_EXPANSION, self.expansion)));
        }
        match self.architecture {
            Architecture::TopK { k, aux_coefficient } => {
                let d_sae = self.d_sae(d_in);
                if k == 0 || k > d_sae {
                    return Err(Error::Config(dictionaries::k(d_sae, k)));
                }
                if !(aux_coefficient.is_finite() && aux_coefficient >= 0.0) {
                    return Err(Error::Config(dictionaries::aux_coefficient(aux_coefficient)));
                }
            }
            Architecture::Relu { l1_coefficient } if !(l1_coefficient.is_finite() && l1_coefficient >= 0.0) => {
                return Err(Error::Config(dictionaries::l1_coefficient(l1_coefficient)));
            }
            Architecture::Relu { .. } => {}
        }
        if !(1..=MAX_DEAD_TOKENS).contains(&self.dead_tokens) {
            return Err(Error::Config(dictionaries::dead_tokens(MAX_DEAD_TOKENS, self.dead_tokens)));
        }
        Ok(())
    }
}

//! A sparse autoencoder's settings, checked with what would fix them.

use crate::error::{Error, Result};
use crate::model::HookPoint;
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

/// What a sparse autoencoder reads and how wide it is.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct SaeConfig {
    /// Where in the model its activations are read.
    pub point: HookPoint,
    /// Features per channel of the model: `d_sae = expansion × d_in`.
    pub expansion: usize,
    pub architecture: Architecture,
    /// A feature that has not fired for this many training tokens counts as dead.
    pub dead_tokens: usize,
}

impl SaeConfig {
    /// A TopK autoencoder of 8 features per channel, k = 32, with SAELens's auxiliary loss weight, on the
    /// stream leaving block `layer`.
    pub fn top_k(layer: usize) -> SaeConfig {
        SaeConfig {
            point: HookPoint::ResidPost { layer },
            expansion: 8,
            architecture: Architecture::TopK { k: 32, aux_coefficient: 1.0 },
            dead_tokens: 200_000,
        }
    }

    /// Features for a model of `d_in` channels.
    pub fn d_sae(&self, d_in: usize) -> usize {
        self.expansion * d_in
    }

    /// Checks the settings for a model of `layers` layers and `d_in` channels.
    pub fn validate(&self, layers: usize, d_in: usize) -> Result<()> {
        self.point.check(layers)?;
        if !(1..=MAX_EXPANSION).contains(&self.expansion) {
            return Err(Error::Config(format!(
                "expansion: the features per channel must be 1 to {MAX_EXPANSION}, not {}",
                self.expansion
            )));
        }
        match self.architecture {
            Architecture::TopK { k, aux_coefficient } => {
                let d_sae = self.d_sae(d_in);
                if k == 0 || k > d_sae {
                    return Err(Error::Config(format!(
                        "k: the features active per token must be 1 to the {d_sae} features, not {k}"
                    )));
                }
                if !(aux_coefficient.is_finite() && aux_coefficient >= 0.0) {
                    return Err(Error::Config(format!(
                        "aux_coefficient: the dead features' loss weight must be 0 or more, not {aux_coefficient}"
                    )));
                }
            }
            Architecture::Relu { l1_coefficient } if !(l1_coefficient.is_finite() && l1_coefficient >= 0.0) => {
                return Err(Error::Config(format!(
                    "l1_coefficient: the sparsity penalty must be 0 or more, not {l1_coefficient}"
                )));
            }
            Architecture::Relu { .. } => {}
        }
        if !(1..=MAX_DEAD_TOKENS).contains(&self.dead_tokens) {
            return Err(Error::Config(format!(
                "dead_tokens: a feature's window to fire in must be 1 to {MAX_DEAD_TOKENS} tokens, not {}",
                self.dead_tokens
            )));
        }
        Ok(())
    }
}

//! A sparse autoencoder's settings, checked with what would fix them.

use crate::config::TrainConfig;
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
    /// The `k × rows` largest positive pre-activations of the whole batch, k per token on average
    /// (Bussmann et al. 2024); it then fires above the threshold training learnt: SAELens's
    /// `batchtopk`, saved as `jumprelu`. Dead features as TopK's.
    BatchTopK { k: usize, aux_coefficient: f32 },
    /// BatchTopK whose first `d_sae / 2^(levels − 1)`, `… / 2^(levels − 2)`, … features also
    /// reconstruct alone, each prefix a loss of its own (Bussmann et al. 2025; SAELens's
    /// `matryoshka_batchtopk`), so that broad features are not split by narrow ones.
    Matryoshka {
        k: usize,
        aux_coefficient: f32,
        #[serde(default = "default_levels")]
        levels: usize,
    },
    /// Each pre-activation above its own learnt threshold, with a penalty on how many fire (the
    /// threshold learns through a straight-through estimate `bandwidth` wide; Rajamanoharan et
    /// al. 2024, SAELens's `jumprelu` in its "step" mode).
    JumpRelu {
        l0_coefficient: f32,
        #[serde(default = "default_bandwidth")]
        bandwidth: f32,
    },
}

/// Matryoshka's levels unless said: a quarter, a half, and the whole dictionary.
fn default_levels() -> usize {
    3
}

fn default_bandwidth() -> f32 {
    JUMP_BANDWIDTH
}

/// The most nested levels of a Matryoshka autoencoder.
pub const MAX_LEVELS: usize = 6;
/// A JumpReLU feature's threshold at the start: 0, every positive pre-activation firing until the
/// L0 penalty raises it. SAELens starts at 0.01 (`jumprelu_init_threshold`) on activations it
/// normalises; a small model's stream can sit below that, fire nothing, and never learn.
pub const JUMP_START: f32 = 0.0;
/// The width of a JumpReLU threshold's straight-through estimate (SAELens's `jumprelu_bandwidth`).
pub const JUMP_BANDWIDTH: f32 = 0.05;
/// How fast a BatchTopK autoencoder's threshold follows each batch's least firing activation
/// (SAELens's `topk_threshold_lr`).
pub const THRESHOLD_RATE: f32 = 0.01;

impl Architecture {
    /// Its name, as the papers write it.
    pub fn name(&self) -> &'static str {
        match self {
            Architecture::TopK { .. } => "TopK",
            Architecture::Relu { .. } => "ReLU",
            Architecture::BatchTopK { .. } => "BatchTopK",
            Architecture::Matryoshka { .. } => "Matryoshka BatchTopK",
            Architecture::JumpRelu { .. } => "JumpReLU",
        }
    }

    /// Whether it fires above thresholds once trained, kept as a `threshold` tensor.
    pub fn thresholded(&self) -> bool {
        matches!(self, Architecture::BatchTopK { .. } | Architecture::Matryoshka { .. } | Architecture::JumpRelu { .. })
    }

    /// The features firing per token (on average over a batch, for BatchTopK and Matryoshka).
    pub fn k(&self) -> Option<usize> {
        match *self {
            Architecture::TopK { k, .. } | Architecture::BatchTopK { k, .. } | Architecture::Matryoshka { k, .. } => {
                Some(k)
            }
            _ => None,
        }
    }

    /// Whether training chooses its firing features across the whole batch.
    pub fn per_batch(&self) -> bool {
        matches!(self, Architecture::BatchTopK { .. } | Architecture::Matryoshka { .. })
    }

    /// The weight of its dead features' auxiliary loss (TopK's and its kin's), or none.
    pub fn aux_coefficient(&self) -> Option<f32> {
        match *self {
            Architecture::TopK { aux_coefficient, .. }
            | Architecture::BatchTopK { aux_coefficient, .. }
            | Architecture::Matryoshka { aux_coefficient, .. } => Some(aux_coefficient),
            _ => None,
        }
    }

    /// The features each nested level reconstructs with (the first that many), smallest first,
    /// the whole dictionary last; one level for any but Matryoshka.
    pub fn widths(&self, d_sae: usize) -> Vec<usize> {
        match *self {
            Architecture::Matryoshka { levels, .. } => (0..levels).rev().map(|l| d_sae >> l).collect(),
            _ => vec![d_sae],
        }
    }
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

    /// Its tensors, as indices into [`super::NAMES`]: `W_enc`, `b_enc`, `W_dec`, `b_dec`, then
    /// `W_skip` with a skip connection and `threshold` for a thresholded architecture.
    pub fn tensors(&self) -> Vec<usize> {
        let optional = [(self.skip, 4), (self.architecture.thresholded(), 5)];
        (0..4).chain(optional.into_iter().filter(|&(present, _)| present).map(|(_, k)| k)).collect()
    }

    pub fn tensor_count(&self) -> usize {
        self.tensors().len()
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
        let d_sae = self.d_sae(d_in);
        let non_negative = |x: f32| x.is_finite() && x >= 0.0;
        if let Some(k) = self.architecture.k().filter(|&k| k == 0 || k > d_sae) {
            return Err(Error::Config(dictionaries::k(d_sae, k)));
        }
        if let Some(aux) = self.architecture.aux_coefficient().filter(|&aux| !non_negative(aux)) {
            return Err(Error::Config(dictionaries::aux_coefficient(aux)));
        }
        match self.architecture {
            Architecture::Relu { l1_coefficient } if !non_negative(l1_coefficient) => {
                return Err(Error::Config(dictionaries::l1_coefficient(l1_coefficient)));
            }
            Architecture::Matryoshka { levels, .. } => {
                let most = MAX_LEVELS.min(d_sae.ilog2() as usize + 1);
                if !(2..=most).contains(&levels) {
                    return Err(Error::Config(dictionaries::levels(most, levels)));
                }
            }
            Architecture::JumpRelu { l0_coefficient, .. } if !non_negative(l0_coefficient) => {
                return Err(Error::Config(dictionaries::l0_coefficient(l0_coefficient)));
            }
            Architecture::JumpRelu { bandwidth, .. } if !(bandwidth.is_finite() && bandwidth > 0.0) => {
                return Err(Error::Config(dictionaries::bandwidth(bandwidth)));
            }
            _ => {}
        }
        if self.architecture.thresholded() && self.is_transcoder() {
            return Err(Error::Config(dictionaries::autoencoder_only()));
        }
        if !(1..=MAX_DEAD_TOKENS).contains(&self.dead_tokens) {
            return Err(Error::Config(dictionaries::dead_tokens(MAX_DEAD_TOKENS, self.dead_tokens)));
        }
        Ok(())
    }
}

/// The recipe an autoencoder trains by: Adam at a constant rate, no weight decay, gradients
/// clipped to norm 1 (SAELens's), `steps` steps of `rows` rows.
pub fn recipe(rows: usize, steps: usize, learning_rate: f32, seed: u64) -> TrainConfig {
    TrainConfig {
        batch_size: rows,
        max_iters: steps,
        learning_rate,
        min_lr: learning_rate,
        warmup_iters: 0,
        decay_lr: false,
        weight_decay: 0.0,
        beta1: 0.9,
        beta2: 0.999,
        grad_clip: 1.0,
        seed,
        eval_interval: None,
        eval_iters: 4,
        ..TrainConfig::default()
    }
}

//! An autoencoder trained on activations of known features (built, `synthetic.rs`, or read from a
//! file, `recorded.rs`), by the same trainee and trainer as one on a GPT, and scored as SAELens's
//! `eval_sae_on_synthetic_data` scores one: against the truth (`truth.rs`), and by how well it
//! reconstructs.

use super::absorption::absorption;
use super::data::ToyData;
use super::known::Known;
use super::run::ToyRun;
use super::synthetic::Synthetic;
use super::synthetic_spec::SyntheticSpec;
use super::truth::{match_grid, score, MatchGrid, TruthScores};
use crate::config::TrainConfig;
use crate::error::Result;
use crate::sae::{activation_variance, Architecture, Sae, SaeConfig, SaeTrainee, Sums, DENSE};
use crate::train::{TrainReport, Trainer};
use crate::workspace::Workspace;
use serde::Serialize;
use std::sync::Arc;

/// Rows the variance is measured on, and the scores.
const SAMPLE_ROWS: usize = 8192;
/// Rows a latent may stay silent before it counts as dead: SAELens's `train_toy_sae` window,
/// 1,000 batches of [`SyntheticSae::recipe`]'s 256 rows.
pub const DEAD_ROWS: usize = 1000 * 256;
/// Mixed into the seed that draws the autoencoder's weights: a source drawn from the same seed
/// (the synthetic features' directions, a toy model's first weights) would otherwise hand the
/// decoder the true features before it trains.
const WEIGHTS_STREAM: u64 = 0x5a_45_5f_77_65_69_67_68;

/// An autoencoder in training on activations of known features.
pub struct SyntheticSae<K: Known = Synthetic> {
    trainer: Trainer<SaeTrainee<Sae, K>>,
    source: Arc<K>,
}

/// How an autoencoder on synthetic activations does.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct SyntheticScores {
    pub step: usize,
    pub truth: TruthScores,
    /// The share of the activations' variance its reconstruction explains.
    pub explained_variance: f32,
    /// Latents firing per row, and the true features firing per row (if known).
    pub l0: f32,
    pub true_l0: Option<f32>,
    /// The share of latents that never fired on the scored rows, and that fired on more than
    /// [`DENSE`] of them.
    pub dead: f32,
    pub dense: f32,
    /// On a hierarchy, how often a child's firing is carried by its parent's latent alone
    /// (`absorption.rs`); none without one.
    pub absorption: Option<f32>,
}

/// Where an autoencoder's training stands and how it does, as the page shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct SaeStatus {
    pub steps: usize,
    pub scores: SyntheticScores,
    /// The true features' first few against their matched latents.
    pub grid: MatchGrid,
}

impl SyntheticSae {
    /// An autoencoder of `config` (its point is read as the activations themselves) on activations
    /// `spec` builds, to train by `train`, its decoder bias at their median.
    pub fn new(spec: SyntheticSpec, config: SaeConfig, train: TrainConfig) -> Result<SyntheticSae> {
        SyntheticSae::on(Synthetic::new(spec)?, config, train)
    }

    /// An autoencoder of `architecture`, `expansion` latents per dimension, a latent dead after
    /// [`DEAD_ROWS`] silent rows.
    pub fn config(architecture: Architecture, expansion: usize) -> SaeConfig {
        SaeConfig { expansion, architecture, dead_tokens: DEAD_ROWS, ..SaeConfig::top_k(0) }
    }

    /// Every autoencoder's recipe (SAELens's: Adam at a constant rate, betas 0.9 and 0.999,
    /// gradients clipped to norm 1) at the toy model's rate, 3e-3, on batches of 256 rows, for
    /// `steps` steps from `seed`, never evaluating (the scores say how it does).
    pub fn recipe(steps: usize, seed: u64) -> TrainConfig {
        crate::sae::recipe(256, steps, ToyRun::recipe().learning_rate, seed)
    }
}

impl<K: Known> SyntheticSae<K> {
    /// An autoencoder of `config` on `source`'s activations, to train by `train`, its decoder bias
    /// at their median.
    pub fn on(source: K, config: SaeConfig, train: TrainConfig) -> Result<SyntheticSae<K>> {
        train.validate()?;
        let source = Arc::new(source);
        let sample = source.sample(SAMPLE_ROWS);
        let d = source.dims();
        let mut sae = Sae::new(config, 1, d, train.seed ^ WEIGHTS_STREAM)?;
        sae.centre(&sample);
        let variance = activation_variance(&sample, d);
        let trainee = SaeTrainee::new(sae, Arc::clone(&source), 0, variance)?;
        Ok(SyntheticSae { trainer: Trainer::new(trainee, train), source })
    }

    /// Up to `n` steps (never past the last) on `threads` threads; a step that diverges is an
    /// error in the reader's words.
    pub fn train(&mut self, n: usize, threads: usize, now_ms: &dyn Fn() -> f64) -> Result<TrainReport> {
        self.trainer.set_threads(threads);
        for _ in 0..n {
            if self.done() {
                break;
            }
            self.trainer.step(&ToyData::default(), now_ms)?;
        }
        Ok(self.trainer.take_report())
    }

    pub fn done(&self) -> bool {
        self.trainer.step_count() >= self.trainer.train_config().max_iters
    }

    pub fn source(&self) -> &K {
        &self.source
    }

    pub fn sae(&self) -> &Sae {
        self.trainer.model().sae()
    }

    /// The decoder's rows (d_sae × d): the learned directions scored against the truth.
    fn decoder(&self) -> &[f32] {
        self.sae().view().decoder()
    }

    /// Its scores and the match grid of the first `shown` true features.
    pub fn status(&self, shown: usize) -> SaeStatus {
        let scores = self.scores();
        let grid = match_grid(self.decoder(), self.source.truth(), &scores.truth.matched, self.source.dims(), shown);
        SaeStatus { steps: self.trainer.train_config().max_iters, scores, grid }
    }

    /// Scored on rows it never trained on.
    pub fn scores(&self) -> SyntheticScores {
        let (sae, d) = (self.sae(), self.source.dims());
        let (x, firing) = self.source.held_out(SAMPLE_ROWS);
        let rows = (x.len() / d).max(1);
        let ws = Workspace::default();
        let codes = sae.encode(&ws, &x);
        let mut sums = Sums::new(d);
        sums.add(&x, &sae.view().output(&x, &codes), d);
        let mut fired = vec![0usize; sae.d_sae()];
        codes.features.iter().for_each(|&j| fired[j as usize] += 1);
        let share = |count: usize| count as f32 / fired.len() as f32;
        let truth = score(self.decoder(), self.source.truth(), d);
        let absorption = firing.as_ref().and_then(|f| absorption(&codes, f, &truth.matched, |i| self.source.parent(i)));
        SyntheticScores {
            step: self.trainer.step_count(),
            absorption,
            truth,
            explained_variance: sums.explained_variance(),
            l0: codes.features.len() as f32 / rows as f32,
            true_l0: firing.map(|f| f.iter().filter(|&&a| a > 0.0).count() as f32 / rows as f32),
            dead: share(fired.iter().filter(|&&f| f == 0).count()),
            dense: share(fired.iter().filter(|&&f| f as f32 > DENSE * rows as f32).count()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sae::Architecture;
    use crate::toy::Firing;

    /// The page's TopK autoencoder, trained on activations of known features, finds every one.
    #[test]
    fn a_topk_autoencoder_finds_orthogonal_features() {
        let firing = Firing::Equal { probability: 0.05 };
        let spec = SyntheticSpec { features: 32, dims: 64, orthogonal: true, firing, ..Default::default() };
        let config = SaeConfig {
            expansion: 1,
            architecture: Architecture::TopK { k: 4, aux_coefficient: 1.0 },
            ..SaeConfig::top_k(0)
        };
        let mut run = SyntheticSae::new(spec, config, SyntheticSae::recipe(600, 7)).unwrap();
        while !run.done() {
            run.train(100, 1, &|| 0.0).unwrap();
        }
        let scores = run.scores();
        assert!(scores.truth.mcc > 0.9 && scores.truth.found == 1.0, "{scores:?}");
        // k 4 against 1.6 true features a row: the spare firings go to a few latents, which fire on
        // more than a tenth of the rows.
        assert!(scores.dense > 0.0 && scores.dense < 0.25, "{scores:?}");
        assert!(scores.explained_variance > 0.9 && (scores.true_l0.unwrap() - 1.6).abs() < 0.1, "{scores:?}");
    }
}

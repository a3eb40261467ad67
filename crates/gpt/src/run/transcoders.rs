//! A run's transcoders: one per MLP, trained together through the run's trainer on a frozen copy
//! of its model (as its autoencoder is, `features.rs`), and measured as circuit tracing measures
//! them: each layer's normalised error, and the replacement model (every MLP replaced by its
//! transcoder, no error terms) against the model on held-out text.

use super::feature_measures::FeatureRows;
use super::features::EveryPosition;
use super::training::Watch;
use super::{no_transcoders, Run};
use crate::checkpoint::SavedFeatures;
use crate::config::TrainConfig;
use crate::error::Result;
use crate::model::HookPoint;
use crate::sae::Sums;
use crate::sae::{SaeConfig, SaeTrainee, Transcoders};
use crate::train::{TrainReport, Trainer};
use crate::workspace::Workspace;
use serde::Serialize;
use std::sync::Arc;

/// One layer's transcoder on held-out tokens.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct LayerMeasures {
    /// Its squared error over the MLP output's variance (circuit tracing's normalised MSE).
    pub normalized_mse: f32,
    pub explained_variance: f32,
    /// Features firing per token.
    pub l0: f32,
    /// The share of its features that have not fired for the dead window.
    pub dead: f32,
}

/// The transcoders on held-out tokens, layer by layer and as the replacement model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TranscoderMeasures {
    pub tokens: usize,
    pub layers: Vec<LayerMeasures>,
    /// The share of positions where the replacement model's most likely token is the model's.
    pub top1_agreement: f32,
    /// The mean KL divergence of the replacement model's next-token distribution from the model's.
    pub kl: f32,
    /// The model's held-out loss, and the replacement model's.
    pub loss_clean: f32,
    pub loss_replaced: f32,
}

impl<W: Watch> Run<W> {
    /// Begins training a transcoder of `config`'s kind for every MLP, together, on a frozen copy of
    /// the model as it is now, by `train` on `threads` threads; a set begun before is dropped.
    pub fn start_transcoders(&mut self, config: SaeConfig, train: TrainConfig, threads: usize) -> Result<()> {
        train.validate()?;
        let model = Arc::new(self.model().frozen_copy()?);
        let c = model.config();
        let mut transcoders = Transcoders::new(config, c.n_layer, c.n_embd, train.seed)?;
        let outputs: Vec<HookPoint> = (0..c.n_layer).map(|layer| HookPoint::MlpOut { layer }).collect();
        let samples = self.sample_activations(&model, &outputs, train.batch_size)?;
        let mut variances = Vec::with_capacity(samples.len());
        for (layer, sample) in samples.iter().enumerate() {
            transcoders.centre(layer, sample);
            variances.push(crate::sae::activation_variance(sample, c.n_embd));
        }
        let mut trainer = Trainer::new(SaeTrainee::of(transcoders, model, self.step_count(), variances)?, train);
        trainer.set_threads(threads);
        self.transcoders = Some(trainer);
        self.transcoder_index.clear();
        Ok(())
    }

    /// Takes back the transcoders a checkpoint kept (see [`Run::restore_features`]); whether
    /// they came back.
    pub(crate) fn restore_transcoders(&mut self, transcoders: SavedFeatures) -> Result<bool> {
        self.transcoders = self.restore_dictionaries(transcoders, |config, c, params| {
            Transcoders::from_params(config, c.n_layer, c.n_embd, params)
        })?;
        self.transcoder_index.clear();
        Ok(self.transcoders.is_some())
    }

    /// The transcoders in training, with their trainer, if they were begun.
    pub fn transcoders(&self) -> Option<&Trainer<SaeTrainee<Transcoders>>> {
        self.transcoders.as_ref()
    }

    /// Up to `n` of the transcoders' steps (see [`Trainer::train`]).
    pub fn train_transcoders(&mut self, n: usize, now_ms: &dyn Fn() -> f64) -> Result<TrainReport> {
        let data = self.data.as_ref().ok_or_else(super::training::no_text)?;
        let trainer = self.transcoders.as_mut().ok_or_else(no_transcoders)?;
        Ok(trainer.train(n, &EveryPosition(data), now_ms))
    }

    /// The held-out batches the transcoders' measures read: `batches` of their rows, the same
    /// every time.
    pub fn transcoder_rows(&self, batches: usize) -> Result<FeatureRows> {
        let trainer = self.transcoders.as_ref().ok_or_else(no_transcoders)?;
        self.held_out_rows(trainer.train_config().batch_size, batches)
    }

    /// The transcoders measured on `batches` held-out batches (the same ones every time).
    pub fn transcoder_measures(&self, batches: usize) -> Result<TranscoderMeasures> {
        let trainer = self.transcoders.as_ref().ok_or_else(no_transcoders)?;
        let trainee = trainer.model();
        let (transcoders, model) = (trainee.dictionaries(), trainee.model());
        let (d, layers, v) = (transcoders.d_in(), transcoders.layers(), model.config().vocab_size);
        let ws = Workspace::default();
        let mut sums: Vec<Sums> = (0..layers).map(|_| Sums::new(d)).collect();
        let mut fired = vec![0usize; layers];
        let (mut agree, mut kl, mut positions) = (0usize, 0.0, 0usize);
        let (mut loss_clean, mut loss_replaced, mut scored) = (0.0, 0.0, 0usize);
        let FeatureRows { b, t, batches } = self.transcoder_rows(batches)?;
        for (idx, targets) in &batches {
            let batch = crate::work::Batch { idx, targets, b, t };
            for (layer, (x, y)) in trainee.activations(&ws, batch)?.into_iter().enumerate() {
                let sae = transcoders.layer(layer);
                let codes = sae.encode(&ws, &x);
                sums[layer].add(y.as_deref().unwrap_or(&x), &sae.output(&x, &codes), d);
                fired[layer] += codes.features.len();
            }
            let clean = model.logits(idx, b, t)?;
            let clean = clean.as_slice().expect("standard layout");
            let replaced = model.rewired_logits(idx, (b, t), None, &mut transcoders.replacement(&ws))?;
            for ((p, q), &target) in clean.chunks_exact(v).zip(replaced.chunks_exact(v)).zip(targets) {
                let (log_p, log_q) = (log_softmax(p), log_softmax(q));
                agree += usize::from(crate::ops::argmax(p) == crate::ops::argmax(q));
                kl += log_p.iter().zip(&log_q).map(|(lp, lq)| lp.exp() * (lp - lq)).sum::<f64>();
                if target != crate::ops::IGNORE {
                    (loss_clean, loss_replaced) = (loss_clean - log_p[target], loss_replaced - log_q[target]);
                    scored += 1;
                }
                positions += 1;
            }
        }
        let dead = trainee.dead();
        let m = transcoders.config().d_sae(d);
        let n = positions.max(1) as f64;
        Ok(TranscoderMeasures {
            tokens: positions,
            layers: (0..layers)
                .map(|layer| LayerMeasures {
                    normalized_mse: 1.0 - sums[layer].explained_variance(),
                    explained_variance: sums[layer].explained_variance(),
                    l0: fired[layer] as f32 / positions.max(1) as f32,
                    dead: dead[layer * m..(layer + 1) * m].iter().filter(|&&d| d).count() as f32 / m as f32,
                })
                .collect(),
            top1_agreement: (agree as f64 / n) as f32,
            kl: (kl / n) as f32,
            loss_clean: (loss_clean / scored.max(1) as f64) as f32,
            loss_replaced: (loss_replaced / scored.max(1) as f64) as f32,
        })
    }
}

/// `logits`' log-probabilities, in f64.
fn log_softmax(logits: &[f32]) -> Vec<f64> {
    let max = logits.iter().fold(f32::NEG_INFINITY, |m, &l| m.max(l)) as f64;
    let log_total = logits.iter().map(|&l| (l as f64 - max).exp()).sum::<f64>().ln();
    logits.iter().map(|&l| l as f64 - max - log_total).collect()
}

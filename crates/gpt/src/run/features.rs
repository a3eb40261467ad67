//! A run's sparse autoencoder: trained by the run's own trainer machinery on a frozen copy of the
//! run's model, from batches of the run's own text or problems (every position counts, prompt and
//! answer alike); begun, taken back from a checkpoint, and trained. `feature_measures.rs`
//! measures it.

use super::training::Watch;
use super::{no_features, Run};
use crate::checkpoint::FeaturesSnapshot;
use crate::checkpoint::SavedFeatures;
use crate::config::TrainConfig;
use crate::error::Result;
use crate::model::HookPoint;
use crate::rng::Rng;
use crate::sae::{Dictionaries, Sae, SaeConfig, SaeTrainee, SavedSae};
use crate::train::{Batches, TrainReport, Trainer};
use crate::work::Split;
use crate::workspace::Workspace;
use crate::GPT;
use std::sync::Arc;

/// Rows of activations the decoder bias and the loss scale are drawn from.
const SAMPLE_BATCHES: usize = 4;
/// A run's batches with every position counted: an autoencoder reads the activations at each.
pub(super) struct EveryPosition<'a>(pub(super) &'a dyn Batches);

impl Batches for EveryPosition<'_> {
    fn seq_len(&self, block_size: usize) -> usize {
        self.0.seq_len(block_size)
    }

    fn batch(&self, split: Split, batch: usize, block: usize, rng: &mut Rng, x: &mut Vec<u32>, y: &mut Vec<u32>) {
        self.0.batch(split, batch, block, rng, x, y);
        y.fill(0);
    }

    fn scores_answers(&self) -> bool {
        false
    }
}

impl<W: Watch> Run<W> {
    /// Begins training an autoencoder by `config` on a frozen copy of the model as it is now,
    /// by `train`, on `threads` threads; one begun before is dropped.
    pub fn start_features(&mut self, config: SaeConfig, train: TrainConfig, threads: usize) -> Result<()> {
        let c = self.model().config();
        let sae = Sae::new(config, c.n_layer, c.n_embd, train.seed)?;
        self.use_features(sae, train, threads, true)
    }

    /// Takes `sae` (one trained before, or fresh) on a frozen copy of the model as it is now, to
    /// train further by `train` on `threads` threads; `centre` sets its decoder bias to the
    /// activations' median first.
    pub fn use_features(&mut self, mut sae: Sae, train: TrainConfig, threads: usize, centre: bool) -> Result<()> {
        train.validate()?;
        let model = Arc::new(self.model().frozen_copy()?);
        let sample = self.sample_activations(&model, &[sae.config().writes()], train.batch_size)?.swap_remove(0);
        if centre {
            sae.centre(&sample);
        }
        let variance = crate::sae::activation_variance(&sample, model.config().n_embd);
        let mut trainer = Trainer::new(SaeTrainee::new(sae, model, self.step_count(), variance)?, train);
        trainer.set_threads(threads);
        self.features = Some(trainer);
        self.feature_baseline.set(None);
        Ok(())
    }

    /// Takes back an autoencoder a checkpoint kept, on the model it reads: the one the file kept
    /// for it, or the run's when it reads the run's step (a file written before models were kept
    /// beside it may have neither: then it is left out); whether it came back.
    pub(crate) fn restore_features(&mut self, features: SavedFeatures) -> Result<bool> {
        let restored = self.restore_dictionaries(features, |config, c, params| {
            Sae::from_params(config, c.n_layer, c.n_embd, params)
        })?;
        self.features = restored;
        self.feature_baseline.set(None);
        Ok(self.features.is_some())
    }

    /// The trainer of what a checkpoint kept (an autoencoder, or transcoders, whose weights
    /// `build` checks for the model it reads), on that model, as it was.
    pub(super) fn restore_dictionaries<D: Dictionaries>(
        &self,
        features: SavedFeatures,
        build: impl FnOnce(SaeConfig, &crate::GPTConfig, crate::params::Params) -> Result<D>,
    ) -> Result<Option<Trainer<SaeTrainee<D>>>> {
        let SavedFeatures { saved, sae, optimizer, model } = features;
        let model = match model {
            Some(model) => model,
            None if saved.model_step == self.step_count() => self.model().frozen_copy()?,
            None => return Ok(None),
        };
        let dictionaries = build(saved.config, model.config(), sae)?;
        let variances = if saved.variances.is_empty() { vec![saved.variance] } else { saved.variances };
        let mut trainee = SaeTrainee::of(dictionaries, Arc::new(model), saved.model_step, variances)?;
        trainee.set_since_fired(&saved.since_fired);
        Ok(Some(Trainer::resume(trainee, saved.train, saved.step, saved.history, Some(optimizer), saved.rng)))
    }

    /// The autoencoder in training, with its trainer, if one was begun.
    pub fn features(&self) -> Option<&Trainer<SaeTrainee>> {
        self.features.as_ref()
    }

    /// Up to `n` of the autoencoder's steps (see [`Trainer::train`]).
    pub fn train_features(&mut self, n: usize, now_ms: &dyn Fn() -> f64) -> Result<TrainReport> {
        let data = self.data.as_ref().ok_or_else(super::training::no_text)?;
        let trainer = self.features.as_mut().ok_or_else(no_features)?;
        Ok(trainer.train(n, &EveryPosition(data), now_ms))
    }

    /// Rows of the model's activations at each of `points` (where a dictionary's output goes: its
    /// decoder bias starts at their median, and its loss is measured against their variance),
    /// from `SAMPLE_BATCHES` training batches.
    pub(super) fn sample_activations(&self, model: &GPT, points: &[HookPoint], rows: usize) -> Result<Vec<Vec<f32>>> {
        let data = self.data.as_ref().ok_or_else(super::training::no_text)?;
        let block = model.config().block_size;
        let t = data.seq_len(block);
        let mut rng = Rng::new(super::feature_measures::MEASURE_SEED ^ 1);
        let (mut x, mut y) = (Vec::new(), Vec::new());
        let mut samples = vec![Vec::new(); points.len()];
        let ws = Workspace::default();
        for _ in 0..SAMPLE_BATCHES {
            data.batch(Split::Train, rows, block, &mut rng, &mut x, &mut y);
            let idx: Vec<usize> = x.iter().map(|&i| i as usize).collect();
            let read = model.activations_at(&ws, &idx, rows, t, points)?;
            samples.iter_mut().zip(read).for_each(|(sample, values)| sample.extend(values));
        }
        Ok(samples)
    }
}

/// What a checkpoint keeps of `trainer`'s autoencoder (or transcoders) beside its weights.
pub(super) fn saved<D: Dictionaries>(trainer: &Trainer<SaeTrainee<D>>) -> SavedSae {
    let trainee = trainer.model();
    let variances = trainee.variances();
    SavedSae {
        config: *trainee.dictionaries().each()[0].config(),
        model_step: trainee.model_step(),
        step: trainer.step_count(),
        train: trainer.train_config().clone(),
        variance: variances[0],
        variances: if variances.len() > 1 { variances.to_vec() } else { vec![] },
        since_fired: trainee.since_fired(),
        optimizer_steps: trainer.optimizer().steps(),
        rng: Some(trainer.rng().clone()),
        history: trainer.history().clone(),
    }
}

/// What a checkpoint keeps of a run's `trainer` (of an autoencoder or transcoders) trained on
/// its model at step `step`.
pub(super) fn snapshot<D: Dictionaries>(trainer: &Trainer<SaeTrainee<D>>, step: usize) -> FeaturesSnapshot<'_> {
    FeaturesSnapshot {
        saved: saved(trainer),
        sae: trainer.model().dictionaries().params(),
        optimizer: trainer.optimizer(),
        // The model it reads is kept once the run's has trained past it.
        model: (trainer.model().model_step() != step).then(|| trainer.model().model().params()),
    }
}

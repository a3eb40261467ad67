//! A run's sparse autoencoder: trained by the run's own trainer machinery on a frozen copy of the
//! run's model, from batches of the run's own text or problems (every position counts, prompt and
//! answer alike), and measured on held-out ones as SAELens measures one: the reconstruction
//! error, the variance explained, L0, dead and dense features, and the share of the model's loss
//! it recovers when its reconstruction replaces the activations.

use super::training::Watch;
use super::Run;
use crate::checkpoint::SavedFeatures;
use crate::config::TrainConfig;
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::sae::{Sae, SaeConfig, SaeTrainee, SavedSae};
use crate::train::{Batches, TrainReport, Trainer};
use crate::work::{targets, Batch, Split};
use crate::workspace::Workspace;
use crate::GPT;
use serde::Serialize;
use std::sync::Arc;

/// Seeds the held-out batches the measures read, the same at every measurement.
const MEASURE_SEED: u64 = 0x6665_6174_7572_6505;
/// Rows of activations the decoder bias and the loss scale are drawn from.
const SAMPLE_BATCHES: usize = 4;
/// A feature firing on more than this share of tokens counts as dense.
pub const DENSE: f32 = 0.1;

/// The recipe an autoencoder trains by: Adam at a constant rate, no weight decay, gradients
/// clipped to norm 1 (SAELens's), `steps` steps of `rows` rows.
pub fn sae_recipe(rows: usize, steps: usize, learning_rate: f32, seed: u64) -> TrainConfig {
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

/// Held-out batches of `b` rows of `t` ids, with their targets ([`crate::ops::IGNORE`] where the
/// model's loss skips a position).
#[derive(Clone, Debug)]
pub struct FeatureRows {
    pub b: usize,
    pub t: usize,
    pub batches: Vec<(Vec<usize>, Vec<usize>)>,
}

/// How well an autoencoder does on held-out batches.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct FeatureMeasures {
    /// Tokens measured.
    pub tokens: usize,
    /// ‖x̂ − x‖² per token.
    pub mse: f32,
    /// 1 − mse over the activations' variance (summed over channels): SAELens's.
    pub explained_variance: f32,
    /// Features firing per token, on average.
    pub l0: f32,
    /// The share of features that have not fired for the config's `dead_tokens` training tokens.
    pub dead: f32,
    /// The share that fired on no held-out token.
    pub silent: f32,
    /// The share firing on more than [`DENSE`] of the tokens.
    pub dense: f32,
    /// The model's loss as it is, with the autoencoder's reconstruction in place of the
    /// activations, and with the activations zeroed.
    pub loss_clean: f32,
    pub loss_with_sae: f32,
    pub loss_zeroed: f32,
    /// How much of the loss that zeroing costs the reconstruction keeps (SAELens's
    /// `ce_loss_score`): 1 is the model's own.
    pub loss_recovered: f32,
    /// Each feature's share of tokens it fires on.
    pub density: Vec<f32>,
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
        let model = Arc::new(frozen_copy(self.model())?);
        let sample = self.sample_activations(&model, *sae.config(), train.batch_size)?;
        if centre {
            sae.centre(&sample);
        }
        let variance = variance(&sample, model.config().n_embd);
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
        let SavedFeatures { saved, sae, optimizer, model } = features;
        let model = match model {
            Some(model) => model,
            None if saved.model_step == self.step_count() => frozen_copy(self.model())?,
            None => return Ok(false),
        };
        let c = model.config();
        let sae = Sae::from_params(saved.config, c.n_layer, c.n_embd, sae)?;
        let mut trainee = SaeTrainee::new(sae, Arc::new(model), saved.model_step, saved.variance)?;
        trainee.set_since_fired(&saved.since_fired);
        let history = crate::train::History::default();
        let trainer = Trainer::resume(trainee, saved.train, saved.step, history, Some(optimizer), saved.rng);
        self.features = Some(trainer);
        self.feature_baseline.set(None);
        Ok(true)
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

    /// The autoencoder measured on `batches` held-out batches (the same ones every time).
    pub fn feature_measures(&self, batches: usize) -> Result<FeatureMeasures> {
        let trainer = self.features.as_ref().ok_or_else(no_features)?;
        let trainee = trainer.model();
        let (sae, model) = (trainee.sae(), trainee.model());
        let (d, m) = (sae.d_in(), sae.d_sae());
        let ws = Workspace::default();
        let mut sums = Sums::new(d);
        let mut fired = vec![0usize; m];
        let mut losses = [0.0f64; 3];
        // The model is frozen: its loss as it is and zeroed at the point are measured once.
        let baseline = self.feature_baseline.get().filter(|&(n, ..)| n == batches);
        let rows = self.feature_rows(batches)?;
        for (idx, targets) in &rows.batches {
            let batch = Batch { idx, targets, b: rows.b, t: rows.t };
            let x = trainee.activations(&ws, batch)?;
            let codes = sae.encode(&ws, &x);
            let recon = sae.decode(&codes);
            sums.add(&x, &recon, d);
            codes.features.iter().for_each(|&j| fired[j as usize] += 1);
            let point = sae.config().point;
            losses[1] += model.score_replaced(&ws, batch, point, &mut |v| v.copy_from_slice(&recon))?.0 as f64;
            if baseline.is_none() {
                losses[0] += model.score_edited(&ws, batch, &[])?.0 as f64;
                losses[2] += model.score_replaced(&ws, batch, point, &mut |v| v.fill(0.0))?.0 as f64;
            }
        }
        let tokens = sums.tokens;
        let n = rows.batches.len() as f64;
        let [mut clean, with_sae, mut zeroed] = losses.map(|l| (l / n) as f32);
        match baseline {
            Some((_, c, z)) => (clean, zeroed) = (c, z),
            None => self.feature_baseline.set(Some((batches, clean, zeroed))),
        }
        let share = |count: usize| count as f32 / m as f32;
        let density: Vec<f32> = fired.iter().map(|&f| f as f32 / tokens.max(1) as f32).collect();
        Ok(FeatureMeasures {
            tokens,
            mse: sums.mse(),
            explained_variance: sums.explained_variance(),
            l0: codes_per_token(&fired, tokens),
            dead: share(trainee.dead().iter().filter(|&&dead| dead).count()),
            silent: share(fired.iter().filter(|&&f| f == 0).count()),
            dense: share(density.iter().filter(|&&p| p > DENSE).count()),
            loss_clean: clean,
            loss_with_sae: with_sae,
            loss_zeroed: zeroed,
            loss_recovered: (zeroed - with_sae) / (zeroed - clean),
            density,
        })
    }

    /// The held-out batches the measures read: `batches` of the autoencoder's rows, drawn the
    /// same way every time.
    pub fn feature_rows(&self, batches: usize) -> Result<FeatureRows> {
        let data = self.data.as_ref().ok_or_else(super::training::no_text)?;
        let trainer = self.features.as_ref().ok_or_else(no_features)?;
        let (b, block) = (trainer.train_config().batch_size, self.model().config().block_size);
        let mut rng = Rng::new(MEASURE_SEED);
        let (mut x, mut y) = (Vec::new(), Vec::new());
        let batches = (0..batches.max(1))
            .map(|_| {
                data.batch(Split::Val, b, block, &mut rng, &mut x, &mut y);
                (x.iter().map(|&i| i as usize).collect(), targets(&y))
            })
            .collect();
        Ok(FeatureRows { b, t: data.seq_len(block), batches })
    }

    /// Rows of the model's activations at `config`'s point, from `SAMPLE_BATCHES` training batches.
    fn sample_activations(&self, model: &GPT, config: SaeConfig, rows: usize) -> Result<Vec<f32>> {
        let data = self.data.as_ref().ok_or_else(super::training::no_text)?;
        let block = model.config().block_size;
        let t = data.seq_len(block);
        let mut rng = Rng::new(MEASURE_SEED ^ 1);
        let (mut x, mut y) = (Vec::new(), Vec::new());
        let mut sample = Vec::new();
        let ws = Workspace::default();
        for _ in 0..SAMPLE_BATCHES {
            data.batch(Split::Train, rows, block, &mut rng, &mut x, &mut y);
            let idx: Vec<usize> = x.iter().map(|&i| i as usize).collect();
            sample.extend(model.activations(&ws, &idx, rows, t, config.point)?);
        }
        Ok(sample)
    }
}

/// What a checkpoint keeps of `trainer`'s autoencoder beside its weights.
pub(super) fn saved(trainer: &Trainer<SaeTrainee>) -> SavedSae {
    let trainee = trainer.model();
    SavedSae {
        config: *trainee.sae().config(),
        model_step: trainee.model_step(),
        step: trainer.step_count(),
        train: trainer.train_config().clone(),
        variance: trainee.variance(),
        since_fired: trainee.since_fired(),
        optimizer_steps: trainer.optimizer().steps(),
        rng: Some(trainer.rng().clone()),
    }
}

fn codes_per_token(fired: &[usize], tokens: usize) -> f32 {
    fired.iter().sum::<usize>() as f32 / tokens.max(1) as f32
}

/// Running sums for the reconstruction error and the activations' variance, in f64 (the variance
/// is a difference of two large, nearly equal numbers).
#[derive(Default)]
struct Sums {
    tokens: usize,
    squared_error: f64,
    squared_norm: f64,
    /// Each channel's sum.
    sum: Vec<f64>,
}

impl Sums {
    fn new(d: usize) -> Sums {
        Sums { sum: vec![0.0; d], ..Sums::default() }
    }

    fn add(&mut self, x: &[f32], recon: &[f32], d: usize) {
        for (row, r) in x.chunks_exact(d).zip(recon.chunks_exact(d)) {
            self.tokens += 1;
            for ((&a, &b), m) in row.iter().zip(r).zip(self.sum.iter_mut()) {
                self.squared_error += ((a - b) as f64).powi(2);
                self.squared_norm += (a as f64).powi(2);
                *m += a as f64;
            }
        }
    }

    fn mse(&self) -> f32 {
        (self.squared_error / self.tokens.max(1) as f64) as f32
    }

    /// The activations' variance summed over channels: E‖x‖² − ‖E x‖².
    fn variance(&self) -> f64 {
        let n = self.tokens.max(1) as f64;
        self.squared_norm / n - self.sum.iter().map(|s| (s / n).powi(2)).sum::<f64>()
    }

    fn explained_variance(&self) -> f32 {
        (1.0 - self.squared_error / self.tokens.max(1) as f64 / self.variance()) as f32
    }
}

/// The activations' variance summed over channels: the loss of guessing their mean.
fn variance(sample: &[f32], d: usize) -> f32 {
    let mut sums = Sums::new(d);
    sums.add(sample, sample, d);
    sums.variance() as f32
}

/// A copy of `model` that the autoencoder's training reads while the run may go on training.
fn frozen_copy(model: &GPT) -> Result<GPT> {
    let mut copy = GPT::new(model.config().clone(), 0)?;
    copy.params_mut().values = model.params().values.clone();
    Ok(copy)
}

pub(super) fn no_features() -> Error {
    Error::Config("no autoencoder has been started on this run".into())
}

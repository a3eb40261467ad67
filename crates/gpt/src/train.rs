//! The training loop, one step at a time so a caller (the page, the CLI) can interleave its own work.

use crate::config::GPTConfig;
use crate::data::{Dataset, Split};
use crate::error::{Error, Result};
use crate::model::GPT;
use crate::optim::{clip_grad_norm, AdamW};
use crate::rng::Rng;
use crate::sample::SampleConfig;
use crate::schedule::Schedule;
use serde::{Deserialize, Serialize};

/// Optimisation settings; the defaults are nanoGPT's CPU Shakespeare recipe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    pub batch_size: usize,
    pub max_iters: usize,
    pub learning_rate: f32,
    pub min_lr: f32,
    pub warmup_iters: usize,
    pub lr_decay_iters: usize,
    pub decay_lr: bool,
    pub weight_decay: f32,
    pub beta1: f32,
    pub beta2: f32,
    /// Clip gradients to this global norm; 0 turns clipping off.
    pub grad_clip: f32,
    pub seed: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 12,
            max_iters: 2000,
            learning_rate: 1e-3,
            min_lr: 1e-4,
            warmup_iters: 100,
            lr_decay_iters: 2000,
            decay_lr: true,
            weight_decay: 0.1,
            beta1: 0.9,
            beta2: 0.99,
            grad_clip: 1.0,
            seed: 1337,
        }
    }
}

impl TrainConfig {
    /// Checks every field, naming the first that is wrong.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Config(m));
        if self.batch_size == 0 || self.batch_size > 4096 {
            return bad(format!("batch_size must be between 1 and 4096, not {}", self.batch_size));
        }
        for (name, v) in [("learning_rate", self.learning_rate), ("min_lr", self.min_lr)] {
            if !(v.is_finite() && v > 0.0 && v < 10.0) {
                return bad(format!("{name} must be a positive number below 10, not {v}"));
            }
        }
        if self.min_lr > self.learning_rate {
            return bad(format!("min_lr ({}) must not exceed learning_rate ({})", self.min_lr, self.learning_rate));
        }
        if !(self.weight_decay.is_finite() && (0.0..1.0).contains(&self.weight_decay)) {
            return bad(format!("weight_decay must be in [0, 1), not {}", self.weight_decay));
        }
        for (name, v) in [("beta1", self.beta1), ("beta2", self.beta2)] {
            if !(0.0..1.0).contains(&v) {
                return bad(format!("{name} must be in [0, 1), not {v}"));
            }
        }
        if !(self.grad_clip.is_finite() && self.grad_clip >= 0.0) {
            return bad(format!("grad_clip must be 0 (off) or positive, not {}", self.grad_clip));
        }
        Ok(())
    }

    fn schedule(&self) -> Schedule {
        Schedule {
            learning_rate: self.learning_rate,
            min_lr: self.min_lr,
            warmup_iters: self.warmup_iters,
            lr_decay_iters: self.lr_decay_iters,
            decay_lr: self.decay_lr,
        }
    }
}

/// What one optimisation step did.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepStats {
    /// Steps completed, including this one.
    pub step: usize,
    pub loss: f32,
    pub lr: f32,
    /// Global gradient norm before clipping.
    pub grad_norm: f32,
    /// Tokens this step trained on (batch × block).
    pub tokens: usize,
}

/// Mean losses over random batches of each split.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub step: usize,
    pub train_loss: f32,
    pub val_loss: f32,
}

/// Checks a model and its training settings together, including that one step fits in a tab's memory.
pub fn validate(model: &GPTConfig, train: &TrainConfig) -> Result<()> {
    train.validate()?;
    model.validate()?;
    let bytes = model.training_bytes(train.batch_size);
    if bytes > crate::config::MAX_TRAINING_BYTES {
        return Err(Error::Config(format!(
            "training this model with batch size {} needs about {} MiB, more than the {} MiB a browser tab can use; \
             lower the batch size, block size or model size",
            train.batch_size,
            bytes >> 20,
            crate::config::MAX_TRAINING_BYTES >> 20
        )));
    }
    Ok(())
}

/// A model, its optimiser, its data and where training is.
pub struct Trainer {
    pub(crate) model: GPT,
    pub(crate) optimizer: AdamW,
    data: Dataset,
    pub(crate) config: TrainConfig,
    pub(crate) step: usize,
    pub(crate) rng: Rng,
    pub(crate) history: History,
    /// The last generation asked of this model; checkpoints keep it.
    pub sampling: Option<SampleConfig>,
    x: Vec<usize>,
    y: Vec<usize>,
}

/// Every step's training loss and every evaluation so far, so a resumed run can redraw its curve.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct History {
    pub losses: Vec<f32>,
    pub evals: Vec<Evaluation>,
}

/// Separate random streams, so that evaluating never changes which batches training sees.
const TRAIN_STREAM: u64 = 0x7472_6169_6e00_0001;
const EVAL_STREAM: u64 = 0x6576_616c_0000_0002;

impl Trainer {
    /// A freshly initialised model (seeded by `train.seed`) over `tokens`.
    pub fn new(model: GPTConfig, train: TrainConfig, tokens: Vec<u32>) -> Result<Trainer> {
        validate(&model, &train)?;
        let gpt = GPT::new(model, train.seed)?;
        Trainer::assemble(gpt, None, train, tokens, 0, None, History::default())
    }

    /// A trainer around an existing model, optimiser state and position (as a checkpoint holds
    /// them); missing optimiser state or RNG start fresh from the settings.
    pub(crate) fn assemble(
        model: GPT,
        optimizer: Option<AdamW>,
        config: TrainConfig,
        tokens: Vec<u32>,
        step: usize,
        rng: Option<Rng>,
        history: History,
    ) -> Result<Trainer> {
        validate(model.config(), &config)?;
        let vocab = model.config().vocab_size;
        if let Some(&bad) = tokens.iter().find(|&&t| t as usize >= vocab) {
            return Err(Error::Data(format!("token id {bad} is outside the vocabulary of {vocab}")));
        }
        let data = Dataset::new(tokens, model.config().block_size)?;
        let optimizer = optimizer
            .unwrap_or_else(|| AdamW::new(&model.params().values, config.beta1, config.beta2, config.weight_decay));
        let rng = rng.unwrap_or_else(|| Rng::new(config.seed ^ TRAIN_STREAM));
        Ok(Trainer { model, optimizer, data, config, step, rng, history, sampling: None, x: vec![], y: vec![] })
    }

    /// Every step's loss and every evaluation so far.
    pub fn history(&self) -> &History {
        &self.history
    }

    pub fn model(&self) -> &GPT {
        &self.model
    }

    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    /// Trains for `max_iters` steps in all, so a resumed run can go on; the learning-rate
    /// schedule is unchanged (past `lr_decay_iters` it stays at `min_lr`).
    pub fn set_max_iters(&mut self, max_iters: usize) -> Result<()> {
        if max_iters < self.step {
            return Err(Error::Config(format!(
                "iterations ({max_iters}) cannot be fewer than the {} steps already done",
                self.step
            )));
        }
        self.config.max_iters = max_iters;
        Ok(())
    }

    /// Steps completed so far.
    pub fn step_count(&self) -> usize {
        self.step
    }

    /// Tokens in one batch.
    pub fn tokens_per_step(&self) -> usize {
        self.config.batch_size * self.model.config().block_size
    }

    /// One step of AdamW on a random training batch. A loss that is not finite or has exploded
    /// far past a uniform guess, or a non-finite gradient, stops with
    /// [`Error::Diverged`] before the update, so the model keeps its last good weights.
    pub fn step(&mut self) -> Result<StepStats> {
        let (b, t) = (self.config.batch_size, self.model.config().block_size);
        self.data.batch(Split::Train, b, t, &mut self.rng, &mut self.x, &mut self.y);
        self.model.params_mut().zero_grads();
        let loss = self.model.loss_and_grad(&self.x, &self.y, b, t, Some(&mut self.rng))?;
        let lr = self.config.schedule().lr(self.step);
        // Far above a uniform guess, the model is no longer learning but blowing up, even while
        // the numbers stay finite (normalisation keeps them bounded).
        let uniform = (self.model.config().vocab_size as f32).ln();
        let diverged = |what: String| {
            Error::Diverged(format!(
                "training diverged at step {}: {what}. The model keeps its weights from before this step. \
                 Lower the learning rate (it is {lr:.2e}){}",
                self.step + 1,
                if self.config.grad_clip > 0.0 { "." } else { " or turn gradient clipping on (grad_clip 1.0)." }
            ))
        };
        if !loss.is_finite() || loss > 3.0 * uniform + 10.0 {
            let why = format!("the loss became {loss}, against {uniform:.2} for a uniform guess");
            return Err(diverged(why));
        }
        let grads = &mut self.model.params_mut().grads;
        let grad_norm = if self.config.grad_clip > 0.0 {
            clip_grad_norm(grads, self.config.grad_clip)
        } else {
            crate::optim::global_norm(grads)
        };
        if !grad_norm.is_finite() {
            return Err(diverged("the gradient became infinite or NaN".into()));
        }
        let params = self.model.params_mut();
        self.optimizer.step(&mut params.values, &params.grads, lr);
        self.step += 1;
        self.history.losses.push(loss);
        Ok(StepStats { step: self.step, loss, lr, grad_norm, tokens: b * t })
    }

    /// The mean loss over `eval_iters` random batches of each split, without dropout. The
    /// batches depend only on the seed and the step, never on earlier evaluations.
    pub fn evaluate(&mut self, eval_iters: usize) -> Result<Evaluation> {
        let (b, t) = (self.config.batch_size, self.model.config().block_size);
        let mut rng = Rng::new(self.config.seed ^ EVAL_STREAM ^ (self.step as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let (mut x, mut y) = (vec![], vec![]);
        let mut mean = |split| -> Result<f32> {
            let mut total = 0.0;
            for _ in 0..eval_iters.max(1) {
                self.data.batch(split, b, t, &mut rng, &mut x, &mut y);
                total += self.model.loss(&x, &y, b, t)?;
            }
            Ok(total / eval_iters.max(1) as f32)
        };
        let train_loss = mean(Split::Train)?;
        let val_loss = mean(Split::Val)?;
        let evaluation = Evaluation { step: self.step, train_loss, val_loss };
        self.history.evals.push(evaluation);
        Ok(evaluation)
    }
}

//! The training recipe: nanoGPT's settings, the optimiser by name and its own settings, each
//! checked with what would fix it.

use super::schedule::Schedule;
use crate::error::{FieldError, Result};
use crate::fields::{self, Reader, Values};
use crate::optim::{optimizer_named, Hyper, OptimizerKind, OPTIMIZERS};
use crate::words::{settings as words, Words};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The most sequences in one batch.
pub const MAX_BATCH: usize = 4096;
/// The most steps a run may go on to.
pub const MAX_ITERS: usize = 100_000_000;
/// The most batches per split in one evaluation.
pub const MAX_EVAL_ITERS: usize = 10_000;

/// Optimisation settings; the defaults are nanoGPT's CPU Shakespeare recipe. Read from JSON, the
/// settings of an optimiser other than the chosen one (which a run saved before may hold) are left
/// out, and a setting no one has is named.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(remote = "Self", default)]
pub struct TrainConfig {
    pub batch_size: usize,
    pub max_iters: usize,
    pub learning_rate: f32,
    pub min_lr: f32,
    pub warmup_iters: usize,
    /// Where the cosine decay ends; by default where training does (`max_iters`), as in
    /// nanoGPT's recipes.
    pub lr_decay_iters: Option<usize>,
    pub decay_lr: bool,
    pub weight_decay: f32,
    pub beta1: f32,
    pub beta2: f32,
    /// Clip gradients to this global norm; 0 turns clipping off.
    pub grad_clip: f32,
    pub seed: u64,
    /// Evaluate every this many steps (and at the last); by default about 20 times a run.
    pub eval_interval: Option<usize>,
    /// Batches of each split an evaluation averages.
    pub eval_iters: usize,
    /// What trains the weight matrices inside the blocks, by name: `adamw`, or another of
    /// [`OPTIMIZERS`] (which keep AdamW for the rest).
    pub optimizer: String,
    /// The optimiser's own settings, each named after it (`muon_lr`: a peak rate, whose schedule
    /// has `learning_rate`'s shape).
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", tsify(type = "Record<string, number | string>"))]
    pub optimizer_settings: Values,
}

impl<'de> Deserialize<'de> for TrainConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let mut config = TrainConfig::deserialize(deserializer)?;
        let foreign = |name: &str| OPTIMIZERS.iter().any(|k| k.fields.iter().any(|f| f.name == name));
        // An unknown optimiser is named by `errors`, beside its field; its settings wait for it.
        if let Some(kind) = optimizer_named(&config.optimizer) {
            config.optimizer_settings =
                fields::resolve(kind.fields, &config.optimizer_settings, foreign).map_err(serde::de::Error::custom)?;
        }
        Ok(config)
    }
}

impl Serialize for TrainConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        TrainConfig::serialize(self, serializer)
    }
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 12,
            max_iters: 2000,
            learning_rate: 1e-3,
            min_lr: 1e-4,
            warmup_iters: 100,
            lr_decay_iters: None,
            decay_lr: true,
            weight_decay: 0.1,
            beta1: 0.9,
            beta2: 0.99,
            grad_clip: 1.0,
            seed: 1337,
            eval_interval: None,
            eval_iters: 20,
            optimizer: OPTIMIZERS[0].name.into(),
            optimizer_settings: Values::new(),
        }
    }
}

impl TrainConfig {
    /// A short recipe as the task presets use: the rate decaying to a tenth after 50 warmup
    /// steps, evaluating every `eval_interval` steps over 4 batches.
    pub fn quick(batch_size: usize, max_iters: usize, learning_rate: f32, eval_interval: usize) -> TrainConfig {
        TrainConfig {
            batch_size,
            max_iters,
            learning_rate,
            min_lr: learning_rate / 10.0,
            warmup_iters: 50,
            eval_interval: Some(eval_interval),
            eval_iters: 4,
            ..TrainConfig::default()
        }
    }

    /// Checks every field, naming the first that is wrong.
    pub fn validate(&self) -> Result<()> {
        crate::error::first(self.errors())
    }

    /// Every field that is wrong, alone or with another, each with what would fix it.
    pub fn errors(&self) -> Vec<FieldError> {
        let mut errors = Vec::new();
        let mut bad = |field: &str, message: Words| errors.push(FieldError::new(&format!("train.{field}"), message));
        if !(1..=MAX_BATCH).contains(&self.batch_size) {
            bad("batch_size", words::batch_size(MAX_BATCH, self.batch_size));
        }
        let iters_ok = (1..=MAX_ITERS).contains(&self.max_iters);
        if !iters_ok {
            bad("max_iters", words::max_iters(MAX_ITERS, self.max_iters));
        }
        let rate_ok = |v: f32| v.is_finite() && v < 10.0;
        let lr_ok = rate_ok(self.learning_rate) && self.learning_rate > 0.0;
        if !lr_ok {
            bad("learning_rate", words::learning_rate(self.learning_rate));
        }
        if !(rate_ok(self.min_lr) && self.min_lr >= 0.0) {
            bad("min_lr", words::min_lr(self.min_lr));
        } else if lr_ok && self.min_lr > self.learning_rate {
            bad("min_lr", words::min_lr_above(self.min_lr, self.learning_rate));
        }
        // Checked only against a valid max_iters, so one mistake gives one message.
        if iters_ok && self.warmup_iters > self.max_iters {
            bad("warmup_iters", words::warmup(self.warmup_iters, self.max_iters));
        }
        if let Some(decay) = self.lr_decay_iters {
            if decay < self.warmup_iters.max(1) {
                bad("lr_decay_iters", words::decay_iters(decay, self.warmup_iters));
            }
        }
        // Each step shrinks the weights by learning_rate × weight_decay of themselves (AdamW's
        // decoupled decay): from 1 on, it would zero or flip them.
        let decay_ok = self.weight_decay.is_finite() && self.weight_decay >= 0.0;
        if !decay_ok || (lr_ok && self.learning_rate * self.weight_decay >= 1.0) {
            bad("weight_decay", words::weight_decay(1.0 / self.learning_rate, self.weight_decay));
        }
        for (name, v) in [("beta1", self.beta1), ("beta2", self.beta2)] {
            if !(0.0..1.0).contains(&v) {
                bad(name, words::beta(name, v));
            }
        }
        if !(self.grad_clip.is_finite() && self.grad_clip >= 0.0) {
            bad("grad_clip", words::grad_clip(self.grad_clip));
        }
        if self.eval_interval == Some(0) {
            bad("eval_interval", words::eval_interval());
        }
        if !(1..=MAX_EVAL_ITERS).contains(&self.eval_iters) {
            bad("eval_iters", words::eval_iters(MAX_EVAL_ITERS, self.eval_iters));
        }
        match self.kind() {
            Some(kind) => {
                let own = fields::errors(kind.fields, &self.optimizer_settings, "train.");
                let cross = if own.is_empty() && decay_ok { (kind.errors)(&self.hyper()) } else { vec![] };
                errors.extend(own.into_iter().chain(cross));
            }
            None => {
                let names: Vec<_> = OPTIMIZERS.iter().map(|k| k.name).collect();
                let message = words::unknown_optimizer(format!("{:?}", self.optimizer), names.join(", "));
                errors.push(FieldError::new("train.optimizer", message));
            }
        }
        errors
    }

    /// Steps between evaluations: as set, or a twentieth of the run (at least 10).
    pub fn eval_interval(&self) -> usize {
        self.eval_interval.unwrap_or((self.max_iters / 20).max(10)).max(1)
    }

    /// The optimiser these settings name (none for an unknown name, which `errors` names).
    pub fn kind(&self) -> Option<&'static OptimizerKind> {
        optimizer_named(&self.optimizer)
    }

    /// The settings every optimiser reads, and the chosen one's own.
    pub fn hyper(&self) -> Hyper<'_> {
        let fields = self.kind().map_or(&[][..], |k| k.fields);
        Hyper {
            beta1: self.beta1,
            beta2: self.beta2,
            weight_decay: self.weight_decay,
            learning_rate: self.learning_rate,
            own: Reader { fields, values: &self.optimizer_settings },
        }
    }

    /// These settings with the optimiser called `name` and `settings` of its own (a JSON object;
    /// the rest take their defaults).
    pub fn with_optimizer(mut self, name: &str, settings: serde_json::Value) -> TrainConfig {
        self.optimizer = name.into();
        let given: Values = match settings {
            serde_json::Value::Object(map) => map.into_iter().collect(),
            _ => Values::new(),
        };
        let fields = self.kind().map_or(&[][..], |k| k.fields);
        self.optimizer_settings = fields.iter().map(|f| (f.name.to_string(), f.default_value())).collect();
        self.optimizer_settings.extend(given);
        self
    }

    pub(crate) fn schedule(&self) -> Schedule {
        Schedule {
            learning_rate: self.learning_rate,
            min_lr: self.min_lr,
            warmup_iters: self.warmup_iters,
            lr_decay_iters: self.lr_decay_iters.unwrap_or(self.max_iters),
            decay_lr: self.decay_lr,
        }
    }
}

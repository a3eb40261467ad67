//! Everything a user chooses for a new run: the model's shape, the training recipe and the
//! tokenizer. The page and the CLI both build a [`Settings`] and hand it to
//! a run's `create`; the rules that tie the fields together live here.

use crate::config::{Budget, GPTConfig, TrainConfig};
use crate::data::TaskConfig;
use crate::error::{FieldError, Result};
use crate::model::uniform_loss;
use crate::text_stats::TextStats;
use crate::tokenizer::{bpe_vocab_size_error, TokenizerKind};
use serde::{Deserialize, Serialize};

/// The byte-pair vocabulary a run learns when none is given.
pub const DEFAULT_BPE_VOCAB: usize = 512;

/// A run's settings. `model.vocab_size` is not a choice: the tokenizer fitted to the text sets it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub model: GPTConfig,
    pub train: TrainConfig,
    pub tokenizer: TokenizerKind,
    /// The vocabulary byte-pair encoding learns (unused for characters).
    pub bpe_vocab_size: usize,
    /// A task to train on instead of a text. It brings its own symbols, so `tokenizer` and
    /// `bpe_vocab_size` go unused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskConfig>,
    /// A model built by hand (`built::BUILT`, by name): its weights are set, not drawn, for its own
    /// shape and task. Always written (null when none), so a form filled from settings clears it.
    pub built: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            model: GPTConfig::default(),
            train: TrainConfig::default(),
            tokenizer: TokenizerKind::Char,
            bpe_vocab_size: DEFAULT_BPE_VOCAB,
            task: None,
            built: None,
        }
    }
}

/// What a model of some settings costs, before it is built.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct ModelSize {
    pub params: usize,
    pub training_bytes: u64,
    pub vocab_size: usize,
    /// The loss of a uniform guess, ln(vocabulary): where an untrained model starts.
    pub uniform_loss: f32,
}

/// Settings as the page's form checks them on every edit: every error, or the model's size.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Description {
    pub errors: Vec<FieldError>,
    /// Present once no error is left.
    pub size: Option<ModelSize>,
    /// What the task's settings make, when they are valid (none for a text).
    pub task: Option<crate::data::TaskSummary>,
}

impl Settings {
    /// The vocabulary the model will have, for a text with `char_vocab` distinct characters
    /// (a task has its own, when its settings are valid).
    pub fn vocab_size(&self, char_vocab: usize) -> usize {
        match (&self.task, self.tokenizer) {
            // Only valid settings make a vocabulary (1 stands in until they are).
            (Some(task), _) if task.errors().is_empty() => task.vocab().len(),
            (Some(_), _) => 1,
            (None, TokenizerKind::Char) => char_vocab,
            (None, TokenizerKind::Bpe) => self.bpe_vocab_size,
        }
    }

    /// Every setting that is wrong, alone or with the others, for a vocabulary of `vocab_size`
    /// within `budget`. Settings that fit the text are checked by [`Settings::describe`].
    pub fn errors(&self, vocab_size: usize, budget: &Budget) -> Vec<FieldError> {
        let mut errors = self.train.errors();
        match &self.task {
            Some(task) => {
                let task_errors = task.errors();
                if task_errors.is_empty() && self.model.block_size > 0 {
                    errors.extend(task.block_error(self.model.block_size));
                }
                errors.extend(task_errors);
            }
            None if self.tokenizer == TokenizerKind::Bpe => {
                errors.extend(bpe_vocab_size_error(self.bpe_vocab_size));
            }
            None => {}
        }
        let model = GPTConfig { vocab_size: vocab_size.max(1), ..self.model.clone() };
        errors.extend(model.errors());
        if errors.is_empty() {
            errors.extend(budget.errors(&model, self.train.batch_size));
        }
        errors
    }

    /// Checks every setting for a vocabulary of `vocab_size` within `budget`; returns the
    /// model's config with its vocabulary filled in, or the first error.
    pub fn resolve(&self, vocab_size: usize, budget: &Budget) -> Result<GPTConfig> {
        crate::error::first(self.errors(vocab_size, budget))?;
        Ok(GPTConfig { vocab_size, ..self.model.clone() })
    }

    /// Every error of these settings for `text` (including a text too short for the block),
    /// or the size of the model they build. A task needs no text.
    pub fn describe(&self, text: &TextStats, budget: &Budget) -> Description {
        if text.chars == 0 && self.task.is_none() {
            let empty = FieldError::new("text", crate::words::settings::text_empty());
            return Description { errors: vec![empty], size: None, task: None };
        }
        let vocab_size = self.vocab_size(text.vocab_size);
        let mut errors = self.errors(vocab_size, budget);
        // A character model has one token per character; byte pairs are counted once learned.
        if self.task.is_none() && self.tokenizer == TokenizerKind::Char && self.model.block_size > 0 {
            errors.extend(
                crate::data::too_short(text.chars, self.model.block_size)
                    .map(|m| FieldError::new("model.block_size", m)),
            );
        }
        let size = errors.is_empty().then(|| {
            let model = GPTConfig { vocab_size, ..self.model.clone() };
            ModelSize {
                params: model.param_count(),
                training_bytes: model.training_bytes(self.train.batch_size),
                vocab_size,
                uniform_loss: uniform_loss(vocab_size),
            }
        });
        Description { errors, size, task: self.task.as_ref().and_then(|t| t.summary().ok()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tokenizer_sets_the_vocabulary_and_bpe_sizes_are_checked() {
        let settings = Settings { model: crate::presets::preset("tiny").unwrap().settings.model, ..Default::default() };
        let text = TextStats { chars: 10_000, vocab_size: 65 };
        let size = |s: &Settings| s.describe(&text, &Budget::UNLIMITED).size.unwrap();
        assert_eq!(size(&settings).vocab_size, 65);
        let bpe = Settings { tokenizer: TokenizerKind::Bpe, ..settings.clone() };
        assert_eq!(
            (size(&bpe).vocab_size, size(&bpe).uniform_loss),
            (DEFAULT_BPE_VOCAB, (DEFAULT_BPE_VOCAB as f32).ln())
        );
        let errors = Settings { bpe_vocab_size: 100, ..bpe }.describe(&text, &Budget::UNLIMITED).errors;
        assert_eq!(errors[0].field, "bpe_vocab_size");
        assert!(errors[0].message.contains("256 to 16384"), "{errors:?}");
    }

    #[test]
    fn every_inconsistent_setting_is_named_beside_its_field() {
        let good = Settings { model: crate::presets::preset("tiny").unwrap().settings.model, ..Default::default() };
        let text = TextStats { chars: 10_000, vocab_size: 30 };
        let fields = |s: Settings| -> Vec<String> {
            s.describe(&text, &Budget::UNLIMITED).errors.into_iter().map(|p| p.field).collect()
        };
        assert!(fields(good.clone()).is_empty());
        let train = |t: TrainConfig| Settings { train: t, ..good.clone() };
        let t = good.train.clone();
        let cases = [
            (train(TrainConfig { max_iters: 0, ..t.clone() }), "train.max_iters"),
            (train(TrainConfig { learning_rate: 0.0, ..t.clone() }), "train.learning_rate"),
            (train(TrainConfig { min_lr: 0.01, learning_rate: 0.001, ..t.clone() }), "train.min_lr"),
            (train(TrainConfig { warmup_iters: 3000, max_iters: 2000, ..t.clone() }), "train.warmup_iters"),
            (train(TrainConfig { lr_decay_iters: Some(10), warmup_iters: 100, ..t.clone() }), "train.lr_decay_iters"),
            (train(TrainConfig { eval_interval: Some(0), ..t.clone() }), "train.eval_interval"),
            (train(TrainConfig { eval_iters: 0, ..t.clone() }), "train.eval_iters"),
            (train(TrainConfig { batch_size: 0, ..t.clone() }), "train.batch_size"),
            (train(TrainConfig { beta2: f32::NAN, ..t.clone() }), "train.beta2"),
            (Settings { model: GPTConfig { n_head: 3, ..good.model.clone() }, ..good.clone() }, "model.n_head"),
            (Settings { model: GPTConfig { n_head: 0, ..good.model.clone() }, ..good.clone() }, "model.n_head"),
            (
                Settings { model: GPTConfig { block_size: 5000, ..good.model.clone() }, ..good.clone() },
                "model.block_size",
            ),
        ];
        for (settings, field) in cases {
            assert_eq!(fields(settings), [field]);
        }
        let min_zero = train(TrainConfig { min_lr: 0.0, ..t.clone() });
        assert!(fields(min_zero).is_empty(), "a cosine decay to zero is allowed");
        let two = train(TrainConfig { max_iters: 0, learning_rate: -1.0, ..t });
        assert_eq!(fields(two), ["train.max_iters", "train.learning_rate"], "every error at once");
        let empty = good.describe(&TextStats { chars: 0, vocab_size: 0 }, &Budget::UNLIMITED);
        assert_eq!(empty.errors[0].field, "text");
    }

    #[test]
    fn a_missing_field_takes_its_default_and_a_misspelt_one_is_named() {
        let s: Settings = serde_json::from_str(r#"{"train": {"max_iters": 50}}"#).unwrap();
        assert_eq!((s.train.max_iters, s.bpe_vocab_size), (50, DEFAULT_BPE_VOCAB));
        let err = serde_json::from_str::<Settings>(r#"{"trian": {}}"#).unwrap_err().to_string();
        assert!(err.contains("trian"), "{err}");
    }
}

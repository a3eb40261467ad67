//! Changing a run that exists: the settings that can change between steps (the recipe, dropout)
//! without touching the model, and text fitted to the run's vocabulary.

use super::{Run, Watch};
use crate::config::Budget;
use crate::error::{Error, FieldError, Result};
use crate::settings::Settings;
use crate::tokenizer::Tokenizer;
use crate::words::settings as words;

impl<W: Watch> Run<W> {
    /// Takes the training settings of `new` (rates, warmup, iterations, batch size, weight decay,
    /// betas, clipping, evaluation) and its dropout, checked as a new run's are. Anything that
    /// would change the parameters or the tokens (the architecture, the tokenizer) or the seed
    /// is refused, naming the setting: it needs a new model. The learning-rate schedule does not
    /// stretch when the run is made longer: past where it ended, the rate stays at `min_lr`.
    pub fn update_settings(&mut self, new: &Settings, budget: &Budget) -> Result<()> {
        let now = self.settings();
        let (m, n) = (&now.model, &new.model);
        let fixed = [
            ("model.block_size", m.block_size == n.block_size),
            ("model.n_layer", m.n_layer == n.n_layer),
            ("model.n_head", m.n_head == n.n_head),
            ("model.n_embd", m.n_embd == n.n_embd),
            ("model.bias", m.bias == n.bias),
            ("model.norm", m.norm == n.norm),
            ("model.activation", m.activation == n.activation),
            ("model.tie_weights", m.tie_weights == n.tie_weights),
            ("tokenizer", now.tokenizer == new.tokenizer),
            ("bpe_vocab_size", now.tokenizer != crate::TokenizerKind::Bpe || now.bpe_vocab_size == new.bpe_vocab_size),
            ("train.seed", now.train.seed == new.train.seed),
            ("train.optimizer", now.train.optimizer == new.train.optimizer),
            ("built", now.built == new.built),
        ];
        if let Some((field, _)) = fixed.iter().find(|(_, same)| !same) {
            let name = field.rsplit('.').next().unwrap_or(field);
            return Err(Error::Invalid(FieldError::new(field, words::needs_new_model(name))));
        }
        let step = self.step_count();
        if new.train.max_iters < step {
            let message = words::steps_done(new.train.max_iters, step);
            return Err(Error::Invalid(FieldError::new("train.max_iters", message)));
        }
        let mut train = new.train.clone();
        let longer = train.max_iters != now.train.max_iters;
        train.lr_decay_iters =
            train.lr_decay_iters.or(now.train.lr_decay_iters).or(longer.then_some(now.train.max_iters));
        let checked = Settings { model: m.clone(), train, ..now.clone() };
        checked.resolve(self.vocab_size(), budget)?;
        self.trainer.retune(checked.train, n.dropout)
    }

    /// Trains for `max_iters` steps in all, so a finished run can go on.
    pub fn set_max_iters(&mut self, max_iters: usize) -> Result<()> {
        let mut settings = self.settings();
        settings.train.max_iters = max_iters;
        self.update_settings(&settings, &Budget::UNLIMITED)
    }

    /// The characters of `text` the run's vocabulary lacks, each once, in order (none for a
    /// byte-pair vocabulary, which encodes anything).
    pub fn missing_chars(&self, text: &str) -> Vec<char> {
        let Tokenizer::Char(chars) = &self.tokenizer else { return vec![] };
        let mut missing: Vec<char> =
            text.chars().filter(|&c| chars.encode(c.encode_utf8(&mut [0; 4])).is_err()).collect();
        missing.sort_unstable();
        missing.dedup();
        missing
    }

    /// `text` without the characters the run's vocabulary lacks, so it can train on it.
    pub fn keep_known(&self, text: &str) -> String {
        let missing = self.missing_chars(text);
        text.chars().filter(|c| missing.binary_search(c).is_err()).collect()
    }

    /// Trains on `text` from now on if its vocabulary holds every character of it (see
    /// [`Run::use_text`]); either way, the characters it lacks and `text` without them.
    pub fn attach_text(&mut self, text: &str) -> Result<TextFit> {
        let missing: Vec<String> = self.missing_chars(text).into_iter().map(String::from).collect();
        if missing.is_empty() {
            self.use_text(text)?;
        }
        Ok(TextFit { kept: if missing.is_empty() { text.into() } else { self.keep_known(text) }, missing })
    }
}

/// How a text fits a run's vocabulary: it trains on it when nothing is missing.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TextFit {
    /// The characters the vocabulary lacks, each once, in order.
    pub missing: Vec<String>,
    /// The text without them.
    pub kept: String,
}

#[cfg(test)]
mod tests {
    use crate::{Budget, GPTConfig, Run, Settings, TrainConfig};

    fn run() -> Run {
        let model = GPTConfig { block_size: 8, n_layer: 1, n_head: 2, n_embd: 8, ..Default::default() };
        let train = TrainConfig { batch_size: 4, max_iters: 20, warmup_iters: 2, eval_iters: 1, ..Default::default() };
        Run::create(&Settings { model, train, ..Default::default() }, &"abcde fgh ".repeat(30), &Budget::UNLIMITED)
            .unwrap()
    }

    #[test]
    fn the_recipe_and_dropout_change_between_steps_and_the_architecture_does_not() {
        let mut run = run();
        run.step(&|| 0.0).unwrap();
        let mut s = run.settings();
        assert_eq!(
            s.bpe_vocab_size,
            crate::DEFAULT_BPE_VOCAB,
            "a character run shows the default, not its 9 characters"
        );
        (s.train.learning_rate, s.train.batch_size, s.train.max_iters, s.model.dropout) = (1e-4, 2, 40, 0.2);
        run.update_settings(&s, &Budget::UNLIMITED).unwrap();
        assert_eq!((run.train_config().learning_rate, run.train_config().batch_size), (1e-4, 2));
        assert_eq!(run.train_config().lr_decay_iters, Some(20), "a longer run keeps its schedule");
        assert_eq!(run.model().config().dropout, 0.2);
        assert_eq!(run.step(&|| 0.0).unwrap().lr, 1e-4 * 2.0 / 3.0, "warmup step 2 of 2 at the new rate");
        let mut refused = |change: &dyn Fn(&mut Settings), why: &str| {
            let mut s = run.settings();
            change(&mut s);
            let err = run.update_settings(&s, &Budget::UNLIMITED).unwrap_err().to_string();
            assert!(err.contains(why), "{err}");
        };
        refused(&|s| s.model.n_layer = 2, "n_layer needs a new model");
        refused(&|s| s.train.seed = 1, "seed needs a new model");
        refused(&|s| s.train.max_iters = 1, "cannot be fewer than the 2 steps");
        refused(&|s| s.train.learning_rate = 0.0, "learning_rate must be");
        assert_eq!(run.train_config().learning_rate, 1e-4, "a refused change changes nothing");
    }

    #[test]
    fn text_is_fitted_to_the_vocabulary() {
        let run = run();
        assert_eq!(run.missing_chars("a zebra, a yak"), [',', 'k', 'r', 'y', 'z']);
        assert_eq!(run.keep_known("a zebra, a yak"), "a eba a a");
        assert!(run.missing_chars("cafe bead").is_empty());
    }
}

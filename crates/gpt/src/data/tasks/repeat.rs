//! `repeat`: random letters, then the same letters again (`bdcabdca`); given the first letter of
//! the copy, the model writes the rest. The induction-head task of Olsson et al. 2022.

use super::letters::{Answer, Letters, MAX_LENGTH, SYMBOLS};
use super::task::{Outlook, Problem, ProblemSet, Task, TaskPreset};
use crate::config::GPTConfig;
use crate::config::TrainConfig;
use crate::error::FieldError;
use crate::fields::{Field, Reader};
use crate::words::settings as settings_words;
use crate::words::{tasks as words, Words};

pub struct Repeat;

const FIELDS: &[Field] = &[
    Field::count(
        "length",
        "Sequence length",
        "The most letters in a sequence; a repeat draws lengths from 2 up to it",
        (2, MAX_LENGTH),
        8,
    ),
    SYMBOLS,
];

impl Task for Repeat {
    fn name(&self) -> &'static str {
        "repeat"
    }

    fn title(&self) -> &'static str {
        "repeat (induction heads)"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn errors(&self, settings: &Reader) -> Vec<FieldError> {
        let (length, symbols) = (settings.count("length"), settings.count("symbols"));
        (length > symbols)
            .then(|| FieldError::new("task.length", settings_words::repeat_length(length, symbols)))
            .into_iter()
            .collect()
    }

    fn problems(&self, settings: &Reader) -> Box<dyn ProblemSet> {
        Box::new(Letters::new(Answer::Repeat, settings))
    }

    /// Measured at lengths 3, 5, 9, 12, 13, 14 and 16 (`docs/tasks.md`).
    fn outlook(&self, settings: &Reader, _: f32) -> Vec<Outlook> {
        let length = settings.count("length");
        let outlook = Outlook::new("task.length", words::repeat_short(length)).trained_by("muon");
        (4..=12).contains(&length).then_some(outlook).into_iter().collect()
    }

    fn watch_for(&self, _: &Reader) -> Words {
        words::repeat_watch()
    }

    fn preset(&self) -> TaskPreset {
        TaskPreset {
            name: "induction",
            description: "repeat task, 2 layers with rotary positions (RoPE): within a few hundred steps a \
                previous-token head and an induction head form together, and the loss drops",
            model: GPTConfig { rope: true, ..GPTConfig::small(2, 4, 64, 32) },
            train: TrainConfig { min_lr: 3e-3, ..TrainConfig::quick(64, 1000, 3e-3, 25) },
            settings: serde_json::json!({"length": 16, "symbols": 26}),
            train_fraction: 0.9,
        }
    }

    /// Each letter of the copy, to the letter after its first occurrence.
    fn induction_links(&self, problem: &Problem) -> Vec<(usize, usize)> {
        // The copy starts one letter before the answer.
        super::task::repeat_links(problem.prompt_len - 1, problem.tokens.len())
    }
}

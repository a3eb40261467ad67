//! `sort`: letters, a separator, and the same letters in alphabetical order (`bdca>abcd`). Each
//! answer position learns to find the prompt letter that comes next.

use super::letters::{Answer, Letters, MAX_LENGTH, SYMBOLS};
use super::task::{Outlook, ProblemSet, Task, TaskPreset};
use crate::config::GPTConfig;
use crate::config::TrainConfig;
use crate::error::FieldError;
use crate::fields::{Field, Reader};
use crate::words::{tasks as words, Words};

pub struct Sort;

const FIELDS: &[Field] =
    &[Field::count("length", "Sequence length", "Letters in a sequence", (1, MAX_LENGTH), 8), SYMBOLS];

impl Task for Sort {
    fn name(&self) -> &'static str {
        "sort"
    }

    fn title(&self) -> &'static str {
        "sort"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn errors(&self, settings: &Reader) -> Vec<FieldError> {
        super::letters::one_letter(settings)
    }

    fn problems(&self, settings: &Reader) -> Box<dyn ProblemSet> {
        Box::new(Letters::new(Answer::Sort, settings))
    }

    /// Measured at lengths 36, 48 and 64 with the preset, seed 1337 (`docs/tasks.md`).
    fn outlook(&self, settings: &Reader, _: f32) -> Vec<Outlook> {
        let length = settings.count("length");
        (length > 48).then(|| Outlook::new("task.length", words::sort_long(length)).within(3000)).into_iter().collect()
    }

    fn watch_for(&self, _: &Reader) -> Words {
        words::sort_watch()
    }

    fn preset(&self) -> TaskPreset {
        TaskPreset {
            name: "sort",
            description: "sort task, 8 letters: 2 layers, 64 channels; each answer letter learns to find the next \
                one in alphabetical order",
            model: GPTConfig::small(2, 4, 64, 17),
            // The rate decays over 1,800 steps: 99% held out by step 1,300-1,600 (over 3,000: 1,300-1,850).
            train: TrainConfig::quick(32, 1800, 3e-3, 50),
            settings: serde_json::json!({"length": 8, "symbols": 26}),
            train_fraction: 0.9,
        }
    }
}

//! `reverse`: letters, a separator, and the same letters backwards (`bdca>acdb`). The
//! attention draws an anti-diagonal: each answer letter reads its mirror in the prompt.

use super::letters::{Answer, Letters, MAX_LENGTH, SYMBOLS};
use super::task::{ProblemSet, Task, TaskPreset};
use crate::config::GPTConfig;
use crate::config::TrainConfig;
use crate::error::FieldError;
use crate::fields::{Field, Reader};
use crate::words::{tasks as words, Words};

pub struct Reverse;

const FIELDS: &[Field] =
    &[Field::count("length", "Sequence length", "Letters in a sequence", (1, MAX_LENGTH), 8), SYMBOLS];

impl Task for Reverse {
    fn name(&self) -> &'static str {
        "reverse"
    }

    fn title(&self) -> &'static str {
        "reverse"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn errors(&self, settings: &Reader) -> Vec<FieldError> {
        super::letters::one_letter(settings)
    }

    fn problems(&self, settings: &Reader) -> Box<dyn ProblemSet> {
        Box::new(Letters::new(Answer::Reverse, settings))
    }

    fn watch_for(&self, _: &Reader) -> Words {
        words::reverse_watch()
    }

    fn preset(&self) -> TaskPreset {
        TaskPreset {
            name: "reverse",
            description: "reverse task, 12 letters: 2 layers, 64 channels; the anti-diagonal forms as accuracy rises",
            model: GPTConfig::small(2, 4, 64, 25),
            train: TrainConfig::quick(32, 1000, 3e-3, 10),
            settings: serde_json::json!({"length": 12, "symbols": 26}),
            train_fraction: 0.9,
        }
    }
}

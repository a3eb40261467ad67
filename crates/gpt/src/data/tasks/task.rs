//! What a task is: the trait each task implements in its own file, and the problem set its
//! settings make. `mod.rs` lists every task once.

use crate::config::GPTConfig;
use crate::config::TrainConfig;
use crate::error::{Error, FieldError};
use crate::fields::{Field, Reader};
use crate::rng::Rng;
use crate::words::Words;

/// One problem: its tokens, the prompt and then the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub tokens: Vec<u32>,
    pub prompt_len: usize,
    /// Answer tokens that are given, not asked for (by their place in the answer, ascending):
    /// the loss skips them, and greedy decoding writes them as they are. Most tasks give none.
    pub given: Vec<usize>,
}

impl Problem {
    /// A problem whose whole answer is asked for.
    pub fn new(tokens: Vec<u32>, prompt_len: usize) -> Problem {
        Problem { tokens, prompt_len, given: vec![] }
    }

    /// Whether answer token `i` is given rather than asked for.
    pub fn is_given(&self, i: usize) -> bool {
        self.given.binary_search(&i).is_ok()
    }

    pub fn prompt(&self) -> &[u32] {
        &self.tokens[..self.prompt_len]
    }

    pub fn answer(&self) -> &[u32] {
        &self.tokens[self.prompt_len..]
    }
}

/// A task: its symbols, problems, parser and format (through the [`ProblemSet`] its settings
/// make), its settings with their limits and labels, its preset, and what to watch for.
pub trait Task: Sync {
    /// Its name in settings, checkpoints, links and the CLI (`reverse`).
    fn name(&self) -> &'static str;
    /// How the Corpus menu lists it.
    fn title(&self) -> &'static str;
    /// Its own settings (beside the train fraction every task has).
    fn fields(&self) -> &'static [Field];
    /// What is wrong between settings each of which its field accepts (a repeat longer than its
    /// alphabet), each naming its field (`task.length`).
    fn errors(&self, _settings: &Reader) -> Vec<FieldError> {
        vec![]
    }
    /// The problems these settings make (checked by then).
    fn problems(&self, settings: &Reader) -> Box<dyn ProblemSet>;
    /// A sentence on what to watch for while it trains.
    fn watch_for(&self, settings: &Reader) -> Words;
    /// Its preset: a model and recipe whose phenomenon shows within minutes on a laptop's CPU.
    fn preset(&self) -> TaskPreset;
    /// What its preset's recipe does at these settings (and train fraction) where they change the outcome, as
    /// `bench/task-grid.mjs` measured it: said before Train, beside the field. Empty (the
    /// default) where the phenomenon forms within the preset's steps.
    fn outlook(&self, _settings: &Reader, _train_fraction: f32) -> Vec<Outlook> {
        vec![]
    }
    /// Where an induction head would look in `problem`: each (query, key) position pair, the key
    /// being the token after the query's earlier occurrence. Empty (the default) for a task whose
    /// problems no induction head solves; otherwise induction scores are read on the task's own
    /// problems, and the chart marks when a head first passes the mark.
    fn induction_links(&self, _problem: &Problem) -> Vec<(usize, usize)> {
        vec![]
    }
}

/// The links of a sequence repeating its first `period` tokens: each query in the repeat to the
/// token after its first occurrence (query q to key q − period + 1), where an induction head looks.
pub fn repeat_links(period: usize, t: usize) -> Vec<(usize, usize)> {
    (period..t).map(|q| (q, q + 1 - period)).collect()
}

/// What a setting does to a task's phenomenon under its preset's recipe, from measurements.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Outlook {
    /// The field it is about, named as errors name theirs (`task.length`).
    pub field: &'static str,
    /// What happens at this setting, in the field's own words, with what was measured.
    pub says: Words,
    /// Steps that form the phenomenon here, where the preset's are too few and more do it.
    pub steps: Option<usize>,
    /// The optimiser that forms it here, where the preset's does not (a `TrainConfig::optimizer`).
    pub optimizer: Option<&'static str>,
}

impl Outlook {
    pub fn new(field: &'static str, says: Words) -> Outlook {
        Outlook { field, says, steps: None, optimizer: None }
    }

    /// The same, with the steps that form it.
    pub fn within(self, steps: usize) -> Outlook {
        Outlook { steps: Some(steps), ..self }
    }

    /// The same, with the optimiser that forms it.
    pub fn trained_by(self, optimizer: &'static str) -> Outlook {
        Outlook { optimizer: Some(optimizer), ..self }
    }
}

/// A task's preset, as `presets.rs` lists it.
pub struct TaskPreset {
    pub name: &'static str,
    pub description: &'static str,
    pub model: GPTConfig,
    pub train: TrainConfig,
    /// The task's own settings that differ from their defaults, as a JSON object.
    pub settings: serde_json::Value,
    pub train_fraction: f32,
}

/// How one task's settings write and draw its problems.
pub trait ProblemSet: Send + Sync {
    /// The task's tokens, in id order.
    fn vocab(&self) -> Vec<String>;
    /// Tokens in its longest problem.
    fn max_len(&self) -> usize;
    /// How many distinct problems there are (`u64::MAX` for more than that).
    fn count(&self) -> u64;
    /// Problem `i` of [`ProblemSet::count`], when there are few enough to list.
    fn nth(&self, i: u64) -> Problem;
    /// A random problem as training draws them, or one of the longest.
    fn random(&self, rng: &mut Rng, longest: bool) -> Problem;
    /// The problem whose prompt a person typed, with its right answer; or what is wrong with it.
    fn parse(&self, text: &str) -> std::result::Result<Problem, Words>;
    /// The tokens a person types for `problem`, which [`ProblemSet::parse`] reads back as it: its
    /// prompt (the default), or for a task whose prompt alone does not say the problem (a repeat's
    /// ends with the copy's first letter; recall's asks for its later keys), what does.
    fn typed(&self, problem: &Problem) -> Vec<u32> {
        problem.prompt().to_vec()
    }
    /// Whether the task makes `problem` (a typed one may be of another length, say).
    fn makes(&self, problem: &Problem) -> bool;
}

/// A typed problem that cannot be read, as an error beside the problem's field.
pub fn unreadable(message: Words) -> Error {
    Error::Invalid(FieldError::new("problem", message))
}

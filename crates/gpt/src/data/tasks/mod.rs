//! Small tasks whose attention a person can read, each in its own file and listed once in
//! [`TASKS`]: `repeat` (the induction-head task of Olsson et al. 2022), `reverse`, `sort`,
//! multi-digit `addition`, addition modulo p (`modular`, the grokking task of Power et al. 2022
//! and Nanda et al. 2023), closing `brackets`, `parity`, and associative `recall`.
//!
//! A task ([`Task`], in `task.rs`) has its own symbols, a text format a person reads
//! (`bdca>abcd`, `12+34=46`), settings that describe themselves, and problems generated from a
//! seed. The problems split into a training set and a held-out set that never overlap
//! (`split.rs`), and the loss counts the answer's tokens only.
//!
//! To add a task: write `its_name.rs` implementing [`Task`], and add it to [`TASKS`].

mod addition;
mod brackets;
mod letters;
mod modular;
mod parity;
mod recall;
mod repeat;
mod reverse;
mod sort;
mod split;
mod sums;
mod task;

pub use split::TaskData;
pub use task::{repeat_links, Outlook, Problem, ProblemSet, Task, TaskPreset};

use crate::error::{Error, FieldError, Result};
use crate::fields::{self, Field, Reader, Values};
use crate::rng::Rng;
use crate::words::runs;
use crate::words::{settings as words, Words};
use serde::{Deserialize, Serialize};

/// Every task, in the order the Corpus menu lists them.
pub static TASKS: &[&dyn Task] = &[
    &repeat::Repeat,
    &reverse::Reverse,
    &sort::Sort,
    &addition::Addition,
    &modular::ModularAddition,
    &brackets::Brackets,
    &parity::Parity,
    &recall::Recall,
];

/// Tasks with at most this many problems are listed whole, so the split is exact.
pub const ENUMERATE_LIMIT: u64 = 1 << 20;

/// The setting every task has beside its own.
pub const TRAIN_FRACTION: Field = Field::number(
    "train_fraction",
    "Train fraction",
    "The share of all problems that training may see; the rest are held out",
    (0.0, 1.0),
    false,
    0.9,
);

/// The task called `name`.
pub fn task_named(name: &str) -> Option<&'static dyn Task> {
    TASKS.iter().copied().find(|t| t.name() == name)
}

/// The task called `name`, or an error listing the tasks there are.
fn find(name: &str) -> std::result::Result<&'static dyn Task, String> {
    task_named(name).ok_or_else(|| {
        let names: Vec<_> = TASKS.iter().map(|t| t.name()).collect();
        format!("unknown task {name:?}; choose one of {}", names.join(", "))
    })
}

/// How many of `count` problems train at `fraction`.
pub fn train_count(count: u64, fraction: f32) -> u64 {
    (count as f64 * fraction as f64).round() as u64
}

/// A task and its settings: its own (as its [`Task::fields`] describe them), each given or its
/// default, and the train fraction. Read from JSON, another task's settings (which a run saved
/// before may hold) are left out, and a setting no task has is named.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(try_from = "GivenTask")]
pub struct TaskConfig {
    pub name: String,
    pub train_fraction: f32,
    /// The task's own settings, by name.
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", tsify(type = "Record<string, number | string>"))]
    pub settings: Values,
}

/// A task's settings as JSON gives them, before they are resolved against the task.
#[derive(Deserialize)]
struct GivenTask {
    #[serde(default = "default_task")]
    name: String,
    #[serde(default = "default_fraction")]
    train_fraction: f32,
    #[serde(flatten)]
    settings: Values,
}

fn default_task() -> String {
    "reverse".into()
}

fn default_fraction() -> f32 {
    0.9
}

impl TryFrom<GivenTask> for TaskConfig {
    type Error = String;

    fn try_from(given: GivenTask) -> std::result::Result<TaskConfig, String> {
        let task = find(&given.name)?;
        let foreign = |name: &str| TASKS.iter().any(|t| t.fields().iter().any(|f| f.name == name));
        let settings = fields::resolve(task.fields(), &given.settings, foreign)?;
        Ok(TaskConfig { name: given.name, train_fraction: given.train_fraction, settings })
    }
}

impl Default for TaskConfig {
    fn default() -> Self {
        TaskConfig::new(&reverse::Reverse, serde_json::json!({}), default_fraction())
    }
}

impl TaskConfig {
    /// `task` with `settings` (a JSON object of its own settings; the rest take their defaults).
    pub fn new(task: &dyn Task, settings: serde_json::Value, train_fraction: f32) -> TaskConfig {
        let given = match settings {
            serde_json::Value::Object(map) => map.into_iter().collect(),
            _ => Values::new(),
        };
        let settings = task.fields().iter().map(|f| (f.name.to_string(), f.default_value()));
        let mut all: Values = settings.collect();
        all.extend(given);
        TaskConfig { name: task.name().to_string(), train_fraction, settings: all }
    }

    /// The task these settings are for (every `TaskConfig` names one: see its deserialisation).
    pub fn task(&self) -> &'static dyn Task {
        task_named(&self.name).unwrap_or(&reverse::Reverse)
    }

    /// Reads its own settings.
    pub fn reader(&self) -> Reader<'_> {
        Reader { fields: self.task().fields(), values: &self.settings }
    }

    /// Its setting `name` changed to `value` (a number or a choice's string).
    pub fn with(mut self, name: &str, value: impl Into<serde_json::Value>) -> TaskConfig {
        self.settings.insert(name.to_string(), value.into());
        self
    }

    /// The problems these settings make (once they are checked).
    pub(crate) fn problem_set(&self) -> Box<dyn ProblemSet> {
        self.task().problems(&self.reader())
    }

    /// Every setting of the task that is wrong, each naming its field (`task.length`, …).
    pub fn errors(&self) -> Vec<FieldError> {
        let task = self.task();
        let mut errors = fields::errors(task.fields(), &self.settings, "task.");
        if errors.is_empty() {
            errors = task.errors(&self.reader());
        }
        let f = self.train_fraction;
        if !(f.is_finite() && f > 0.0 && f < 1.0) {
            errors.push(FieldError::new("task.train_fraction", words::train_fraction(f)));
        } else if errors.is_empty() {
            let count = self.problem_set().count();
            let train = train_count(count, f);
            if count <= ENUMERATE_LIMIT && (train == 0 || train == count) {
                let none = if train == 0 { "training" } else { "held out" };
                errors.push(FieldError::new("task.train_fraction", words::train_fraction_empty(count, f, none)));
            }
        }
        errors
    }

    /// The task's tokens, in id order.
    pub fn vocab(&self) -> Vec<String> {
        self.problem_set().vocab()
    }

    /// Tokens in its longest problem: the block size must hold it.
    pub fn max_len(&self) -> usize {
        self.problem_set().max_len()
    }

    /// How many distinct problems there are (`u64::MAX` for more).
    pub fn count(&self) -> u64 {
        self.problem_set().count()
    }

    /// A sentence on what to watch for while this task trains.
    pub fn watch_for(&self) -> Words {
        self.task().watch_for(&self.reader())
    }

    /// What the preset's recipe does at these settings, where they change the outcome.
    pub fn outlook(&self) -> Vec<Outlook> {
        self.task().outlook(&self.reader(), self.train_fraction)
    }

    /// What these settings make, or their first error.
    pub fn summary(&self) -> Result<TaskSummary> {
        self.validate()?;
        let problems = self.problem_set();
        let vocab = problems.vocab();
        let example = problems.random(&mut Rng::new(0x6578_616d_706c_6500), true);
        let count = problems.count();
        Ok(TaskSummary {
            watch_for: self.watch_for(),
            outlook: self.outlook(),
            example: example.tokens.iter().map(|&t| vocab[t as usize].as_str()).collect(),
            problems: count as f64,
            train_problems: (count <= ENUMERATE_LIMIT).then(|| train_count(count, self.train_fraction)),
            max_len: problems.max_len(),
        })
    }

    /// Why a model of `block_size` cannot hold this task's problems, if it cannot.
    pub fn block_error(&self, block_size: usize) -> Option<FieldError> {
        let need = self.max_len();
        (block_size < need).then(|| {
            FieldError::new("model.block_size", words::block_holds_problem(self.name.as_str(), need, block_size))
        })
    }

    /// Checks the task alone.
    pub fn validate(&self) -> Result<()> {
        crate::error::first(self.errors())
    }
}

/// A task as the page's menu and form offer it, and the CLI's flags.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TaskInfo {
    pub name: &'static str,
    pub title: &'static str,
    /// Its settings, the train fraction last.
    pub fields: Vec<Field>,
}

/// Every task, in menu order.
pub fn tasks() -> Vec<TaskInfo> {
    TASKS
        .iter()
        .map(|t| TaskInfo {
            name: t.name(),
            title: t.title(),
            fields: t.fields().iter().cloned().chain([TRAIN_FRACTION]).collect(),
        })
        .collect()
}

/// What a task's settings make, as the page shows it beside them.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TaskSummary {
    pub watch_for: Words,
    /// Where these settings keep the phenomenon from forming within the preset's steps.
    pub outlook: Vec<Outlook>,
    /// One of its longest problems, as a person reads it.
    pub example: String,
    /// How many distinct problems there are (at least this many when past `u64`).
    pub problems: f64,
    /// How many train, when there are few enough to count exactly.
    pub train_problems: Option<u64>,
    /// Tokens in its longest problem: the least block size.
    pub max_len: usize,
}

/// The error for text given to a task's run, which makes its own problems.
pub fn no_text(task: &TaskConfig) -> Error {
    Error::Config(runs::task_takes_no_text(task.name.as_str()))
}

#[cfg(test)]
mod tests;

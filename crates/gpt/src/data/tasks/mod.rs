//! Small tasks whose attention a person can read: `repeat` (random letters, then the same
//! again: the induction-head task of Olsson et al. 2022), `reverse`, `sort`, multi-digit
//! `addition`, and addition modulo p (`modular`, the grokking task of Power et al. 2022 and
//! Nanda et al. 2023).
//!
//! A task has its own symbols (its vocabulary), a text format a person reads (`bdca>abcd`,
//! `12+34=46`), and problems generated from a seed. The problems split into a training set and
//! a held-out set that never overlap (`split.rs`), and the loss counts the answer's tokens only.

mod arithmetic;
mod sequence;
mod split;

pub use split::TaskData;

use crate::error::{Error, FieldError, Result};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Tasks with at most this many problems are listed whole, so the split is exact.
pub const ENUMERATE_LIMIT: u64 = 1 << 20;
/// The longest sequence the letter tasks take.
pub const MAX_LENGTH: usize = 64;
/// The most digits an addition operand takes.
pub const MAX_DIGITS: usize = 9;
/// The largest modulus.
pub const MAX_P: usize = 1000;

/// Which task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskName {
    Repeat,
    Reverse,
    Sort,
    Addition,
    Modular,
}

impl TaskName {
    pub const ALL: [TaskName; 5] =
        [TaskName::Repeat, TaskName::Reverse, TaskName::Sort, TaskName::Addition, TaskName::Modular];

    pub fn as_str(self) -> &'static str {
        match self {
            TaskName::Repeat => "repeat",
            TaskName::Reverse => "reverse",
            TaskName::Sort => "sort",
            TaskName::Addition => "addition",
            TaskName::Modular => "modular",
        }
    }

    /// The task as a menu lists it.
    pub fn title(self) -> &'static str {
        match self {
            TaskName::Repeat => "repeat (induction heads)",
            TaskName::Reverse => "reverse",
            TaskName::Sort => "sort",
            TaskName::Addition => "addition",
            TaskName::Modular => "modular addition (grokking)",
        }
    }

    /// The settings this task reads, beside `train_fraction`.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            TaskName::Repeat | TaskName::Reverse | TaskName::Sort => &["length", "symbols"],
            TaskName::Addition => &["digits"],
            TaskName::Modular => &["p"],
        }
    }
}

impl std::str::FromStr for TaskName {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        TaskName::ALL.into_iter().find(|t| t.as_str() == s).ok_or_else(|| {
            let names: Vec<_> = TaskName::ALL.iter().map(|t| t.as_str()).collect();
            format!("unknown task {s:?}; choose one of {}", names.join(", "))
        })
    }
}

/// A task and its settings. Fields a task does not read (see [`TaskName::fields`]) are kept
/// but unused, so one flat object serves every task in the page's form and in checkpoints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TaskConfig {
    pub name: TaskName,
    /// repeat, reverse, sort: letters in a sequence (a repeat's vary from 2 up to it).
    pub length: usize,
    /// repeat, reverse, sort: how many letters of the alphabet the sequences use.
    pub symbols: usize,
    /// addition: digits of each number added.
    pub digits: usize,
    /// modular: the modulus.
    pub p: usize,
    /// The share of all problems training may see; the rest are held out.
    pub train_fraction: f32,
}

impl Default for TaskConfig {
    fn default() -> Self {
        TaskConfig { name: TaskName::Reverse, length: 8, symbols: 26, digits: 3, p: 97, train_fraction: 0.9 }
    }
}

/// A task as the page's menu offers it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskInfo {
    pub name: TaskName,
    pub title: &'static str,
    /// The settings it reads, beside `train_fraction`.
    pub fields: &'static [&'static str],
}

/// Every task, in menu order.
pub fn tasks() -> Vec<TaskInfo> {
    TaskName::ALL.iter().map(|&name| TaskInfo { name, title: name.title(), fields: name.fields() }).collect()
}

/// What a task's settings make, as the page shows it beside them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskSummary {
    pub watch_for: String,
    /// One of its longest problems, as a person reads it.
    pub example: String,
    /// How many distinct problems there are (at least this many when past `u64`).
    pub problems: f64,
    /// How many train, when there are few enough to count exactly.
    pub train_problems: Option<u64>,
    /// Tokens in its longest problem: the least block size.
    pub max_len: usize,
}

/// One problem: its tokens, the prompt and then the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub tokens: Vec<u32>,
    pub prompt_len: usize,
}

impl Problem {
    pub fn prompt(&self) -> &[u32] {
        &self.tokens[..self.prompt_len]
    }

    pub fn answer(&self) -> &[u32] {
        &self.tokens[self.prompt_len..]
    }
}

/// How one task writes and draws its problems.
trait Format {
    /// The task's tokens, in id order.
    fn vocab(&self) -> Vec<String>;
    /// Tokens in its longest problem.
    fn max_len(&self) -> usize;
    /// How many distinct problems there are (`u64::MAX` for more than that).
    fn count(&self) -> u64;
    /// Problem `i` of [`Format::count`], when there are few enough to list.
    fn nth(&self, i: u64) -> Problem;
    /// A random problem as training draws them, or one of the longest.
    fn random(&self, rng: &mut Rng, longest: bool) -> Problem;
    /// The problem whose prompt a person typed, with its right answer; or what is wrong with it.
    fn parse(&self, text: &str) -> std::result::Result<Problem, String>;
    /// Whether the task makes `problem` (a typed one may be of another length, say).
    fn makes(&self, problem: &Problem) -> bool;
    /// A sentence on what to watch for while it trains.
    fn watch_for(&self) -> String;
}

impl TaskConfig {
    fn format(&self) -> Box<dyn Format> {
        match self.name {
            TaskName::Repeat | TaskName::Reverse | TaskName::Sort => {
                Box::new(sequence::Sequence { kind: self.name, length: self.length, symbols: self.symbols })
            }
            TaskName::Addition => Box::new(arithmetic::Addition { digits: self.digits }),
            TaskName::Modular => Box::new(arithmetic::Modular { p: self.p }),
        }
    }

    /// Every setting of the task that is wrong, each naming its field (`task.length`, …).
    pub fn errors(&self) -> Vec<FieldError> {
        let bad = |field: &str, message: String| FieldError::new(&format!("task.{field}"), message);
        let mut problems = Vec::new();
        match self.name {
            TaskName::Repeat | TaskName::Reverse | TaskName::Sort => {
                // A repeat's answer is its copy after the first letter, so it needs two.
                let least = if self.name == TaskName::Repeat { 2 } else { 1 };
                if !(least..=MAX_LENGTH).contains(&self.length) {
                    let message = format!("Sequence length must be from {least} to {MAX_LENGTH}, not {}", self.length);
                    problems.push(bad("length", message));
                }
                if !(2..=26).contains(&self.symbols) {
                    problems
                        .push(bad("symbols", format!("Symbols must be from 2 to 26 letters, not {}", self.symbols)));
                } else if self.name == TaskName::Repeat && self.length > self.symbols {
                    let message = format!(
                        "a repeat uses each letter once, so its sequence length ({}) must not exceed the symbols ({})",
                        self.length, self.symbols
                    );
                    problems.push(bad("length", message));
                }
            }
            TaskName::Addition if !(1..=MAX_DIGITS).contains(&self.digits) => {
                problems.push(bad("digits", format!("Digits must be from 1 to {MAX_DIGITS}, not {}", self.digits)));
            }
            TaskName::Modular if !(2..=MAX_P).contains(&self.p) => {
                problems.push(bad("p", format!("p must be from 2 to {MAX_P}, not {}", self.p)));
            }
            _ => {}
        }
        let f = self.train_fraction;
        if !(f.is_finite() && f > 0.0 && f < 1.0) {
            let message = format!(
                "Train fraction must be between 0 and 1 (not {f}): some problems train and the rest are held out"
            );
            problems.push(bad("train_fraction", message));
        } else if problems.is_empty() {
            let count = self.format().count();
            let train = split::train_count(count, f);
            if count <= ENUMERATE_LIMIT && (train == 0 || train == count) {
                let (none, change) = if train == 0 { ("training", "raise") } else { ("held out", "lower") };
                let larger_p = if self.name == TaskName::Modular { " or choose a larger p" } else { "" };
                let message = format!(
                    "this task has {count} problems, and a train fraction of {f} leaves none {none}: {change} it{larger_p}"
                );
                problems.push(bad("train_fraction", message));
            }
        }
        problems
    }

    /// The task's tokens, in id order.
    pub fn vocab(&self) -> Vec<String> {
        self.format().vocab()
    }

    /// Tokens in its longest problem: the block size must hold it.
    pub fn max_len(&self) -> usize {
        self.format().max_len()
    }

    /// How many distinct problems there are (`u64::MAX` for more).
    pub fn count(&self) -> u64 {
        self.format().count()
    }

    /// A sentence on what to watch for while this task trains.
    pub fn watch_for(&self) -> String {
        self.format().watch_for()
    }

    /// What these settings make, or their first problem.
    pub fn summary(&self) -> Result<TaskSummary> {
        self.validate()?;
        let format = self.format();
        let vocab = format.vocab();
        let example = format.random(&mut Rng::new(0x6578_616d_706c_6500), true);
        let count = format.count();
        Ok(TaskSummary {
            watch_for: format.watch_for(),
            example: example.tokens.iter().map(|&t| vocab[t as usize].as_str()).collect(),
            problems: count as f64,
            train_problems: (count <= ENUMERATE_LIMIT).then(|| split::train_count(count, self.train_fraction)),
            max_len: format.max_len(),
        })
    }

    /// Why a model of `block_size` cannot hold this task's problems, if it cannot.
    pub fn block_error(&self, block_size: usize) -> Option<FieldError> {
        let need = self.max_len();
        (block_size < need).then(|| {
            FieldError::new(
                "model.block_size",
                format!(
                    "Block size must hold a whole problem of the {} task: {need} tokens, not {block_size}",
                    self.name.as_str()
                ),
            )
        })
    }

    /// Checks the task alone.
    pub fn validate(&self) -> Result<()> {
        crate::error::first(self.errors())
    }
}

/// A typed problem that cannot be read, as an error.
fn unreadable(message: String) -> Error {
    Error::Invalid(FieldError::new("problem", message))
}

#[cfg(test)]
mod tests;

//! What a run trains on: a text split 90/10 into windows (`text.rs`), or a task whose problems
//! are generated from a seed (`tasks/`). Both hand out batches the same way: rows of token ids,
//! and the ids that follow them as targets, [`IGNORE`] where the loss skips a position.

pub mod tasks;
mod text;

pub use tasks::{
    no_text, repeat_links, task_named, tasks, Problem, Task, TaskConfig, TaskData, TaskInfo, TaskSummary, TASKS,
    TRAIN_FRACTION,
};
pub use text::{too_short, Ids, TextData};

pub use crate::work::batch::{targets, Split, IGNORE};

use crate::rng::Rng;
use crate::train::Batches;

/// Seeds the problems the views show, so they stay the same from one evaluation to the next.
const PROBE_SEED: u64 = 0x7072_6f62_6500_0004;

/// A run's data: a text or a task.
#[derive(Debug)]
pub enum Dataset {
    Text(TextData),
    Task(TaskData),
}

/// What a trainer draws its batches from.
impl Batches for Dataset {
    /// The block for text; for a task its longest problem, but the last token (which is only
    /// ever a target).
    fn seq_len(&self, block_size: usize) -> usize {
        match self {
            Dataset::Text(_) => block_size,
            Dataset::Task(task) => task.seq_len(),
        }
    }

    fn batch(&self, split: Split, batch: usize, block: usize, rng: &mut Rng, x: &mut Vec<u32>, y: &mut Vec<u32>) {
        match self {
            Dataset::Text(text) => text.batch(split, batch, block, rng, x, y),
            Dataset::Task(task) => task.batch(split, batch, rng, x, y),
        }
    }

    /// A task's evaluations count the problems answered exactly right.
    fn scores_answers(&self) -> bool {
        self.task().is_some()
    }
}

impl Dataset {
    /// The task, if the run trains on one.
    pub fn task(&self) -> Option<&TaskData> {
        match self {
            Dataset::Task(task) => Some(task),
            Dataset::Text(_) => None,
        }
    }

    /// What the views read by default: the first block of held-out text, or a held-out problem.
    pub fn probe(&self, block_size: usize) -> Vec<u32> {
        match self {
            Dataset::Text(text) => {
                let mut ids = Vec::new();
                text.read(Split::Val, 0..text.len(Split::Val).min(block_size), &mut ids);
                ids
            }
            Dataset::Task(task) => task.example(Split::Val, PROBE_SEED).tokens,
        }
    }

    /// Up to `rows` held-out rows, always the same, with every next token a target (a task's
    /// prompt too, padding left out), for the loss at each position: `(x, y, positions)`.
    pub fn position_rows(&self, rows: usize, block_size: usize) -> (Vec<u32>, Vec<u32>, usize) {
        match self {
            Dataset::Text(text) => {
                let n = (text.len(Split::Val).saturating_sub(1) / block_size).min(rows) * block_size;
                let (mut x, mut y) = (Vec::new(), Vec::new());
                text.read(Split::Val, 0..n, &mut x);
                text.read(Split::Val, 1..n + 1, &mut y);
                (x, y, block_size)
            }
            Dataset::Task(task) => {
                let (mut x, mut y, mut rng) = (vec![], vec![], Rng::new(PROBE_SEED));
                (0..rows).for_each(|_| task.push_row(&task.draw(Split::Val, &mut rng), &mut x, &mut y, true));
                (x, y, task.seq_len())
            }
        }
    }
}

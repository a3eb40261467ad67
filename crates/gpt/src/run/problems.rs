//! A task run's problems as a person sees them: the model's greedy answers to held-out problems
//! and to problems a person types, each marked right or wrong; and what the page shows of the
//! task itself.

use super::{Run, Watch};
use crate::data::{Problem, Split, TaskConfig, TaskData};
use crate::error::{Error, Result};
use crate::model::Edit;
use crate::rng::Rng;
use crate::words::runs;
use serde::Serialize;

/// Seeds the held-out problems shown, so the same ones come back at every refresh.
const SHOWN_SEED: u64 = 0x7368_6f77_6e00_0005;
/// The most held-out problems one call answers: a list to read, not an evaluation.
pub const MAX_SHOWN: usize = 100;

/// A problem with the model's answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Solution {
    /// The prompt, as the task writes it (`bdca>`, `12+34=`).
    pub prompt: String,
    /// The model's answer: the most likely token at each position, each read after the last.
    pub answer: String,
    pub expected: String,
    pub correct: bool,
    /// Which set the problem is in: a typed one may be a training problem, or not one the task makes.
    pub origin: Origin,
}

/// Where a problem comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    Training,
    HeldOut,
    /// Not a problem of the task (another length, say): neither set has it.
    Outside,
}

/// What a run adds to its task's settings (see [`TaskConfig::summary`] for the rest): a
/// held-out problem and the sizes of the two sets.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TaskDetails {
    pub config: TaskConfig,
    /// A held-out problem, whole: the attention view's text.
    pub held_out_example: String,
    /// Problems in each set (training, held out) when the task has few enough to count.
    pub sizes: Option<(usize, usize)>,
}

impl<W: Watch> Run<W> {
    pub(crate) fn trained_task(&self) -> Result<&TaskData> {
        self.task().ok_or_else(|| Error::Config(runs::not_a_task()))
    }

    /// What the page shows of the run's task, if it has one.
    pub fn task_details(&self) -> Option<TaskDetails> {
        let task = self.task()?;
        Some(TaskDetails {
            config: task.config().clone(),
            held_out_example: task.text(&shown_example(task).tokens),
            sizes: task.sizes(),
        })
    }

    /// The model's answers to `n` held-out problems (at most [`MAX_SHOWN`]), the same ones each time.
    pub fn held_out_solutions(&self, n: usize) -> Result<Vec<Solution>> {
        let task = self.trained_task()?;
        shown_problems(task, n).iter().map(|problem| self.solution(task, problem)).collect()
    }

    /// The model's answer to the problem whose prompt a person typed (`bdca`, `12+34`).
    pub fn solve(&self, typed: &str) -> Result<Solution> {
        let task = self.trained_task()?;
        self.solution(task, &task.parse(typed, self.model().config().block_size)?)
    }

    fn solution(&self, task: &TaskData, problem: &Problem) -> Result<Solution> {
        let answer = self.greedy_answer(problem, &[])?;
        Ok(Solution {
            prompt: task.text(problem.prompt()),
            answer: task.text(&answer),
            expected: task.text(problem.answer()),
            correct: answer == problem.answer(),
            origin: match (task.makes(problem), task.split_of(problem)) {
                (false, _) => Origin::Outside,
                (true, Split::Train) => Origin::Training,
                (true, Split::Val) => Origin::HeldOut,
            },
        })
    }

    /// The answer greedy decoding writes with `edits` made to the model: at each position the
    /// most likely token (the first of equals), read by a full forward pass as evaluation reads
    /// it, so a problem it marks right is one evaluation counts right; a given token as it is.
    pub(crate) fn greedy_answer(&self, problem: &Problem, edits: &[Edit]) -> Result<Vec<u32>> {
        let v = self.vocab_size();
        let mut context: Vec<usize> = problem.prompt().iter().map(|&t| t as usize).collect();
        for (i, &given) in problem.answer().iter().enumerate() {
            if problem.is_given(i) {
                context.push(given as usize);
                continue;
            }
            let logits = self.model().logits_edited(&context, 1, context.len(), edits)?;
            let last = &logits.as_slice().expect("fresh logits")[(context.len() - 1) * v..];
            context.push(crate::ops::argmax(last));
        }
        Ok(context[problem.prompt_len..].iter().map(|&t| t as u32).collect())
    }
}

/// The `n` held-out problems the page shows (at most [`MAX_SHOWN`]), the same ones each time.
pub(crate) fn shown_problems(task: &TaskData, n: usize) -> Vec<Problem> {
    let mut rng = Rng::new(SHOWN_SEED);
    (0..n.min(MAX_SHOWN)).map(|_| task.draw(Split::Val, &mut rng)).collect()
}

/// The held-out problem the page shows whole (the attention view's text), always the same.
pub(crate) fn shown_example(task: &TaskData) -> Problem {
    task.example(Split::Val, SHOWN_SEED)
}

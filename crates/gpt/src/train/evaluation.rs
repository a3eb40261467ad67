//! Evaluating a run: the mean loss over `eval_iters` random batches of each split, a job
//! (`work/sharing.rs`) planned once ([`Run::plan_evaluation`]), its batches computed by the run (on
//! threads natively) and any helpers, then added up in batch order ([`Run::finish_evaluation`]),
//! so the numbers never depend on how many workers computed them; and the loss over every window
//! of a text ([`Run::text_loss`]).

use super::history::Evaluation;
use crate::data::Split;
use crate::error::{Error, Result};
use crate::model::GPT;
use crate::rng::Rng;
use crate::run::Run;
use crate::work::sharing::{no_job, JobKind, Outcome};
use crate::work::{EvalPlan, Work};

const EVAL_STREAM: u64 = 0x6576_616c_0000_0002;

impl Run {
    /// Whether the schedule calls for an evaluation now: every `eval_interval` steps, at the
    /// start and at the end.
    pub fn eval_due(&self) -> bool {
        let done = self.history.evals.last().is_some_and(|e| e.step == self.step);
        !done && (self.step.is_multiple_of(self.train.eval_interval()) || self.step == self.train.max_iters)
    }

    /// Steps to train before the next evaluation is due (or the run ends).
    pub fn steps_to_next_eval(&self) -> usize {
        let interval = self.train.eval_interval();
        let next = (self.step / interval + 1) * interval;
        next.min(self.train.max_iters).saturating_sub(self.step).max(1)
    }

    /// Draws this step's evaluation batches (`eval_iters` of each split, the training split's
    /// first). They depend only on the seed and the step, never on earlier evaluations.
    pub(crate) fn plan_evaluation(&self) -> Result<Work> {
        let (b, block, t) = (self.train.batch_size, self.model.config().block_size, self.seq_len());
        let data = self.data()?;
        let mut rng = Rng::new(self.train.seed ^ EVAL_STREAM ^ (self.step as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let iters = self.train.eval_iters.max(1);
        let (mut x, mut y) = (vec![], vec![]);
        let (mut inputs, mut targets) = (Vec::with_capacity(2 * iters * b * t), Vec::with_capacity(2 * iters * b * t));
        for split in [Split::Train, Split::Val] {
            for _ in 0..iters {
                data.batch(split, b, block, &mut rng, &mut x, &mut y);
                inputs.extend_from_slice(&x);
                targets.extend_from_slice(&y);
            }
        }
        Ok(Work::Evaluation(EvalPlan { batches: 2 * iters, batch_size: b, block_size: t, inputs, targets }))
    }

    /// The evaluation in progress from every batch's loss (and, for a task, its problems
    /// answered exactly right): recorded in the history (with the attention snapshot the
    /// time-lapse shows) and returned.
    pub(crate) fn finish_evaluation(&mut self) -> Result<Evaluation> {
        let job = self.job.take().ok_or_else(no_job)?;
        let Work::Evaluation(plan) = &job.work else {
            return Err(Error::Config("a step is in progress, not an evaluation".into()));
        };
        self.settle_copies(&job);
        let [train, val] = plan.mean_losses(job.partials)?;
        let task = self.task().is_some();
        let evaluation = Evaluation {
            step: self.step,
            train_loss: train.loss,
            val_loss: val.loss,
            train_accuracy: task.then_some(train.accuracy),
            val_accuracy: task.then_some(val.accuracy),
        };
        self.history.evals.push(evaluation);
        self.record_heads()?;
        self.record_ablations()?;
        self.record_composition()?;
        self.record_fourier()?;
        Ok(evaluation)
    }

    /// A whole evaluation on this run's threads.
    pub fn evaluate(&mut self) -> Result<Evaluation> {
        match self.run_alone(JobKind::Evaluation, &|| 0.0)? {
            Outcome::Evaluation(evaluation) => Ok(evaluation),
            Outcome::Step(_) => Err(Error::Config("an evaluation ended as a step".into())),
        }
    }

    /// The mean cross-entropy over every non-overlapping `block_size` window of `tokens` (each
    /// predicting its next `block_size` tokens), and how many windows there were. Unlike
    /// [`Run::evaluate`], it draws nothing at random.
    pub fn text_loss(&self, tokens: &[u32]) -> Result<(f32, usize)> {
        windows_loss(&self.model, tokens)
    }
}

/// Windows per forward pass; bounds memory while keeping the matrix products large.
const WINDOWS_PER_BATCH: usize = 16;

/// The mean loss over every window of `tokens`, and how many there were (see [`Run::text_loss`]).
fn windows_loss(model: &GPT, tokens: &[u32]) -> Result<(f32, usize)> {
    let t = model.config().block_size;
    let windows = tokens.len().saturating_sub(1) / t;
    if windows == 0 {
        return Err(Error::Data(format!(
            "the text has {} tokens, but one window needs {} (block size + 1)",
            tokens.len(),
            t + 1
        )));
    }
    let (mut x, mut y) = (Vec::new(), Vec::new());
    let mut total = 0.0f64;
    for first in (0..windows).step_by(WINDOWS_PER_BATCH) {
        let b = WINDOWS_PER_BATCH.min(windows - first);
        x.clear();
        y.clear();
        for w in first..first + b {
            x.extend(tokens[w * t..(w + 1) * t].iter().map(|&i| i as usize));
            y.extend(tokens[w * t + 1..(w + 1) * t + 1].iter().map(|&i| i as usize));
        }
        total += model.loss(&x, &y, b, t)? as f64 * b as f64;
    }
    Ok(((total / windows as f64) as f32, windows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GPTConfig;

    #[test]
    fn averages_every_window_in_batches() {
        let config = GPTConfig { vocab_size: 5, block_size: 3, n_layer: 1, n_head: 1, n_embd: 4, ..Default::default() };
        let model = GPT::new(config, 1).unwrap();
        let tokens: Vec<u32> = (0..100).map(|i| (i * 7 % 5) as u32).collect();
        let (loss, windows) = windows_loss(&model, &tokens).unwrap();
        assert_eq!(windows, 33);
        let one_by_one: f32 = (0..33)
            .map(|w| {
                let ids = |o: usize| (w * 3 + o..w * 3 + o + 3).map(|i| tokens[i] as usize).collect::<Vec<_>>();
                model.loss(&ids(0), &ids(1), 1, 3).unwrap()
            })
            .sum::<f32>()
            / 33.0;
        assert!((loss - one_by_one).abs() < 1e-5, "{loss} vs {one_by_one}");
        assert!(windows_loss(&model, &tokens[..3]).unwrap_err().to_string().contains("needs 4"));
    }
}

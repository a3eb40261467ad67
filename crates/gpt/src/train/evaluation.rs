//! Evaluating: the mean loss over `eval_iters` random batches of each split, a job
//! (`sharing.rs`) planned once ([`Trainer::plan_evaluation`]), its batches computed by the trainer
//! (on threads natively) and any helpers, then added up in batch order
//! ([`Trainer::finish_evaluation`]), so the numbers never depend on how many workers computed them.

use super::history::Evaluation;
use super::sharing::{no_job, JobKind};
use super::trainable::{Batches, Trainable};
use super::trainer::Trainer;
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::words::runs::bug;
use crate::work::{EvalPlan, Split, Work};

const EVAL_STREAM: u64 = 0x6576_616c_0000_0002;

impl<M: Trainable> Trainer<M> {
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

    /// Draws this step's evaluation batches from `data` (`eval_iters` of each split, the
    /// training split's first). They depend only on the seed and the step, never on earlier
    /// evaluations.
    pub(crate) fn plan_evaluation(&self, data: &dyn Batches) -> Work {
        let (b, block) = (self.train.batch_size, self.model.block_size());
        let t = data.seq_len(block);
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
        Work::Evaluation(EvalPlan { batches: 2 * iters, batch_size: b, block_size: t, inputs, targets })
    }

    /// The evaluation in progress from every batch's loss (and, for a task, its problems
    /// answered exactly right): recorded in the history and returned.
    pub(crate) fn finish_evaluation(&mut self) -> Result<Evaluation> {
        let job = self.job.take().ok_or_else(no_job)?;
        let Work::Evaluation(plan) = &job.work else {
            return Err(Error::Config(bug("a step is in progress, not an evaluation")));
        };
        self.settle_copies(&job);
        let [train, val] = plan.mean_losses(job.partials)?;
        let answers = self.scores_answers;
        let evaluation = Evaluation {
            step: self.step,
            train_loss: train.loss,
            val_loss: val.loss,
            train_accuracy: answers.then_some(train.accuracy),
            val_accuracy: answers.then_some(val.accuracy),
        };
        self.history.evals.push(evaluation);
        Ok(evaluation)
    }

    /// A whole evaluation on `data`, on the trainer's threads.
    pub fn evaluate(&mut self, data: &dyn Batches) -> Result<Evaluation> {
        self.run_alone(JobKind::Evaluation, data, &|| 0.0)?.evaluation()
    }
}

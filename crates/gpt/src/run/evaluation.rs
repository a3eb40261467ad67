//! Evaluating a run: the mean loss over `eval_iters` random batches of each split. Planned once
//! ([`Run::begin_evaluation`]), its batches computed here (on threads natively) or by other
//! workers, then added up in batch order ([`Run::finish_evaluation`]), so the numbers never
//! depend on how many workers computed them.

use super::Run;
use crate::data::Split;
use crate::error::{Error, Result};
use crate::evaluate::EvalPlan;
use crate::rng::Rng;
use crate::shards::Work;
use crate::train::Evaluation;

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
    pub fn begin_evaluation(&mut self) -> Result<&Work> {
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
        let plan = EvalPlan { batches: 2 * iters, batch_size: b, block_size: t, inputs, targets };
        let rng_after = self.rng.clone();
        Ok(self.begin(Work::Evaluation(plan), rng_after, 0.0))
    }

    /// The evaluation in progress from every batch's loss (and, for a task, its problems
    /// answered exactly right): recorded in the history (with the attention snapshot the
    /// time-lapse shows) and returned.
    pub fn finish_evaluation(&mut self) -> Result<Evaluation> {
        let pending = self.pending.take().ok_or_else(|| Error::Config("no evaluation is in progress".into()))?;
        let Work::Evaluation(plan) = &pending.work else {
            self.pending = Some(pending);
            return Err(Error::Config("a step is in progress, not an evaluation".into()));
        };
        let [train, val] = plan.mean_losses(pending.partials)?;
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
        Ok(evaluation)
    }

    /// A whole evaluation on this run's threads.
    pub fn evaluate(&mut self) -> Result<Evaluation> {
        let batches = self.begin_evaluation()?.units();
        if let Err(e) = self.compute_shards(0..batches) {
            self.abort_step();
            return Err(e);
        }
        self.finish_evaluation()
    }
}

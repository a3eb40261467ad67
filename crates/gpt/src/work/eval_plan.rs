//! An evaluation's work: random batches of each split, a unit each, whose losses are added up in
//! batch order.

use super::partial::{one_per_unit, Partial};
use crate::error::{Error, Result};
use crate::words::runs::bug;
use serde::{Deserialize, Serialize};

/// One evaluation's batches: `eval_iters` of the training split, then as many of the validation
/// split. Each batch is a unit of work of its own; workers compute contiguous ranges of them, and
/// the run adds the losses up in batch order, so the result never depends on the worker count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalPlan {
    pub batches: usize,
    pub batch_size: usize,
    pub block_size: usize,
    /// `batches × batch_size × block_size` token ids, batch after batch.
    pub inputs: Vec<u32>,
    /// The ids that follow them.
    pub targets: Vec<u32>,
}

impl EvalPlan {
    /// Checks a plan that came from elsewhere (another worker) before computing with it.
    pub(crate) fn check(&self) -> Result<()> {
        let n = self.batches.checked_mul(self.batch_size).and_then(|n| n.checked_mul(self.block_size));
        if !self.batches.is_multiple_of(2) || n != Some(self.inputs.len()) || n != Some(self.targets.len()) {
            return Err(Error::Data(bug("an evaluation plan's batches do not match its sizes")));
        }
        Ok(())
    }

    /// Each split's mean loss and share of rows exactly right, from every batch's partial, added
    /// up in batch order.
    pub fn mean_losses(&self, partials: Vec<Partial>) -> Result<[SplitScore; 2]> {
        let partials = one_per_unit(partials, self.batches, "batches of the evaluation")?;
        let half = self.batches / 2;
        let score = |part: &[Partial]| SplitScore {
            loss: part.iter().fold(0.0f32, |total, p| total + p.loss as f32) / half as f32,
            accuracy: part.iter().map(|p| p.exact).sum::<usize>() as f32 / (half * self.batch_size) as f32,
        };
        Ok([score(&partials[..half]), score(&partials[half..])])
    }
}

/// How a model did on one split of an evaluation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplitScore {
    pub loss: f32,
    /// The share of rows whose every counted target was the model's most likely token.
    pub accuracy: f32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_split_averages_its_batches_losses_and_counts_its_rows_right() {
        let plan = EvalPlan { batches: 4, batch_size: 8, block_size: 2, inputs: vec![0; 64], targets: vec![0; 64] };
        let partial = |first, loss, exact| Partial { first, count: 1, loss, exact, grads: vec![] };
        // Batches 0 and 1 are the training split's, 2 and 3 the held-out split's, in any order.
        let partials = vec![partial(3, 1.0, 8), partial(0, 2.0, 3), partial(2, 3.0, 4), partial(1, 4.0, 5)];
        let [train, val] = plan.mean_losses(partials).unwrap();
        assert_eq!((train.loss, train.accuracy), (3.0, 0.5), "(2 + 4) / 2 and (3 + 5) of 16 rows");
        assert_eq!((val.loss, val.accuracy), (2.0, 0.75), "(3 + 1) / 2 and (4 + 8) of 16 rows");
        assert!(plan.mean_losses(vec![partial(0, 1.0, 0)]).is_err(), "a batch missing");
    }
}

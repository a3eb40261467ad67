//! An evaluation's work: random batches of each split, a unit each, whose losses are added up in
//! batch order; then, for the page's views, every head and MLP knocked out in turn (the ablation
//! grid, `inspect/knockout.rs`), a unit each.

use super::partial::Partial;
use crate::error::{Error, Result};
use crate::inspect::knockout::{Knocked, Knockouts};
use crate::model::GPT;
use crate::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::ops::Range;

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
    /// The ablation grid's units, after the batches.
    #[serde(default)]
    pub grid: Option<Knockouts>,
}

impl EvalPlan {
    /// Checks a plan that came from elsewhere (another worker) before computing with it.
    pub(crate) fn check(&self) -> Result<()> {
        let n = self.batches.checked_mul(self.batch_size).and_then(|n| n.checked_mul(self.block_size));
        if !self.batches.is_multiple_of(2) || n != Some(self.inputs.len()) || n != Some(self.targets.len()) {
            return Err(Error::Data("an evaluation plan's batches do not match its sizes".into()));
        }
        Ok(())
    }

    /// How many units: the batches, then the grid's.
    pub fn units(&self) -> usize {
        self.batches + self.grid.as_ref().map_or(0, Knockouts::units)
    }

    /// The loss of each unit in `range` and how many rows the model gets exactly right, as
    /// one-unit partials without gradients: a batch's, or the grid's rows with a part knocked out.
    pub fn partials(&self, model: &GPT, range: Range<usize>, ws: &Workspace) -> Result<Vec<Partial>> {
        self.check()?;
        if range.end > self.units() || range.is_empty() {
            return Err(Error::Data(format!("units {range:?} are not among the {} of this evaluation", self.units())));
        }
        let knocked = match &self.grid {
            Some(grid) if range.end > self.batches => {
                let first = range.start.max(self.batches);
                let knocked = grid.knock(model, first - self.batches..range.end - self.batches, ws)?;
                let partial = |(i, k): (usize, Knocked)| Partial {
                    first: first + i,
                    count: 1,
                    loss: k.loss as f64,
                    exact: k.exact,
                    grads: Vec::new(),
                };
                knocked.into_iter().enumerate().map(partial).collect()
            }
            _ => vec![],
        };
        let range = range.start..range.end.min(self.batches);
        let (b, t) = (self.batch_size, self.block_size);
        let pinned = ws.pin(&model.params().values);
        fn batch(v: &[u32], i: usize, n: usize) -> &[u32] {
            &v[i * n..(i + 1) * n]
        }
        let partials: Result<Vec<Partial>> = range
            .map(|i| {
                let inputs: Vec<usize> = batch(&self.inputs, i, b * t).iter().map(|&id| id as usize).collect();
                let targets = crate::data::targets(batch(&self.targets, i, b * t));
                let (loss, exact) = model.score_in(ws, &inputs, &targets, b, t)?;
                Ok(Partial { first: i, count: 1, loss: loss as f64, exact, grads: Vec::new() })
            })
            .collect();
        drop(pinned);
        ws.trim();
        Ok(partials?.into_iter().chain(knocked).collect())
    }

    /// Each split's mean loss and share of rows exactly right, from every batch's partial, added
    /// up in batch order; and the grid's units' results, in order.
    pub fn tally(&self, mut partials: Vec<Partial>) -> Result<([SplitScore; 2], Vec<Knocked>)> {
        partials.sort_by_key(|p| p.first);
        let tiles = partials.iter().enumerate().all(|(i, p)| p.first == i && p.count == 1);
        if partials.len() != self.units() || !tiles {
            return Err(Error::Data(format!(
                "the evaluation's results do not cover its {} units once each",
                self.units()
            )));
        }
        let knocked =
            partials[self.batches..].iter().map(|p| Knocked { loss: p.loss as f32, exact: p.exact }).collect();
        let half = self.batches / 2;
        let score = |part: &[Partial]| SplitScore {
            loss: part.iter().fold(0.0f32, |total, p| total + p.loss as f32) / half as f32,
            accuracy: part.iter().map(|p| p.exact).sum::<usize>() as f32 / (half * self.batch_size) as f32,
        };
        Ok(([score(&partials[..half]), score(&partials[half..self.batches])], knocked))
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
        let plan = EvalPlan {
            batches: 4,
            batch_size: 8,
            block_size: 2,
            inputs: vec![0; 64],
            targets: vec![0; 64],
            grid: None,
        };
        let partial = |first, loss, exact| Partial { first, count: 1, loss, exact, grads: vec![] };
        // Batches 0 and 1 are the training split's, 2 and 3 the held-out split's, in any order.
        let partials = vec![partial(3, 1.0, 8), partial(0, 2.0, 3), partial(2, 3.0, 4), partial(1, 4.0, 5)];
        let ([train, val], _) = plan.tally(partials).unwrap();
        assert_eq!((train.loss, train.accuracy), (3.0, 0.5), "(2 + 4) / 2 and (3 + 5) of 16 rows");
        assert_eq!((val.loss, val.accuracy), (2.0, 0.75), "(3 + 1) / 2 and (4 + 8) of 16 rows");
        assert!(plan.tally(vec![partial(0, 1.0, 0)]).is_err(), "a batch missing");
    }
}

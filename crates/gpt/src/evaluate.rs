//! Evaluation: the mean loss over a run's random batches of each split, planned once and computed
//! by any number of workers ([`EvalPlan`]), and the loss over every window of a text.

use crate::error::{Error, Result};
use crate::model::GPT;
use crate::shards::Partial;
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
}

impl EvalPlan {
    /// Checks a plan that came from elsewhere (another worker) before computing with it.
    fn check(&self) -> Result<()> {
        let n = self.batches.checked_mul(self.batch_size).and_then(|n| n.checked_mul(self.block_size));
        if !self.batches.is_multiple_of(2) || n != Some(self.inputs.len()) || n != Some(self.targets.len()) {
            return Err(Error::Data("an evaluation plan's batches do not match its sizes".into()));
        }
        Ok(())
    }

    /// The loss of each batch in `range`, as one-batch partials without gradients.
    pub fn partials(&self, model: &GPT, range: Range<usize>, ws: &Workspace) -> Result<Vec<Partial>> {
        self.check()?;
        if range.end > self.batches || range.is_empty() {
            return Err(Error::Data(format!(
                "batches {range:?} are not among the {} of this evaluation",
                self.batches
            )));
        }
        let (b, t) = (self.batch_size, self.block_size);
        let pinned = ws.pin(&model.params().values);
        let ids = |v: &[u32], i: usize| v[i * b * t..(i + 1) * b * t].iter().map(|&id| id as usize).collect::<Vec<_>>();
        let partials = range
            .map(|i| {
                let loss = model.loss_in(ws, &ids(&self.inputs, i), &ids(&self.targets, i), b, t)?;
                Ok(Partial { first: i, count: 1, loss: loss as f64, grads: Vec::new() })
            })
            .collect();
        drop(pinned);
        ws.trim();
        partials
    }

    /// The mean loss of each split from every batch's partial, added up in batch order.
    pub fn mean_losses(&self, mut partials: Vec<Partial>) -> Result<(f32, f32)> {
        partials.sort_by_key(|p| p.first);
        let tiles = partials.iter().enumerate().all(|(i, p)| p.first == i && p.count == 1);
        if partials.len() != self.batches || !tiles {
            return Err(Error::Data(format!(
                "the evaluation's losses do not cover its {} batches once each",
                self.batches
            )));
        }
        let half = self.batches / 2;
        let mean = |part: &[Partial]| part.iter().fold(0.0f32, |total, p| total + p.loss as f32) / half as f32;
        Ok((mean(&partials[..half]), mean(&partials[half..])))
    }
}

/// Windows per forward pass; bounds memory while keeping the matrix products large.
const WINDOWS_PER_BATCH: usize = 16;

/// The mean cross-entropy over every non-overlapping `block_size` window of `tokens` (each
/// predicting its next `block_size` tokens), and how many windows there were. Unlike
/// [`Trainer::evaluate`](crate::Trainer::evaluate), it draws nothing at random.
pub fn windows_loss(model: &GPT, tokens: &[u32]) -> Result<(f32, usize)> {
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

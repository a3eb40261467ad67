//! A training step's work: its batch split into shards, and each shard's gradient.

use super::partial::{push_merging, Partial};
use crate::error::{Error, Result};
use crate::model::{Batch, GPT};
use crate::rng::Rng;
use crate::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// The most shards a batch splits into, and so the most workers a step can use.
pub const MAX_SHARDS: usize = 8;

/// The fewest tokens worth a shard of their own. Smaller matrix products and one more gradient
/// to sum per shard cost more than they give: natively, nano-cpu's 768 tokens a step in shards
/// of 96 ran 9% slower on one thread than in one piece, in shards of 192 no slower.
pub const MIN_SHARD_TOKENS: usize = 192;

/// How many shards a batch of `batch` sequences of `block` tokens splits into: the largest power
/// of two (so the tree is perfect) within the batch, [`MAX_SHARDS`] and [`MIN_SHARD_TOKENS`].
pub fn shard_count(batch: usize, block: usize) -> usize {
    let by_size = batch.saturating_mul(block) / MIN_SHARD_TOKENS;
    let cap = batch.min(MAX_SHARDS).min(by_size).max(1);
    1 << cap.ilog2()
}

/// The sequences of shard `s` of `shards`: spread evenly, so that halves, quarters and eighths of
/// the shards hold equal numbers of sequences (as equal as the batch allows).
pub fn shard_rows(batch: usize, shards: usize, s: usize) -> Range<usize> {
    s * batch / shards..(s + 1) * batch / shards
}

/// One step's work as the run draws it: the batch and, when the model has dropout, the seed of
/// every shard's masks. Replicas need nothing else (and the current weights) to compute shards.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepPlan {
    /// How many shards the batch splits into: [`shard_count`] of the run's settings.
    pub shards: usize,
    pub batch_size: usize,
    pub block_size: usize,
    /// `batch_size × block_size` token ids, sequence after sequence.
    pub inputs: Vec<u32>,
    /// The ids that follow them.
    pub targets: Vec<u32>,
    pub dropout_seed: Option<u64>,
}

impl StepPlan {
    /// Checks a plan that came from elsewhere (another worker) before computing with it.
    pub(crate) fn check(&self) -> Result<()> {
        let n = self.batch_size.checked_mul(self.block_size);
        let shards_ok = self.shards.is_power_of_two() && self.shards <= self.batch_size;
        if !shards_ok || n != Some(self.inputs.len()) || n != Some(self.targets.len()) {
            return Err(Error::Data("a step plan's batch does not match its sizes".into()));
        }
        Ok(())
    }
}

impl GPT {
    /// Computes shards `range` of `plan` and returns the sums of the whole aligned subtrees in it,
    /// in order. Passes take buffers from `ws` (one per thread); gradients from `grads`, a pool
    /// the threads share, so a buffer one thread fills and another merges comes back to all.
    pub fn shard_partials(
        &self,
        plan: &StepPlan,
        range: Range<usize>,
        ws: &Workspace,
        grads: &Workspace,
    ) -> Result<Vec<Partial>> {
        plan.check()?;
        let (shards, b, t) = (plan.shards, plan.batch_size, plan.block_size);
        if range.end > shards || range.is_empty() {
            return Err(Error::Data(format!("shards {range:?} are not among the {shards} of this step")));
        }
        let mut stack = Vec::new();
        let pinned = ws.pin(&self.params().values);
        // Each shard's mean loss counts in proportion to its counted targets, so the sum is the
        // batch's mean over them (for text, every target: the shard's share of the rows).
        let counted = |v: &[u32]| v.iter().filter(|&&t| t != crate::data::IGNORE).count();
        let batch_counted = counted(&plan.targets).max(1);
        for s in range {
            let rows = shard_rows(b, shards, s);
            let n = rows.len();
            let cells = rows.start * t..rows.end * t;
            let idx: Vec<usize> = plan.inputs[cells.clone()].iter().map(|&i| i as usize).collect();
            let targets = crate::data::targets(&plan.targets[cells.clone()]);
            let mut dropout =
                plan.dropout_seed.map(|seed| Rng::new(seed ^ (s as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
            let weight = counted(&plan.targets[cells]) as f32 / batch_counted as f32;
            let mut leaf = grads.scratch(self.params().count()); // backward overwrites all of it
            let batch = Batch { idx: &idx, targets: &targets, b: n, t };
            let loss = self.loss_and_grad(ws, batch, dropout.as_mut(), weight, &mut leaf);
            let loss = loss.inspect_err(|_| grads.recycle(std::mem::take(&mut leaf)))?;
            push_merging(
                &mut stack,
                Partial { first: s, count: 1, loss: loss as f64 * weight as f64, exact: 0, grads: leaf },
                grads,
            );
        }
        drop(pinned);
        ws.trim();
        Ok(stack)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::work::partial::worker_units;

    #[test]
    fn shards_are_fixed_by_the_batch_and_balanced() {
        let counts: Vec<usize> = [1, 2, 3, 5, 8, 12, 16, 100].iter().map(|&b| shard_count(b, 1000)).collect();
        assert_eq!(counts, [1, 2, 2, 4, 8, 8, 8, 8]);
        // nano-cpu (12 × 64), tiny (16 × 32), a larger recipe (64 × 256): at least 192 tokens a shard.
        assert_eq!((shard_count(12, 64), shard_count(16, 32), shard_count(64, 256)), (4, 2, 8));
        let sizes: Vec<usize> = (0..8).map(|s| shard_rows(12, 8, s).len()).collect();
        assert_eq!(sizes, [1, 2, 1, 2, 1, 2, 1, 2]);
        let half = |k| worker_units(8, 2, k).map(|s| shard_rows(12, 8, s).len()).sum::<usize>();
        assert_eq!((half(0), half(1)), (6, 6));
        let covered: Vec<usize> = (0..3).flat_map(|k| worker_units(8, 3, k)).collect();
        assert_eq!(covered, (0..8).collect::<Vec<_>>());
    }
}

//! A training step's work: its batch, split into shards that workers compute (`train/units.rs`).

use crate::error::{Error, Result};
use crate::words::runs::bug;
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
            return Err(Error::Data(bug("a step plan's batch does not match its sizes")));
        }
        Ok(())
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

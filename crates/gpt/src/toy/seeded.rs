//! What the toy models share as models of the one trainer: each batch row is a seed its example is
//! drawn from, there is no dropout, and no finite loss counts as diverged. A toy answers only for
//! its weights and its loss on the seeds' rows; [`Trainable`] follows.

use crate::error::{Error, Result};
use crate::params::Params;
use crate::rng::Rng;
use crate::train::Trainable;
use crate::work::Batch;
use crate::workspace::Workspace;

/// A toy model, as the trainer needs it.
pub trait SeededModel: Send + Sync {
    fn params(&self) -> &Params;
    fn params_mut(&mut self) -> &mut Params;
    /// The mean loss on the rows `seeds` draw; with `grads`, adds `weight` times its gradient.
    fn seeded_loss(&self, seeds: &[usize], grads: Option<(&mut [f32], f32)>) -> f32;
}

impl<T: SeededModel> Trainable for T {
    fn params(&self) -> &Params {
        SeededModel::params(self)
    }

    fn params_mut(&mut self) -> &mut Params {
        SeededModel::params_mut(self)
    }

    fn block_size(&self) -> usize {
        1
    }

    fn dropout(&self) -> f32 {
        0.0
    }

    fn set_dropout(&mut self, p: f32) -> Result<()> {
        if p == 0.0 {
            Ok(())
        } else {
            Err(Error::Config(crate::words::toy::no_dropout()))
        }
    }

    /// No finite loss counts as diverged: a fresh toy's first losses may be far above where it
    /// ends (the toy model of superposition: fifty times what reconstructing nothing costs).
    fn uniform_loss(&self) -> f32 {
        f32::MAX
    }

    fn loss_and_grad(
        &self,
        _ws: &Workspace,
        batch: Batch,
        _masks: Option<&mut Rng>,
        weight: f32,
        grads: &mut [f32],
    ) -> Result<f32> {
        let mut fresh = vec![0.0; grads.len()];
        let loss = self.seeded_loss(batch.idx, Some((&mut fresh, weight)));
        if loss.is_finite() {
            grads.copy_from_slice(&fresh);
        }
        Ok(loss)
    }

    fn score(&self, _ws: &Workspace, batch: Batch) -> Result<(f32, usize)> {
        Ok((self.seeded_loss(batch.idx, None), 0))
    }
}

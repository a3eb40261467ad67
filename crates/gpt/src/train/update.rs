//! A step's update, from its summed gradients to new weights: the same code on the run and on
//! each helper, whose copies of the model and the optimiser so stay identical, bit for bit, and
//! need no weights sent between steps (`work/`).

use crate::config::TrainConfig;
use crate::error::{Error, Result};
use crate::optim::{clip_grad_norm, global_norm, Optimizer, Rates};
use crate::params::Params;
use crate::words::{fixed, runs, runs::bug, Words};
use crate::work::{Partial, Update};
use crate::workspace::Workspace;

/// What a step's update reads beside the model and the optimiser.
#[derive(Clone, Copy)]
pub(crate) struct Rules<'a> {
    pub train: &'a TrainConfig,
    /// Steps taken before this one.
    pub step: usize,
    pub uniform_loss: f32,
}

/// What a step did, as its statistics record it.
pub(crate) struct Applied {
    pub loss: f32,
    pub lr: f32,
    pub grad_norm: f32,
    /// The step's tallies (see [`crate::train::Trainable::tally_len`]).
    pub tallies: Vec<f32>,
}

impl Rules<'_> {
    /// Checks the step's summed gradients `root`, clips them, and begins `optimizer`'s update:
    /// its pieces, to compute before [`Rules::finish`]. A loss that is not finite or has exploded
    /// far past a uniform guess, or a non-finite gradient, is [`Error::Diverged`], and nothing
    /// changes.
    pub fn begin(
        &self,
        mut root: Partial,
        params: &Params,
        optimizer: &dyn Optimizer,
        pool: &Workspace,
    ) -> Result<Update> {
        let (loss, lr, n) = (root.loss as f32, self.train.schedule().lr(self.step), params.count());
        let checked = self.check_and_clip(&mut root.grads[..n], loss, lr);
        let grad_norm = checked.inspect_err(|_| pool.recycle(std::mem::take(&mut root.grads)))?;
        let pieces = optimizer.begin(&params.values, &root.grads[..n]);
        Ok(Update { grads: root.grads, loss, lr, grad_norm, pieces, mine: vec![] })
    }

    /// Applies `update` to `params` and `optimizer`, once every piece is computed.
    pub fn finish(
        &self,
        update: Update,
        params: &mut Params,
        optimizer: &mut dyn Optimizer,
        pool: &Workspace,
    ) -> Result<Applied> {
        let Update { grads, loss, lr, grad_norm, pieces, .. } = update;
        if let Some(k) = pieces.iter().position(|p| !p.done) {
            pool.recycle(grads);
            return Err(Error::Data(bug(format!("piece {k} of the step's update was never computed"))));
        }
        let rates = self.rates(lr);
        let n = params.count();
        optimizer.finish(&mut params.values, &grads[..n], rates, pieces);
        let tallies = grads[n..].to_vec();
        pool.recycle(grads);
        Ok(Applied { loss, lr, grad_norm, tallies })
    }

    /// A step's rates at AdamW's rate `lr`: its share of the peak scales the other optimisers'.
    pub fn rates(&self, lr: f32) -> Rates {
        Rates { lr, scale: lr / self.train.learning_rate }
    }

    /// Checks a step's loss and summed gradients (not its tallies), and clips them; returns their norm before clipping.
    fn check_and_clip(&self, grads: &mut [f32], loss: f32, lr: f32) -> Result<f32> {
        let clipping = self.train.grad_clip > 0.0;
        let diverged =
            |what: Words| Error::Diverged(runs::diverged(self.step + 1, what, format!("{lr:.2e}"), clipping));
        // Far above a uniform guess, the model is no longer learning but blowing up, even while
        // the numbers stay finite (normalisation keeps them bounded).
        let uniform = self.uniform_loss;
        if !loss.is_finite() || loss > 3.0 * uniform + 10.0 {
            return Err(diverged(runs::loss_exploded(loss, fixed(f64::from(uniform), 2))));
        }
        let clip = self.train.grad_clip;
        let grad_norm = if clip > 0.0 { clip_grad_norm(grads, clip) } else { global_norm(grads) };
        if !grad_norm.is_finite() {
            return Err(diverged(runs::gradient_broke()));
        }
        Ok(grad_norm)
    }
}

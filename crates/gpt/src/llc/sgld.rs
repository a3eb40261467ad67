//! One SGLD chain (devinterp's `SGMCMC.sgld` with `sample_single_chain`): at each step a batch
//! drawn by the chain's own seed, its loss recorded once burn-in is over, then the Langevin step.

use super::{Landscape, LlcConfig};
use crate::rng::Rng;

/// The seed of chain `chain`: the estimate's seed mixed with the chain's number, so each chain is
/// the same whichever worker runs it and in whatever order.
fn chain_seed(seed: u64, chain: usize) -> u64 {
    seed ^ (chain as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Chain `chain` from `w_star`: the loss of each draw (at the weights its step starts from), or
/// the losses up to the first that is not finite, which ends it.
pub fn chain(
    landscape: &mut dyn Landscape,
    w_star: &[f32],
    restrict: Option<&[bool]>,
    config: &LlcConfig,
    nbeta: f32,
    chain: usize,
) -> Vec<f32> {
    let mut rng = Rng::new(chain_seed(config.seed, chain));
    let (mut w, mut grad) = (w_star.to_vec(), vec![0.0; w_star.len()]);
    let mut trace = Vec::with_capacity(config.draws);
    let (half, root) = (config.epsilon / 2.0, config.epsilon.sqrt());
    for step in 0..config.burn_in + config.draws {
        let batch = rng.below(landscape.batches());
        let loss = landscape.loss_grad(&w, batch, &mut grad);
        if !loss.is_finite() {
            trace.push(loss);
            break;
        }
        if step >= config.burn_in {
            trace.push(loss);
        }
        for (i, (wi, (&w0, &g))) in w.iter_mut().zip(w_star.iter().zip(&grad)).enumerate() {
            if restrict.is_none_or(|r| r[i]) {
                *wi += half * (-nbeta * g + config.gamma * (w0 - *wi)) + root * rng.normal();
            }
        }
    }
    trace
}
